import Dispatch
import Foundation
import Locking

/// A context confined to its own serial queue: the way to work on a background thread.
///
/// The context inside is reached only through `perform` and `performAndWait`, which run on the
/// queue; results must be `Sendable`, so managed objects cannot leave it (pass `ObjectID`s).
/// Both are re-entrant: calling `performAndWait` from inside the queue runs at once.
///
/// ```swift
/// let background = container.newBackgroundContext()
/// let id = try await background.perform { context in
///     let tag = Tag(context: context)
///     tag.name = "sea"
///     try context.save()
///     return tag.objectID
/// }
/// ```
public final class QueueContext: @unchecked Sendable {
    // The context is touched only on `queue`; `perform`/`performAndWait` are the only doors.
    private let context: ObjectContext
    private let queue: DispatchQueue
    /// The thread running on `queue` now, if any. Not `DispatchQueue.setSpecific`: libdispatch
    /// frees a queue's specific values on a global queue, so letting go of each context (every
    /// document's close) woke a worker thread.
    private let runningThread = Locked<pthread_t?>(nil)
    /// The name of the context's serial queue, for debugging.
    public let name: String

    /// A queue context working directly on the store.
    public convenience init(coordinator: StoreCoordinator, name: String = "background") {
        self.init(name: name) { ObjectContext(coordinator: coordinator, name: name) }
    }

    init(name: String, makeContext: () -> ObjectContext) {
        self.name = name
        queue = DispatchQueue(label: "vacations.context.\(name)")
        context = makeContext()
    }

    /// True when the caller is already running on this context's queue.
    var isOnQueue: Bool {
        let current = pthread_self()
        return runningThread.withLock { running in running.map { pthread_equal($0, current) != 0 } ?? false }
    }

    /// Runs `body` on the context's queue and waits for it.
    public func performAndWait<T: Sendable>(_ body: (ObjectContext) throws -> T) rethrows -> T {
        if isOnQueue { return try body(context) }
        return try queue.sync { try onQueue { try body(context) } }
    }

    /// Runs `body`, on the queue, marked as running there for `isOnQueue`.
    private func onQueue<T>(_ body: () throws -> T) rethrows -> T {
        runningThread.withLock { $0 = pthread_self() }
        defer { runningThread.withLock { $0 = nil } }
        return try body()
    }

    /// Runs `body` on the context's queue without blocking the caller's thread.
    public func perform<T: Sendable>(_ body: @escaping @Sendable (ObjectContext) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try self.onQueue { try body(self.context) } })
            }
        }
    }

    /// A child context on its own queue whose saves go into this one.
    public func newChildContext(name: String = "child") -> QueueContext {
        QueueContext(name: name) { ObjectContext(source: self, name: name) }
    }
}

/// A queue context serves its children by hopping onto its queue.
extension QueueContext: ObjectSource {
    var model: ObjectModel { context.model }
    var coordinator: StoreCoordinator { context.coordinator }

    func snapshot(of id: ObjectID) throws -> ObjectSnapshot? {
        try performAndWait { try $0.snapshot(of: id) }
    }

    func snapshots(of ids: [ObjectID]) throws -> [ObjectSnapshot] {
        try performAndWait { try $0.snapshots(of: ids) }
    }

    func relatedIDs(of id: ObjectID, relationship: Int) throws -> [ObjectID] {
        try performAndWait { try $0.relatedIDs(of: id, relationship: relationship) }
    }

    func fetchSnapshots(_ plan: FetchPlan) throws -> [ObjectSnapshot] {
        try performAndWait { try $0.fetchSnapshots(plan) }
    }

    func fetchIDs(_ plan: FetchPlan) throws -> [ObjectID] {
        try performAndWait { try $0.fetchIDs(plan) }
    }

    func fetchCount(_ plan: FetchPlan) throws -> Int {
        try performAndWait { try $0.fetchCount(plan) }
    }

    func commit(_ payload: CommitPayload, policy: MergePolicy) throws -> CommitOutcome {
        try performAndWait { try $0.commit(payload, policy: policy) }
    }
}
