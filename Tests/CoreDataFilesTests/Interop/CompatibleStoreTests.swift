import Foundation
import CoreDataFiles
@testable import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

/// Core Data's rule: a store whose recorded version hashes are the model's needs no migration.
/// Apple's stores are laid out by Apple's rules (index names, order columns, history tables),
/// which ours need not regenerate; opened with a compatible model they are left as they are.
@Suite("An Apple store opened with a model of equal hashes is not migrated")
struct CompatibleStoreTests {
    /// Everything a store holds as SQLite shows it: schema, every row of every table, metadata.
    static func contents(of store: URL) throws -> [String] {
        let connection = try Connection(path: store.path, configuration: .init(readOnly: true, create: false, journalMode: nil, synchronous: nil))
        var lines = try connection.rows("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name") { row in
            (0..<4).map { row.value(at: $0).description }.joined(separator: " | ")
        }
        let tables = try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name") {
            $0.string(at: 0) ?? ""
        }
        for table in tables {
            let statement = try connection.prepare("SELECT * FROM \"\(table)\" ORDER BY rowid")
            try statement.forEachRow { row in
                lines.append(table + ": " + (0..<row.columnCount).map { row.value(at: $0).description }.joined(separator: ", "))
            }
        }
        return lines
    }

    @Test("opening read-write, reading every object and closing leave every table, row, index and metadata key as they were",
          arguments: AppleVersionHashTests.stores.indices)
    func opensUnchanged(index: Int) throws {
        let (storePath, modelPath) = AppleVersionHashTests.stores[index]
        try CoreDataFixtures.withTemporaryDirectory { directory in
            let store = try CoreDataFixtures.copyStore(storePath, to: directory)
            let model = try ObjectModel(contentsOf: try CoreDataFixtures.more(modelPath))
            let before = try Self.contents(of: store)
            #expect(try StoreMigrationPlan.statements(forStoreAt: store, model: model) == [])
            do {
                let coordinator = try StoreCoordinator(url: store, model: model, journalMode: nil)
                let context = ObjectContext(coordinator: coordinator)
                for entity in model.rootEntities {
                    let objects = try context.fetch(FetchRequest<ManagedObject>(entityName: entity.name))
                    let rows = try coordinator.withConnection { try $0.scalar("SELECT count(*) FROM \(entity.table)")?.integerValue ?? -1 }
                    #expect(Int64(objects.count) == rows, "\(storePath): \(entity.name)")
                    for object in objects { object.fireFaultIfNeeded() }
                }
            }
            #expect(try Self.contents(of: store) == before, "\(storePath)")
        }
    }

    @Test("a store this framework wrote is still brought to the model's layout when its hashes are equal")
    func ownStoresStillChecked() throws {
        try CoreDataFixtures.withTemporaryDirectory { directory in
            let store = directory.appendingPathComponent("Own.sqlite")
            let model = try ObjectModel(entities: [EntityDescription(name: "Note", attributes: [
                AttributeDescription(name: "text", type: .string, isIndexed: true)])])
            _ = try StoreCoordinator(url: store, model: model, journalMode: nil)
            let connection = try Connection(path: store.path, configuration: .init(journalMode: nil))
            try connection.execute("DROP INDEX ZNOTE_ZTEXT_INDEX")
            #expect(try StoreMigrationPlan.statements(forStoreAt: store, model: model) == ["CREATE INDEX ZNOTE_ZTEXT_INDEX ON ZNOTE (ZTEXT)"])
        }
    }
}
