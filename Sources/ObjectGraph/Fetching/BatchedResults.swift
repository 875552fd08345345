import Foundation

/// The results of a fetch that loads its objects a batch at a time, as they are reached (Core
/// Data's `fetchBatchSize`): one query for the IDs up front, then one query per batch.
///
/// ```swift
/// let photos = try context.fetch(FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("dateTaken")]), batchSize: 500)
/// for photo in photos { print(photo.title ?? "") }    // 1 + count/500 queries, never all in memory at once
/// ```
/// The collection belongs to its context's isolation domain, like the objects it hands out.
public struct BatchedResults<Result: ManagedObject>: RandomAccessCollection {
    package let objectIDs: [ObjectID]
    /// How many objects each query loads.
    public let batchSize: Int
    private let context: ObjectContext

    init(objectIDs: [ObjectID], batchSize: Int, context: ObjectContext) {
        self.objectIDs = objectIDs
        self.batchSize = Swift.max(1, batchSize)
        self.context = context
    }

    /// The first index, 0.
    public var startIndex: Int { 0 }
    /// One past the last index: the number of results.
    public var endIndex: Int { objectIDs.count }

    /// The object at `index`, loading its whole batch when it is not loaded yet.
    ///
    /// A collection's subscript cannot throw: when the batch fails to load, the object comes
    /// back as a fault and the failure is recorded in the context (`loadError`,
    /// `throwIfLoadFailed()`), which also refuses to save until rolled back. Use
    /// `object(at:)` to have the failure thrown here.
    public subscript(index: Int) -> Result {
        do {
            return try object(at: index)
        } catch let failure as ObjectLoadError {
            context.recordLoadFailure(failure)
        } catch {
            context.recordLoadFailure(ObjectLoadError(objectID: objectIDs[index], entityName: "\(Result.self)", relationship: nil,
                                                      batchCount: 1, underlying: error))
        }
        return resolved(objectIDs[index])
    }

    /// The object at `index`, loading its whole batch when it is not loaded yet.
    ///
    /// - Throws: `ObjectLoadError` when the batch cannot be loaded.
    public func object(at index: Int) throws -> Result {
        let id = objectIDs[index]
        if let object = context.registeredOrFault(id), !object.isFault, let result = object as? Result { return result }
        let start = (index / batchSize) * batchSize
        let batch = Array(objectIDs[start..<Swift.min(objectIDs.count, start + batchSize)])
        do {
            try context.loadFaults(batch)
        } catch {
            throw ObjectLoadError(objectID: id, entityName: context.model.entity(number: id.entityNumber)?.name ?? "\(Result.self)",
                                  relationship: nil, batchCount: batch.count, underlying: error)
        }
        return resolved(id)
    }

    private func resolved(_ id: ObjectID) -> Result {
        guard let result = context.registeredOrFault(id) as? Result else {
            // The IDs came from a fetch of Result's entity, so each resolves to a Result.
            preconditionFailure("object \(id) of a batched fetch is not a \(Result.self)")
        }
        return result
    }
}

extension ObjectContext {
    /// Fetches the IDs of the matching objects (one query) and returns a collection that loads
    /// the objects `batchSize` at a time as they are reached.
    public func fetch<T: ManagedObject>(_ request: FetchRequest<T>, batchSize: Int) throws -> BatchedResults<T> {
        BatchedResults(objectIDs: try fetchObjectIDs(request), batchSize: batchSize, context: self)
    }
}
