import SQLiteDB
import Locking

/// Records every statement a connection runs, so that tests can assert the SQL exactly.
///
/// ```swift
/// let recorder = SQLTraceRecorder()
/// try coordinator.withConnection { recorder.attach(to: $0) }
/// _ = photo.title
/// #expect(recorder.selects.count == 1)
/// ```
public final class SQLTraceRecorder: Sendable {
    private let recorded = Locked<[TraceEvent]>([])

    public init() {}

    /// Records `connection`'s statements from now on.
    public convenience init(_ connection: Connection) {
        self.init()
        attach(to: connection)
    }

    public func attach(to connection: Connection) {
        connection.trace { [self] event in recorded.withLock { $0.append(event) } }
    }

    public func detach(from connection: Connection) { connection.trace(nil) }

    public var events: [TraceEvent] { recorded.withLock { $0 } }

    /// The SQL of each recorded statement, with `?` placeholders.
    public var statements: [String] { events.map(\.sql) }

    /// Statements that read (`SELECT`).
    public var selects: [String] { statements.filter { $0.hasPrefix("SELECT") } }

    /// Statements that write rows.
    public var writes: [String] { statements.filter { $0.hasPrefix("INSERT") || $0.hasPrefix("UPDATE") || $0.hasPrefix("DELETE") } }

    public func clear() { recorded.withLock { $0.removeAll() } }
}
