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

    @Test("sections by a place's name: no place and a place named \"\" make one section, in every kind of context and fetch")
    func sectionsByPlaceName() throws {
        for seed in [UInt64(3), 11, 2028] {
            print("ResultsSectioningTests.sectionsByPlaceName seed \(seed)")
            var generator = SplitMix64(seed: seed)
            let store = try TestStore()
            let writer = store.context()
            // One place named "", whose photos share a section with those of no place.
            let places = ["Porto", "", "Lisboa", "Évora"].map { name -> Place in
                let place = Place(context: writer)
                place.name = name
                return place
            }
            var expected: [(place: String, date: Double, unique: String)] = []
            for index in 0..<120 {
                let photo = Photo(context: writer)
                photo.unique = String(format: "p%03d", index)
                photo.dateTaken = Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0..<50, using: &generator)))
                let choice = Int.random(in: 0...places.count, using: &generator)
                photo.place = choice < places.count ? places[choice] : nil
                expected.append((photo.place?.name ?? "", photo.dateTaken?.timeIntervalSinceReferenceDate ?? 0, photo.unique))
            }
            try writer.save()
            // SQLite's order: no place first, then names byte by byte, then date, then key (insertion order here).
            let noPlace = Set(try store.rows("SELECT ZUNIQUE FROM ZPHOTO WHERE ZPLACE IS NULL").compactMap { $0[0].textValue })
            expected.sort { left, right in
                let (leftKey, rightKey) = (noPlace.contains(left.unique) ? [] : [0] + Array(left.place.utf8),
                                           noPlace.contains(right.unique) ? [] : [0] + Array(right.place.utf8))
                if leftKey != rightKey { return leftKey.lexicographicallyPrecedes(rightKey) }
                if left.date != right.date { return left.date < right.date }
                return left.unique < right.unique
            }
            var sections: [(name: String, uniques: [String])] = []
            for photo in expected {
                if sections.last?.name == photo.place { sections[sections.count - 1].uniques.append(photo.unique) } else { sections.append((photo.place, [photo.unique])) }
            }
            #expect(sections.map(\.name) == ["", "Lisboa", "Porto", "Évora"], "seed \(seed)")
            var prefetching = FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("place.name"), ObjectSortDescriptor("dateTaken")])
            prefetching.relationshipKeyPathsForPrefetching = ["place"]
            let holding = store.context()
            _ = try holding.fetch(FetchRequest<Place>())
            let changed = store.context()
            let extra = Photo(context: changed)
            extra.unique = "unsaved"
            extra.place = nil
            for (label, context, request) in [("fresh", store.context(), FetchRequest<Photo>(sortedBy: prefetching.sortDescriptors)),
                                              ("prefetching", store.context(), prefetching), ("holding places", holding, prefetching),
                                              ("unsaved changes", changed, FetchRequest<Photo>(sortedBy: prefetching.sortDescriptors))] {
                let controller = try FetchedResultsController(request: request, context: context, sectionKeyPath: "place.name")
                try controller.performFetch()
                var wanted = sections
                if context === changed { wanted[0].uniques.insert("unsaved", at: 0) }
                #expect(controller.sectionNames == wanted.map(\.name), "seed \(seed), \(label)")
                #expect(controller.sections.map { $0.objects.map(\.unique) } == wanted.map(\.uniques), "seed \(seed), \(label)")
                // Each object is the context's one object for its row.
                for photo in controller.fetchedObjects where !photo.objectID.isTemporary {
                    #expect(try context.existingObject(with: photo.objectID) === photo, "seed \(seed), \(label)")
                }
                // A section's list is an ordinary list of photos: it can be changed like any.
                var list = controller.sections[0].objects
                list.append(contentsOf: controller.sections[1].objects)
                list.removeFirst()
                #expect(list.count == wanted[0].uniques.count + wanted[1].uniques.count - 1, "seed \(seed), \(label)")
                #expect(list.map(\.unique) == Array((wanted[0].uniques + wanted[1].uniques).dropFirst()), "seed \(seed), \(label)")
                try context.throwIfLoadFailed()
            }
        }
    }

    @Test("a controller over an entity with subentities sections objects of every class, and of only the result's class when asked for one")
    func sectionsOfSeveralClasses() throws {
        let store = try TestStore()
        let writer = store.context()
        let albums = ["Summer", "Winter"].map { title -> Album in
            let album = Album(context: writer)
            album.title = title
            return album
        }
        for index in 0..<12 {
            let media: Media = index % 3 == 0 ? Clip(context: writer) : Picture(context: writer)
            media.caption = String(format: "m%02d", index)
            media.album = index % 4 == 3 ? nil : albums[index % 2]
        }
        try writer.save()
        let order = [ObjectSortDescriptor("album.title"), ObjectSortDescriptor("caption")]
        let all = try FetchedResultsController(request: FetchRequest<Media>(sortedBy: order), context: store.context(),
                                               sectionKeyPath: "album.title")
        try all.performFetch()
        #expect(all.sectionNames == ["", "Summer", "Winter"])
        #expect(all.sections.map { $0.objects.compactMap(\.caption) }
                == [["m03", "m07", "m11"], ["m00", "m02", "m04", "m06", "m08", "m10"], ["m01", "m05", "m09"]])
        #expect(all.fetchedObjects.map { $0 is Clip } == all.fetchedObjects.map { ["m00", "m03", "m06", "m09"].contains($0.caption ?? "") })
        // Pictures only, through the abstract entity's name: a controller of `Media` whose objects are all `Picture`s.
        let pictures = try FetchedResultsController(
            request: FetchRequest<Media>(entityName: "Picture", sortedBy: order), context: store.context(), sectionKeyPath: "album.title")
        try pictures.performFetch()
        #expect(pictures.sections.map { $0.objects.compactMap(\.caption) } == [["m07", "m11"], ["m02", "m04", "m08", "m10"], ["m01", "m05"]])
        // Without a section key path, one section, even with no objects.
        let none = try FetchedResultsController(request: FetchRequest<Picture>(predicate: "caption == 'none'"), context: store.context())
        try none.performFetch()
        #expect(none.sectionNames == [""] && none.fetchedObjects.isEmpty)
        let unsectioned = try FetchedResultsController(request: FetchRequest<Picture>(sortedBy: [ObjectSortDescriptor("caption")]),
                                                       context: store.context())
        try unsectioned.performFetch()
        #expect(unsectioned.sectionNames == [""] && unsectioned.fetchedObjects.compactMap(\.caption).count == 8)
    }
}
