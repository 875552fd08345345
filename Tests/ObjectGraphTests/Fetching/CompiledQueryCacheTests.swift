import Foundation
@testable import ObjectGraph
import ObjectGraphTestModels
import Testing

@Suite("The store's cache of compiled queries")
struct CompiledQueryCacheTests {
    private func cachedCount(_ store: TestStore) throws -> Int {
        store.coordinator.withStore { $0.compiledQueries.count }
    }

    private func names(_ count: Int, from first: Int = 0) -> [String] {
        (first..<first + count).map { "place \($0)" }
    }

    @Test("a fetch whose predicate lists more than 64 constants is answered in full and not kept; one with 64 or fewer is kept once")
    func longListsAreNotKept() throws {
        let store = try TestStore()
        let context = store.context()
        for name in names(300) { Place(context: context).name = name }
        try context.save()
        var kept = try cachedCount(store)
        // Lengths around the limit; each list is new (a batch's ids), asked twice.
        for (round, length) in [1, 2, 16, 17, 63, 64, 65, 66, 200, 300].enumerated() {
            let wanted = names(length, from: round % 2)
            let predicate = ObjectPredicate.key("name", .in, PredicateValue.array(wanted.map(PredicateValue.string)))
            for _ in 0..<2 {
                let found = try context.fetch(FetchRequest<Place>(predicate: predicate)).map(\.name)
                #expect(Set(found) == Set(wanted.filter { names(300).contains($0) }), "\(length)")
                #expect(found.count == wanted.filter { names(300).contains($0) }.count, "\(length)")
            }
            if length <= ObjectPredicate.cachedConstantLimit { kept += 1 }
            #expect(try cachedCount(store) == kept, "\(length)")
        }
    }

    @Test("the constants of every part of a predicate count toward the limit, lists by their elements at any depth")
    func everyConstantCounts() throws {
        func list(_ count: Int) -> ObjectExpression {
            .constant(.array((0..<count).map { .int(Int64($0)) }))
        }
        func comparison(_ count: Int) -> ObjectPredicate {
            .comparison(PredicateComparison(.keyPath(["count"]), .in, list(count)))
        }
        let nested = ObjectExpression.constant(.array([.array((0..<40).map { .int(Int64($0)) }), .array((0..<24).map { .string("\($0)") })]))
        let cases: [(ObjectPredicate, Bool)] = [
            (comparison(64), true),
            (comparison(65), false),
            (.and([comparison(32), comparison(32)]), true),
            (.and([comparison(32), comparison(33)]), false),
            (.or([comparison(60), .not(comparison(5))]), false),
            (.not(comparison(63)), true),
            (.comparison(PredicateComparison(.keyPath(["count"]), .in, nested)), true),
            (.and([.comparison(PredicateComparison(.keyPath(["count"]), .in, nested)), comparison(1)]), false),
            (.comparison(PredicateComparison(.constant(.int(1)), .equalTo, .constant(.int(1)))), true),
            (.comparison(PredicateComparison(
                .collectionOperator(.count, of: .subquery(collection: .keyPath(["photos"]), variable: "p",
                                                          predicate: .comparison(PredicateComparison(
                                                              .member(of: .variable("p"), keyPath: ["unique"]), .in, list(64)))),
                                    keyPath: []),
                .greaterThan, .constant(.int(0)))), false),
            (.comparison(PredicateComparison(.aggregate([.keyPath(["count"]), .constant(.int(3))]), .in, list(62))), true),
            (.comparison(PredicateComparison(.aggregate([.keyPath(["count"]), .constant(.int(3))]), .in, list(64))), false),
            (.true, true),
        ]
        for (index, (predicate, expected)) in cases.enumerated() {
            #expect(predicate.isWorthCaching == expected, "case \(index): \(predicate)")
        }
    }
}

@Suite("Reading a few keys a key at a time")
struct PointLookupTests {
    @Test("versions and to-many members read for 1 to 40 keys (a key at a time up to 16, a json_each list past it), repeats and missing keys included, are what the tables hold")
    func fewAndManyKeys() throws {
        let store = try TestStore()
        let context = store.context()
        let seed: UInt64 = 0x9017_2026
        print("point lookups, seed \(seed)")
        var generator = SeededGenerator(seed: seed)
        let tags = (0..<12).map { index in
            let tag = Tag(context: context)
            tag.name = "tag \(index)"
            return tag
        }
        var photos: [Photo] = []
        for index in 0..<40 {
            let photo = Photo(context: context)
            photo.unique = "photo \(index)"
            photo.tags = Set(tags.filter { _ in Bool.random(using: &generator) })
            photos.append(photo)
        }
        try context.save()
        // Some versions move on, so that they differ.
        for photo in photos where Bool.random(using: &generator) { photo.title = "changed" }
        try context.save()
        let photoEntity = try #require(TestModels.travel.entity(named: "Photo"))
        let tagsRelationship = try #require(photoEntity.relationship(named: "tags"))
        guard case .joinTable(let joinTable, let sourceColumn, let targetColumn) = tagsRelationship.storage else {
            Issue.record("Photo.tags has no join table")
            return
        }
        let storedVersions = Dictionary(uniqueKeysWithValues: try store.rows("SELECT Z_PK, Z_OPT FROM ZPHOTO").compactMap { row -> (Int64, Int64)? in
            guard case .integer(let key) = row[0], case .integer(let version) = row[1] else { return nil }
            return (key, version)
        })
        for count in 1...40 {
            var keys = (0..<count).map { _ in photos[Int.random(in: 0..<photos.count, using: &generator)].objectID.primaryKey }
            if count > 2 { keys[count - 1] = keys[0] }
            keys.append(10_000)
            let ids = keys.map { ObjectID(entityNumber: photoEntity.number, primaryKey: $0) }
            let versions = try store.coordinator.withStore { store throws(any Error) in try store.versions(of: ids) }
            let expectedVersions = Dictionary(uniqueKeysWithValues: Set(keys).compactMap { key in storedVersions[key].map { (ObjectID(entityNumber: photoEntity.number, primaryKey: key), $0) } })
            #expect(versions == expectedVersions, "\(count) keys")
            // Rows read by a list of keys: each stored one once, in key order, as `IN` read them.
            let snapshots = try store.coordinator.withStore { store throws(any Error) in try store.snapshots(of: ids) }
            #expect(snapshots.map(\.id.primaryKey) == Set(keys).filter { storedVersions[$0] != nil }.sorted(), "\(count) keys")
            #expect(snapshots.allSatisfy { storedVersions[$0.id.primaryKey] == $0.version }, "\(count) keys")
            let related = try store.coordinator.withStore { store throws(any Error) in try store.relatedIDs(of: keys, relationship: tagsRelationship) }
            for key in Set(keys) {
                let expected = try store.rows("SELECT \(targetColumn) FROM \(joinTable) WHERE \(sourceColumn) = \(key)").compactMap { row -> Int64? in
                    if case .integer(let tag) = row[0] { return tag }
                    return nil
                }
                #expect(related[key, default: []].map { (id: ObjectID) in id.primaryKey }.sorted() == expected.sorted(), "\(count) keys, photo \(key)")
            }
        }
    }
}
