import ObjectGraphTestModels
import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

@Suite("Contexts together: writer and view, children, background saves, merges, conflicts")
struct ContextsTogetherTests {
    private func container() throws -> (TemporaryDirectory, PersistentContainer) {
        let directory = try TemporaryDirectory()
        return (directory, try PersistentContainer(url: directory.path("store.sqlite"), model: TestModels.travel))
    }

    @Test("the view context saves into the writer's memory; the writer's save reaches the store in one transaction")
    func viewWriterStore() throws {
        let (_, container) = try container()
        let view = container.viewContext
        let place = Place(context: view)
        place.name = "Lisbon"
        try view.save()
        #expect(try container.coordinator.withConnection { try $0.scalar("SELECT count(*) FROM ZPLACE") } == .integer(0))
        #expect(container.hasChanges)
        let recorder = SQLTraceRecorder()
        try container.coordinator.withConnection { recorder.attach(to: $0) }
        try container.writer.performAndWait { try $0.save() }
        #expect(recorder.statements.first == "BEGIN IMMEDIATE TRANSACTION")
        #expect(recorder.statements.last == "COMMIT TRANSACTION")
        #expect(try container.coordinator.withConnection { try $0.scalar("SELECT ZNAME FROM ZPLACE") } == .text("Lisbon"))
        view.mergePendingChanges()
        #expect(!place.objectID.isTemporary)
    }

    @Test("saveToStore pushes view → writer → store in one call and gives the view permanent IDs")
    func saveToStore() throws {
        let (_, container) = try container()
        let tag = Tag(context: container.viewContext)
        tag.name = "sea"
        try container.saveToStore()
        #expect(!tag.objectID.isTemporary)
        #expect(!container.hasChanges)
        #expect(container.viewContext.object(with: tag.objectID) === tag)
    }

    @Test("a child context's scratch edits can be thrown away or saved into the view context")
    func scratchEdits() throws {
        let (_, container) = try container()
        let place = Place(context: container.viewContext)
        place.name = "Porto"
        try container.saveToStore()
        let scratch = container.viewContext.newChildContext()
        let copy = try scratch.existingObject(with: place.objectID, as: Place.self)
        copy.name = "Oporto"
        scratch.rollback()
        #expect(copy.name == "Porto")
        copy.name = "Oporto"
        try scratch.save()
        #expect(place.name == "Oporto")
        #expect(container.viewContext.hasChanges)
    }

    @Test("a background save is merged into the view context: updates refresh, deletes leave, inserts are fetchable")
    func backgroundMerge() async throws {
        let (_, container) = try container()
        let view = container.viewContext
        let lisbon = Place(context: view)
        lisbon.name = "Lisbon"
        let porto = Place(context: view)
        porto.name = "Porto"
        try container.saveToStore()
        let lisbonID = lisbon.objectID, portoID = porto.objectID
        let background = container.newBackgroundContext()
        let newID = try await background.perform { context in
            let lisbon = try context.existingObject(with: lisbonID, as: Place.self)
            lisbon.name = "Lisboa"
            context.delete(try context.existingObject(with: portoID))
            let kyoto = Place(context: context)
            kyoto.name = "Kyoto"
            try context.save()
            return kyoto.objectID
        }
        #expect(lisbon.name == "Lisbon")
        let names = try view.fetch(FetchRequest<Place>(sortedBy: [ObjectSortDescriptor("name")])).map(\.name)
        #expect(names == ["Kyoto", "Lisboa"])
        #expect(lisbon.name == "Lisboa")
        #expect(porto.isDeleted)
        #expect(porto.context == nil)
        #expect(view.object(with: newID) != nil)
    }

    @Test("every committed save arrives on the change stream with its inserted, updated and deleted IDs and keys")
    func changeStream() async throws {
        let (_, container) = try container()
        var iterator = container.coordinator.changes().makeAsyncIterator()
        let place = Place(context: container.viewContext)
        place.name = "Reykjavík"
        try container.saveToStore()
        let first = try #require(await iterator.next())
        #expect(first.inserted == [place.objectID])
        #expect(first.permanentIDs.values.contains(place.objectID))
        place.firstVisited = Date(timeIntervalSinceReferenceDate: 0)
        try container.saveToStore()
        let second = try #require(await iterator.next())
        #expect(second.updated == [place.objectID])
        #expect(second.changedKeys[place.objectID] == ["firstVisited"])
        container.viewContext.delete(place)
        try container.saveToStore()
        let third = try #require(await iterator.next())
        #expect(third.deleted == [place.objectID])
    }

    @Test("context observers hear saves and merges")
    func observers() throws {
        let store = try TestStore()
        let context = store.context()
        var reasons: [ContextChanges.Reason] = []
        let token = context.observeChanges { reasons.append($0.reason) }
        let place = Place(context: context)
        place.name = "A"
        try context.save()
        let other = store.context()
        try other.existingObject(with: place.objectID, as: Place.self).name = "B"
        try other.save()
        context.mergePendingChanges(force: true)
        #expect(reasons == [.saved, .merged])
        #expect(place.name == "B")
        token.cancel()
    }

    // MARK: Optimistic locking

    /// Two contexts load one place; the second saves a conflicting change after the first.
    private func conflict(policy: MergePolicy) throws -> (TestStore, Place, ObjectContext) {
        let store = try TestStore()
        let setup = store.context()
        let place = Place(context: setup)
        place.name = "Lisbon"
        place.firstVisited = Date(timeIntervalSinceReferenceDate: 0)
        try setup.save()
        let first = store.context()
        let second = store.context()
        second.mergePolicy = policy
        let mine = try second.existingObject(with: place.objectID, as: Place.self)
        let theirs = try first.existingObject(with: place.objectID, as: Place.self)
        theirs.name = "Lisboa"
        try first.save()
        mine.firstVisited = Date(timeIntervalSinceReferenceDate: 99)
        mine.name = "Lisbon (old town)"
        return (store, mine, second)
    }

    @Test("error policy: the stale save fails listing stored and in-memory values, and changes nothing")
    func errorPolicy() throws {
        let (store, _, context) = try conflict(policy: .error)
        let error = #expect(throws: MergeConflictError.self) { try context.save() }
        #expect(error?.conflicts.count == 1)
        #expect(error?.conflicts.first?.storedVersion == 2)
        #expect(error?.conflicts.first?.baseVersion == 1)
        #expect(error?.conflicts.first?.storedValues["name"] == .text("Lisboa"))
        #expect(error?.conflicts.first?.objectValues["name"] == .text("Lisbon (old town)"))
        #expect(try store.rows("SELECT ZNAME, ZFIRSTVISITED FROM ZPLACE") == [[.text("Lisboa"), .integer(0)]])
        #expect(context.hasChanges)
    }

    @Test("store trumps, per property: the store's name wins, this context's other change stays")
    func storeTrumps() throws {
        let (store, mine, context) = try conflict(policy: .storeTrumps)
        try context.save()
        #expect(try store.rows("SELECT ZNAME, ZFIRSTVISITED, Z_OPT FROM ZPLACE") == [[.text("Lisboa"), .integer(99), .integer(3)]])
        #expect(mine.name == "Lisboa")
    }

    @Test("object trumps, per property: this context's changes win")
    func objectTrumps() throws {
        let (store, mine, context) = try conflict(policy: .objectTrumps)
        try context.save()
        #expect(try store.rows("SELECT ZNAME, ZFIRSTVISITED FROM ZPLACE") == [[.text("Lisbon (old town)"), .integer(99)]])
        #expect(mine.name == "Lisbon (old town)")
    }

    @Test("overwrite writes the whole object; rollback drops this context's changes")
    func overwriteAndRollback() throws {
        let (store, _, context) = try conflict(policy: .overwrite)
        try context.save()
        #expect(try store.rows("SELECT ZNAME FROM ZPLACE") == [[.text("Lisbon (old town)")]])
        let (rolledStore, mine, rolled) = try conflict(policy: .rollback)
        try rolled.save()
        #expect(try rolledStore.rows("SELECT ZNAME, ZFIRSTVISITED FROM ZPLACE") == [[.text("Lisboa"), .integer(0)]])
        #expect(mine.name == "Lisboa")
        #expect(!rolled.hasChanges)
    }

    // MARK: Unique constraints

    @Test("two contexts insert one unique value: the second fails naming the constraint, or merges when its policy says so")
    func uniqueAcrossContexts() throws {
        let store = try TestStore()
        let first = store.context()
        let second = store.context()
        let a = Tag(context: first)
        a.name = "sea"
        a.count = 1
        let b = Tag(context: second)
        b.name = "sea"
        b.count = 5
        try first.save()
        let error = #expect(throws: UniqueConstraintError.self) { try second.save() }
        #expect(error?.description == "Uniqueness constraint of Tag (name) violated: another object already has name = 'sea'")
        #expect(try store.rows("SELECT count(*) FROM ZTAG") == [[.integer(1)]])
        second.mergePolicy = .objectTrumps
        try second.save()
        #expect(b.objectID == a.objectID)
        #expect(try store.rows("SELECT Z_PK, ZNAME, ZCOUNT FROM ZTAG") == [[.integer(1), .text("sea"), .integer(5)]])
    }

    @Test("two new objects with one unique value in one save are one row under a merging policy, an error otherwise")
    func uniqueWithinSave() throws {
        let store = try TestStore()
        let context = store.context()
        for _ in 0..<2 {
            let tag = Tag(context: context)
            tag.name = "sun"
        }
        #expect(throws: UniqueConstraintError.self) { try context.save() }
        context.mergePolicy = .objectTrumps
        try context.save()
        #expect(try store.rows("SELECT count(*) FROM ZTAG") == [[.integer(1)]])
    }

    @Test("contexts on many threads insert and update concurrently without losing a row")
    func concurrentContexts() async throws {
        let (_, container) = try container()
        let coordinator = container.coordinator
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    let background = QueueContext(coordinator: coordinator, name: "worker \(worker)")
                    for batch in 0..<10 {
                        try await background.perform { context in
                            for index in 0..<10 {
                                let photo = Photo(context: context)
                                photo.unique = "\(worker)-\(batch)-\(index)"
                            }
                            try context.save()
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try container.viewContext.count(for: FetchRequest<Photo>()) == 400)
    }
}
