import ObjectGraphTestModels
import Foundation
@testable import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

@Suite("Persistent history against broadcast change sets, over random saves and batch operations")
struct HistoryRandomizedTests {
    /// Everything the coordinator broadcasts, as another context would receive it.
    private final class Listener {
        let inbox = ChangeInbox()
        let key: Int
        let coordinator: StoreCoordinator
        init(_ coordinator: StoreCoordinator) {
            self.coordinator = coordinator
            key = coordinator.register(inbox)
        }
        deinit { coordinator.unregister(key) }
    }

    @Test("after every save and batch operation, the history after the previous token describes exactly the change set broadcast")
    func historyMatchesBroadcasts() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("HistoryRandomizedTests seed: \(seed)")
        var random = SplitMix64(seed: seed)
        let store = try TestStore(tracksHistory: true)
        let coordinator = store.coordinator
        let listener = Listener(coordinator)
        var token = try coordinator.currentHistoryToken()
        var nextUnique = 0
        var checked = 0
        for step in 0..<2_000 {
            let expected: ChangeSet
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<6:
                try randomSave(coordinator, &random, &nextUnique)
                let broadcast = listener.inbox.drain()
                #expect(broadcast.count <= 1, "seed \(seed), step \(step)")
                expected = broadcast.first ?? ChangeSet()
            case 6, 7:
                expected = try randomBatchInsert(coordinator, &random, &nextUnique)
                _ = listener.inbox.drain()
            case 8:
                let threshold = Int.random(in: 0..<nextUnique + 1, using: &random)
                expected = try coordinator.execute(BatchUpdate(
                    entityName: "Photo", predicate: try ObjectPredicate(format: "latitude < %@", Double(threshold % 90)),
                    values: ["title": .text("batch \(step)")]))
                _ = listener.inbox.drain()
            default:
                let digit = Int.random(in: 0..<10, using: &random)
                expected = try coordinator.execute(BatchDelete(entityName: "Photo", predicate: try ObjectPredicate(format: "unique ENDSWITH %@", "\(digit)7")))
                _ = listener.inbox.drain()
            }
            let transactions = try coordinator.fetchHistory(after: token)
            if expected.isEmpty {
                #expect(transactions.isEmpty, "seed \(seed), step \(step)")
                continue
            }
            #expect(transactions.count == 1, "seed \(seed), step \(step)")
            guard let transaction = transactions.first else { continue }
            let recorded = transaction.changeSet
            #expect(recorded.inserted == expected.inserted, "seed \(seed), step \(step)")
            #expect(recorded.updated == expected.updated, "seed \(seed), step \(step)")
            #expect(recorded.deleted == expected.deleted, "seed \(seed), step \(step)")
            let expectedKeys = expected.changedKeys.filter { expected.updated.contains($0.key) }
            #expect(recorded.changedKeys == expectedKeys, "seed \(seed), step \(step)")
            token = transaction.token
            checked += 1
        }
        #expect(checked > 1_000, "seed \(seed)")
    }

    private func randomSave(_ coordinator: StoreCoordinator, _ random: inout SplitMix64, _ nextUnique: inout Int) throws {
        let context = ObjectContext(coordinator: coordinator, name: "random")
        var some = FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("unique")])
        some.fetchLimit = 20
        some.fetchOffset = Int.random(in: 0..<max(1, try context.count(for: FetchRequest<Photo>()) - 19), using: &random)
        let photos = try context.fetch(some)
        let tags = try context.fetch(FetchRequest<Tag>())
        let places = try context.fetch(FetchRequest<Place>())
        var newTags: [Tag] = []
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            let tag = Tag(context: context)
            tag.name = "tag\(nextUnique)"
            nextUnique += 1
            newTags.append(tag)
        }
        let allTags = tags + newTags
        var allPlaces = places
        if Bool.random(using: &random) || places.isEmpty {
            let place = Place(context: context)
            place.name = "place\(nextUnique)"
            nextUnique += 1
            allPlaces.append(place)
        }
        for _ in 0..<Int.random(in: 0...3, using: &random) {
            let photo = Photo(context: context)
            photo.unique = String(nextUnique)
            photo.latitude = Double(nextUnique % 90)
            nextUnique += 1
            photo.place = allPlaces.randomElement(using: &random)
            if let tag = allTags.randomElement(using: &random) { photo.tags.insert(tag) }
            if Int.random(in: 0..<4, using: &random) == 0 {
                let note = Note(context: context)
                note.text = "note"
                note.photo = photo
            }
        }
        for photo in photos.shuffled(using: &random).prefix(Int.random(in: 0...3, using: &random)) {
            switch Int.random(in: 0..<5, using: &random) {
            case 0: photo.title = "title \(Int.random(in: 0..<1000, using: &random))"
            case 1: photo.place = allPlaces.randomElement(using: &random)
            case 2: if let tag = allTags.randomElement(using: &random) { photo.tags.insert(tag) }
            case 3: if let tag = photo.tags.randomElement(using: &random) { photo.tags.remove(tag) }
            default: context.delete(photo)
            }
        }
        if let tag = tags.randomElement(using: &random), Int.random(in: 0..<4, using: &random) == 0 {
            if Bool.random(using: &random) { context.delete(tag) } else { tag.count += 1 }
        }
        if let place = places.randomElement(using: &random), Int.random(in: 0..<8, using: &random) == 0 {
            context.delete(place)
        }
        try context.save()
    }

    private func randomBatchInsert(_ coordinator: StoreCoordinator, _ random: inout SplitMix64, _ nextUnique: inout Int) throws -> ChangeSet {
        let context = ObjectContext(coordinator: coordinator)
        let tags = try context.fetch(FetchRequest<Tag>()).map(\.objectID)
        let places = try context.fetch(FetchRequest<Place>()).map(\.objectID)
        var insert = try BatchInsert(entityName: "Photo", in: coordinator.model)
        let unique = try insert.attribute("unique"), latitude = try insert.attribute("latitude")
        let place = try insert.toOne("place"), tagKey = try insert.toMany("tags")
        for _ in 0..<Int.random(in: 1...20, using: &random) {
            var row = insert.newRow()
            row.set(unique, String(nextUnique))
            row.set(latitude, Double(nextUnique % 90))
            nextUnique += 1
            row[place] = places.randomElement(using: &random)
            row[tagKey] = Array(Set(tags.shuffled(using: &random).prefix(Int.random(in: 0...2, using: &random))))
            insert.append(row)
        }
        return try coordinator.execute(insert).changeSet
    }
}
