import Foundation
import SQLiteDB

extension ObjectContext {
    /// The objects matching `request`, in its order: one query in the store; unsaved changes
    /// of this context (and its parents) taken into account unless the request says not to.
    ///
    /// ```swift
    /// let recent = try context.fetch(FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("dateTaken", ascending: false)], limit: 50))
    /// ```
    /// A fault or relationship that fails to load while the request is judged in memory fails
    /// the fetch, and so does a load failure recorded earlier and not yet reported
    /// (`throwIfLoadFailed()`).
    ///
    /// - Throws: `FetchRequestError` for a key path the entity lacks, `ObjectLoadError`, `SQLiteError`.
    @inlinable
    public func fetch<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [T] {
        // Inlinable so that making the `[T]` is specialized for the caller's class (a generic
        // cast per object cost more than reading the object), and each object joins it as it
        // is made: a list cast afterwards met every object of a large fetch again, out of the
        // processor's caches, to check its class and retain it (and again to release the first list).
        var objects: [T] = []
        try forEachFetchedObject(for: request) { object in
            if let typed = downcast(object, to: T.self) { objects.append(typed) }
        }
        return objects
    }

    /// `fetch`'s objects handed to `body` one by one, in order, before they are cast to the
    /// request's class: over the store, each as its row arrives, while it is still in the
    /// processor's caches (a caller that files them, as the results controller does into
    /// sections, then need not go through them all again). `body` runs while the store is
    /// held: it must not fire faults nor fetch.
    @usableFromInline
    func forEachFetchedObject<T: ManagedObject>(for request: FetchRequest<T>, _ body: (ManagedObject) -> Void) throws {
        let plan = try plan(for: request)
        try reportingLoadFailures {
            guard !request.relationshipKeyPathsForPrefetching.isEmpty else {
                try fetchObjects(plan, includesPendingChanges: request.includesPendingChanges, each: body)
                return
            }
            let objects = try fetchObjects(plan, includesPendingChanges: request.includesPendingChanges)
            for keyPath in request.relationshipKeyPathsForPrefetching {
                try prefetch(keyPath: keyPath, of: objects)
            }
            objects.forEach(body)
        }
    }

    /// The IDs of the objects matching `request`, without loading them.
    public func fetchObjectIDs<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [ObjectID] {
        let plan = try plan(for: request)
        return try reportingLoadFailures {
            drainInbox()
            if request.includesPendingChanges && hasPendingChanges {
                return try fetchObjects(plan, includesPendingChanges: true).map(\.objectID)
            }
            return try source.fetchIDs(plan)
        }
    }

    /// How many objects match `request`.
    public func count<T: ManagedObject>(for request: FetchRequest<T>) throws -> Int {
        let plan = try plan(for: request)
        return try reportingLoadFailures {
            drainInbox()
            if request.includesPendingChanges && hasPendingChanges {
                return try fetchObjects(plan, includesPendingChanges: true).count
            }
            return try source.fetchCount(plan)
        }
    }

    var hasPendingChanges: Bool { !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty }

    func plan<T: ManagedObject>(for request: FetchRequest<T>) throws -> FetchPlan {
        let entity: Entity
        if let name = request.entityName {
            guard let named = model.entity(named: name) else { throw FetchRequestError(message: "the model has no entity named \(name)") }
            entity = named
        } else if let typed = model.entity(for: T.self) {
            entity = typed
        } else {
            throw FetchRequestError(message: "\(T.self) is not an entity of this model; give the request an entity name")
        }
        if let variables = request.predicate?.variableNames, let first = variables.sorted().first {
            throw FetchRequestError(message: "the predicate's variable $\(first) has no value; substitute it first")
        }
        try PredicateSQLCompiler.validate(predicate: request.predicate, sortDescriptors: request.sortDescriptors,
                                          entity: entity, model: model)
        return FetchPlan(entity: entity.number, includesSubentities: request.includesSubentities,
                         predicate: request.predicate, sortDescriptors: request.sortDescriptors,
                         limit: request.fetchLimit, offset: max(0, request.fetchOffset))
    }

    /// Fetches from the source and, when asked and needed, merges this context's unsaved
    /// changes in: deleted objects leave, changed and inserted ones are judged in memory, and
    /// the result is sorted and windowed again.
    func fetchObjects(_ plan: FetchPlan, includesPendingChanges: Bool) throws -> [ManagedObject] {
        var objects: [ManagedObject] = []
        try fetchObjects(plan, includesPendingChanges: includesPendingChanges) { objects.append($0) }
        return objects
    }

    /// `fetchObjects(_:includesPendingChanges:)`, handing the objects to `body` in order.
    func fetchObjects(_ plan: FetchPlan, includesPendingChanges: Bool, each body: (ManagedObject) -> Void) throws {
        drainInbox()
        guard includesPendingChanges && hasPendingChanges else {
            if source === coordinator && registry.isEmpty && aliases.isEmpty {
                // A context that holds nothing yet, straight over the store: each row becomes
                // its object as SQLite steps to it (no list of snapshots in between) and is
                // handed on there and then, with its to-one targets registered (as faults). A
                // large fetch's objects soon leave the processor's caches: each later pass over
                // them (casting the list, releasing a list) met every one of them in memory
                // again. As rows of one table have distinct keys, none can be registered
                // already: they are registered together at the end, into a registry made large
                // enough once, from a list of IDs and references taken while each object was
                // at hand (registered one by one as they came, each lookup in a large table
                // waited for memory alone, between rows). Targets in the fetched rows' own
                // table must wait for those rows.
                let fetchedRoot = model[plan.entity].root
                var pending: [(id: ObjectID, object: ManagedObject?)] = []
                var previousTargets: [ObjectID?] = []
                var targetsInOwnTable = false
                try coordinator.withStore { store in
                    try store.fetch(plan) { snapshot in
                        guard let object = makeObject(snapshot) else { return }
                        pending.append((snapshot.id, object))
                        body(object)
                        // Rows that point to the same objects mostly share one array (`RowReader`).
                        guard !snapshot.toOne.isEmpty, snapshot.toOne != previousTargets else { return }
                        previousTargets = snapshot.toOne
                        for case let target? in snapshot.toOne {
                            if model.entity(number: target.entityNumber)?.root == fetchedRoot {
                                targetsInOwnTable = true
                            } else {
                                _ = registeredOrFault(target)
                            }
                        }
                    }
                }
                let objects = targetsInOwnTable ? pending.compactMap(\.object) : []
                registry.reserveCapacity(additional: pending.count, forEntity: plan.entity)
                registry.insertNew(&pending)
                if targetsInOwnTable { registerTargetFaults(of: objects) }
                return
            }
            let snapshots = try source.fetchSnapshots(plan)
            // Room for them all at once: growing a large registry step by step rehashes it.
            registry.reserveCapacity(additional: snapshots.count, forEntity: plan.entity)
            let objects = snapshots.compactMap { register($0) }
            registerTargetFaults(of: objects)
            objects.forEach(body)
            return
        }
        let entity = model[plan.entity]
        let accepts: (ManagedObject) -> Bool = { object in
            plan.includesSubentities ? entity.includes(object.entity.number) : object.entity.number == entity.number
        }
        let stored = try source.fetchSnapshots(plan.unwindowed).compactMap { register($0) }
        registerTargetFaults(of: stored)
        var seen = Set<ObjectIdentifier>()
        var candidates: [ManagedObject] = []
        for object in stored + Array(inserted.values) + Array(updated.values)
        where accepts(object) && !object.isDeleted && seen.insert(ObjectIdentifier(object)).inserted {
            candidates.append(object)
        }
        if let predicate = plan.predicate {
            // One evaluator for all: it checks the predicate against each entity once.
            let evaluator = PredicateEvaluator(predicate)
            candidates = try candidates.filter { try evaluator.evaluate(with: $0) }
        }
        candidates.sort { ObjectSortDescriptor.compare($0, $1, by: plan.sortDescriptors) }
        let start = min(plan.offset, candidates.count)
        let end = plan.limit.map { min(candidates.count, start + max(0, $0)) } ?? candidates.count
        candidates[start..<end].forEach(body)
    }

    /// Registers (without loading) the to-one targets of fetched objects, so that touching the
    /// first fires them together, a batch at a time, instead of one query per target.
    private func registerTargetFaults(of objects: [ManagedObject]) {
        guard let first = objects.first, first.entity.toOneCount > 0 else { return }
        for object in objects where !object.isFault {
            // A target met before is in the registry by now: that lookup is the only one.
            for target in object.toOne {
                if let target { _ = registeredOrFault(target) }
            }
        }
    }

    /// Prefetches a relationship key path, one level at a time (`place`, `tags`, `place.photos`).
    func prefetch(keyPath: String, of objects: [ManagedObject]) throws {
        var level = objects
        for name in keyPath.split(separator: ".").map(String.init) {
            guard !level.isEmpty else { return }
            try prefetchRelationship(name, of: level)
            var next: [ManagedObject] = []
            var seen = Set<ObjectIdentifier>()
            for object in level {
                guard let relationship = object.entity.relationship(named: name) else { continue }
                let related = relationship.isToMany ? object.toManyObjects(index: relationship.index)
                                                    : [object.toOneObject(index: relationship.index)].compactMap { $0 }
                for target in related where seen.insert(ObjectIdentifier(target)).inserted { next.append(target) }
            }
            level = next
        }
    }

    // MARK: Serving child contexts

    func fetchSnapshots(_ plan: FetchPlan) throws -> [ObjectSnapshot] {
        guard hasPendingChanges else { return try source.fetchSnapshots(plan) }
        return try fetchObjects(plan, includesPendingChanges: true).map { object in
            try loadFault(object)
            return ObjectSnapshot(id: object.objectID, version: object.version, values: object.values, toOne: object.toOne)
        }
    }

    func fetchIDs(_ plan: FetchPlan) throws -> [ObjectID] {
        guard hasPendingChanges else { return try source.fetchIDs(plan) }
        return try fetchObjects(plan, includesPendingChanges: true).map(\.objectID)
    }

    func fetchCount(_ plan: FetchPlan) throws -> Int {
        guard hasPendingChanges else { return try source.fetchCount(plan) }
        return try fetchObjects(plan, includesPendingChanges: true).count
    }
}
