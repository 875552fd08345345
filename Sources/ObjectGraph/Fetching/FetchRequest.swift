import Foundation

/// What to fetch: an entity, a predicate, an order, a window.
///
/// ```swift
/// var request = try FetchRequest<Photo>(predicate: "place.name BEGINSWITH[c] %@", "lis",
///                                       sortedBy: [ObjectSortDescriptor("dateTaken", ascending: false)])
/// request.fetchLimit = 50
/// let photos = try context.fetch(request)
/// ```
public struct FetchRequest<Result: ManagedObject>: Sendable {
    /// The entity to fetch; nil means the entity whose class is `Result`.
    public var entityName: String?
    /// Which objects to fetch; nil for all of them.
    public var predicate: ObjectPredicate?
    package var sortDescriptors: [ObjectSortDescriptor]
    /// At most this many results; nil for all.
    public var fetchLimit: Int?
    /// How many of the sorted results to skip first.
    public var fetchOffset: Int
    /// Whether unsaved inserts, updates and deletes of the context count (as in Core Data).
    public var includesPendingChanges: Bool
    /// Whether objects of subentities are included.
    public var includesSubentities: Bool
    /// Relationships to load along with the results, each in one query (`place`, `tags`).
    public var relationshipKeyPathsForPrefetching: [String]

    /// A request for objects of `entityName` (else `Result`'s entity) matching `predicate`, in `sortDescriptors` order.
    public init(entityName: String? = nil, predicate: ObjectPredicate? = nil, sortedBy sortDescriptors: [ObjectSortDescriptor] = [],
                limit: Int? = nil, offset: Int = 0) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = limit
        self.fetchOffset = offset
        self.includesPendingChanges = true
        self.includesSubentities = true
        self.relationshipKeyPathsForPrefetching = []
    }

    /// A request whose predicate is parsed from Core Data's format language.
    ///
    /// - Throws: `ObjectPredicateError` naming the position of a syntax error.
    public init(entityName: String? = nil, predicate format: String, _ arguments: any PredicateArgument...,
                sortedBy sortDescriptors: [ObjectSortDescriptor] = [], limit: Int? = nil, offset: Int = 0) throws {
        self.init(entityName: entityName, predicate: try ObjectPredicate(format: format, arguments: arguments),
                  sortedBy: sortDescriptors, limit: limit, offset: offset)
    }
}

/// A fetch as the store runs it: everything `Sendable`, the entity resolved.
struct FetchPlan: Sendable {
    var entity: Int
    var includesSubentities: Bool
    var predicate: ObjectPredicate?
    var sortDescriptors: [ObjectSortDescriptor]
    var limit: Int?
    var offset: Int

    /// The same fetch without its window, for merging unsaved changes before windowing.
    var unwindowed: FetchPlan {
        var plan = self
        plan.limit = nil
        plan.offset = 0
        return plan
    }
}
