import Foundation
import Locking
import SQLiteDB

/// Notices commits that other processes (or other connections) make to a coordinator's store,
/// and hands them to the coordinator's contexts as it hands them its own saves.
///
/// Cheap by design: every 25 ms by default, the process's one watching thread
/// (`ChangeWatchLoop`) asks SQLite's `PRAGMA data_version` on the
/// coordinator's own connection, which changes only when another connection has committed
/// (reading it touches the WAL index, not the store's content). When it moves, the history
/// after the last token seen is read into one change set, without the transactions this
/// coordinator wrote itself, and broadcast; a store without history gets an abridged change set
/// (refresh everything). ARCHITECTURE.md §9.
final class ChangeWatcher: Sendable {
    /// Past this many inserted and updated objects, the change set delivered is abridged.
    static let listingLimit = 50_000

    struct State {
        var dataVersion: Int64?
        /// The newest transaction taken in, ours or theirs.
        var lastTransaction: Int64 = 0
        /// Consumers of `otherProcessChanges()`.
        var streams: [UUID: AsyncStream<ChangeSet>.Continuation] = [:]
        /// Handlers given to `onOtherProcessChanges`, until observing stops.
        var handlers: [@Sendable (ChangeSet) -> Void] = []
    }

    let state = Locked(State())
    private let isStopped = Locked(false)
    /// How long between two looks, in nanoseconds (at least a millisecond).
    let intervalNanoseconds: UInt64
    private weak let coordinator: StoreCoordinator?

    init(coordinator: StoreCoordinator, interval: Duration) {
        self.coordinator = coordinator
        // Past 31 years an interval is as good as never; the cap keeps deadlines from overflowing.
        let (seconds, attoseconds) = interval.components
        let whole = UInt64(min(max(seconds, 0), 1_000_000_000)) * 1_000_000_000
        self.intervalNanoseconds = max(whole + UInt64(max(attoseconds, 0) / 1_000_000_000), 1_000_000)
    }

    /// Joins the process's watching thread until stopped or the coordinator goes.
    func start() {
        ChangeWatchLoop.shared.add(self)
    }

    /// One look, from the watching thread: a store busy now is looked at again at the next tick.
    func poll() {
        guard let coordinator, !isStopped.withLock({ $0 }) else {
            ChangeWatchLoop.shared.remove(self)
            return
        }
        coordinator.pollOtherProcesses(waitingForStore: false)
    }

    func stop() {
        isStopped.withLock { $0 = true }
        ChangeWatchLoop.shared.remove(self)
        let streams = state.withLock { state in
            defer {
                state.streams = [:]
                state.handlers = []
            }
            return Array(state.streams.values)
        }
        for stream in streams { stream.finish() }
    }

    deinit { isStopped.withLock { $0 = true } }
}

extension StoreCoordinator {
    /// When true, commits made to the store by other processes (and other coordinators) reach
    /// this coordinator's contexts as change sets, as its own background saves do: contexts
    /// with `automaticallyMergesChanges` refresh updated objects and drop deleted ones when
    /// they next work (or at `mergePendingChanges()`), results controllers on them report the
    /// inserts, moves and deletes. `otherProcessChanges()` tells when to merge.
    ///
    /// Off by default; documents that keep history turn it on for their view context.
    public var observesOtherProcesses: Bool {
        get { watcher.withLock { $0 != nil } }
        set {
            if newValue { startObservingOtherProcesses() } else { stopObservingOtherProcesses() }
        }
    }

    /// Starts watching for other processes' commits, reading `data_version` every `interval`.
    public func startObservingOtherProcesses(interval: Duration = .milliseconds(25)) {
        let started = watcher.withLock { watcher -> ChangeWatcher? in
            guard watcher == nil else { return nil }
            let made = ChangeWatcher(coordinator: self, interval: interval)
            watcher = made
            return made
        }
        guard let started else { return }
        // Everything already committed is what this coordinator starts from.
        _ = try? withStore { store in  // a store that cannot be read now is read at the first tick
            store.history?.remembersWritten = true
            let version = try store.connection.scalar("PRAGMA data_version")?.integerValue
            let newest = store.history == nil ? 0 : try store.connection.scalar("SELECT max(Z_PK) FROM ATRANSACTION")?.integerValue ?? 0
            started.state.withLock { state in
                state.dataVersion = version
                state.lastTransaction = newest
            }
        }
        started.start()
    }

    /// Stops watching; `otherProcessChanges()` sequences end.
    public func stopObservingOtherProcesses() {
        let stopped = watcher.withLock { watcher in
            defer { watcher = nil }
            return watcher
        }
        stopped?.stop()
        withStore { $0.history?.remembersWritten = false }
    }

    /// The change sets of other processes' commits, as they are noticed (after they are
    /// broadcast to the contexts): the moment to call `mergePendingChanges()` in a context's
    /// own domain. Ends when observing stops; empty when it is off.
    public func otherProcessChanges() -> AsyncStream<ChangeSet> {
        let (stream, continuation) = AsyncStream<ChangeSet>.makeStream()
        guard let watcher = watcher.withLock({ $0 }) else {
            continuation.finish()
            return stream
        }
        let key = UUID()
        watcher.state.withLock { $0.streams[key] = continuation }
        continuation.onTermination = { [weak watcher] _ in _ = watcher?.state.withLock { $0.streams.removeValue(forKey: key) } }
        return stream
    }

    /// Calls `handler` on the watching thread with the change set of other processes' commits,
    /// as they are noticed (after they are broadcast to the contexts), until observing stops;
    /// never when it is off. `otherProcessChanges()` without a task waiting on a stream: a
    /// document opened and closed before anything changed pays for neither (README.md,
    /// "Performance").
    package func onOtherProcessChanges(_ handler: @escaping @Sendable (ChangeSet) -> Void) {
        guard let watcher = watcher.withLock({ $0 }) else { return }
        watcher.state.withLock { $0.handlers.append(handler) }
    }

    /// One look at `data_version`; when other connections committed, their history is read and
    /// broadcast. Returns whether anything was delivered. Called by the watching thread, which
    /// does not wait for a store another thread is using (`waitingForStore` false): it looks
    /// again at the next tick.
    @discardableResult
    func pollOtherProcesses(waitingForStore: Bool = true) -> Bool {
        guard let watcher = watcher.withLock({ $0 }) else { return false }
        let found: ChangeSet?
        do {
            found = try withStore(waiting: waitingForStore) { store -> ChangeSet? in
                // Inside a transaction of ours the version says nothing, and our own unsaved
                // rows would be read: wait for the transaction to end.
                guard store.connection.isAutocommit else { return nil }
                let version = try store.connection.scalar("PRAGMA data_version")?.integerValue
                let (previous, last) = watcher.state.withLock { ($0.dataVersion, $0.lastTransaction) }
                guard version != previous else { return nil }
                let (changeSet, newest) = try store.changesSinceTransaction(last)
                watcher.state.withLock { state in
                    state.dataVersion = version
                    state.lastTransaction = newest
                }
                store.history?.dropWritten(through: newest)
                return changeSet
            }
        } catch {
            // A store busy or failing now is read again at the next tick.
            return false
        }
        guard let found, !found.isEmpty || found.isAbridged else { return false }
        broadcast(found, from: nil)
        let (streams, handlers) = watcher.state.withLock { (Array($0.streams.values), $0.handlers) }
        for stream in streams { stream.yield(found) }
        for handler in handlers { handler(found) }
        return true
    }
}

extension SQLiteStore {
    /// What other connections committed after transaction `last`, as one change set, and the
    /// newest transaction now in the store. Transactions this store wrote are left out. Without
    /// history, or when history after `last` was deleted, the change set is abridged.
    func changesSinceTransaction(_ last: Int64) throws -> (ChangeSet, Int64) {
        var changeSet = ChangeSet()
        guard let history else {
            changeSet.abridge()
            return (changeSet, 0)
        }
        let own = Set(history.written)
        let transactions = try connection.rows("SELECT Z_PK FROM ATRANSACTION WHERE Z_PK > ? ORDER BY Z_PK", [.integer(last)]) { $0.int64(at: 0) }
        let newest = max(transactions.last ?? last, last)
        // Keys are handed out one after another: fewer rows than keys means history was deleted.
        if Int64(transactions.count) < newest - last { changeSet.abridge() }
        let theirs = transactions.filter { !own.contains($0) }
        guard !theirs.isEmpty else { return (changeSet, newest) }
        let statement = try connection.cachedStatement("SELECT ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS FROM ACHANGE WHERE ZTRANSACTIONID = ?")
        for transaction in theirs {
            var next = ChangeSet()
            statement.bind(transaction, at: 0)
            try statement.forEachRow { row in
                let id = ObjectID(entityNumber: row.int(at: 1), primaryKey: row.int64(at: 2))
                switch HistoryChangeType(rawValue: row.int64(at: 0)) {
                case .insert:
                    if !changeSet.isAbridged { next.inserted.insert(id) }
                case .update:
                    guard !changeSet.isAbridged else { return }
                    next.updated.insert(id)
                    if let columns = row.data(at: 3), let layout = history.layout(of: id.entityNumber) {
                        next.changedKeys[id, default: []].formUnion(layout.names(in: Array(columns)))
                    }
                case .delete:
                    next.deleted.insert(id)
                case nil:
                    break
                }
            }
            changeSet.absorb(next)
            if changeSet.listedCount > ChangeWatcher.listingLimit { changeSet.abridge() }
        }
        return (changeSet, newest)
    }
}
