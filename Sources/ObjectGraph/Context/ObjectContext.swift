import Foundation
import SQLiteDB

/// A scratch pad of managed objects over a store or a parent context: inserts, changes and
/// deletes stay here until `save()` hands them down in one piece.
///
/// A context is not `Sendable`: use it from one isolation domain at a time. To work on another
/// queue, make a `QueueContext`, and pass `ObjectID`s, never objects, between them.
///
/// ```swift
/// let context = ObjectContext(coordinator: coordinator)
/// let place = Place(context: context)
/// place.name = "Lisbon"
/// try context.save()
/// ```
public final class ObjectContext {
    /// The model of the context's objects, its coordinator's.
    public let model: ObjectModel
    /// The coordinator whose store the context reads and, at the root, saves to.
    public let coordinator: StoreCoordinator
    let source: any ObjectSource
    /// Shown in change sets as their author, and written to the store's history as the context
    /// name of its saves.
    public var name: String?
    /// Written to the store's history as the author of this context's saves (Core Data's
    /// `transactionAuthor`); nil takes the coordinator's `transactionAuthor`.
    public var transactionAuthor: String?
    /// How saves settle conflicts with changes saved elsewhere; `.error` by default.
    public var mergePolicy: MergePolicy = .error
    /// When true, the context merges every save committed by other contexts (refreshing the
    /// objects it holds and dropping deleted ones) before it next fetches or looks objects up.
    public var automaticallyMergesChanges = false

    // Looked up several times per object of a fetch; see `ManagedObject.values` for why these
    // go without the runtime's exclusivity checks.
    @exclusivity(unchecked) var registry = ObjectRegistry()
    /// Temporary IDs of objects saved since, mapped to their permanent IDs.
    @exclusivity(unchecked) var aliases: [ObjectID: ObjectID] = [:]
    var inserted: [ObjectID: ManagedObject] = [:]
    var updated: [ObjectID: ManagedObject] = [:]
    var deleted: [ObjectID: ManagedObject] = [:]
    /// Faults not yet fired, by root entity, so that firing one can fire its neighbours too.
    @exclusivity(unchecked) var unfiredFaults: [Int: [ObjectID]] = [:]
    let inbox = ChangeInbox()
    private var inboxKey: Int?
    var observers: [UUID: (ContextChanges) -> Void] = [:]
    /// Errors raised where nothing could throw (relationship setters); the next save reports them.
    var deferredErrors: [Error] = []
    /// The first load failure since the last rollback or reset (`loadError`): saves refuse while it is set.
    var firstLoadFailure: ObjectLoadError?
    /// A load failure not yet thrown by any call (`throwIfLoadFailed()`).
    var unreportedLoadFailure: ObjectLoadError?
    /// Load failures recorded so far, so that a read can tell whether it met one.
    var loadFailureCount = 0
    /// While a save runs: the state of each object before the save touched it.
    var journal: SaveJournal?
    /// Undo and redo of this context's changes; nil (the default) records nothing.
    /// (`ObjectContext+Undo.swift`)
    public var undoManager: ContextUndoManager? {
        didSet { attachUndoManager(oldValue) }
    }

    /// A root context working directly on the store.
    public convenience init(coordinator: StoreCoordinator, name: String? = nil) {
        self.init(source: coordinator, name: name)
    }

    init(source: any ObjectSource, name: String?) {
        self.source = source
        self.model = source.model
        self.coordinator = source.coordinator
        self.name = name
        inboxKey = coordinator.register(inbox)
    }

    deinit {
        if let inboxKey { coordinator.unregister(inboxKey) }
        for object in registry.values { object.owningContext = nil }
    }

    /// A child context in the same isolation domain: its saves go into this context, not the
    /// store, and can be thrown away (scratch edits).
    public func newChildContext(name: String? = nil) -> ObjectContext {
        let child = ObjectContext(source: self, name: name)
        child.mergePolicy = mergePolicy
        return child
    }

    // MARK: State

    /// True when the context holds unsaved inserts, updates or deletes.
    public var hasChanges: Bool { !inserted.isEmpty || !deleted.isEmpty || updated.values.contains { hasRealChanges($0) } }

    package var insertedObjects: [ManagedObject] { Array(inserted.values) }
    var updatedObjects: [ManagedObject] { updated.values.filter { hasRealChanges($0) } }
    var deletedObjects: [ManagedObject] { Array(deleted.values) }
    var registeredObjects: [ManagedObject] { Array(registry.values) }

    func hasRealChanges(_ object: ManagedObject) -> Bool {
        if object.isInserted || object.isDeleted { return true }
        if object.toMany.contains(where: \.hasChanges) { return true }
        guard !object.isFault else { return false }
        return object.committedValues != object.values || object.committedToOne != object.toOne
    }

    // MARK: Inserting

    /// Inserts a new object of `type`.
    ///
    /// ```swift
    /// let tag = context.insert(Tag.self)
    /// ```
    public func insert<T: ManagedObject>(_ type: T.Type) -> T {
        T(context: self)
    }

    /// Inserts a new object of the entity named `entityName` (for models built from data).
    ///
    /// - Throws: `ContextError` for an unknown or abstract entity.
    package func insertObject(entityName: String) throws -> ManagedObject {
        guard let entity = model.entity(named: entityName) else { throw ContextError("no entity named \(entityName)") }
        guard !entity.isAbstract else { throw ContextError("entity \(entityName) is abstract") }
        let object = entity.objectClass.init(ObjectSeed(entity: entity, objectID: .temporary(entityNumber: entity.number),
                                                       context: self, isFault: false))
        insertNew(object)
        return object
    }

    func insertNew(_ object: ManagedObject) {
        if undoManager != nil { willChange(object) }
        for (slot, value) in object.entity.defaultValues { object.values[slot] = value }
        object.isInserted = true
        registry[object.objectID] = object
        inserted[object.objectID] = object
    }

    // MARK: Looking objects up

    /// The object for `id` in this context: the registered one, or a fault that loads on first use.
    /// No query runs here.
    public func object(with id: ObjectID) -> ManagedObject? {
        drainInbox()
        return registeredOrFault(id)
    }

    /// The object for `id`, loaded now.
    ///
    /// - Throws: `ContextError` when no such object exists (or it was deleted), `ObjectLoadError`
    ///   when the store fails to answer.
    public func existingObject(with id: ObjectID) throws -> ManagedObject {
        try throwIfLoadFailed()
        drainInbox()
        guard let object = registeredOrFault(id), !object.isDeleted else {
            throw ContextError("no object with ID \(id)")
        }
        if object.isFault {
            let snapshot: ObjectSnapshot?
            do {
                snapshot = try source.snapshot(of: object.objectID)
            } catch {
                throw ObjectLoadError(objectID: object.objectID, entityName: object.entity.name, relationship: nil,
                                      batchCount: 1, underlying: error)
            }
            guard let snapshot else { throw ContextError("no object with ID \(id)") }
            object.install(snapshot)
        }
        return object
    }

    /// A typed `existingObject(with:)`.
    public func existingObject<T: ManagedObject>(with id: ObjectID, as type: T.Type) throws -> T {
        guard let object = try existingObject(with: id) as? T else {
            throw ContextError("object \(id) is not a \(T.self)")
        }
        return object
    }

    func resolve(_ id: ObjectID) -> ObjectID {
        // Until the context has saved something, every ID resolves to itself: no hashing.
        guard !aliases.isEmpty else { return id }
        return aliases[id] ?? id
    }

    func registeredOrFault(_ id: ObjectID) -> ManagedObject? {
        let id = resolve(id)
        if let object = registry[id] { return object }
        guard !id.isTemporary, let entity = model.entity(number: id.entityNumber) else { return nil }
        let object = entity.objectClass.init(ObjectSeed(entity: entity, objectID: id, context: self, isFault: true))
        registry[id] = object
        unfiredFaults[entity.root, default: []].append(id)
        return object
    }

    /// Registers (or refreshes) an object from a snapshot fetched from the source.
    func register(_ snapshot: ObjectSnapshot) -> ManagedObject? {
        let id = resolve(snapshot.id)
        if let object = registry[id] {
            if object.isFault { object.install(snapshot) }
            return object
        }
        guard let object = makeObject(snapshot) else { return nil }
        registry[id] = object
        return object
    }

    /// A new object holding a fetched row, not registered yet: for a caller that knows the
    /// context holds none of the rows, and registers them all at once.
    func makeObject(_ snapshot: ObjectSnapshot) -> ManagedObject? {
        guard let entity = model.entity(number: snapshot.id.entityNumber) else { return nil }
        return entity.objectClass.init(ObjectSeed(entity: entity, objectID: snapshot.id, context: self, isFault: false,
                                                  snapshot: snapshot))
    }

    // MARK: Changing

    /// Records that `object` changed (attributes or relationships).
    func objectDidChange(_ object: ManagedObject) {
        // The common case first, with nothing to record: a new object, outside a save.
        if object.isInserted && journal == nil { return }
        guard object.owningContext === self else { return }
        journal?.record(object, in: self)
        guard !object.isInserted, !object.isMarkedUpdated, !object.isDeleted else { return }
        object.isMarkedUpdated = true
        updated[object.objectID] = object
    }

    /// Marks `object` deleted; its delete rules run when the context saves.
    public func delete(_ object: ManagedObject) {
        guard object.owningContext === self, !object.isDeleted else { return }
        // Undo may have to insert it again after the deletion is saved: it needs its values.
        if undoManager != nil && object.isFault { fulfillFault(object) }
        willChange(object)
        object.isDeleted = true
        updated.removeValue(forKey: object.objectID)
        deleted[object.objectID] = object
    }

    func recordDeferredError(_ error: Error) {
        // A setter that met a load failure changed nothing, but what the caller does next may
        // rest on it: the failure blocks saves as a getter's does.
        if let failure = error as? ObjectLoadError {
            recordLoadFailure(failure)
        } else {
            deferredErrors.append(error)
        }
    }
}

/// A misuse of a context: an unknown entity, an object from another context, a missing object.
package struct ContextError: Error, CustomStringConvertible, Sendable, Equatable {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
