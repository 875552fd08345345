import CSQLite
import Locking

/// The process's open connections and the statements `Statement` prepared on each, by address,
/// so that `Connection.closeAllBeforeExit` can finalize exactly ours (a virtual table's own
/// statements, FTS5's, are SQLite's to finalize at the close) and close the connections, and so
/// that neither is finalized or closed again afterwards. Statements are prepared once and
/// cached, so the lock around each prepare and finalize costs nothing that shows.
struct OpenConnections: ~Copyable {
    static let shared = Locked(OpenConnections())

    private var statements: [Int: Set<Int>] = [:]
    private var exiting = false

    private static func key(_ pointer: OpaquePointer) -> Int { Int(bitPattern: UnsafeRawPointer(pointer)) }

    mutating func add(connection: OpaquePointer) { statements[Self.key(connection)] = [] }

    /// Forgets `connection`; false when it was not open (the exit's close took it).
    @discardableResult
    mutating func remove(connection: OpaquePointer) -> Bool { statements.removeValue(forKey: Self.key(connection)) != nil }

    mutating func add(statement: OpaquePointer, of connection: OpaquePointer) {
        statements[Self.key(connection)]?.insert(Self.key(statement))
    }

    /// Forgets `statement`; false when the process is exiting, whose close finalized it.
    mutating func remove(statement: OpaquePointer) -> Bool {
        if exiting { return false }
        if let connection = sqlite3_db_handle(statement) { statements[Self.key(connection)]?.remove(Self.key(statement)) }
        return true
    }

    mutating func closeAllForExit() {
        exiting = true
        for (address, prepared) in statements {
            guard let connection = OpaquePointer(bitPattern: address), sqlite3_get_autocommit(connection) != 0 else { continue }
            for statement in prepared { sqlite3_finalize(OpaquePointer(bitPattern: statement)) }
            sqlite3_close_v2(connection)
        }
        statements = [:]
    }
}
