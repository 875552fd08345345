import ObjectGraphTestModels
import Foundation
@testable import ObjectGraph
import Testing
import TestSupport

@Suite("The identity map answers as a dictionary would")
struct ObjectRegistryTests {
    @Test("random inserts, replacements and removals, clustered and spread, agree with a Dictionary at every step",
          arguments: [1, 2, 3, 4])
    func agreesWithDictionary(seed: UInt64) throws {
        let store = try TestStore()
        let context = store.context()
        var random = SplitMix64(seed: seed)
        var registry = ObjectRegistry()
        var expected: [ObjectID: ManagedObject] = [:]
        // Few distinct keys, close together: long probe runs, and removals inside them.
        let keySpace = Int64(seed % 2 == 0 ? 300 : 5_000)
        for step in 0..<20_000 {
            // Entities with and without objects yet; now and then the one key no table slot can hold.
            let key = random.next() % 64 == 0 ? Int64.min : Int64(random.next() % UInt64(keySpace)) - 5
            let id = ObjectID(entityNumber: Int(random.next() % 4), primaryKey: key)
            switch random.next() % 10 {
            case 0..<5:
                let object = Tag(context: context)
                registry[id] = object
                expected[id] = object
            case 5..<8:
                #expect(registry.removeValue(forKey: id) === expected.removeValue(forKey: id))
            case 8:
                registry[id] = nil
                expected[id] = nil
            default:
                #expect(registry[id] === expected[id])
            }
            if step % 997 == 0 {
                #expect(registry.count == expected.count)
                for (key, object) in expected { #expect(registry[key] === object) }
                #expect(Set(registry.values.map(ObjectIdentifier.init)) == Set(expected.values.map(ObjectIdentifier.init)))
            }
        }
        #expect(registry.count == expected.count && registry.isEmpty == expected.isEmpty)
        for (key, object) in expected { #expect(registry[key] === object) }
        for entity in [-1, 9, 1_000] { #expect(registry[ObjectID(entityNumber: entity, primaryKey: 1)] == nil) }
        let copy = registry
        registry.removeAll()
        #expect(registry.isEmpty && registry.values.isEmpty && copy.count == expected.count)
    }

    @Test("reserving room for an entity keeps every entry, and a copy is not changed by the original")
    func reserveAndCopy() throws {
        let store = try TestStore()
        let context = store.context()
        var registry = ObjectRegistry()
        let objects = (0..<100).map { _ in Tag(context: context) }
        for (key, object) in objects.enumerated() { registry[ObjectID(entityNumber: 1, primaryKey: Int64(key))] = object }
        let copy = registry
        registry.reserveCapacity(additional: 10_000, forEntity: 1)
        registry.reserveCapacity(additional: 10, forEntity: 3)
        registry.removeValue(forKey: ObjectID(entityNumber: 1, primaryKey: 7))
        #expect(registry.count == 99 && copy.count == 100)
        #expect(copy[ObjectID(entityNumber: 1, primaryKey: 7)] === objects[7])
        for key in 0..<100 where key != 7 { #expect(registry[ObjectID(entityNumber: 1, primaryKey: Int64(key))] === objects[key]) }
    }

    @Test("a table that grows one entry at a time keeps every entry, and so does a copy taken while it grew; no object outlives them")
    func growsStepByStep() throws {
        let store = try TestStore()
        weak var first: Tag?
        weak var last: Tag?
        do {
            let context = store.context()
            let objects = (0..<3_000).map { _ in Tag(context: context) }
            (first, last) = (objects.first, objects.last)
            var registry = ObjectRegistry()
            var copies: [(count: Int, registry: ObjectRegistry)] = []
            for (key, object) in objects.enumerated() {
                registry[ObjectID(entityNumber: 2, primaryKey: Int64(key) * 3 - 100)] = object
                // Copies just before the table grows (8, 16, 32… slots, at most half full) and in between.
                if [3, 4, 5, 100, 1_023, 1_024, 2_047].contains(key) { copies.append((key + 1, registry)) }
            }
            #expect(registry.count == objects.count)
            for (key, object) in objects.enumerated() {
                #expect(registry[ObjectID(entityNumber: 2, primaryKey: Int64(key) * 3 - 100)] === object)
            }
            for (count, copy) in copies {
                #expect(copy.count == count)
                for (key, object) in objects.enumerated() {
                    let found = copy[ObjectID(entityNumber: 2, primaryKey: Int64(key) * 3 - 100)]
                    #expect(key < count ? found === object : found == nil, "copy of \(count), key \(key)")
                }
            }
            context.reset()
        }
        // Moved, not copied, when the table grew: neither leaked nor released once too often.
        #expect(first == nil && last == nil)
    }

    @Test("objects registered together take over the list's references: every one is found, the list is left empty, none outlives the registry")
    func insertNewTakesReferences() throws {
        let store = try TestStore()
        weak var watched: Tag?
        do {
            let context = store.context()
            var registry = ObjectRegistry()
            let earlier = Tag(context: context)
            registry[ObjectID(entityNumber: 1, primaryKey: 5)] = earlier
            let objects = (0..<2_500).map { _ in Tag(context: context) }
            watched = objects[1_234]
            // Keys of two entities, the key no slot can hold among them, and one list entry without an object.
            var entries: [(id: ObjectID, object: ManagedObject?)] = objects.enumerated().map { index, object in
                (ObjectID(entityNumber: 1 + index % 2, primaryKey: index == 77 ? Int64.min : Int64(index) * 7 + 6), object)
            }
            entries.append((ObjectID(entityNumber: 1, primaryKey: 99_999), nil))
            registry.reserveCapacity(additional: 1_000, forEntity: 1)
            registry.insertNew(&entries)
            #expect(entries.count == 2_501 && entries.allSatisfy { $0.object == nil })
            #expect(registry.count == 2_501)
            #expect(registry[ObjectID(entityNumber: 1, primaryKey: 5)] === earlier)
            #expect(registry[ObjectID(entityNumber: 1, primaryKey: 99_999)] == nil)
            for (index, object) in objects.enumerated() {
                let id = ObjectID(entityNumber: 1 + index % 2, primaryKey: index == 77 ? Int64.min : Int64(index) * 7 + 6)
                #expect(registry[id] === object, "\(id)")
            }
            context.reset()
        }
        // References moved, not copied: neither leaked nor released once too often.
        #expect(watched == nil)
    }
}
