import ObjectGraphTestModels
import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

@Suite("Sections by a to-one's attribute, and the to-one targets a fetch registers")
struct ResultsSectioningTests {
    /// Photos with titles from a small set (some none), notes each on a random photo.
    private func seed(_ store: TestStore, seed: UInt64) throws -> [(text: String, title: String?)] {
        var generator = SplitMix64(seed: seed)
        let context = store.context()
        let titles: [String?] = [nil, "Alfama", "Belém", "Chiado", "alfama", "Zeta"]
        var photos: [(Photo, String?)] = []
        for index in 0..<40 {
            let photo = Photo(context: context)
            photo.unique = "p\(index)"
            photo.title = titles[Int.random(in: 0..<titles.count, using: &generator)]
            photos.append((photo, photo.title))
        }
        var notes: [(text: String, title: String?)] = []
        for index in 0..<300 {
            let (photo, title) = photos[Int.random(in: 0..<photos.count, using: &generator)]
            let note = Note(context: context)
            note.text = String(format: "note %03d", index)
            note.photo = photo
            notes.append((note.text, title))
        }
        try context.save()
        return notes
    }

    @Test("notes sectioned by their photo's title: photos that share a title share a section, no title is the section \"\"")
    func sectionsByTargetName() throws {
        for seed in [UInt64(1), 7, 42, 2026] {
            print("ResultsSectioningTests seed \(seed)")
            let store = try TestStore()
            let notes = try self.seed(store, seed: seed)
            // SQLite's order: no title first, then titles byte by byte (ASCII and "é" here).
            let ordered = notes.sorted { left, right in
                let (leftTitle, rightTitle) = (left.title.map { Array($0.utf8) }, right.title.map { Array($0.utf8) })
                if leftTitle != rightTitle {
                    guard let leftTitle else { return true }
                    guard let rightTitle else { return false }
                    return leftTitle.lexicographicallyPrecedes(rightTitle)
                }
                return left.text < right.text
            }
            var expected: [(name: String, texts: [String])] = []
            for note in ordered {
                let name = note.title ?? ""
                if expected.last?.name == name { expected[expected.count - 1].texts.append(note.text) } else { expected.append((name, [note.text])) }
            }
            let request = FetchRequest<Note>(sortedBy: [ObjectSortDescriptor("photo.title"), ObjectSortDescriptor("text")])
            // A new context (rows straight from the store) and one that holds objects already.
            let fresh = store.context()
            let holding = store.context()
            _ = try holding.fetch(try FetchRequest<Photo>(predicate: "unique < %@", "p2"))
            for context in [fresh, holding] {
                let controller = try FetchedResultsController(request: request, context: context, sectionKeyPath: "photo.title")
                try controller.performFetch()
                #expect(controller.sectionNames == expected.map(\.name), "seed \(seed)")
                #expect(controller.sections.map { $0.objects.map(\.text) } == expected.map(\.texts), "seed \(seed)")
                for section in controller.sections {
                    #expect(section.objects.allSatisfy { ($0.photo?.title ?? "") == section.name }, "seed \(seed)")
                }
                try context.throwIfLoadFailed()
            }
        }
    }

    @Test("a fetch whose rows point to rows of their own table registers one object per row, fetched or not")
    func targetsInTheirOwnTable() throws {
        let directory = try TemporaryDirectory()
        let model = try ObjectModel(entities: [EntityDescription(
            name: "Person", attributes: [AttributeDescription(name: "name", type: .string)],
            relationships: [RelationshipDescription(name: "manager", destination: "Person", inverse: "reports"),
                            RelationshipDescription(name: "reports", destination: "Person", inverse: "manager", isToMany: true)])])
        let coordinator = try StoreCoordinator(url: directory.path("people.sqlite"), model: model)
        let writer = ObjectContext(coordinator: coordinator)
        var people: [ManagedObject] = []
        for index in 0..<30 {
            let person = try writer.insertObject(entityName: "Person")
            try person.setValue(String(format: "person %02d", index), forKey: "name")
            // Managers come from anywhere in the list: some before, some after, some none.
            if index > 0 { try person.setObject(people[(index * 7) % index], forKey: "manager") }
            people.append(person)
        }
        try writer.save()

        for predicate in ["name >= 'person 00'", "name >= 'person 15'"] {
            let context = ObjectContext(coordinator: coordinator)
            let fetched = try context.fetch(try FetchRequest<ManagedObject>(
                entityName: "Person", predicate: predicate, sortedBy: [ObjectSortDescriptor("name")]))
            let byName = Dictionary(uniqueKeysWithValues: try fetched.map { (try $0.value(forKey: "name", as: String.self), $0) })
            for (index, person) in people.enumerated() {
                let name = try person.value(forKey: "name", as: String.self)
                guard let reader = byName[name] else { continue }
                let manager = try reader.object(forKey: "manager")
                let expected = index > 0 ? try people[(index * 7) % index].value(forKey: "name", as: String.self) : nil
                #expect(try manager.map { try $0.value(forKey: "name", as: String.self) } == expected, "\(predicate), \(name)")
                // A manager that was fetched too is that very object, not a second one.
                if let expected, let fetchedManager = byName[expected] { #expect(manager === fetchedManager, "\(predicate), \(name)") }
            }
            try context.throwIfLoadFailed()
        }
    }
}
