import Foundation
import SQLiteDB

/// A store with MDMCoreData's pair of contexts: a private writer that owns the store, and a
/// view context on top of it for the caller's own isolation domain; plus background contexts.
///
/// ```swift
/// let container = try PersistentContainer(url: storeURL, model: model)
/// let photo = Photo(context: container.viewContext)
/// try container.viewContext.save()     // into the writer, in memory
/// try container.saveToStore()          // view → writer → one SQLite transaction
/// ```
/// The container is not `Sendable`: it belongs to the isolation domain that made it (the main
/// actor in an app). Background contexts are `Sendable` queue contexts.
public final class PersistentContainer {
    /// The coordinator of the container's store, shared by all its contexts.
    public let coordinator: StoreCoordinator
    /// The root context: owns the connection to the store, on its own queue.
    public let writer: QueueContext
    /// The context for the caller's domain; its parent is `writer`.
    public let viewContext: ObjectContext
    /// The model of the container's store.
    public var model: ObjectModel { coordinator.model }

    /// Opens (creating or migrating) the store at `url`; `tracksHistory` as for `StoreCoordinator`.
    public convenience init(url: URL, model: ObjectModel, readOnly: Bool = false, tracksHistory: Bool = false) throws {
        try self.init(coordinator: StoreCoordinator(url: url, model: model, readOnly: readOnly, tracksHistory: tracksHistory))
    }

    /// A container over an open coordinator: a private writer context and a view context on it.
    public init(coordinator: StoreCoordinator) {
        self.coordinator = coordinator
        writer = QueueContext(coordinator: coordinator, name: "writer")
        viewContext = ObjectContext(source: writer, name: "view")
        viewContext.automaticallyMergesChanges = true
    }

    /// A new context on its own queue, working directly on the store (for imports); its saves
    /// are merged into the view context automatically.
    public func newBackgroundContext(name: String = "background") -> QueueContext {
        QueueContext(coordinator: coordinator, name: name)
    }

    /// Runs `body` in a fresh background context.
    func performBackgroundTask<T: Sendable>(_ body: @escaping @Sendable (ObjectContext) throws -> T) async throws -> T {
        try await newBackgroundContext().perform(body)
    }

    /// MagicalRecord's `saveToPersistentStoreAndWait`: saves the view context into the writer,
    /// then the writer into the store, in one SQLite transaction.
    ///
    /// - Throws: what either save throws; on failure nothing reaches the store.
    public func saveToStore() throws {
        try viewContext.save()
        try writer.performAndWait { try $0.save() }
        // Adopt the permanent IDs the writer's save handed out.
        viewContext.mergePendingChanges()
    }

    /// True when the view context or the writer holds unsaved changes.
    public var hasChanges: Bool {
        viewContext.hasChanges || writer.performAndWait { $0.hasChanges }
    }
}
