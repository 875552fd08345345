import ObjectGraphTestModels
import Foundation
import CoreDataFiles
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

@Suite("Stores have Core Data's layout, checked against stores Apple's Core Data wrote")
struct StoreLayoutTests {
    /// `name → sql` of every table and index SQLite knows, without SQLite's own.
    private func schema(of path: String) throws -> [String: String] {
        let connection = try Connection(path: path, configuration: .init(readOnly: true, journalMode: nil))
        let rows = try connection.rows("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'") {
            ($0.string(at: 0) ?? "", $0.string(at: 1) ?? "")
        }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }

    private func copyOfFixture(_ path: String, into directory: TemporaryDirectory) throws -> URL {
        let source = try CoreDataFixtures.url(path)
        let destination = directory.path(source.lastPathComponent)
        try FileManager.default.copyItem(at: source, to: destination)
        return destination
    }

    @Test("a new store for BSManagedDocument's Model 1 has exactly the tables of the Apple-made store")
    func bsManagedDocument() throws {
        let directory = try TemporaryDirectory()
        let model = try ObjectModel(contentsOf: CoreDataFixtures.url("bsmanageddocument/Model.xcdatamodeld/Model 1.xcdatamodel"))
        _ = try StoreCoordinator(url: directory.path("new.sqlite"), model: model)
        let ours = try schema(of: directory.path("new.sqlite").path)
        let apple = try schema(of: CoreDataFixtures.url("bsmanageddocument/version1MRC.bstest/StoreContent/persistentStore").path)
        #expect(ours == apple)
        #expect(ours["ZEBOOK"] == "CREATE TABLE ZEBOOK ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTITLE VARCHAR, ZCONTENTS BLOB )")
    }

    @Test("a new store for MoneyWell's 26-entity model matches the Apple-made store table for table, index for index")
    func moneyWell() throws {
        let directory = try TemporaryDirectory()
        let model = try ObjectModel(contentsOf: CoreDataFixtures.url("moneywell/MoneyWell.xcdatamodel"))
        _ = try StoreCoordinator(url: directory.path("new.sqlite"), model: model)
        let ours = try schema(of: directory.path("new.sqlite").path)
        var apple = try schema(of: copyOfFixture("moneywell/Test.moneywell/StoreContent/persistentStore", into: directory).path)
        // Z_MODELCACHE is Core Data's cache of the compiled model, which we do not write.
        apple.removeValue(forKey: "Z_MODELCACHE")
        #expect(apple.count == 98)
        for name in Set(ours.keys).union(apple.keys).sorted() {
            #expect(ours[name] == apple[name], "\(name)")
        }
    }

    @Test("the Apple-made stores open with their models and keep their metadata untouched")
    func openApple() throws {
        let directory = try TemporaryDirectory()
        let store = try copyOfFixture("bsmanageddocument/version1MRC.bstest", into: directory)
            .appendingPathComponent("StoreContent/persistentStore")
        let before = try Connection(path: store.path, configuration: .init(journalMode: nil))
            .scalar("SELECT hex(Z_PLIST) || Z_UUID FROM Z_METADATA")
        let model = try ObjectModel(contentsOf: CoreDataFixtures.url("bsmanageddocument/Model.xcdatamodeld/Model 1.xcdatamodel"))
        let coordinator = try StoreCoordinator(url: store, model: model, journalMode: nil)
        let context = ObjectContext(coordinator: coordinator)
        let ebook = try context.existingObject(with: ObjectID(entityNumber: 1, primaryKey: 1))
        #expect(try ebook.value(forKey: "title", as: String.self) == "This Is Just To Say.txt")
        #expect(try ebook.value(forKey: "contents", as: Data.self).count == 198)
        try ebook.setValue("Renamed", forKey: "title")
        try context.save()
        let after = try coordinator.withConnection { try $0.scalar("SELECT hex(Z_PLIST) || Z_UUID FROM Z_METADATA") }
        #expect(before == after)
        #expect(coordinator.storeUUID == "6B9BB6CC-F2A5-49EB-880B-A459EB7AC7F8")
        #expect(try coordinator.withConnection { try $0.scalar("SELECT ZTITLE || ' ' || Z_OPT FROM ZEBOOK") } == .text("Renamed 2"))
    }

    @Test("new stores record Core Data's metadata: store type, hashes, identifiers and a UUID")
    func metadata() throws {
        let store = try TestStore()
        let metadata = store.coordinator.metadata
        #expect(metadata["NSStoreType"] as? String == "SQLite")
        #expect(metadata["NSStoreModelVersionHashesVersion"] as? Int == 3)
        let hashes = try #require(metadata["NSStoreModelVersionHashes"] as? [String: any Sendable])
        #expect(hashes.count == TestModels.travel.entities.count)
        #expect((hashes["Photo"] as? Data)?.count == 32)
        #expect(UUID(uuidString: store.coordinator.storeUUID) != nil)
        let keys = try store.rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT <= 4")
        #expect(keys == [[.integer(1), .text("Album"), .integer(0), .integer(0)],
                         [.integer(2), .text("Media"), .integer(0), .integer(0)],
                         [.integer(3), .text("Clip"), .integer(2), .integer(0)],
                         [.integer(4), .text("Picture"), .integer(2), .integer(0)]])
        // Python's plistlib and any Core Data tool read it: it is a binary property list.
        let plist = try #require(try store.rows("SELECT Z_PLIST FROM Z_METADATA").first?.first?.blobValue)
        #expect(plist.prefix(8) == Data("bplist00".utf8))
    }

    @Test("reopening a store made for the same model migrates nothing")
    func reopen() throws {
        let store = try TestStore()
        let schemaBefore = try schema(of: store.url.path)
        _ = try StoreCoordinator(url: store.url, model: TestModels.travel)
        #expect(try schema(of: store.url.path) == schemaBefore)
    }

    @Test("a file that is not a Core Data store is refused, and is left alone")
    func notAStore() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("other.sqlite")
        try Connection(path: path.path).execute("CREATE TABLE t (x)")
        let error = #expect(throws: StoreError.self) { try StoreCoordinator(url: path, model: TestModels.travel) }
        #expect(error?.description == "\(path.path) is a SQLite database but not a Core Data store")
        #expect(try Connection(path: path.path).tableExists("t"))
    }
}
