import Foundation
import SQLiteDB
import Testing
import TestSupport

@Suite("Nested work without savepoints in an all-or-nothing transaction")
struct SavepointlessTransactionTests {
    private struct Failure: Error {}

    /// A connection with a table, tracing its SQL and observing its transaction events.
    private final class Observed {
        let connection: Connection
        var statements: [String] = []
        var events: [TransactionEvent] = []
        var willCommitCalls = 0

        init() throws {
            connection = try Connection.inMemory()
            try connection.execute("CREATE TABLE t (x)")
            connection.trace { [unowned self] event in statements.append(event.sql) }
            connection.observeRowChanges(nil, willCommit: { [unowned self] in willCommitCalls += 1 }, mayCommit: nil,
                                         transactionEvent: { [unowned self] event in events.append(event) })
        }

        var values: String? {
            if case .text(let text)? = try? connection.scalar("SELECT group_concat(x) FROM (SELECT x FROM t ORDER BY x)") { return text }
            return nil
        }
    }

    @Test("nested work writes into the transaction with no SAVEPOINT, and observers see each nested piece begin and end")
    func nestedWorkCommits() throws {
        for depth in 1...3 {
            let observed = try Observed()
            let connection = observed.connection
            connection.nestsSavepoints = false
            try connection.beginTransaction(.immediate)
            func nest(_ level: Int) throws {
                try connection.execute("INSERT INTO t VALUES (\(level))")
                if level < depth { try connection.transaction { try nest(level + 1) } }
            }
            try connection.transaction { try nest(1) }
            try connection.commitTransaction()
            #expect(observed.values == (1...depth).map(String.init).joined(separator: ","))
            #expect(!observed.statements.contains { $0.uppercased().contains("SAVEPOINT") }, "\(observed.statements)")
            #expect(observed.events == Array(repeating: .savepointBegan, count: depth) + Array(repeating: .savepointReleased, count: depth)
                    + [.committed])
            // Each nested piece's end, then the commit.
            #expect(observed.willCommitCalls == depth + 1)
        }
    }

    @Test("a failure in nested work rolls back the whole transaction at once, and its commit then fails")
    func failureRollsBackEverything() throws {
        for caught in [false, true] {
            let observed = try Observed()
            let connection = observed.connection
            try connection.execute("INSERT INTO t VALUES (0)")
            connection.nestsSavepoints = false
            try connection.beginTransaction(.immediate)
            try connection.execute("INSERT INTO t VALUES (1)")
            try connection.transaction { try connection.execute("INSERT INTO t VALUES (2)") }
            #expect(throws: Failure.self) {
                try connection.transaction {
                    try connection.execute("INSERT INTO t VALUES (3)")
                    throw Failure()
                }
            }
            #expect(connection.isAutocommit)
            #expect(observed.events.last == .rolledBack)
            if caught {
                // A caller that went on as if only the nested piece had failed: its work and
                // commit fail rather than run outside the transaction.
                #expect(throws: SQLiteError.self) { try connection.transaction { try connection.execute("INSERT INTO t VALUES (4)") } }
            }
            #expect(throws: SQLiteError.self) { try connection.commitTransaction() }
            #expect(observed.values == "0")
            // The connection is usable again, and a nested failure with savepoints rolls back alone.
            connection.nestsSavepoints = true
            try connection.transaction {
                try connection.execute("INSERT INTO t VALUES (5)")
                #expect(throws: Failure.self) {
                    try connection.transaction {
                        try connection.execute("INSERT INTO t VALUES (6)")
                        throw Failure()
                    }
                }
            }
            #expect(observed.values == "0,5")
        }
    }

    @Test("outside a transaction a savepoint is one, as before, whatever the setting")
    func outsideATransaction() throws {
        for nests in [false, true] {
            let observed = try Observed()
            let connection = observed.connection
            connection.nestsSavepoints = nests
            try connection.savepoint { try connection.execute("INSERT INTO t VALUES (1)") }
            #expect(throws: Failure.self) {
                try connection.savepoint {
                    try connection.execute("INSERT INTO t VALUES (2)")
                    throw Failure()
                }
            }
            #expect(observed.values == "1")
            #expect(observed.statements.filter { $0.hasPrefix("SAVEPOINT") }.count == 2)
            #expect(connection.isAutocommit)
        }
    }
}
