import ObjectGraphTestModels
import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

@Suite("Undo in a context: groups, exact states, relationships, deletions, saves")
struct UndoManagerTests {
    @Test("a context has no undo manager by default, and records nothing without one")
    func noneByDefault() throws {
        let store = try TestStore()
        let context = store.context()
        #expect(context.undoManager == nil)
        let place = Place(context: context)
        place.name = "Lisbon"
        context.processPendingChanges()
        let manager = ContextUndoManager()
        context.undoManager = manager
        #expect(!manager.canUndo)
        try manager.undo()
        #expect(place.name == "Lisbon" && place.context === context)
    }

    @Test("undo reverts the event's group, redo applies it again, and a new change clears redo")
    func undoRedoOneGroup() throws {
        let store = try TestStore()
        let context = store.context()
        let manager = ContextUndoManager()
        context.undoManager = manager
        let place = Place(context: context)
        place.name = "Lisbon"
        context.processPendingChanges()
        place.name = "Porto"
        place.firstVisited = Date(timeIntervalSinceReferenceDate: 5)
        context.processPendingChanges()
        #expect(manager.canUndo && !manager.canRedo)
        try manager.undo()
        #expect(place.name == "Lisbon" && place.firstVisited == nil)
        #expect(manager.canRedo)
        try manager.redo()
        #expect(place.name == "Porto" && place.firstVisited == Date(timeIntervalSinceReferenceDate: 5))
        try manager.undo()
        try manager.undo()
        #expect(place.context == nil && !context.hasChanges && context.insertedObjects.isEmpty)
        #expect(!manager.canUndo && manager.canRedo)
        try manager.redo()
        #expect(place.context === context && place.name == "Lisbon" && context.insertedObjects.count == 1)
        place.name = "Faro"
        context.processPendingChanges()
        #expect(!manager.canRedo)
    }

    @Test("explicit groups nest into the outermost, and levelsOfUndo drops the oldest groups")
    func groupingAndLevels() throws {
        let store = try TestStore()
        let context = store.context()
        let manager = ContextUndoManager(levelsOfUndo: 2)
        context.undoManager = manager
        let tag = Tag(context: context)
        tag.name = "sea"
        manager.beginUndoGrouping()
        tag.count = 1
        manager.beginUndoGrouping()
        tag.count = 2
        #expect(manager.groupingLevel == 2)
        #expect(throws: UndoError.self) { try manager.undo() }
        try manager.endUndoGrouping()
        tag.count = 3
        try manager.endUndoGrouping()
        #expect(throws: UndoError.self) { try manager.endUndoGrouping() }
        for value in [4, 5] as [Int64] {
            tag.count = value
            context.processPendingChanges()
        }
        // Four groups were made (the insertion, 1…3, 4, 5); two are kept.
        try manager.undo()
        #expect(tag.count == 4)
        try manager.undo()
        #expect(tag.count == 3)
        #expect(!manager.canUndo)
        try manager.undo()
        #expect(tag.count == 3)
        manager.levelsOfUndo = 0
        try manager.redo()
        try manager.redo()
        #expect(tag.count == 5)
    }

    @Test("disabled registration records nothing; rollback and reset remove every action")
    func disabledAndRemoved() throws {
        let store = try TestStore()
        let context = store.context()
        let manager = ContextUndoManager()
        context.undoManager = manager
        manager.disableUndoRegistration()
        let place = Place(context: context)
        place.name = "Setup"
        manager.enableUndoRegistration()
        context.processPendingChanges()
        #expect(!manager.canUndo)
        place.name = "Edited"
        context.processPendingChanges()
        #expect(manager.canUndo)
        context.rollback()
        #expect(!manager.canUndo && !manager.canRedo)
        let other = Place(context: context)
        other.name = "Again"
        context.processPendingChanges()
        context.reset()
        #expect(!manager.canUndo)
    }

    @Test("undoing a deletion brings the object back with both sides of its relationships")
    func deletionWithRelationships() throws {
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
        try context.save()
        let manager = ContextUndoManager()
        context.undoManager = manager
        context.delete(photo)
        try context.save()
        #expect(lisbon.photos.isEmpty && sea.photos.isEmpty)
        #expect(try store.rows("SELECT count(*) FROM ZPHOTO") == [[.integer(0)]])
        try manager.undo()
        #expect(photo.context === context && !photo.isDeleted)
        #expect(photo.place === lisbon && photo.tags == [sea] && lisbon.photos == [photo] && sea.photos == [photo])
        try context.save()
        #expect(try store.rows("SELECT p.ZUNIQUE, l.ZNAME FROM ZPHOTO p JOIN ZPLACE l ON l.Z_PK = p.ZPLACE") == [[.text("1"), .text("Lisbon")]])
        #expect(try store.rows("SELECT count(*) FROM Z_6TAGS") == [[.integer(1)]])
        try manager.redo()
        try context.save()
        #expect(try store.rows("SELECT count(*) FROM ZPHOTO") == [[.integer(0)]])
        #expect(try store.rows("SELECT count(*) FROM Z_6TAGS") == [[.integer(0)]])
    }

    @Test("undoing a group that inserted an object with a partner, deleted it and saved leaves the partner as it was")
    func insertDeleteSaveInOneGroup() throws {
        for explicit in [false, true] {
            let store = try TestStore()
            let setup = store.context()
            let place = Place(context: setup)
            place.name = "place 0"
            try setup.save()
            let context = store.context()
            let manager = ContextUndoManager()
            context.undoManager = manager
            let lisbon = try #require(try context.fetch(FetchRequest<Place>()).first)
            if explicit { manager.beginUndoGrouping() }
            let photo = Photo(context: context)
            photo.unique = "new"
            photo.place = lisbon
            context.delete(photo)
            try context.save()
            if explicit { try manager.endUndoGrouping() }
            context.processPendingChanges()
            #expect(lisbon.photos.isEmpty, "explicit \(explicit): after the save")
            // Inserted and deleted before the save, it never reached the store and left the context.
            #expect(photo.context == nil && !context.hasChanges && context.insertedObjects.isEmpty, "explicit \(explicit)")
            try manager.undo()
            #expect(lisbon.photos.isEmpty, "explicit \(explicit): after undo")
            #expect(photo.context == nil, "explicit \(explicit)")
            try manager.redo()
            #expect(lisbon.photos.isEmpty, "explicit \(explicit): after redo")
            try context.save()
            #expect(try store.rows("SELECT count(*) FROM ZPHOTO") == [[.integer(0)]])
        }
    }

    @Test("random edit sequences: undo all gives the initial state, redo all the final one, step by step")
    func randomSequences() throws {
        let seed = ProcessInfo.processInfo.environment["UNDO_SEED"].flatMap { UInt64($0) }
            ?? UInt64(Date().timeIntervalSince1970 * 1000) & 0xFFFF_FFFF
        print("UndoManagerTests.randomSequences seed \(seed) (UNDO_SEED replays it)")
        for round in 0..<40 {
            if let only = ProcessInfo.processInfo.environment["UNDO_ROUND"].flatMap({ Int($0) }), only != round { continue }
            var generator = SplitMix64(seed: seed &+ UInt64(round))
            try UndoRound(saves: round % 2 == 1).run(using: &generator, seed: seed &+ UInt64(round))
        }
    }
}

/// One randomized round: a saved graph, random steps (each a group), then undo and redo all.
private struct UndoRound {
    let saves: Bool

    func run(using generator: inout SplitMix64, seed: UInt64) throws {
        let store = try TestStore()
        let setup = store.context()
        for index in 0..<3 {
            let place = Place(context: setup)
            place.name = "place \(index)"
            let tag = Tag(context: setup)
            tag.name = "tag \(index)"
        }
        for index in 0..<4 {
            let photo = Photo(context: setup)
            photo.unique = "photo \(index)"
            photo.title = "title \(index)"
        }
        try setup.save()
        let context = store.context()
        let manager = ContextUndoManager()
        context.undoManager = manager
        var world = UndoWorld(
            photos: try context.fetch(FetchRequest<Photo>()), tags: try context.fetch(FetchRequest<Tag>()),
            places: try context.fetch(FetchRequest<Place>()))
        var snapshots = [world.snapshot(in: context)]
        let steps = Int.random(in: 1...25, using: &generator)
        for step in 0..<steps {
            let explicit = Bool.random(using: &generator)
            if explicit { manager.beginUndoGrouping() }
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                world.randomEdit(in: context, using: &generator)
            }
            // A save inside the step: what its delete rules change belongs to the step's group.
            if saves && Int.random(in: 0..<3, using: &generator) == 0 {
                try context.save()
                world.log.append("-- saved")
            }
            // The step's group is named while open: the name on top of the stack afterwards says
            // whether it made one (a step that changed nothing, deleting an object twice, makes none).
            let name = "step \(step)"
            if manager.groupingLevel > 0 { manager.setActionName(name) }
            if explicit { try manager.endUndoGrouping() }
            context.processPendingChanges()
            world.log.append("-- end of step")
            let snapshot = world.snapshot(in: context)
            if manager.undoActionName == name {
                snapshots.append(snapshot)
            } else {
                #expect(snapshot == snapshots.last, "seed \(seed): a step that made no group changed the objects")
            }
        }
        for index in stride(from: snapshots.count - 1, to: 0, by: -1) {
            try manager.undo()
            let now = world.snapshot(in: context)
            #expect(now == snapshots[index - 1], "seed \(seed) saves \(saves): undo to step \(index - 1)")
            if now != snapshots[index - 1] { print(world.log.joined(separator: "\n")); return }
        }
        #expect(!manager.canUndo, "seed \(seed)")
        for index in 1..<snapshots.count {
            try manager.redo()
            let now = world.snapshot(in: context)
            #expect(now == snapshots[index], "seed \(seed): redo to step \(index)")
            if now != snapshots[index] { print(world.log.joined(separator: "\n")); return }
        }
        #expect(!manager.canRedo, "seed \(seed)")
        if saves {
            // What the context holds now saves, and reads back the same from the store.
            try context.save()
            let final = world.snapshot(in: context)
            let reader = store.context()
            let fresh = UndoWorld(photos: try reader.fetch(FetchRequest<Photo>()), tags: try reader.fetch(FetchRequest<Tag>()),
                                  places: try reader.fetch(FetchRequest<Place>()))
            #expect(fresh.snapshot(in: reader) == final, "seed \(seed): the store after saving")
        }
    }
}

/// Every object a round made or fetched, and their state by label (unique names never change).
private struct UndoWorld {
    var photos: [Photo]
    var tags: [Tag]
    var places: [Place]
    var made = 0
    /// What the round did, printed when a check fails.
    var log: [String] = []

    struct Snapshot: Equatable {
        var photos: [String: String]
        var tags: [String: String]
        var places: [String: String]
    }

    func snapshot(in context: ObjectContext) -> Snapshot {
        func alive(_ object: ManagedObject) -> Bool { object.context === context && !object.isDeleted }
        var result = Snapshot(photos: [:], tags: [:], places: [:])
        for photo in photos where alive(photo) {
            let tags = photo.tags.map(\.name).sorted().joined(separator: ",")
            result.photos[photo.unique] = "\(photo.title ?? "nil")|\(photo.latitude.map { "\($0)" } ?? "nil")|\(photo.place?.name ?? "nil")|\(tags)"
        }
        for tag in tags where alive(tag) {
            result.tags[tag.name] = "\(tag.count)|\(tag.photos.map(\.unique).sorted().joined(separator: ","))"
        }
        for place in places where alive(place) {
            let visited = place.firstVisited.map { "\($0.timeIntervalSinceReferenceDate)" } ?? "nil"
            result.places[place.name] = "\(visited)|\(place.photos.map(\.unique).sorted().joined(separator: ","))"
        }
        return result
    }

    mutating func randomEdit(in context: ObjectContext, using generator: inout SplitMix64) {
        func alive<T: ManagedObject>(_ objects: [T]) -> [T] { objects.filter { $0.context === context && !$0.isDeleted } }
        let livePhotos = alive(photos), liveTags = alive(tags), livePlaces = alive(places)
        made += 1
        let choice = Int.random(in: 0..<12, using: &generator)
        log.append("edit \(choice) #\(made)")
        switch choice {
        case 0:
            let photo = Photo(context: context)
            photo.unique = "new photo \(made)"
            photo.place = livePlaces.randomElement(using: &generator)
            if let tag = liveTags.randomElement(using: &generator) { photo.tags = [tag] }
            photos.append(photo)
        case 1:
            let tag = Tag(context: context)
            tag.name = "new tag \(made)"
            if let photo = livePhotos.randomElement(using: &generator) { tag.photos.insert(photo) }
            tags.append(tag)
        case 2:
            let place = Place(context: context)
            place.name = "new place \(made)"
            places.append(place)
        case 3:
            let photo = livePhotos.randomElement(using: &generator)
            photo?.title = Bool.random(using: &generator) ? nil : "title \(made)"
            log.append("  title of \(photo?.unique ?? "-")")
        case 4:
            livePhotos.randomElement(using: &generator)?.latitude = Double(Int.random(in: -90...90, using: &generator))
        case 5:
            livePhotos.randomElement(using: &generator)?.place = Bool.random(using: &generator) ? nil : livePlaces.randomElement(using: &generator)
        case 6:
            if let photo = livePhotos.randomElement(using: &generator), let tag = liveTags.randomElement(using: &generator) {
                if photo.tags.contains(tag) { photo.tags.remove(tag) } else { photo.tags.insert(tag) }
            }
        case 7:
            if let place = livePlaces.randomElement(using: &generator), let photo = livePhotos.randomElement(using: &generator) {
                place.photos.insert(photo)
            }
        case 8:
            liveTags.randomElement(using: &generator)?.count = Int64.random(in: 0...99, using: &generator)
        case 9:
            livePlaces.randomElement(using: &generator)?.firstVisited = Date(timeIntervalSinceReferenceDate: Double(made))
        case 10:
            if let photo = livePhotos.randomElement(using: &generator) { context.delete(photo) }
        default:
            if Bool.random(using: &generator), let tag = liveTags.randomElement(using: &generator) {
                context.delete(tag)
            } else if let place = livePlaces.randomElement(using: &generator) {
                context.delete(place)
            }
        }
    }
}
