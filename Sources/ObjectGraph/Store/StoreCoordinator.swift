import Foundation
import SQLiteDB
import Locking

/// Owns a store's SQLite connection and serialises every use of it, as Core Data's persistent
/// store coordinator does; broadcasts each committed save to the contexts above it.
///
/// ```swift
/// let coordinator = try StoreCoordinator(url: storeURL, model: model)
/// let context = ObjectContext(coordinator: coordinator)
/// ```
public final class StoreCoordinator: Sendable {
    /// The model the store is read and written with.
    public let model: ObjectModel
    /// The store's file.
    public let url: URL
    /// The store's `Z_UUID`: the authority part of its objects' URIs.
    package let storeUUID: String
    package let isReadOnly: Bool
    private let store: Locked<SQLiteStore>
    /// Keyed by a number counted up, not a `UUID`: Foundation reads `/dev/urandom` for every
    /// UUID, and every context registers here (two per document opened).
    private let listeners = Locked<(nextKey: Int, byKey: [Int: ChangeListener])>((0, [:]))
    /// Change sets held back while a transaction of several saves is open.
    private let heldBack = Locked<HeldChanges?>(nil)
    /// Watches for other processes' commits while `observesOtherProcesses` is on.
    let watcher = Locked<ChangeWatcher?>(nil)

    /// Something that receives every committed change set.
    enum ChangeListener: Sendable {
        case inbox(WeakInbox)
        case stream(AsyncStream<ChangeSet>.Continuation)
    }

    /// Opens the store at `url`, creating it when missing and migrating it lightweight when its
    /// schema is older than `model`.
    ///
    /// With `tracksHistory` (Core Data's `NSPersistentHistoryTrackingKey`) every commit writes
    /// persistent history in Core Data's tables, which a store without them gets (unless it is
    /// opened read-only). A store that has them keeps writing history either way.
    ///
    /// - Throws: `SQLiteError`, `StoreError`, or `MigrationError` naming the entity and property.
    public init(url: URL, model: ObjectModel, readOnly: Bool = false,
                journalMode: Connection.JournalMode? = .wal, busyTimeout: Double = 10, tracksHistory: Bool = false) throws {
        let store = try SQLiteStore(path: url.path, model: model,
                                    options: .init(readOnly: readOnly, journalMode: journalMode, busyTimeout: busyTimeout,
                                                   tracksHistory: tracksHistory))
        self.model = model
        self.url = url
        self.storeUUID = store.uuid
        self.isReadOnly = readOnly
        self.store = Locked(store)
    }

    /// Opens the store with explicit options (see `StoreCoordinator(readingAsIsAt:model:)`).
    init(url: URL, model: ObjectModel, options: SQLiteStore.Options) throws {
        let store = try SQLiteStore(path: url.path, model: model, options: options)
        self.model = model
        self.url = url
        self.storeUUID = store.uuid
        self.isReadOnly = options.readOnly
        self.store = Locked(store)
    }

    /// Runs `body` with the store's connection, exclusively. For tests, tools and batch SQL.
    package func withConnection<T: Sendable>(_ body: (Connection) throws -> T) throws -> T {
        try store.withLock { store in try body(store.connection) }
    }

    func withStore<T: Sendable, Failure: Error>(_ body: (SQLiteStore) throws(Failure) -> T) throws(Failure) -> T {
        try store.withLock { (store) throws(Failure) -> T in try body(store) }
    }

    /// `withStore`, or, when `waiting` is false and another thread holds the store, nil at once.
    func withStore<T: Sendable, Failure: Error>(waiting: Bool, _ body: (SQLiteStore) throws(Failure) -> T?) throws(Failure) -> T? {
        if waiting { return try withStore(body) }
        return try store.withLockIfAvailable { (store) throws(Failure) -> T? in try body(store) } ?? nil
    }

    /// The store's metadata (`Z_METADATA.Z_PLIST`), decoded.
    package var metadata: [String: any Sendable] {
        store.withLock { $0.metadata }
    }

    /// Sets metadata keys, keeping the others.
    func setMetadata(_ values: [String: any Sendable]) throws {
        try store.withLock { try $0.setMetadata(values) }
    }

    /// Runs `body` in one SQLite transaction: every save made through this coordinator while it
    /// runs becomes a savepoint inside it, and other contexts hear of those saves only once
    /// the transaction commits, in one change set per saving context. When `body` throws,
    /// everything it saved is rolled back.
    ///
    /// A transaction that changes more than `listingLimit` objects delivers abridged change
    /// sets (`ChangeSet.isAbridged`): its deletions, and a note to refresh everything, rather
    /// than every inserted and updated ID, so that memory stays flat whatever its size.
    /// Contexts below the saving one should not hold its unsaved objects across such a
    /// transaction: they would not learn those objects' permanent IDs.
    ///
    /// Meant for one writer at a time (an importer saving in chunks so that memory stays flat
    /// while a whole feed remains one transaction). Contexts that saved inside a rolled-back
    /// transaction hold state the store no longer has: reset them.
    ///
    /// ```swift
    /// try coordinator.performTransaction {
    ///     for chunk in chunks { try importChunk(chunk, into: context); try context.save(); context.reset() }
    /// }
    /// ```
    ///
    /// A transaction that writes much (a bulk import) can ask for a page cache of
    /// `pageCacheKibibytes` while it runs, and for its statement and savepoint journals in
    /// memory (`memoryJournals`, SQLite's `temp_store = MEMORY`); the connection's own settings
    /// come back after it. SQLite's default cache (2 MB) lets go of pages such a transaction
    /// soon touches again: dirty ones spill to the WAL, and are read back from it, written
    /// again, checkpointed. And every save in the transaction is a savepoint, every statement
    /// on a table with triggers a statement savepoint, each journalling the pages it changes
    /// to a temporary file.
    ///
    /// With `recoverableSaves` off, the saves inside write straight into the transaction rather
    /// than each in a savepoint of its own: a save that fails cannot be caught and recovered
    /// from inside `body` (it rolls the whole transaction back at once, and the transaction
    /// fails), and SQLite keeps no copy of the pages each save changes — for a chunk of an import
    /// into a large store, thousands of pages, a copy that grew with the store (README.md,
    /// "Performance").
    public func performTransaction<T>(listingLimit: Int = 50_000, pageCacheKibibytes: Int? = nil,
                                      memoryJournals: Bool = false, recoverableSaves: Bool = true,
                                      _ body: () throws -> T) throws -> T {
        if !recoverableSaves {
            store.withLock { $0.connection.nestsSavepoints = false }
            defer { store.withLock { $0.connection.nestsSavepoints = true } }
            return try performTransaction(listingLimit: listingLimit, pageCacheKibibytes: pageCacheKibibytes,
                                          memoryJournals: memoryJournals, body)
        }
        if pageCacheKibibytes != nil || memoryJournals {
            let previous = try store.withLock { store in
                let previous = (cache: try store.connection.scalar("PRAGMA cache_size"),
                                temporary: try store.connection.scalar("PRAGMA temp_store"))
                if let pageCacheKibibytes { try store.connection.execute("PRAGMA cache_size = -\(max(1, pageCacheKibibytes))") }
                if memoryJournals { try store.connection.execute("PRAGMA temp_store = MEMORY") }
                return previous
            }
            defer {
                // Setting these cannot fail outside a transaction (SQLite records them and trims
                // the cache); a failure would leave a larger cache or journals in memory, not
                // wrong data.
                if case .integer(let size)? = previous.cache {
                    try? store.withLock { try $0.connection.execute("PRAGMA cache_size = \(size)") }
                }
                if case .integer(let mode)? = previous.temporary {
                    try? store.withLock { try $0.connection.execute("PRAGMA temp_store = \(mode)") }
                }
            }
            return try performTransaction(listingLimit: listingLimit, body)
        }
        let historyMark = try store.withLock { store in
            try store.connection.beginTransaction(.immediate)
            return store.history?.writtenMark ?? 0
        }
        heldBack.withLock { $0 = HeldChanges(limit: listingLimit) }
        let result: T
        do {
            result = try body()
            try store.withLock { try $0.connection.commitTransaction() }
        } catch {
            store.withLock { store in
                store.connection.rollbackAfterFailure()
                store.history?.forgetWritten(since: historyMark)
            }
            heldBack.withLock { $0 = nil }
            throw error
        }
        let released = heldBack.withLock { held in
            defer { held = nil }
            return held?.entries ?? []
        }
        for (changeSet, origin) in released { deliver(changeSet, from: origin?.inbox) }
        return result
    }

    // MARK: Change broadcasting

    /// Every committed save, as an asynchronous sequence of change sets.
    ///
    /// ```swift
    /// for await changes in coordinator.changes() { print(changes.inserted.count) }
    /// ```
    public func changes() -> AsyncStream<ChangeSet> {
        let (stream, continuation) = AsyncStream<ChangeSet>.makeStream()
        let key = add(.stream(continuation))
        continuation.onTermination = { [weak self] _ in self?.unregister(key) }
        return stream
    }

    func register(_ inbox: ChangeInbox) -> Int {
        add(.inbox(WeakInbox(inbox)))
    }

    private func add(_ listener: ChangeListener) -> Int {
        listeners.withLock { listeners in
            listeners.nextKey += 1
            listeners.byKey[listeners.nextKey] = listener
            return listeners.nextKey
        }
    }

    func unregister(_ key: Int) {
        _ = listeners.withLock { $0.byKey.removeValue(forKey: key) }
    }

    /// Hands a committed change set to every listener except the inbox of the context that made it.
    func broadcast(_ changeSet: ChangeSet, from origin: ChangeInbox?) {
        let isHeld = heldBack.withLock { held -> Bool in
            guard held != nil else { return false }
            held?.add(changeSet, from: origin)
            return true
        }
        if !isHeld { deliver(changeSet, from: origin) }
    }

    private func deliver(_ changeSet: ChangeSet, from origin: ChangeInbox?) {
        let current = listeners.withLock { listeners in
            listeners.byKey = listeners.byKey.filter { _, listener in
                if case .inbox(let weak) = listener { return weak.inbox != nil }
                return true
            }
            return Array(listeners.byKey.values)
        }
        for listener in current {
            switch listener {
            case .inbox(let weak):
                if let inbox = weak.inbox, inbox !== origin { inbox.post(changeSet) }
            case .stream(let continuation):
                continuation.yield(changeSet)
            }
        }
    }
}

extension StoreCoordinator: ObjectSource {
    var coordinator: StoreCoordinator { self }

    func snapshot(of id: ObjectID) throws -> ObjectSnapshot? {
        try withStore { try $0.snapshot(of: id) }
    }

    func snapshots(of ids: [ObjectID]) throws -> [ObjectSnapshot] {
        try withStore { try $0.snapshots(of: ids) }
    }

    func relatedIDs(of id: ObjectID, relationship: Int) throws -> [ObjectID] {
        let entity = model[id.entityNumber]
        guard relationship >= 0 && relationship < entity.relationships.count else { return [] }
        return try withStore { try $0.relatedIDs(of: id, relationship: entity.relationships[relationship]) }
    }

    func fetchSnapshots(_ plan: FetchPlan) throws -> [ObjectSnapshot] {
        try withStore { try $0.fetch(plan) }
    }

    func fetchIDs(_ plan: FetchPlan) throws -> [ObjectID] {
        try withStore { try $0.fetchIDs(plan) }
    }

    func fetchCount(_ plan: FetchPlan) throws -> Int {
        try withStore { try $0.count(plan) }
    }

    func commit(_ payload: CommitPayload, policy: MergePolicy) throws -> CommitOutcome {
        guard !isReadOnly else { throw StoreError("the store is open read-only") }
        return try withStore { try $0.commit(payload, policy: policy) }
    }
}

/// A context's mailbox for change sets committed by others; the context drains it when it
/// next works, in its own isolation domain.
final class ChangeInbox: Sendable {
    private let pending = Locked<[ChangeSet]>([])

    func post(_ changeSet: ChangeSet) {
        pending.withLock { $0.append(changeSet) }
    }

    func drain() -> [ChangeSet] {
        pending.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
    }

    var isEmpty: Bool { pending.withLock { $0.isEmpty } }
}

struct WeakInbox: Sendable {
    weak var inbox: ChangeInbox?
    init(_ inbox: ChangeInbox) { self.inbox = inbox }
}
