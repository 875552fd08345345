import ObjectGraphTestModels
import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

/// A store whose connections fail I/O on demand: `faults` covers every connection opened after
/// it was made. The store is filled through a connection of its own, then let go, so that each
/// test reads through a fresh connection with an empty page cache.
private struct FailingStore {
    let directory: TemporaryDirectory
    let faults: FaultSession
    var url: URL { directory.path("store.sqlite") }

    /// Photos `0…photos-1` titled "Photo i", each at place "Place i%2" with tags "tag i%3" and
    /// "common", one note each; a trip with two stops.
    init(photos: Int = 6) throws {
        directory = try TemporaryDirectory(prefix: "load-failure", inMemory: true)
        faults = try FaultSession(folder: directory.url)
        let coordinator = try StoreCoordinator(url: directory.path("store.sqlite"), model: TestModels.travel)
        let context = ObjectContext(coordinator: coordinator)
        let places = (0..<2).map { index in
            let place = Place(context: context)
            place.name = "Place \(index)"
            return place
        }
        let common = Tag(context: context)
        common.name = "common"
        let tags = (0..<3).map { index in
            let tag = Tag(context: context)
            tag.name = "tag \(index)"
            return tag
        }
        for index in 0..<photos {
            let photo = Photo(context: context)
            photo.unique = String(index)
            photo.title = "Photo \(index)"
            photo.place = places[index % 2]
            photo.tags = [tags[index % 3], common]
            let note = Note(context: context)
            note.text = "note \(index)"
            note.photo = photo
        }
        let trip = Trip(context: context)
        trip.name = "Coast"
        for order in 0..<2 {
            let stop = Stop(context: context)
            stop.order = Int32(order)
            stop.trip = trip
        }
        try context.save()
    }

    /// A coordinator on a new connection, inside the fault session.
    func open() throws -> StoreCoordinator { try StoreCoordinator(url: url, model: TestModels.travel) }

    func count(_ sql: String) throws -> Int64 {
        let connection = try Connection(path: url.path)
        return try connection.scalar(sql)?.integerValue ?? -1
    }
}

private func isIOFailure(_ error: Error) -> Bool {
    guard let failure = error as? ObjectLoadError, let underlying = failure.underlying as? SQLiteError else { return false }
    return underlying.resultCode == 10 || underlying.resultCode == 5   // SQLITE_IOERR, SQLITE_BUSY
}

@Suite("Load failures stay errors: faults, to-many relationships, delete rules, batches, controllers")
struct LoadFailureTests {
    @Test("a batch of faults that fails to load stays faults, is reported once, blocks saves until rollback, then loads")
    func faultBatch() throws {
        let store = try FailingStore()
        let coordinator = try store.open()
        let ids = try ObjectContext(coordinator: coordinator).fetchObjectIDs(FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("unique")]))
        let context = ObjectContext(coordinator: coordinator)
        let photos = try ids.map { try #require(context.object(with: $0) as? Photo) }
        store.faults.arm(failing: 1, persistent: true)
        _ = photos[0].title
        store.faults.disarm()
        #expect(photos.allSatisfy { $0.isFault }, "objects whose load failed must not be marked loaded")
        let failure = try #require(context.loadError)
        #expect(isIOFailure(failure))
        #expect(failure.objectID == ids[0])
        #expect(failure.batchCount == 6)
        #expect(throws: ObjectLoadError.self) { try context.throwIfLoadFailed() }
        try context.throwIfLoadFailed()   // reported once
        #expect(photos.map(\.title) == (0..<6).map { "Photo \($0)" })

        photos[1].title = "Changed"
        #expect(throws: ObjectLoadError.self) { try context.save() }
        #expect(try store.count("SELECT count(*) FROM ZPHOTO WHERE ZTITLE = 'Changed'") == 0)
        context.rollback()
        #expect(context.loadError == nil)
        photos[1].title = "Changed"
        try context.save()
        #expect(try store.count("SELECT count(*) FROM ZPHOTO WHERE ZTITLE = 'Changed'") == 1)
    }

    @Test("the next fetch reports a load failure that a getter recorded; a context without changes still saves")
    func nextAccessReports() throws {
        let store = try FailingStore()
        let coordinator = try store.open()
        let context = ObjectContext(coordinator: coordinator)
        let id = try #require(try ObjectContext(coordinator: coordinator).fetchObjectIDs(FetchRequest<Photo>()).first)
        let photo = try #require(context.object(with: id) as? Photo)
        store.faults.failing(call: 1, persistent: true) { _ = photo.unique }
        #expect(throws: ObjectLoadError.self) { try context.fetch(FetchRequest<Tag>()) }
        #expect(try context.fetch(FetchRequest<Tag>()).count == 4)
        try context.save()   // nothing changed: nothing can rest on the failed read
        #expect(context.loadError != nil)
    }

    @Test("a to-many relationship that fails to load is not an empty set recorded as loaded")
    func toMany() throws {
        let store = try FailingStore()
        let coordinator = try store.open()
        let context = ObjectContext(coordinator: coordinator)
        let photo = try #require(try context.fetch(FetchRequest<Photo>(predicate: try ObjectPredicate(format: "unique == '0'"))).first)
        let during = store.faults.failing(call: 1, persistent: true, kinds: [.read]) { photo.tags.count }
        #expect(during == 0)
        let failure = try #require(context.loadError)
        #expect(failure.relationship == "tags")
        #expect(isIOFailure(failure))
        #expect(Set(photo.tags.map(\.name)) == ["tag 0", "common"])
    }

    @Test("deny, cascade and nullify that cannot read the relationship fail the save, which then works once it can")
    func deleteRules() throws {
        let store = try FailingStore()
        // Deny: an unreadable relationship must not pass for an empty one.
        do {
            let context = ObjectContext(coordinator: try store.open())
            let trip = try #require(try context.fetch(FetchRequest<Trip>()).first)
            context.delete(trip)
            let error = store.faults.failing(call: 1, persistent: true, kinds: [.read]) { Result { try context.save() } }
            #expect(throws: ObjectLoadError.self) { try error.get() }
            #expect(throws: ValidationError.self) { try context.save() }
            #expect(try store.count("SELECT count(*) FROM ZTRIP") == 1)
            #expect(try store.count("SELECT count(*) FROM ZSTOP WHERE ZTRIP IS NOT NULL") == 2)
        }
        // Cascade: the photo's notes go with it, or nothing goes.
        do {
            let context = ObjectContext(coordinator: try store.open())
            let photo = try #require(try context.fetch(FetchRequest<Photo>(predicate: try ObjectPredicate(format: "unique == '1'"))).first)
            context.delete(photo)
            let error = store.faults.failing(call: 1, persistent: true, kinds: [.read]) { Result { try context.save() } }
            #expect(throws: ObjectLoadError.self) { try error.get() }
            #expect(try store.count("SELECT count(*) FROM ZNOTE") == 6)
            try context.save()
            #expect(try store.count("SELECT count(*) FROM ZPHOTO") == 5)
            #expect(try store.count("SELECT count(*) FROM ZNOTE") == 5)
            #expect(try store.count("SELECT count(*) FROM ZNOTE WHERE ZPHOTO NOT IN (SELECT Z_PK FROM ZPHOTO)") == 0)
        }
        // Nullify: no photo is left pointing at the deleted place.
        do {
            let context = ObjectContext(coordinator: try store.open())
            let place = try #require(try context.fetch(FetchRequest<Place>(predicate: try ObjectPredicate(format: "name == 'Place 0'"))).first)
            context.delete(place)
            let error = store.faults.failing(call: 1, persistent: true, kinds: [.read]) { Result { try context.save() } }
            #expect(throws: ObjectLoadError.self) { try error.get() }
            #expect(try store.count("SELECT count(*) FROM ZPLACE") == 2)
            try context.save()
            #expect(try store.count("SELECT count(*) FROM ZPLACE") == 1)
            #expect(try store.count("SELECT count(*) FROM ZPHOTO WHERE ZPLACE IS NOT NULL AND ZPLACE NOT IN (SELECT Z_PK FROM ZPLACE)") == 0)
        }
    }

    @Test("batched results throw a batch that fails to load, or record it when reached through the subscript")
    func batchedResults() throws {
        let store = try FailingStore()
        let context = ObjectContext(coordinator: try store.open())
        let results = try context.fetch(FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("unique")]), batchSize: 2)
        store.faults.arm(failing: 1, persistent: true)
        #expect(throws: ObjectLoadError.self) { try results.object(at: 3) }
        let reached = results[4]
        store.faults.disarm()
        #expect(reached.isFault)
        #expect(context.loadError.map(isIOFailure) == true)
        #expect(try results.object(at: 3).title == "Photo 3")
        #expect(results.map(\.title) == (0..<6).map { "Photo \($0)" })
    }

    @Test("a results controller whose refresh fails reports it, keeps its sections, and reports every change once it can")
    func resultsController() throws {
        let store = try FailingStore()
        let coordinator = try store.open()
        let context = ObjectContext(coordinator: coordinator)
        context.automaticallyMergesChanges = true
        let controller = try FetchedResultsController(
            request: FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("place.name"), ObjectSortDescriptor("unique")]),
            context: context, sectionKeyPath: "place.name")
        var errors: [Error] = []
        var changes: [ResultsChanges] = []
        controller.onError = { errors.append($0) }
        controller.onChange = { changes.append($0) }
        try controller.performFetch()
        #expect(controller.sectionNames == ["Place 0", "Place 1"])

        let writer = ObjectContext(coordinator: coordinator)
        let photo = try #require(try writer.fetch(FetchRequest<Photo>(predicate: try ObjectPredicate(format: "unique == '2'"))).first)
        photo.title = "Renamed"
        try writer.save()
        _ = store.faults.failing(call: 1, persistent: true) { context.mergePendingChanges() }
        #expect(errors.count == 1)
        #expect(controller.lastError != nil)
        #expect(changes.isEmpty)
        #expect(controller.fetchedObjects.count == 6)

        try controller.refresh()
        #expect(controller.lastError == nil)
        #expect(changes.count == 1)
        #expect(changes.first?.updatedItems == [ResultsIndexPath(item: 1, section: 0)])
        #expect(controller.object(at: ResultsIndexPath(item: 1, section: 0)).title == "Renamed")
    }

    @Test("existingObject reports a store that cannot be read as a load error, not as a missing object")
    func existingObject() throws {
        let store = try FailingStore()
        let coordinator = try store.open()
        let id = try #require(try ObjectContext(coordinator: coordinator).fetchObjectIDs(FetchRequest<Photo>()).first)
        let context = ObjectContext(coordinator: coordinator)
        let result = store.faults.failing(call: 1, persistent: true) { Result { try context.existingObject(with: id) } }
        #expect(throws: ObjectLoadError.self) { try result.get() }
        #expect(try context.existingObject(with: id, as: Photo.self).unique.isEmpty == false)
    }

    @Test("a row deleted by another connection reads as empty, as Core Data's inaccessible faults do, and records nothing")
    func goneRow() throws {
        let store = try FailingStore()
        let coordinator = try store.open()
        let id = try #require(try ObjectContext(coordinator: coordinator).fetchObjectIDs(FetchRequest<Photo>(predicate: try ObjectPredicate(format: "unique == '5'"))).first)
        let context = ObjectContext(coordinator: coordinator)
        let photo = try #require(context.object(with: id) as? Photo)
        try Connection(path: store.url.path).execute("DELETE FROM ZPHOTO WHERE ZUNIQUE = '5'")
        #expect(photo.title == nil)
        #expect(!photo.isFault)
        #expect(context.loadError == nil)
    }

    @Test("refreshing an object with its changes, when the store cannot be read, keeps it as it was and records the failure")
    func refreshMergingChanges() throws {
        let store = try FailingStore()
        let context = ObjectContext(coordinator: try store.open())
        let photo = try #require(try context.fetch(FetchRequest<Photo>(predicate: try ObjectPredicate(format: "unique == '3'"))).first)
        photo.title = "Mine"
        store.faults.failing(call: 1, persistent: true) { context.refresh(photo, mergeChanges: true) }
        #expect(photo.title == "Mine")
        #expect(context.loadError.map(isIOFailure) == true)
        #expect(throws: ObjectLoadError.self) { try context.save() }
        context.refresh(photo, mergeChanges: true)
        #expect(photo.title == "Mine")
    }

    @Test("a child context whose parent cannot load records the failure in the child")
    func childContext() throws {
        let store = try FailingStore()
        let parent = ObjectContext(coordinator: try store.open())
        let id = try #require(try parent.fetchObjectIDs(FetchRequest<Photo>(predicate: try ObjectPredicate(format: "unique == '4'"))).first)
        let child = parent.newChildContext()
        let photo = try #require(child.object(with: id) as? Photo)
        store.faults.failing(call: 1, persistent: true) { _ = photo.title }
        #expect(photo.isFault)
        #expect(child.loadError.map(isIOFailure) == true)
        #expect(parent.loadError == nil)
        #expect(photo.title == "Photo 4")
    }

    @Test("a relationship setter that cannot load the objects it changes changes nothing and blocks the save")
    func setterFailure() throws {
        let store = try FailingStore()
        let coordinator = try store.open()
        let context = ObjectContext(coordinator: coordinator)
        let places = try context.fetch(FetchRequest<Place>(sortedBy: [ObjectSortDescriptor("name")]))
        let id = try #require(try context.fetchObjectIDs(FetchRequest<Photo>(predicate: try ObjectPredicate(format: "unique == '0'"))).first)
        let photo = try #require(context.object(with: id) as? Photo)
        store.faults.failing(call: 1, persistent: true) { photo.place = places[1] }
        #expect(photo.isFault)
        #expect(context.loadError != nil)
        #expect(!context.hasChanges)
        places[0].name = "Place zero"
        #expect(throws: ObjectLoadError.self) { try context.save() }
        context.rollback()
        #expect(photo.place?.name == "Place 0")
        #expect(try store.count("SELECT count(*) FROM ZPHOTO WHERE ZPLACE = (SELECT Z_PK FROM ZPLACE WHERE ZNAME = 'Place 0')") == 3)
    }
}

@Suite("Transactions of several saves after SQLite rolled them back")
struct OuterTransactionTests {
    @Test("a save after SQLite rolled back the transaction it belongs to is refused, not committed on its own")
    func rolledBackUnderneath() throws {
        let directory = try TemporaryDirectory(prefix: "outer-transaction", inMemory: true)
        let faults = try FaultSession(folder: directory.url)
        let coordinator = try StoreCoordinator(url: directory.path("store.sqlite"), model: TestModels.travel)
        // A cache of two pages: the first save spills to the WAL, and the write that fails there
        // makes SQLite roll the whole transaction back.
        try coordinator.withConnection { try $0.execute("PRAGMA cache_size = 2") }
        var secondSave: Result<Void, Error>?
        let outcome = Result {
            try coordinator.performTransaction {
                let context = ObjectContext(coordinator: coordinator)
                for index in 0..<300 {
                    let tag = Tag(context: context)
                    tag.name = "first \(index) " + String(repeating: "x", count: 40)
                }
                // A caller that swallows the failed save and goes on.
                _ = faults.failing(call: 1, persistent: true, kinds: [.write]) { Result { try context.save() } }
                let second = ObjectContext(coordinator: coordinator)
                Tag(context: second).name = "second"
                secondSave = Result { try second.save() }
            }
        }
        #expect(throws: (any Error).self) { try outcome.get() }
        let rows = try coordinator.withConnection { try $0.scalar("SELECT count(*) FROM ZTAG")?.integerValue }
        #expect(rows == 0, "a save inside the failed transaction was committed on its own")
        #expect(throws: SQLiteError.self) { try secondSave?.get() }
        if case .failure(let error as SQLiteError) = secondSave { #expect(error.extendedCode == SQLiteError.abortRollback) }
    }
}

@Suite("Predicates judged in memory on objects that cannot load")
struct PredicateLoadFailureTests {
    @Test("evaluating a predicate on a fault or a to-many that cannot load throws instead of answering")
    func evaluation() throws {
        let directory = try TemporaryDirectory(prefix: "predicate-load", inMemory: true)
        let faults = try FaultSession(folder: directory.url)
        let url = directory.path("store.sqlite")
        let id: ObjectID
        do {
            let context = ObjectContext(coordinator: try StoreCoordinator(url: url, model: TestModels.travel))
            let tag = Tag(context: context)
            tag.name = "sea"
            let photo = Photo(context: context)
            photo.unique = "1"
            photo.title = "Beach"
            photo.tags = [tag]
            try context.save()
            id = photo.objectID
        }
        let context = ObjectContext(coordinator: try StoreCoordinator(url: url, model: TestModels.travel))
        let photo = try #require(context.object(with: id) as? Photo)
        let byTitle = try ObjectPredicate(format: "title == 'Beach'")
        let byTag = try ObjectPredicate(format: "ANY tags.name == 'sea'")
        faults.arm(failing: 1, persistent: true)
        #expect(throws: ObjectLoadError.self) { try byTitle.evaluate(with: photo) }
        #expect(throws: ObjectLoadError.self) { try byTag.evaluate(with: photo) }
        faults.disarm()
        #expect(try byTitle.evaluate(with: photo))
        #expect(try byTag.evaluate(with: photo))
        #expect(context.loadError == nil, "a failure thrown to the caller is not recorded as well")
    }
}
