import Foundation
import SQLiteDB
import Testing
import TestSupport

/// The fault-injecting VFS itself: it counts a connection's I/O calls, fails the one asked for
/// with the error SQLite would see from a failing disk, and leaves files elsewhere alone.
@Suite("Fault-injecting VFS")
struct FaultVFSTests {
    private func writeRows(_ path: String, from first: Int, count: Int) throws {
        let connection = try Connection(path: path)
        if try !connection.tableExists("t") { try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)") }
        try connection.transaction(.immediate) {
            for id in first..<(first + count) { try connection.execute("INSERT INTO t VALUES (?, ?)", [.integer(Int64(id)), .text("row \(id)")]) }
        }
    }

    private func rowCount(_ path: String) throws -> Int {
        let connection = try Connection(path: path)
        return Int(try connection.scalar("SELECT count(*) FROM t")?.integerValue ?? -1)
    }

    @Test("a clean run counts its calls of every kind; the same run twice counts the same")
    func countsCalls() throws {
        let directory = try TemporaryDirectory(prefix: "faultvfs", inMemory: true)
        let faults = try FaultSession(folder: directory.url)
        let path = directory.path("store.sqlite").path
        try writeRows(path, from: 0, count: 10)
        let first = try faults.counting { try writeRows(path, from: 10, count: 10) }
        let kinds = faults.callsByKind
        let second = try faults.counting { try writeRows(path, from: 20, count: 10) }
        #expect(first > 10)
        #expect(first == second)
        #expect(kinds[.open, default: 0] >= 1)
        #expect(kinds[.read, default: 0] >= 1)
        #expect(kinds[.write, default: 0] >= 1)
        #expect(kinds[.walIndexLock, default: 0] >= 1)
        #expect(try rowCount(path) == 30)
    }

    @Test("failing each call of a transaction in turn gives an error or success, and the rows are all there or none")
    func eachCallFails() throws {
        let directory = try TemporaryDirectory(prefix: "faultvfs", inMemory: true)
        let faults = try FaultSession(folder: directory.url)
        let path = directory.path("store.sqlite").path
        try writeRows(path, from: 0, count: 5)
        let calls = try faults.counting { try writeRows(path, from: 1_000, count: 5) }
        try Connection(path: path).execute("DELETE FROM t WHERE id >= 1000")
        var errors = 0
        for persistent in [false, true] {
            for call in 1...calls {
                let outcome = faults.failing(call: call, persistent: persistent) {
                    Result { try writeRows(path, from: 1_000, count: 5) }
                }
                #expect(faults.failures >= 1, "call \(call) of \(calls) was never made")
                let count = try rowCount(path)
                switch outcome {
                case .success: #expect(count == 10, "call \(call) failed harmlessly but left \(count) rows")
                case .failure(let error):
                    errors += 1
                    #expect(error is SQLiteError, "call \(call): \(error)")
                    #expect(count == 5 || count == 10, "call \(call) left \(count) rows")
                }
                #expect(try Connection(path: path).integrityCheck() == ["ok"])
                try Connection(path: path).execute("DELETE FROM t WHERE id >= 1000")
            }
        }
        #expect(errors > 0)
    }

    @Test("files outside the session's folder are neither counted nor failed")
    func outsideFilesPass() throws {
        let inside = try TemporaryDirectory(prefix: "faultvfs-in", inMemory: true)
        let outside = try TemporaryDirectory(prefix: "faultvfs-out", inMemory: true)
        let faults = try FaultSession(folder: inside.url)
        faults.arm(failing: 1, persistent: true)
        defer { faults.disarm() }
        try writeRows(outside.path("store.sqlite").path, from: 0, count: 3)
        #expect(faults.calls == 0)
        #expect(throws: SQLiteError.self) { try writeRows(inside.path("store.sqlite").path, from: 0, count: 3) }
        #expect(faults.firstFailureKind == .open)
    }
}

@Suite("Transactions that SQLite rolls back by itself")
struct LostTransactionTests {
    @Test("a savepoint whose rollback fails takes the whole transaction back; its later work and its commit are refused")
    func savepointRollbackFails() throws {
        for kind in [FaultKind.read, .write] {
            let directory = try TemporaryDirectory(prefix: "savepoint", inMemory: true)
            let faults = try FaultSession(folder: directory.url)
            let path = directory.path("store.sqlite").path
            let connection = try Connection(path: path, configuration: .init(journalMode: .delete))
            try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
            // A cache of two pages: the rows spill into the file, so rolling back must read and write.
            try connection.execute("PRAGMA cache_size = 2")
            struct Abandon: Error {}
            try connection.beginTransaction(.immediate)
            try connection.execute("INSERT INTO t VALUES (5000, 'first')")
            #expect(throws: Abandon.self) {
                try connection.transaction {
                    for id in 0..<400 { try connection.execute("INSERT INTO t VALUES (?, ?)", [.integer(Int64(id)), .text(String(repeating: "x", count: 60))]) }
                    faults.arm(failing: 1, persistent: true, kinds: [kind])
                    throw Abandon()
                }
            }
            faults.disarm()
            #expect(connection.isAutocommit, "SQLite kept the transaction after a failed ROLLBACK TO (\(kind))")
            // Work that belonged to the failed transaction must not commit on its own.
            let later = Result { try connection.transaction { try connection.execute("INSERT INTO t VALUES (6000, 'later')") } }
            #expect(throws: SQLiteError.self) { try later.get() }
            if case .failure(let error as SQLiteError) = later { #expect(error.extendedCode == SQLiteError.abortRollback) }
            try connection.transaction { try connection.execute("INSERT INTO t VALUES (7000, 'next')") }
            #expect(try connection.rows("SELECT id FROM t ORDER BY id") { $0.int64(at: 0) } == [7000])
            #expect(try connection.integrityCheck() == ["ok"])
        }
    }

    @Test("committing a transaction that SQLite rolled back fails rather than report success")
    func commitAfterLoss() throws {
        let directory = try TemporaryDirectory(prefix: "commit", inMemory: true)
        let faults = try FaultSession(folder: directory.url)
        let connection = try Connection(path: directory.path("store.sqlite").path, configuration: .init(journalMode: .delete))
        try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
        try connection.execute("PRAGMA cache_size = 2")
        try connection.beginTransaction(.immediate)
        try connection.execute("SAVEPOINT s")
        for id in 0..<400 { try connection.execute("INSERT INTO t VALUES (?, ?)", [.integer(Int64(id)), .text(String(repeating: "x", count: 60))]) }
        faults.failing(call: 1, persistent: true, kinds: [.read]) { _ = Result { try connection.execute("ROLLBACK TO SAVEPOINT s") } }
        #expect(throws: SQLiteError.self) { try connection.commitTransaction() }
        #expect(try connection.scalar("SELECT count(*) FROM t")?.integerValue == 0)
    }
}
