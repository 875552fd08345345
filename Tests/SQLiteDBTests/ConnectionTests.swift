import Foundation
import SQLiteDB
import Testing
import TestSupport

@Suite("Connections, transactions, backup, tracing and functions")
struct ConnectionTests {
    @Test("a file database opens in WAL mode and reopens read-only")
    func walAndReadOnly() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite").path
        do {
            let connection = try Connection(path: path)
            #expect(try connection.journalMode() == "wal")
            try connection.execute("CREATE TABLE t (x); INSERT INTO t VALUES (1)")
        }
        let reader = try Connection(path: path, configuration: .init(readOnly: true))
        #expect(try reader.scalar("SELECT x FROM t") == .integer(1))
        #expect(throws: SQLiteError.self) { try reader.execute("INSERT INTO t VALUES (2)") }
    }

    @Test("opening a file that is not a database fails with SQLITE_NOTADB")
    func notADatabase() throws {
        let directory = try TemporaryDirectory()
        let url = directory.path("junk.sqlite")
        try Data(repeating: 0x41, count: 4096).write(to: url)
        let error = #expect(throws: SQLiteError.self) { try Connection(path: url.path) }
        #expect(error?.resultCode == 26)
    }

    @Test("a missing file is not created read-only or without create")
    func missingFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("missing.sqlite").path
        #expect(throws: SQLiteError.self) { try Connection(path: path, configuration: .init(readOnly: true)) }
        #expect(throws: SQLiteError.self) { try Connection(path: path, configuration: .init(create: false)) }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("a transaction commits when its body returns and rolls back when it throws")
    func transactions() throws {
        struct Failure: Error {}
        let connection = try Connection.inMemory()
        try connection.execute("CREATE TABLE t (x)")
        try connection.transaction(.immediate) { try connection.execute("INSERT INTO t VALUES (1)") }
        #expect(throws: Failure.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO t VALUES (2)")
                throw Failure()
            }
        }
        #expect(try connection.scalar("SELECT group_concat(x) FROM t") == .text("1"))
        #expect(connection.isAutocommit)
    }

    @Test("nested transactions become savepoints that roll back alone")
    func savepoints() throws {
        struct Failure: Error {}
        let connection = try Connection.inMemory()
        try connection.execute("CREATE TABLE t (x)")
        try connection.transaction {
            try connection.execute("INSERT INTO t VALUES (1)")
            try? connection.transaction {
                try connection.execute("INSERT INTO t VALUES (2)")
                try connection.transaction { try connection.execute("INSERT INTO t VALUES (3)") }
                throw Failure()
            }
            try connection.transaction { try connection.execute("INSERT INTO t VALUES (4)") }
        }
        #expect(try connection.scalar("SELECT group_concat(x) FROM t") == .text("1,4"))
    }

    @Test("the online backup copies a database another connection keeps writing")
    func backup() throws {
        let directory = try TemporaryDirectory()
        let source = try Connection(path: directory.path("a.sqlite").path)
        try source.execute("CREATE TABLE t (x)")
        try source.transaction {
            for value in 0..<1000 { try source.execute("INSERT INTO t VALUES (?)", [.integer(Int64(value))]) }
        }
        let writer = try Connection(path: directory.path("a.sqlite").path)
        try writer.execute("INSERT INTO t VALUES (1000)")
        let destination = try Connection(path: directory.path("b.sqlite").path, configuration: .init(journalMode: .delete))
        var steps = 0
        try source.backup(to: destination, pagesPerStep: 1) { _, _ in steps += 1 }
        #expect(steps > 1)
        #expect(try destination.scalar("SELECT count(*) FROM t") == .integer(1001))
        #expect(try destination.integrityCheck() == ["ok"])
    }

    @Test("the trace hook sees each statement with and without its bound values")
    func trace() throws {
        let connection = try Connection.inMemory()
        let recorder = SQLTraceRecorder(connection)
        try connection.execute("CREATE TABLE t (x)")
        try connection.execute("INSERT INTO t VALUES (?)", [.text("a")])
        #expect(recorder.statements == ["CREATE TABLE t (x)", "INSERT INTO t VALUES (?)"])
        #expect(recorder.events.last?.expandedSQL == "INSERT INTO t VALUES ('a')")
        recorder.detach(from: connection)
        try connection.execute("SELECT 1")
        #expect(recorder.statements.count == 2)
    }

    @Test("Swift functions can be called from SQL, and their errors become SQL errors")
    func functions() throws {
        struct Refused: Error, CustomStringConvertible { var description: String { "refused" } }
        let connection = try Connection.inMemory()
        try connection.createFunction("shout", argumentCount: 1) { .text(($0[0].textValue ?? "").uppercased()) }
        try connection.createFunction("refuse", argumentCount: 0) { _ in throw Refused() }
        #expect(try connection.scalar("SELECT shout(?)", [.text("café")]) == .text("CAFÉ"))
        let error = #expect(throws: SQLiteError.self) { try connection.scalar("SELECT refuse()") }
        #expect(error?.message == "refused")
    }

    @Test("integrity check reports ok, and table helpers describe the schema")
    func schemaHelpers() throws {
        let connection = try Connection.inMemory()
        try connection.execute("CREATE TABLE \"odd \"\"name\" (a, b)")
        #expect(try connection.integrityCheck() == ["ok"])
        #expect(try connection.tableExists("odd \"name"))
        #expect(try !connection.tableExists("other"))
        #expect(try connection.columns(of: "odd \"name") == ["a", "b"])
    }
}
