import CommandLineKit
import DocStoreCLI
import Foundation
import CoreDataFiles
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

@Suite("docstore migrate moves a store to a newer model and keeps the rest")
struct DocStoreMigrateTests {
    @Test("migrating BSManagedDocument's package to the model bundle's current version, Model 2, fills importDate with its default")
    func migrateEbook() throws {
        let directory = try TemporaryDirectory()
        let document = try Fixtures.ebookDocument(in: directory)
        let store = document.appendingPathComponent("StoreContent/persistentStore")
        let run = docstore("migrate", document.path, "--model", Fixtures.modelBundle)
        #expect(run == DocStoreRun(code: 0, output: """
            Migrated \(document.path) to \(Fixtures.modelBundle):
              CREATE TABLE temp.ZMIGRATION_ZEBOOK AS SELECT * FROM ZEBOOK
              DROP TABLE ZEBOOK
              CREATE TABLE ZEBOOK ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZIMPORTDATE TIMESTAMP, ZTITLE VARCHAR, ZCONTENTS BLOB )
              INSERT INTO ZEBOOK (Z_PK, Z_ENT, Z_OPT, ZIMPORTDATE, ZTITLE, ZCONTENTS) SELECT Z_PK, Z_ENT, Z_OPT, CASE WHEN Z_ENT IN (1) THEN ? END, ZTITLE, ZCONTENTS FROM temp.ZMIGRATION_ZEBOOK -- 380894400.0
              DROP TABLE temp.ZMIGRATION_ZEBOOK

            """, errors: ""))
        // A TIMESTAMP column has numeric affinity: SQLite keeps a whole number of seconds as an integer.
        #expect(try Fixtures.rows("SELECT ZIMPORTDATE, ZTITLE FROM ZEBOOK", in: store) == [[.integer(380894400), .text("This Is Just To Say.txt")]])
        #expect(try Fixtures.rows("PRAGMA journal_mode", in: store) == [[.text("delete")]])
        #expect(docstore("migrate", document.path, "--model", Fixtures.model2) == DocStoreRun(
            code: 0, output: "Nothing to migrate: \(document.path) already matches \(Fixtures.model2).\n", errors: ""))
        let dump = docstore("dump", document.path, "--model", Fixtures.model2)
        #expect(dump.code == 0)
        #expect(dump.output.contains("\n    \"importDate\": \"2013-01-26T12:00:00Z\",\n"))
        let info = docstore("info", document.path, "--model", Fixtures.model2, "--json")
        #expect(info.output.contains("\"matchesStore\": true,\n    \"versionHashesMatch\": true,\n"))
    }

    @Test("a model the store cannot migrate to lightweight fails with 1 and leaves the store alone")
    func notLightweight() throws {
        let directory = try TemporaryDirectory()
        let document = try Fixtures.ebookDocument(in: directory)
        let store = document.appendingPathComponent("StoreContent/persistentStore")
        let before = try Data(contentsOf: store)
        let model = directory.path("Typed.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Ebook"><attribute name="contents" attributeType="Binary"/><attribute name="title" attributeType="Integer 64"/></entity>
            </model>
            """.utf8).write(to: model.appendingPathComponent("contents"))
        let run = docstore("migrate", document.path, "--model", model.path)
        #expect(run == DocStoreRun(code: 1, output: "", errors: """
            Error: Cannot migrate Ebook.title: its column ZTITLE is VARCHAR in the store but INTEGER in the model
            Only lightweight migrations are possible: added or removed properties and entities, renames through renaming identifiers.

            """))
        #expect(try Data(contentsOf: store) == before)
    }

    @Test("--model must name a model file, and must be given")
    func modelRequired() throws {
        let directory = try TemporaryDirectory()
        let document = try Fixtures.ebookDocument(in: directory)
        let other = try Fixtures.moneyWellStore(in: directory)
        #expect(docstore("migrate", document.path, "--model", other.path)
            == DocStoreRun(code: 65, output: "", errors: "Error: --model must name a model file, not a store\n"))
        #expect(docstore("migrate", document.path) == DocStoreRun(code: 64, output: "", errors: """
            Error: Missing expected argument '--model <model>'
            Help:  --model <model>  The model to migrate the store to.
            Usage: docstore migrate <path> --model <model>
              See 'docstore migrate --help' for more information.

            """))
    }
}
