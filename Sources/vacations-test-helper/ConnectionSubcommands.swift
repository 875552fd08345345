import Foundation
import SQLiteDB

/// What `Connection.closeAllBeforeExit` leaves on disk when a process exits with its
/// connections still held (as `vacation` does after a read).
enum ConnectionSubcommands {
    static let all: [HelperSubcommand] = [exitHolding]

    /// Opens STORE (WAL) twice, writes row VALUE into `T(V)` on the first and keeps both
    /// connections alive; with `--in-transaction`, the second begins a transaction and writes
    /// VALUE + 1 without committing. Then closes what `closeAllBeforeExit` closes and exits 0.
    static let exitHolding = HelperSubcommand(name: "connections-exit", usage: "STORE VALUE [--in-transaction]") { arguments in
        let path = try arguments.positional(0, "STORE")
        guard let value = Int64(try arguments.positional(1, "VALUE")) else { throw HelperUsageError(message: "VALUE must be a number") }
        let first = try Connection(path: path)
        try first.execute("CREATE TABLE IF NOT EXISTS T(V INTEGER)")
        try first.execute("INSERT INTO T(V) VALUES (?)", [.integer(value)])
        // A statement the connection caches, as a store's fetches leave behind.
        _ = try first.scalar("SELECT count(*) FROM T")
        let second = try Connection(path: path)
        if arguments.has("in-transaction") {
            try second.execute("BEGIN IMMEDIATE")
            try second.execute("INSERT INTO T(V) VALUES (?)", [.integer(value + 1)])
        }
        held = [first, second]
        Connection.closeAllBeforeExit()
        exit(0)
    }

    /// The connections, held past the close as a read's objects are.
    @MainActor private static var held: [Connection] = []
}
