import SQLiteDB

/// Records every statement a connection runs, so that tests can assert the SQL exactly.
///
/// ```swift
/// let recorder = SQLTraceRecorder(connection)
/// _ = try context.fetch(request)
/// #expect(recorder.statements == ["SELECT …"])
/// ```
public final class SQLTraceRecorder {
    public private(set) var events: [TraceEvent] = []
    private let connection: Connection

    public init(_ connection: Connection) {
        self.connection = connection
        connection.trace { [unowned self] event in self.events.append(event) }
    }

    /// The SQL of each recorded statement, with `?` placeholders.
    public var statements: [String] { events.map(\.sql) }

    /// Statements that read (`SELECT`), excluding pragmas and transaction control.
    public var selects: [String] { statements.filter { $0.hasPrefix("SELECT") } }

    public func clear() { events.removeAll() }

    public func stop() { connection.trace(nil) }

    deinit { connection.trace(nil) }
}
