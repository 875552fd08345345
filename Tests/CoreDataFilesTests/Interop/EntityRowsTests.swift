@testable import CoreDataFiles
import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

@Suite("The rows of an entity are its own and its subentities', wherever they are counted")
struct EntityRowsTests {
    @Test("StoreSummary, a fetch's count and SQL over the hierarchy's Z_ENT agree on every entity of MoneyWell's store")
    func moneyWellHierarchies() throws {
        let directory = try TemporaryDirectory()
        let store = try AppleStores.copy(AppleStores.moneyWell, into: directory)
        let summary = try StoreSummary(storeAt: store)
        let context = ObjectContext(coordinator: try StoreCoordinator(readingStoreAt: store,
                                                                      storeModel: try StoreModel.load(fromStoreAt: store)))
        // The hierarchy straight from Z_PRIMARYKEY's Z_SUPER, apart from StoreSummary's own walk.
        let connection = try Connection(path: store.path, configuration: .init(
            readOnly: true, create: false, journalMode: nil, synchronous: nil))
        let parents = Dictionary(try connection.rows("SELECT Z_ENT, Z_SUPER FROM Z_PRIMARYKEY") { ($0.int(at: 0), $0.int(at: 1)) },
                                 uniquingKeysWith: { first, _ in first })
        func descends(_ number: Int, from ancestor: Int) -> Bool {
            var current = number
            for _ in 0...parents.count {
                if current == ancestor { return true }
                guard let parent = parents[current], parent != 0 else { return false }
                current = parent
            }
            return false
        }
        var rows: [String: Int] = [:]
        var parentsCounted = 0
        for entity in summary.entities {
            let hierarchy = parents.keys.filter { descends($0, from: entity.number) }.sorted()
            if hierarchy.count > 1 { parentsCounted += 1 }
            let counted = try connection.scalar(
                "SELECT count(*) FROM \(entity.table) WHERE Z_ENT IN (\(hierarchy.map(String.init).joined(separator: ", ")))")?.integerValue
            #expect(entity.rows == counted.map(Int.init), "\(entity.name): \(hierarchy)")
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: entity.name)) == entity.rows, "\(entity.name)")
            rows[entity.name] = entity.rows
        }
        #expect(summary.entities.count == 26)
        #expect(parentsCounted == 2)
        #expect(rows["Activity"] == 43 && rows["Event"] == 23 && rows["Transaction"] == 15 && rows["Tag"] == 4)
    }

    @Test("a filter on Z_ENT is left out only when the entity's rows are the whole table")
    func filter() {
        for tableEntities in 1...6 {
            for count in 1...tableEntities {
                let numbers = Array(3..<(3 + count))
                let condition = EntityRowFilter.condition(numbers, tableEntities: tableEntities, column: "Z_ENT")
                #expect(condition == (count == tableEntities ? nil : "Z_ENT IN (\(numbers.map(String.init).joined(separator: ", ")))"))
            }
        }
        #expect(EntityRowFilter.count(of: [2, 5, 9], countsByEntity: [2: 1, 5: 10, 7: 100]) == 11)
        #expect(EntityRowFilter.count(of: [], countsByEntity: [2: 1]) == 0)
    }
}
