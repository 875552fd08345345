import Foundation

/// What a context needs from whatever lies beneath it: a parent context or the store.
///
/// Every argument and result is `Sendable`, so that a source on another queue can answer.
protocol ObjectSource: AnyObject {
    var model: ObjectModel { get }
    var coordinator: StoreCoordinator { get }
    /// The state of one object as this source sees it (its own unsaved changes included).
    func snapshot(of id: ObjectID) throws -> ObjectSnapshot?
    func snapshots(of ids: [ObjectID]) throws -> [ObjectSnapshot]
    /// The members of a to-many relationship, by relationship index in the object's entity.
    func relatedIDs(of id: ObjectID, relationship: Int) throws -> [ObjectID]
    /// Rows matching a fetch, with this source's unsaved changes applied.
    func fetchSnapshots(_ plan: FetchPlan) throws -> [ObjectSnapshot]
    func fetchIDs(_ plan: FetchPlan) throws -> [ObjectID]
    func fetchCount(_ plan: FetchPlan) throws -> Int
    /// Applies a child's save.
    func commit(_ payload: CommitPayload, policy: MergePolicy) throws -> CommitOutcome
}
