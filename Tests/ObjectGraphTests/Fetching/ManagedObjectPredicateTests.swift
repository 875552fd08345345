import ObjectGraphTestModels
import Foundation
@testable import ObjectGraph
import SQLiteDB
import Testing

@Suite("Managed objects in predicates: values by attribute type, identity by ObjectID, in-memory order")
struct ManagedObjectPredicateTests {
    @Test("attributes read as their type's predicate values, relationships as objects")
    func values() throws {
        let store = try TestStore()
        let context = store.context()
        let sample = Sample(context: context)
        sample.required = "r"
        sample.flag = true
        sample.small = 7
        sample.decimal = Decimal(string: "1.5") ?? 0
        sample.date = Date(timeIntervalSinceReferenceDate: 60)
        sample.data = Data([1, 2])
        let uuid = UUID()
        sample.uuid = uuid
        sample.url = URL(string: "https://example.com/photo")
        #expect(try sample.predicateValue(forKey: "flag").isEqual(to: .bool(true)))
        #expect(try sample.predicateValue(forKey: "small").isEqual(to: .int(7)))
        #expect(try sample.predicateValue(forKey: "decimal").isEqual(to: .double(1.5)))
        #expect(try sample.predicateValue(forKey: "date").isEqual(to: .date(Date(timeIntervalSinceReferenceDate: 60))))
        #expect(try sample.predicateValue(forKey: "uuid").isEqual(to: uuid.predicateValue))
        #expect(try sample.predicateValue(forKey: "url").isEqual(to: .string("https://example.com/photo")))
        #expect(try sample.predicateValue(forKey: "optionalText").isEqual(to: .null))
        let formats: [(String, [any PredicateArgument])] = [
            ("flag == YES AND flag == 1 AND small BETWEEN {7, 7.5}", []), ("decimal == %@", [Decimal(string: "1.5") ?? 0]),
            ("uuid == %@", [uuid]), ("url BEGINSWITH 'https:' AND url == %@", [URL(string: "https://example.com/photo") as Any as? URL]),
            ("data > %@ AND data < %@", [Data([1]), Data([1, 3])]),
        ]
        for (format, arguments) in formats {
            #expect(try ObjectPredicate(format: format, arguments: arguments).evaluate(with: sample), "\(format)")
        }
    }

    @Test("a key path the model does not have throws the error a fetch throws, before any value is read")
    func unknownKey() throws {
        let store = try TestStore()
        let context = store.context()
        let photo = Photo(context: context)
        photo.latitude = 1
        let place = Place(context: context)
        place.name = "Lisbon"
        photo.place = place
        let cases: [(String, String)] = [
            ("colour == 'red'", "Photo has no attribute or relationship named 'colour' (key path 'colour')"),
            ("latitude.latitude == nil", "Cannot follow 'latitude' from latitude, a Double attribute of Photo (key path 'latitude.latitude')"),
            ("place.colour == nil", "Place has no attribute or relationship named 'colour' (key path 'place.colour')"),
            ("ANY tags.colour == nil", "Tag has no attribute or relationship named 'colour' (key path 'tags.colour')"),
            ("tags.@sum.colour == 0", "Tag has no attribute or relationship named 'colour' (key path 'tags.@sum.colour')"),
            ("SUBQUERY(tags, $t, $t.name.x == 1).@count > 0",
             "Cannot follow 'x' from $t.name, a String attribute of Tag (key path '$t.name.x')"),
            ("dateTaken BEGINSWITH 'a'", "BEGINSWITH does not apply to dateTaken, a Date attribute of Photo: it needs strings"),
            ("place < %@", "< does not apply to place, an object of Place: objects compare only with ==, != and IN"),
        ]
        for (format, message) in cases {
            let predicate = try ObjectPredicate(format: format, arguments: format.contains("%@") ? [place] : [])
            let inMemory = #expect(throws: FetchRequestError.self, "\(format)") { try predicate.evaluate(with: photo) }
            #expect(inMemory?.message == message, "\(format)")
            let fetched = #expect(throws: FetchRequestError.self, "\(format)") {
                try store.context().fetch(FetchRequest<Photo>(predicate: predicate))
            }
            #expect(fetched?.message == message, "\(format)")
        }
        // The check runs once per entity and evaluator, and a valid predicate still evaluates.
        let evaluator = PredicateEvaluator(try ObjectPredicate(format: "latitude == 1 AND place.name == 'Lisbon'"))
        #expect(try evaluator.evaluate(with: photo))
        #expect(try evaluator.evaluate(with: photo))
    }

    @Test("an object that is in no context cannot be checked against its model")
    func contextless() throws {
        let store = try TestStore()
        let photo = Photo(context: store.context())   // its context is gone at once
        let error = #expect(throws: PropertyAccessError.self) { try ObjectPredicate(format: "title == nil").evaluate(with: photo) }
        #expect(error?.message.hasSuffix("is in no context: a predicate cannot be checked against its model") == true)
    }

    @Test("objects and object IDs are arguments compared by ID, across contexts and before saving")
    func identity() throws {
        let store = try TestStore()
        let context = store.context()
        let lisbon = Place(context: context)
        lisbon.name = "Lisbon"
        let sea = Tag(context: context)
        sea.name = "sea"
        let photo = Photo(context: context)
        photo.unique = "1"
        photo.place = lisbon
        photo.tags = [sea]
        #expect(try ObjectPredicate(format: "place == %@ AND %@ IN tags AND tags.name ==[c] 'SEA'", lisbon, sea).evaluate(with: photo))
        try context.save()
        let other = store.context()
        let reloaded = try other.existingObject(with: photo.objectID)
        #expect(try ObjectPredicate(format: "place == %@ AND ANY tags == %@", lisbon.objectID, sea).evaluate(with: reloaded))
        #expect(try !ObjectPredicate(format: "place != %@ OR SELF != %@", lisbon, photo).evaluate(with: reloaded))
    }

    @Test("the comparator sorts NULLs first ascending and last descending, strings by bytes or folded")
    func comparator() throws {
        let store = try TestStore()
        let context = store.context()
        let titles: [String?] = ["b", nil, "C", "a", "Éa", "eb"]
        var photos: [Photo] = []
        for (index, title) in titles.enumerated() {
            let photo = Photo(context: context)
            photo.unique = "\(index)"
            photo.title = title
            photos.append(photo)
        }
        try context.save()
        func order(_ descriptors: [ObjectSortDescriptor]) -> [String] {
            ObjectSortDescriptor.sorted(photos, by: descriptors).map { ($0 as? Photo)?.title ?? "nil" }
        }
        #expect(order([.init("title")]) == ["nil", "C", "a", "b", "eb", "Éa"])
        #expect(order([.init("title", ascending: false)]) == ["Éa", "eb", "b", "a", "C", "nil"])
        #expect(order([.init("title", comparison: .caseInsensitive)]) == ["nil", "a", "b", "C", "eb", "Éa"])
        #expect(order([.init("title", comparison: .localized)]) == ["nil", "a", "b", "C", "Éa", "eb"])
    }

    @Test("ties break by ID: saved objects by primary key, then unsaved ones in the order they were made")
    func tiebreak() throws {
        let store = try TestStore()
        let context = store.context()
        let saved = (0..<3).map { index -> Photo in
            let photo = Photo(context: context)
            photo.unique = "saved \(index)"
            return photo
        }
        try context.save()
        let unsaved = (0..<3).map { index -> Photo in
            let photo = Photo(context: context)
            photo.unique = "unsaved \(index)"
            return photo
        }
        let all: [ManagedObject] = [unsaved[2], saved[1], unsaved[0], saved[2], unsaved[1], saved[0]]
        let descriptors = [ObjectSortDescriptor("title")]
        let expected = saved.sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }.map(\.unique) + ["unsaved 0", "unsaved 1", "unsaved 2"]
        #expect(ObjectSortDescriptor.sorted(all, by: descriptors).map { ($0 as? Photo)?.unique } == expected)
        #expect(all.sorted { ObjectSortDescriptor.compare($0, $1, by: descriptors) }.map { ($0 as? Photo)?.unique } == expected)
    }
}

private extension PredicateEvaluationValue {
    func isEqual(to value: PredicateValue) -> Bool {
        if case .value(let own) = self { return own == value }
        return false
    }
}
