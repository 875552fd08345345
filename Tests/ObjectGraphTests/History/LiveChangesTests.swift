import ObjectGraphTestModels
import Foundation
@testable import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

@Suite("Live changes: commits made through another connection reach a coordinator's contexts and results controllers")
struct LiveChangesTests {
    /// A watcher and a writer on one store file, each with its own connection: to the watcher,
    /// the writer is another process.
    private struct Pair {
        let directory: TemporaryDirectory
        let watcher: StoreCoordinator
        let writer: StoreCoordinator
        init(tracksHistory: Bool = true) throws {
            directory = try TemporaryDirectory()
            let url = directory.path("store.sqlite")
            writer = try StoreCoordinator(url: url, model: TestModels.travel, tracksHistory: tracksHistory)
            watcher = try StoreCoordinator(url: url, model: TestModels.travel)
            // Polled by hand below, so that every step is seen before the next.
            watcher.startObservingOtherProcesses(interval: .seconds(3600))
        }
    }

    private func sorted(_ context: ObjectContext) -> FetchRequest<Photo> {
        FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("unique")])
    }

    @Test("inserts, updates and deletes committed elsewhere come as one merge each; the controller equals a fresh fetch")
    func mergesOtherConnections() throws {
        let pair = try Pair()
        let view = ObjectContext(coordinator: pair.watcher, name: "view")
        view.automaticallyMergesChanges = true
        let controller = try FetchedResultsController(request: sorted(view), context: view)
        try controller.performFetch()
        var reports: [ResultsChanges] = []
        controller.onChange = { reports.append($0) }
        let writing = ObjectContext(coordinator: pair.writer)
        #expect(pair.watcher.pollOtherProcesses() == false)

        for number in 0..<5 {
            let photo = Photo(context: writing)
            photo.unique = String(number)
            photo.title = "t\(number)"
        }
        try writing.save()
        #expect(pair.watcher.pollOtherProcesses())
        view.mergePendingChanges()
        #expect(controller.fetchedObjects.map(\.unique) == ["0", "1", "2", "3", "4"])
        #expect(reports.count == 1)

        let held = try #require(controller.fetchedObjects.first)
        #expect(held.title == "t0")
        let second = try writing.fetch(FetchRequest<Photo>(predicate: "unique == %@", "0")).first
        second?.title = "changed"
        if let gone = try writing.fetch(FetchRequest<Photo>(predicate: "unique == %@", "3")).first { writing.delete(gone) }
        try writing.save()
        #expect(pair.watcher.pollOtherProcesses())
        view.mergePendingChanges()
        #expect(held.title == "changed")
        #expect(controller.fetchedObjects.map(\.unique) == ["0", "1", "2", "4"])

        try pair.writer.execute(BatchDelete(entityName: "Photo", predicate: try ObjectPredicate(format: "unique == '4'")))
        var insert = try BatchInsert(entityName: "Photo", in: TestModels.travel)
        let unique = try insert.attribute("unique")
        var row = insert.newRow()
        row.set(unique, "9")
        insert.append(row)
        try pair.writer.execute(insert)
        // Two commits between two looks: one merge with both.
        #expect(pair.watcher.pollOtherProcesses())
        view.mergePendingChanges()
        let fresh = try ObjectContext(coordinator: pair.watcher).fetch(sorted(view)).map(\.unique)
        #expect(controller.fetchedObjects.map(\.unique) == fresh)
        #expect(fresh == ["0", "1", "2", "9"])
        #expect(reports.count == 3)
        #expect(pair.watcher.pollOtherProcesses() == false)
    }

    @Test("the watcher's own saves are not merged twice, even when another connection commits around them")
    func ownSavesOnce() throws {
        let pair = try Pair()
        // The watcher writes too: its store needs history, which the writer's open added.
        let watcherContext = ObjectContext(coordinator: pair.watcher, name: "mine")
        let listener = ObjectContext(coordinator: pair.watcher)
        listener.automaticallyMergesChanges = true
        var merged: [ChangeSet] = []
        let observation = listener.observeChanges { if $0.reason == .merged { merged.append($0.changeSet) } }
        defer { observation.cancel() }
        let tag = Tag(context: watcherContext)
        tag.name = "mine"
        try watcherContext.save()
        let other = ObjectContext(coordinator: pair.writer)
        Tag(context: other).name = "theirs"
        try other.save()
        let place = Place(context: watcherContext)
        place.name = "mine too"
        try watcherContext.save()
        listener.mergePendingChanges()
        #expect(merged.count == 2)
        merged.removeAll()
        #expect(pair.watcher.pollOtherProcesses())
        listener.mergePendingChanges()
        #expect(merged.count == 1)
        let theirs = try #require(try other.fetch(FetchRequest<Tag>(predicate: "name == 'theirs'")).first)
        #expect(merged.first?.inserted == [theirs.objectID])
        #expect(pair.watcher.withStore { $0.history?.written } == [])
    }

    @Test("a store without history, or whose history was deleted past the last token, gets an abridged change set")
    func abridgedWithoutHistory() async throws {
        let pair = try Pair(tracksHistory: false)
        let view = ObjectContext(coordinator: pair.watcher)
        view.automaticallyMergesChanges = true
        let controller = try FetchedResultsController(request: sorted(view), context: view)
        try controller.performFetch()
        let other = ObjectContext(coordinator: pair.writer)
        Photo(context: other).unique = "1"
        try other.save()
        var streamed: ChangeSet?
        let stream = pair.watcher.otherProcessChanges()
        #expect(pair.watcher.pollOtherProcesses())
        pair.watcher.stopObservingOtherProcesses()
        for await changeSet in stream { streamed = changeSet }
        #expect(streamed?.isAbridged == true)
        view.mergePendingChanges()
        #expect(controller.fetchedObjects.map(\.unique) == ["1"])

        let tracked = try Pair()
        let writing = ObjectContext(coordinator: tracked.writer)
        for number in 0..<3 {
            Photo(context: writing).unique = String(number)
            try writing.save()
        }
        let newest = try #require(try tracked.writer.currentHistoryToken())
        try tracked.writer.deleteHistory(before: newest)
        let listener = ObjectContext(coordinator: tracked.watcher)
        var merged: [ChangeSet] = []
        let observation = listener.observeChanges { merged.append($0.changeSet) }
        defer { observation.cancel() }
        #expect(tracked.watcher.pollOtherProcesses())
        listener.mergePendingChanges(force: true)
        #expect(merged.map(\.isAbridged) == [true])
    }

    @Test("observing starts and stops; the watcher's thread notices a commit by itself")
    func watcherThread() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.path("store.sqlite")
        let writer = try StoreCoordinator(url: url, model: TestModels.travel, tracksHistory: true)
        let watcher = try StoreCoordinator(url: url, model: TestModels.travel)
        #expect(!watcher.observesOtherProcesses)
        watcher.observesOtherProcesses = true
        #expect(watcher.observesOtherProcesses)
        let stream = watcher.otherProcessChanges()
        let context = ObjectContext(coordinator: writer)
        Tag(context: context).name = "sea"
        try context.save()
        var iterator = stream.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.inserted.count == 1)
        watcher.observesOtherProcesses = false
        #expect(await iterator.next() == nil)
    }

    @Test("every observing coordinator of a process is polled by one thread, and each notices its own store's commits")
    func oneThreadForEveryWatcher() async throws {
        let directory = try TemporaryDirectory()
        var pairs: [(watcher: StoreCoordinator, writer: StoreCoordinator)] = []
        let pollingThreads = HeardCounts()
        for index in 0..<6 {
            let url = directory.path("store\(index).sqlite")
            let writer = try StoreCoordinator(url: url, model: TestModels.travel, tracksHistory: true)
            let watcher = try StoreCoordinator(url: url, model: TestModels.travel)
            watcher.startObservingOtherProcesses(interval: .milliseconds(5 + index))
            // Handlers run on the thread that polled.
            watcher.onOtherProcessChanges { _ in pollingThreads.append(Int(bitPattern: pthread_self())) }
            pairs.append((watcher, writer))
        }
        for (index, pair) in pairs.enumerated() {
            let stream = pair.watcher.otherProcessChanges()
            let context = ObjectContext(coordinator: pair.writer)
            for number in 0...index { Tag(context: context).name = "tag \(number)" }
            try context.save()
            var iterator = stream.makeAsyncIterator()
            #expect(await iterator.next()?.inserted.count == index + 1)
        }
        let deadline = ContinuousClock.now + .seconds(20)
        while pollingThreads.counts.count < 6 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let threads = pollingThreads.counts
        #expect(threads.count == 6)
        #expect(Set(threads).count == 1)
        #expect(!threads.contains(Int(bitPattern: pthread_self())))
        for pair in pairs { pair.watcher.observesOtherProcesses = false }
    }

    @Test("a handler hears each change set another connection commits, until observing stops")
    func handlersHearChanges() async throws {
        let pair = try Pair()
        let heard = HeardCounts()
        pair.watcher.onOtherProcessChanges { changes in heard.append(changes.inserted.count) }
        let context = ObjectContext(coordinator: pair.writer)
        for count in [1, 3] {
            for number in 0..<count { Tag(context: context).name = "\(count) \(number)" }
            try context.save()
            #expect(pair.watcher.pollOtherProcesses())
        }
        #expect(heard.counts == [1, 3])
        pair.watcher.observesOtherProcesses = false
        pair.watcher.startObservingOtherProcesses(interval: .seconds(3600))
        Tag(context: context).name = "after"
        try context.save()
        #expect(pair.watcher.pollOtherProcesses())
        #expect(heard.counts == [1, 3])
    }

    @Test("the watching thread's look skips a store another thread is using and finds the commit at the next look")
    func busyStoreIsSkipped() throws {
        let pair = try Pair()
        let context = ObjectContext(coordinator: pair.writer)
        Tag(context: context).name = "sea"
        try context.save()
        let whileBusy = try pair.watcher.withConnection { _ in pair.watcher.pollOtherProcesses(waitingForStore: false) }
        #expect(whileBusy == false)
        #expect(pair.watcher.pollOtherProcesses(waitingForStore: false))
        #expect(pair.watcher.pollOtherProcesses(waitingForStore: false) == false)
    }
}

/// What handlers heard, from whichever thread calls them.
private final class HeardCounts: @unchecked Sendable {
    private let lock = NSLock()
    private var heard: [Int] = []
    // `counts` and `append` touch `heard` only while holding `lock`.
    var counts: [Int] { lock.withLock { heard } }
    func append(_ count: Int) { lock.withLock { heard.append(count) } }
}
