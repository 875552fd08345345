import Foundation
import ObjectGraph
import ObjectGraphTestModels
import SQLiteDB
import Testing
import TestSupport

/// Opening a store reads the columns of the tables this framework wrote from their
/// `CREATE TABLE` text instead of asking SQLite (`StoredSchema.columnsWrittenByStoreSchema`):
/// whatever it reads must be exactly what `pragma_table_info` says.
@Suite("A store's columns read from the text of its tables")
struct StoredColumnsTests {
    private func tables(_ connection: Connection) throws -> [(name: String, sql: String)] {
        try connection.rows("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL ORDER BY name") {
            ($0.string(at: 0) ?? "", $0.string(at: 1) ?? "")
        }
    }

    private func pragmaColumns(_ connection: Connection, _ table: String) throws -> [String] {
        try connection.rows("SELECT name, type FROM pragma_table_info(?) ORDER BY cid", [.text(table)]) {
            ($0.string(at: 0) ?? "") + " " + ($0.string(at: 1) ?? "").uppercased()
        }
    }

    private func fromText(_ table: String, _ sql: String) -> [String]? {
        StoredSchema.columnsWrittenByStoreSchema(table: table, sql: sql)?.map { $0.name + " " + $0.type }
    }

    @Test("the tables of new stores for Apple's models and the test models read as SQLite reads them")
    func newStores() throws {
        var readFromText = 0
        let models = [("travel", TestModels.travel)] + (try ["bsmanageddocument/Model.xcdatamodeld/Model 1.xcdatamodel",
                                                             "moneywell/MoneyWell.xcdatamodel"].map { ($0, try ObjectModel(contentsOf: CoreDataFixtures.url($0))) })
        for (path, model) in models {
            let directory = try TemporaryDirectory()
            let url = directory.path("store.sqlite")
            _ = try StoreCoordinator(url: url, model: model)
            let connection = try Connection(path: url.path, configuration: .init(readOnly: true, journalMode: nil))
            for table in try tables(connection) {
                let read = fromText(table.name, table.sql)
                let pragma = try pragmaColumns(connection, table.name)
                if read != nil { readFromText += 1 }
                #expect(read == nil || read == pragma, "\(path): \(table.sql)")
            }
        }
        #expect(readFromText >= 10)
    }

    @Test("changed text reads as SQLite reads it, or not at all", arguments: [
        "CREATE TABLE ZT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZA VARCHAR, ZB TIMESTAMP )",
        "CREATE TABLE ZT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER )",
        "CREATE TABLE ZT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZA NULL, ZB VARCHAR )",
        "CREATE TABLE ZT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZA VARCHAR NOT NULL )",
        "CREATE TABLE ZT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZA DECIMAL(10, 2) )",
        "CREATE TABLE ZT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, \"ZA\" VARCHAR )",
        "CREATE TABLE ZT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, za VARCHAR )",
        "CREATE TABLE ZT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER,  ZA VARCHAR )",
        "CREATE TABLE ZT (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZA VARCHAR)",
        "CREATE TABLE ZT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZA VARCHAR, CHECK (ZA <> '') )",
        "CREATE TABLE ZT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZÉ VARCHAR )",
        "CREATE TABLE ZT ( Z_1A INTEGER, Z_2B INTEGER, PRIMARY KEY (Z_1A, Z_2B) )",
        "CREATE TABLE ZT ( Z_1A INTEGER, Z_2B INTEGER, Z_FOK_2B INTEGER, PRIMARY KEY (Z_1A, Z_2B) )",
        "CREATE TABLE ZT ( Z_1A INTEGER, Z_2B INTEGER, PRIMARY KEY (Z_2B, Z_1A) )",
        "CREATE TABLE ZT ( Z_1A INTEGER, Z_2B VARCHAR, PRIMARY KEY (Z_1A, Z_2B) )",
        "CREATE TABLE ZT ( Z_1A INTEGER, Z_2B INTEGER, PRIMARY KEY (Z_1A, Z_2B), UNIQUE (Z_2B) )",
        "CREATE TABLE ZT ( Z_1A INTEGER, PRIMARY KEY (Z_1A) )",
        "CREATE TABLE ZT (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
    ])
    func changedText(sql: String) throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql)
        let stored = try #require(try tables(connection).first)
        let read = fromText(stored.name, stored.sql)
        let pragma = try pragmaColumns(connection, stored.name)
        #expect(read == nil || read == pragma)
        // The text this framework writes is read; anything else is left to SQLite.
        let written = WrittenText.isWritten(stored.sql)
        #expect((read != nil) == written, "\(sql)")
    }
}

private enum WrittenText {
    /// The statements above that are exactly what the framework writes.
    static func isWritten(_ sql: String) -> Bool {
        [
            "CREATE TABLE ZT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZA VARCHAR, ZB TIMESTAMP )",
            "CREATE TABLE ZT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER )",
            "CREATE TABLE ZT ( Z_1A INTEGER, Z_2B INTEGER, PRIMARY KEY (Z_1A, Z_2B) )",
            "CREATE TABLE ZT ( Z_1A INTEGER, Z_2B INTEGER, Z_FOK_2B INTEGER, PRIMARY KEY (Z_1A, Z_2B) )",
        ].contains(sql)
    }
}
