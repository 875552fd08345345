import ObjectGraphTestModels
import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

@Suite("MagicalRecord's finders and batch requests")
struct FindersAndBatchTests {
    @Test("findOrCreate finds an existing object or inserts one with the value")
    func findOrCreate() throws {
        let store = try TestStore()
        let context = store.context()
        let sea = try context.findOrCreate(Tag.self, by: "name", value: "sea")
        #expect(sea.objectID.isTemporary && sea.name == "sea")
        try context.save()
        #expect(try context.findOrCreate(Tag.self, by: "name", value: "sea") === sea)
        #expect(try context.count(Tag.self) == 1)
    }

    @Test("findFirst, findAll, count and deleteAll answer as their names say")
    func finders() throws {
        let store = try TestStore()
        let context = store.context()
        for (name, count) in [("a", 3), ("b", 1), ("c", 2)] {
            let tag = Tag(context: context)
            tag.name = name
            tag.count = Int64(count)
        }
        try context.save()
        #expect(try context.findFirst(Tag.self, where: "count > %d", 1, sortedBy: "count")?.name == "c")
        #expect(try context.findFirst(Tag.self, where: "count > %d", 9) == nil)
        #expect(try context.findAll(Tag.self, sortedBy: "count", ascending: false).map(\.name) == ["a", "c", "b"])
        #expect(try context.count(Tag.self, where: try ObjectPredicate(format: "count >= 2")) == 2)
        #expect(try context.deleteAll(Tag.self, where: try ObjectPredicate(format: "count < 3")) == 2)
        try context.save()
        #expect(try store.rows("SELECT ZNAME FROM ZTAG") == [[.text("a")]])
    }

    @Test("a grouped fetch gives a controller with one section per value")
    func grouped() throws {
        let store = try TestStore()
        let context = store.context()
        for (name, count) in [("a", 1), ("b", 2), ("c", 1)] {
            let tag = Tag(context: context)
            tag.name = name
            tag.count = Int64(count)
        }
        try context.save()
        let controller = try context.fetchAllGrouped(Tag.self, by: "count", sortedBy: "name")
        #expect(controller.sections.map { $0.objects.map(\.name) } == [["a", "c"], ["b"]])
    }

    @Test("a batch update is one statement, bumps Z_OPT, and live contexts merge it")
    func batchUpdate() throws {
        let store = try TestStore()
        let context = store.context()
        context.automaticallyMergesChanges = true
        var tags: [Tag] = []
        for name in ["a", "b", "c"] {
            let tag = Tag(context: context)
            tag.name = name
            tags.append(tag)
        }
        try context.save()
        let recorder = SQLTraceRecorder()
        try store.sql { recorder.attach(to: $0) }
        let changes = try store.coordinator.execute(BatchUpdate(entityName: "Tag", predicate: try ObjectPredicate(format: "name != %@", "b"),
                                                                values: ["count": .integer(7)]))
        #expect(recorder.writes.count == 1)
        #expect(changes.updated == [tags[0].objectID, tags[2].objectID])
        #expect(try store.rows("SELECT ZNAME, ZCOUNT, Z_OPT FROM ZTAG ORDER BY 1")
                == [[.text("a"), .integer(7), .integer(2)], [.text("b"), .integer(0), .integer(1)], [.text("c"), .integer(7), .integer(2)]])
        _ = try context.fetch(FetchRequest<Tag>())
        #expect(tags.map(\.count) == [7, 0, 7])
    }

    @Test("a batch delete removes rows and their links, clears keys pointing at them, and live contexts drop them")
    func batchDelete() throws {
        let store = try TestStore()
        let context = store.context()
        context.automaticallyMergesChanges = true
        let place = Place(context: context)
        place.name = "Lisbon"
        let tag = Tag(context: context)
        tag.name = "sea"
        let photo = Photo(context: context)
        photo.unique = "1"
        photo.place = place
        photo.tags = [tag]
        try context.save()
        let changes = try store.coordinator.execute(BatchDelete(entityName: "Place"))
        #expect(changes.deleted == [place.objectID])
        #expect(changes.updated == [photo.objectID])
        #expect(try store.rows("SELECT count(*), count(ZPLACE) FROM ZPHOTO") == [[.integer(1), .integer(0)]])
        _ = try store.coordinator.execute(BatchDelete(entityName: "Tag", predicate: try ObjectPredicate(format: "name == %@", "sea")))
        #expect(try store.rows("SELECT count(*) FROM Z_6TAGS") == [[.integer(0)]])
        _ = try context.fetch(FetchRequest<Photo>())
        #expect(place.isDeleted && tag.isDeleted)
        #expect(photo.place == nil)
    }

    @Test("batch requests with unknown entities or attributes are refused")
    func batchErrors() throws {
        let store = try TestStore()
        #expect(throws: FetchRequestError.self) { try store.coordinator.execute(BatchDelete(entityName: "Nope")) }
        #expect(throws: FetchRequestError.self) { try store.coordinator.execute(BatchUpdate(entityName: "Tag", values: ["nope": .null])) }
        #expect(throws: FetchRequestError.self) { try store.coordinator.execute(BatchUpdate(entityName: "Tag", values: ["count": .text("many")])) }
    }
}
