import Foundation
import CoreDataFiles
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

@Suite("Stores Apple's Core Data made: read, written and migrated, their bookkeeping kept")
struct AppleStoreTests {
    private func metadataPlist(_ store: URL) throws -> [String: Any] {
        let data = try #require(try AppleStores.scalar("SELECT Z_PLIST FROM Z_METADATA", in: store)?.blobValue)
        return try #require(try PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any])
    }

    @Test("BSManagedDocument's store read with its Model 1 gives the one Ebook, its title and its 198 bytes, and stays unchanged")
    func readEbook() throws {
        let directory = try TemporaryDirectory()
        let store = try AppleStores.copy(AppleStores.bsManagedDocument, into: directory)
        let bytes = try Data(contentsOf: store)
        let model = try ObjectModel(contentsOf: CoreDataFixtures.url("bsmanageddocument/Model.xcdatamodeld/Model 1.xcdatamodel"))
        let context = ObjectContext(coordinator: try StoreCoordinator(url: store, model: model, readOnly: true, journalMode: nil))
        let ebooks = try AppleStores.objects(of: "Ebook", in: context)
        #expect(ebooks.count == 1)
        #expect(try ebooks.first?.value(forKey: "title", as: String.self) == "This Is Just To Say.txt")
        let contents = try #require(try ebooks.first?.value(forKey: "contents", as: Data.self))
        #expect(contents.count == 198)
        #expect(String(decoding: contents.prefix(33), as: UTF8.self) == "This Is Just To Say\n\nI have eaten")
        #expect(try Data(contentsOf: store) == bytes)
    }

    @Test("migrating BSManagedDocument's store to Model 2 gives the Ebook Model 2's default importDate and keeps the other metadata")
    func migrateToModel2() throws {
        let directory = try TemporaryDirectory()
        let store = try AppleStores.copy(AppleStores.bsManagedDocument, into: directory)
        let model2 = try ObjectModel(contentsOf: CoreDataFixtures.url("bsmanageddocument/Model.xcdatamodeld/Model 2.xcdatamodel"))
        // The table is rebuilt with the new column in Core Data's place; Z_PRIMARYKEY has nothing to change.
        #expect(try StoreMigrationPlan.statements(forStoreAt: store, model: model2) == [
            "CREATE TABLE temp.ZMIGRATION_ZEBOOK AS SELECT * FROM ZEBOOK",
            "DROP TABLE ZEBOOK",
            "CREATE TABLE ZEBOOK ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZIMPORTDATE TIMESTAMP, ZTITLE VARCHAR, ZCONTENTS BLOB )",
            "INSERT INTO ZEBOOK (Z_PK, Z_ENT, Z_OPT, ZIMPORTDATE, ZTITLE, ZCONTENTS) SELECT Z_PK, Z_ENT, Z_OPT, "
                + "CASE WHEN Z_ENT IN (1) THEN ? END, ZTITLE, ZCONTENTS FROM temp.ZMIGRATION_ZEBOOK -- 380894400.0",
            "DROP TABLE temp.ZMIGRATION_ZEBOOK",
        ])
        let coordinator = try StoreCoordinator(url: store, model: model2, journalMode: nil)
        let ebook = try #require(try AppleStores.objects(of: "Ebook", in: ObjectContext(coordinator: coordinator)).first)
        #expect(try ebook.value(forKey: "importDate", as: Date.self) == Date(timeIntervalSinceReferenceDate: 380894400))
        #expect(try ebook.value(forKey: "importDate", as: Date.self).ISO8601Format() == "2013-01-26T12:00:00Z")
        #expect(try ebook.value(forKey: "title", as: String.self) == "This Is Just To Say.txt")
        #expect(coordinator.storeUUID == "6B9BB6CC-F2A5-49EB-880B-A459EB7AC7F8")
        let plist = try metadataPlist(store)
        #expect(plist["NSPersistenceFrameworkVersion"] as? Int == 407)
        #expect(plist["_NSAutoVacuumLevel"] as? String == "2")
        #expect(plist["NSStoreModelVersionHashes"] as? [String: Data] == model2.versionHashes)
        #expect(plist["NSStoreModelVersionHashesDigest"] == nil)
        // Apple's metadata keeps its own keys only: our model record goes into stores we create.
        #expect(plist.keys.sorted() == ["NSPersistenceFrameworkVersion", "NSStoreModelVersionHashes", "NSStoreModelVersionHashesVersion",
                                        "NSStoreModelVersionIdentifiers", "NSStoreType", "_NSAutoVacuumLevel"])
        #expect(plist["NSStoreModelVersionIdentifiers"] as? [String] == [""])
        #expect(try AppleStores.scalar("PRAGMA journal_mode", in: store) == .text("delete"))
        // Reopening with Model 2 migrates nothing more.
        #expect(try StoreMigrationPlan.statements(forStoreAt: store, model: model2) == [])
    }

    @Test("writing to the MoneyWell store keeps Z_METADATA and Z_MODELCACHE byte for byte", arguments: [false, true])
    func writeKeepsBookkeeping(inferred: Bool) throws {
        let directory = try TemporaryDirectory()
        let store = try AppleStores.copy(AppleStores.moneyWell, into: directory)
        let metadata = try AppleStores.rows("SELECT Z_VERSION, Z_UUID, Z_PLIST FROM Z_METADATA", in: store)
        let cache = try AppleStores.rows("SELECT Z_CONTENT FROM Z_MODELCACHE", in: store)
        let model = inferred
            ? try ObjectModel.inferred(fromStoreAt: store)
            : try ObjectModel(contentsOf: CoreDataFixtures.url("moneywell/MoneyWell.xcdatamodel"))
        let coordinator = try StoreCoordinator(url: store, model: model)
        let context = ObjectContext(coordinator: coordinator)
        let tag = try #require(try AppleStores.objects(of: "Tag", in: context).first)
        try tag.setValue("Renamed", forKey: "name")
        let added = try context.insertObject(entityName: "Tag")
        try added.setValue("Added", forKey: "name")
        try context.save()
        #expect(try AppleStores.rows("SELECT Z_VERSION, Z_UUID, Z_PLIST FROM Z_METADATA", in: store) == metadata)
        #expect(try AppleStores.rows("SELECT Z_CONTENT FROM Z_MODELCACHE", in: store) == cache)
        #expect(cache.first?.first?.blobValue?.count == 30891)
        #expect(try AppleStores.rows("SELECT Z_PK, ZNAME, Z_OPT FROM ZTAG WHERE ZNAME IN ('Renamed', 'Added') ORDER BY Z_PK", in: store)
            == [[.integer(tag.objectID.primaryKey), .text("Renamed"), .integer(2)], [.integer(5), .text("Added"), .integer(1)]])
        #expect(try AppleStores.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Tag'", in: store) == .integer(5))
    }

    @Test("migrating the MoneyWell store keeps its other metadata and its model cache, and renews the hashes' digest")
    func migrateMoneyWell() throws {
        let directory = try TemporaryDirectory()
        let store = try AppleStores.copy(AppleStores.moneyWell, into: directory)
        let cache = try AppleStores.rows("SELECT Z_CONTENT FROM Z_MODELCACHE", in: store)
        let original = try String(contentsOf: CoreDataFixtures.url("moneywell/MoneyWell.xcdatamodel/contents"), encoding: .utf8)
        let tagLine = #"<attribute name="name" optional="YES" attributeType="String" indexed="YES" syncable="YES"/>"#
        #expect(original.contains(tagLine))
        let changed = original.replacingOccurrences(of: tagLine, with: tagLine
            + #"<attribute name="colour" optional="YES" attributeType="String" defaultValueString="red" syncable="YES"/>"#)
        let modelFolder = directory.path("Newer.xcdatamodel")
        try FileManager.default.createDirectory(at: modelFolder, withIntermediateDirectories: true)
        try Data(changed.utf8).write(to: modelFolder.appendingPathComponent("contents"))
        let newer = try ObjectModel(contentsOf: modelFolder)
        let before = try metadataPlist(store)
        _ = try StoreCoordinator(url: store, model: newer)
        let after = try metadataPlist(store)
        #expect(try AppleStores.rows("SELECT DISTINCT ZCOLOUR FROM ZTAG", in: store) == [[.text("red")]])
        #expect(try AppleStores.rows("SELECT Z_CONTENT FROM Z_MODELCACHE", in: store) == cache)
        #expect(after["NSStoreModelVersionHashes"] as? [String: Data] == newer.versionHashes)
        #expect(after["NSStoreModelVersionHashesDigest"] as? String
            == CoreDataVersionHash.hashesDigest(newer.versionHashes).base64EncodedString())
        #expect(after["NSStoreModelVersionHashesDigest"] as? String != before["NSStoreModelVersionHashesDigest"] as? String)
        for key in ["NSPersistenceFrameworkVersion", "_NSAutoVacuumLevel", "NSStoreType", "NSStoreModelVersionHashesVersion"] {
            #expect("\(after[key] ?? "none")" == "\(before[key] ?? "none")", "\(key)")
        }
        #expect(try AppleStores.scalar("PRAGMA journal_mode", in: store) == .text("wal"))
    }

    @Test("a model loaded from MoneyWell's model file has the 26 version hashes and the digest Core Data wrote")
    func hashes() throws {
        let directory = try TemporaryDirectory()
        let store = try AppleStores.copy(AppleStores.moneyWell, into: directory)
        let model = try ObjectModel(contentsOf: CoreDataFixtures.url("moneywell/MoneyWell.xcdatamodel"))
        let stored = try #require(try metadataPlist(store)["NSStoreModelVersionHashes"] as? [String: Data])
        #expect(stored.count == 26)
        #expect(model.versionHashes == stored)
        #expect(try metadataPlist(store)["NSStoreModelVersionHashesDigest"] as? String
            == CoreDataVersionHash.hashesDigest(model.versionHashes).base64EncodedString())
    }
}
