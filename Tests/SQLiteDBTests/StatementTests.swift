import Foundation
import SQLiteDB
import Testing
import TestSupport

@Suite("Statements bind and read every type")
struct StatementTests {
    let connection: Connection

    init() throws {
        connection = try Connection.inMemory()
        try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, i INTEGER, r FLOAT, s VARCHAR, b BLOB, d TIMESTAMP)")
    }

    private func roundTrip(_ bind: (Statement) -> Void, read: (Statement) -> Void) throws {
        try connection.execute("DELETE FROM t")
        let insert = try connection.cachedStatement("INSERT INTO t (id, i, r, s, b, d) VALUES (1, ?, ?, ?, ?, ?)")
        for index in 0..<5 { insert.bindNull(at: index) }
        bind(insert)
        try insert.run()
        let select = try connection.cachedStatement("SELECT i, r, s, b, d FROM t")
        #expect(try select.step())
        read(select)
        select.reset()
    }

    @Test("integers keep their extreme values")
    func integers() throws {
        for value in [Int64.min, -1, 0, 1, Int64.max] {
            try roundTrip({ $0.bind(value, at: 0) }, read: { #expect($0.int64(at: 0) == value) })
        }
    }

    @Test("doubles keep their value, infinity included; NaN becomes NULL as SQLite stores it")
    func doubles() throws {
        for value in [0.0, -0.5, 1e-300, .greatestFiniteMagnitude, .infinity, -.infinity] {
            try roundTrip({ $0.bind(value, at: 1) }, read: { #expect($0.double(at: 1) == value) })
        }
        try roundTrip({ $0.bind(Double.nan, at: 1) }, read: { #expect($0.isNull(at: 1)) })
    }

    @Test("strings keep non-BMP characters, embedded NULs and emptiness")
    func strings() throws {
        for value in ["", "Lisbon", "東京 🏖️", "a\u{0}b", "e\u{301}", String(repeating: "x", count: 100_000)] {
            try roundTrip({ $0.bind(value, at: 2) }, read: { #expect($0.string(at: 2) == value) })
        }
        try roundTrip({ _ in }, read: { #expect($0.string(at: 2) == nil) })
    }

    @Test("blobs keep bytes, and an empty blob is not NULL")
    func blobs() throws {
        for value in [Data(), Data([0]), Data((0..<256).map { UInt8($0) })] {
            try roundTrip({ $0.bind(value, at: 3) }, read: { #expect($0.data(at: 3) == value) })
        }
        try roundTrip({ _ in }, read: { #expect($0.data(at: 3) == nil) })
    }

    @Test("dates are seconds since 2001 and keep dates before 2001")
    func dates() throws {
        let dates = [Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSince1970: 0),
                     Date(timeIntervalSinceReferenceDate: -3_000_000_000.25), Date(timeIntervalSinceReferenceDate: 380894400)]
        for date in dates {
            try roundTrip({ $0.bind(date, at: 4) }, read: {
                #expect($0.date(at: 4) == date)
                #expect($0.double(at: 4) == date.timeIntervalSinceReferenceDate)
            })
        }
    }

    @Test("bools are 0 and 1")
    func bools() throws {
        try roundTrip({ $0.bind(true, at: 0) }, read: { #expect($0.int64(at: 0) == 1 && $0.bool(at: 0)) })
        try roundTrip({ $0.bind(false, at: 0) }, read: { #expect($0.int64(at: 0) == 0 && !$0.bool(at: 0)) })
    }

    @Test("values read back in their storage class")
    func values() throws {
        try roundTrip({ $0.bind([.integer(7), .real(2.5), .text("x"), .blob(Data([1])), .null]) }, read: {
            #expect($0.value(at: 0) == .integer(7))
            #expect($0.value(at: 1) == .real(2.5))
            #expect($0.value(at: 2) == .text("x"))
            #expect($0.value(at: 3) == .blob(Data([1])))
            #expect($0.value(at: 4) == .null)
        })
    }

    @Test("a cached statement is prepared once and comes back reset")
    func cache() throws {
        let first = try connection.cachedStatement("SELECT 1")
        #expect(try first.step())
        let second = try connection.cachedStatement("SELECT 1")
        #expect(first === second)
        #expect(try second.step())
        #expect(second.int64(at: 0) == 1)
    }

    @Test("errors carry the result codes, SQLite's message and the SQL")
    func errors() throws {
        try connection.execute("CREATE TABLE u (name VARCHAR UNIQUE)")
        try connection.execute("INSERT INTO u VALUES ('a')")
        let error = #expect(throws: SQLiteError.self) {
            try connection.execute("INSERT INTO u VALUES (?)", [.text("a")])
        }
        #expect(error?.resultCode == 19)
        #expect(error?.extendedCode == SQLiteError.constraintUnique)
        #expect(error?.isUniqueConstraintViolation == true)
        #expect(error?.description == "SQLite error 19: UNIQUE constraint failed: u.name - while executing INSERT INTO u VALUES (?)")
        let syntax = #expect(throws: SQLiteError.self) { try connection.prepare("SELEC 1") }
        #expect(syntax?.resultCode == 1)
        #expect(syntax?.sql == "SELEC 1")
    }

    @Test("expanded SQL shows the bound values")
    func expanded() throws {
        let statement = try connection.prepare("SELECT ?, ?")
        statement.bind([.integer(3), .text("it's")])
        #expect(statement.expandedSQL == "SELECT 3, 'it''s'")
    }
}

@Suite("Comparing a column's text where SQLite holds it")
struct StatementTextComparisonTests {
    @Test("text(at:is:) is true for text of exactly those bytes, false for other text, other classes and NULL")
    func equality() throws {
        let connection = try Connection.inMemory()
        let statement = try connection.prepare("SELECT 'table', '', 'tablé', 'tabl', 5, x'7461626c65', NULL")
        #expect(try statement.step())
        #expect(statement.text(at: 0, is: "table"))
        #expect(!statement.text(at: 0, is: "tables"))
        #expect(!statement.text(at: 0, is: "Table"))
        #expect(statement.text(at: 1, is: ""))
        #expect(!statement.text(at: 1, is: "table"))
        #expect(statement.text(at: 2, is: "tablé"))
        #expect(!statement.text(at: 2, is: "table"))
        #expect(!statement.text(at: 3, is: "table"))
        #expect(!statement.text(at: 4, is: "5"))          // an integer is not text
        #expect(!statement.text(at: 5, is: "table"))      // nor is a blob of the same bytes
        #expect(!statement.text(at: 6, is: ""))
    }

    @Test("text(at:contains:) finds the bytes at the start, the end, after a false start, and nowhere else")
    func containment() throws {
        let connection = try Connection.inMemory()
        let statement = try connection.prepare("""
            SELECT 'NSCoreData(x)', 'SELECT NSCoreData', 'NSCoreDatNSCoreData', 'NSCoreDat', 'nscoredata', '', NULL,
                   x'4e53436f726544617461', 'a NSCoreDataB c'
            """)
        #expect(try statement.step())
        let needle = "NSCoreData"
        #expect(statement.text(at: 0, contains: needle))
        #expect(statement.text(at: 1, contains: needle))
        #expect(statement.text(at: 2, contains: needle))
        #expect(!statement.text(at: 3, contains: needle))
        #expect(!statement.text(at: 4, contains: needle))
        #expect(!statement.text(at: 5, contains: needle))
        #expect(!statement.text(at: 6, contains: needle))
        #expect(!statement.text(at: 7, contains: needle))  // a blob holding the bytes is not text
        #expect(statement.text(at: 8, contains: needle))
        #expect(!statement.text(at: 0, contains: ""))       // an empty needle finds nothing
    }
}
