import ObjectGraphTestModels
import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

@Suite("Dictionary results, batched results, one query per fetch")
struct DictionaryAndBatchFetchTests {
    private func seed(_ store: TestStore) throws {
        let context = store.context()
        let lisbon = Place(context: context)
        lisbon.name = "Lisbon"
        let kyoto = Place(context: context)
        kyoto.name = "Kyoto"
        let sea = Tag(context: context)
        sea.name = "sea"
        for index in 0..<10 {
            let photo = Photo(context: context)
            photo.unique = String(index)
            photo.title = index % 2 == 0 ? "even" : "odd"
            photo.latitude = Double(index)
            photo.dateTaken = Date(timeIntervalSinceReferenceDate: Double(index) * 100)
            photo.place = index < 7 ? lisbon : kyoto
            if index < 3 { photo.tags = [sea] }
        }
        try context.save()
    }

    @Test("groups with @count, @sum, @avg, @min and @max, sorted by an aggregate")
    func grouped() throws {
        let store = try TestStore()
        try seed(store)
        var request = DictionaryFetchRequest(entityName: "Photo", columns: [
            .key("place.name", as: "place"), .count(as: "photos"), .aggregate(.sum, of: "latitude", as: "sum"),
            .aggregate(.avg, of: "latitude", as: "average"), .aggregate(.min, of: "dateTaken", as: "first"),
            .aggregate(.max, of: "title", as: "lastTitle"),
        ])
        request.groupBy = ["place.name"]
        request.sortDescriptors = [ObjectSortDescriptor("photos", ascending: false)]
        let rows = try store.context().fetchDictionaries(request)
        #expect(rows.count == 2)
        #expect(rows[0]["place"] == .string("Lisbon"))
        #expect(rows[0]["photos"] == .int(7))
        #expect(rows[0]["sum"] == .double(21))
        #expect(rows[0]["average"] == .double(3))
        #expect(rows[0]["first"] == .date(Date(timeIntervalSinceReferenceDate: 0)))
        #expect(rows[0]["lastTitle"] == .string("odd"))
        #expect(rows[1]["place"] == .string("Kyoto"))
        #expect(rows[1]["photos"] == .int(3))
    }

    @Test("chosen properties, distinct, a predicate and a limit")
    func distinct() throws {
        let store = try TestStore()
        try seed(store)
        let request = DictionaryFetchRequest(entityName: "Photo", predicate: try ObjectPredicate(format: "ANY tags.name == 'sea' OR latitude > 8"),
                                             columns: [.key("title")], distinct: true, sortDescriptors: [ObjectSortDescriptor("title")])
        #expect(try store.context().fetchDictionaries(request) == [["title": .string("even")], ["title": .string("odd")]])
        let counts = DictionaryFetchRequest(entityName: "Photo", columns: [.key("unique"), .key("tags.@count", as: "tags")],
                                            sortDescriptors: [ObjectSortDescriptor("unique")], limit: 4)
        #expect(try store.context().fetchDictionaries(counts).map { $0["tags"] } == [.int(1), .int(1), .int(1), .int(0)])
    }

    @Test("unknown keys and columns are refused")
    func errors() throws {
        let store = try TestStore()
        let context = store.context()
        #expect(throws: FetchRequestError.self) { try context.fetchDictionaries(DictionaryFetchRequest(entityName: "Photo", columns: [.key("nope")])) }
        #expect(throws: FetchRequestError.self) { try context.fetchDictionaries(DictionaryFetchRequest(entityName: "Nope", columns: [.count(as: "n")])) }
        #expect(throws: FetchRequestError.self) { try context.fetchDictionaries(DictionaryFetchRequest(entityName: "Photo", columns: [.key("tags")])) }
        #expect(throws: FetchRequestError.self) { try context.fetchDictionaries(DictionaryFetchRequest(entityName: "Photo", columns: [.aggregate(.sum, of: "title", as: "x")])) }
        #expect(throws: FetchRequestError.self) { try context.fetchDictionaries(DictionaryFetchRequest(entityName: "Photo", columns: [.count(as: "n"), .count(as: "n")])) }
    }

    @Test("a batched fetch runs one query for the IDs, then one per batch as objects are reached")
    func batched() throws {
        let store = try TestStore()
        try seed(store)
        let recorder = SQLTraceRecorder()
        try store.sql { recorder.attach(to: $0) }
        let context = store.context()
        let photos = try context.fetch(FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("unique")]), batchSize: 4)
        #expect(photos.count == 10)
        #expect(recorder.selects.count == 1)
        #expect(photos[0].unique == "0" && photos[3].unique == "3")
        #expect(recorder.selects.count == 2)
        #expect(photos.map(\.unique) == (0..<10).map(String.init))
        #expect(recorder.selects.count == 4)
    }

    @Test("fetching 10,000 objects sorted by a key issues one query, and the compiled predicate is reused")
    func oneQuery() throws {
        let store = try TestStore()
        let context = store.context()
        for index in 0..<10_000 {
            let tag = Tag(context: context)
            tag.name = "t\(index)"
            tag.count = Int64(index % 97)
        }
        try context.save()
        let recorder = SQLTraceRecorder()
        try store.sql { recorder.attach(to: $0) }
        let reader = store.context()
        let request = try FetchRequest<Tag>(predicate: "count >= %d", 0, sortedBy: [ObjectSortDescriptor("count"), ObjectSortDescriptor("name")])
        let tags = try reader.fetch(request)
        #expect(tags.count == 10_000)
        #expect(tags.first?.count == 0)
        #expect(recorder.statements.count == 1)
        _ = try store.context().fetch(request)
        #expect(recorder.statements.count == 2)
        #expect(recorder.statements[0] == recorder.statements[1])
    }
}
