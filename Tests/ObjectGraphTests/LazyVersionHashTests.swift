@testable import ObjectGraph
import ObjectGraphTestModels
import Foundation
import SQLiteDB
import Testing
import TestSupport

/// Entity version hashes are worked out at the first question, not when the model is built
/// (issue 22, session 29): the same hashes, from any thread.
@Suite("Version hashes on demand")
struct LazyVersionHashTests {
    static let classes: [ManagedObject.Type] = [Photo.self, Tag.self, Place.self, Note.self, Trip.self, Stop.self, Sample.self,
                                                Media.self, Picture.self, Clip.self, Album.self]

    @Test("a model's hashes are CoreDataVersionHash's over its descriptions, the same from every entity")
    func hashesAreTheDescriptions() throws {
        let model = try ObjectModel(classes: Self.classes)
        let expected = try CoreDataVersionHash.entityHashes(of: model.entities.map { entity in
            try ModelReflection.entityDescription(of: entity.objectClass, byReflection: false)
        })
        #expect(model.versionHashes == expected)
        #expect(model.versionHashes == TestModels.travel.versionHashes)
        for entity in model.entities {
            #expect(entity.versionHash == expected[entity.name])
            #expect(entity.versionHash.count == 32)
        }
    }

    @Test("the first question, asked by many threads at once, gives every thread the same hashes")
    func concurrentFirstQuestion() async throws {
        let reference = TestModels.travel.versionHashes
        for _ in 0..<20 {
            let model = try ObjectModel(classes: Self.classes)
            let answers = await withTaskGroup(of: [String: Data].self) { group in
                for index in 0..<8 {
                    group.addTask {
                        let entity = model.entities[index % model.entities.count]
                        return index.isMultiple(of: 2) ? model.versionHashes : [entity.name: entity.versionHash]
                    }
                }
                var all: [[String: Data]] = []
                for await answer in group { all.append(answer) }
                return all
            }
            #expect(answers.count == 8)
            for answer in answers {
                for (name, hash) in answer { #expect(reference[name] == hash, "\(name)") }
            }
        }
    }
}
