import Foundation
import CoreDataFiles
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

/// Persistent history as Apple's Core Data wrote it: CoreDataPlus's SampleModel2 (made by
/// Core Data with history tracking on) and macOS Photos' library (history with updates,
/// deletes and tombstones; README.md, "Persistent history", says what was read off it).
@Suite("Persistent history in Apple's stores: the same tables, read with the store's own model, kept when we write")
struct AppleHistoryTests {
    static let sampleModel2 = CompiledModelFixtures.AppleStore(
        path: "alemar11__CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V2.sqlite", entityCount: 6)
    static let photos = CompiledModelFixtures.AppleStore(
        path: "openhouse__osxphotos/tests/Test-10.15.1.photoslibrary/database/Photos.sqlite", entityCount: 53)

    private func historySQL(_ url: URL) throws -> [String] {
        let connection = try Connection(path: url.path, configuration: .init(readOnly: true, journalMode: nil, synchronous: nil))
        return try connection.rows("SELECT sql FROM sqlite_master WHERE tbl_name IN ('ACHANGE', 'ATRANSACTION', 'ATRANSACTIONSTRING') ORDER BY name") {
            $0.string(at: 0) ?? ""
        }
    }

    private func openPhotos(_ directory: TemporaryDirectory) throws -> StoreCoordinator {
        let url = try CompiledModelFixtures.copy(Self.photos, into: directory)
        return try StoreCoordinator(readingStoreAt: url, storeModel: try StoreModel.load(fromStoreAt: url))
    }

    @Test("a store we make with history has exactly the history tables, indexes and key rows of the one Core Data made")
    func sameSchemaAsApple() throws {
        let directory = try TemporaryDirectory()
        let apple = try CompiledModelFixtures.copy(Self.sampleModel2, into: directory)
        let model = try StoreModel.load(fromStoreAt: apple).model
        let ours = directory.path("ours.sqlite")
        _ = try StoreCoordinator(url: ours, model: model, tracksHistory: true)
        #expect(try historySQL(ours) == historySQL(apple))
        #expect(try historySQL(ours).count == 11)
        let keyRows = "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT"
        #expect(try AppleStores.rows(keyRows, in: ours) == AppleStores.rows(keyRows, in: apple))
    }

    @Test("Photos' history reads with its own model: 566 changes in 113 transactions, names and tombstones decoded")
    func readPhotosHistory() throws {
        let directory = try TemporaryDirectory()
        let coordinator = try openPhotos(directory)
        #expect(coordinator.tracksHistory)
        // MomentShare preserves four attributes, the most of any entity: ZTOMBSTONE0…3.
        #expect(coordinator.model.entities.map { $0.attributes.filter(\.declaration.preservesValueInHistoryOnDeletion).count }.max() == 4)
        let transactions = try coordinator.fetchHistory()
        #expect(transactions.count == 113)
        #expect(try coordinator.currentHistoryToken() == transactions.last?.token)
        #expect(transactions.last?.token.transactionNumber == 113)
        let changes = transactions.flatMap(\.changes)
        #expect(changes.count == 566)
        #expect(changes.filter { $0.changeType == .insert }.count == 217)
        #expect(changes.filter { $0.changeType == .update }.count == 330)
        #expect(changes.filter { $0.changeType == .delete }.count == 19)

        let transaction44 = try #require(transactions.first { $0.token.transactionNumber == 44 })
        #expect(transaction44.author == "[0,0]")
        #expect(transaction44.bundleIdentifier == "com.apple.photolibraryd")
        #expect(transaction44.processName == "photolibraryd")
        #expect(transaction44.contextName == "low priority transient library (/Users/rhet/Pictures/Test-10.14.6.photoslibrary)")
        #expect(transaction44.timestamp == Date(timeIntervalSinceReferenceDate: 593883337.838056))
        // A deleted person keeps its preserved attributes, in name order.
        let person = try #require(transaction44.changes.first { $0.changeType == .delete && $0.entityName == "Person" })
        #expect(person.objectID.primaryKey == 9)
        #expect(person.tombstone == ["cloudDeleteState": .integer(0), "personUUID": .text("4A051970-2C6F-4911-AC35-109704FCB0E2")])
        let resource = try #require(changes.first { $0.changeType == .delete && $0.entityName == "InternalResource" })
        #expect(resource.tombstone == ["cloudDeleteAssetUUIDWithResourceType": .text("DC99FBDD-7A52-4100-A5BB-344131646C30-@-0"),
                                       "cloudDeleteState": .integer(0)])

        // Written with the model in the cache (after the last migration, transaction 58): a
        // moment's dates, place names and assets; an album list reordering its albums.
        let moment = try #require(transactions.first { $0.token.transactionNumber == 74 }?.changes.first { $0.entityName == "Moment" })
        #expect(moment.updatedProperties == ["endDate", "localizedLocationNames", "startDate", "assets"])
        let albumList = try #require(transactions.first { $0.token.transactionNumber == 59 }?.changes.first { $0.entityName == "AlbumList" })
        #expect(albumList.updatedProperties == ["albums"])

        #expect(try coordinator.fetchHistory(entityNames: ["Person"]).flatMap(\.changes).count == 52)
        #expect(try coordinator.fetchHistory(author: "[0,1]").allSatisfy { $0.author == "[0,1]" })
        #expect(throws: StoreError.self) { try coordinator.deleteHistory(before: transaction44.token) }
    }

    @Test("writing to an Apple store with history adds to its history, after its keys, with the strings it already has")
    func writeKeepsHistory() throws {
        let directory = try TemporaryDirectory()
        let url = try CompiledModelFixtures.copy(Self.sampleModel2, into: directory)
        let model = try StoreModel.load(fromStoreAt: url).model
        let coordinator = try StoreCoordinator(url: url, model: model, journalMode: nil)
        #expect(coordinator.tracksHistory)
        let before = try coordinator.fetchHistory()
        #expect(before.count == 1)
        #expect(before.first?.changes.count == 126)
        #expect(before.first?.processName == "xctest")
        #expect(before.first?.bundleIdentifier == "com.apple.dt.xctest.tool")
        let context = ObjectContext(coordinator: coordinator, name: "ours")
        context.transactionAuthor = "test"
        let feedback = try context.insertObject(entityName: "Feedback")
        try feedback.setValue("a comment", forKey: "comment")
        try feedback.setValue("alias", forKey: "authorAlias")
        try feedback.setValue(UUID(), forKey: "bookID")
        try feedback.setValue(4.5, forKey: "rating")
        try context.save()
        let after = try coordinator.fetchHistory(after: before.last?.token)
        #expect(after.count == 1)
        #expect(after.first?.token.transactionNumber == 2)
        #expect(after.first?.author == "test")
        #expect(after.first?.changes == [HistoryChange(changeType: .insert, objectID: feedback.objectID, entityName: "Feedback",
                                                       updatedProperties: [], tombstone: [:])])
        #expect(try AppleStores.rows("SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT", in: url)
                == [[.integer(16001), .integer(127)], [.integer(16002), .integer(2)], [.integer(16003), .integer(5)]])
        #expect(try AppleStores.rows("SELECT Z_PK, ZNAME FROM ATRANSACTIONSTRING WHERE Z_PK > 2 ORDER BY Z_PK", in: url).map { $0[1] }
                == [.text("test"), .text(ProcessInfo.processInfo.processName), .text("ours")])
    }
}
