import Foundation
import ObjectGraph

extension StoreCoordinator {
    /// Opens a store read-only with a model inferred from it: checked against the schema when
    /// the model regenerates it exactly (so nothing would migrate), as it is otherwise.
    ///
    /// ```swift
    /// let inferred = try StoreModelInference.infer(fromStoreAt: storeURL)
    /// let context = ObjectContext(coordinator: try StoreCoordinator(readingStoreAt: storeURL, inferred: inferred))
    /// ```
    /// - Throws: `SQLiteError` or `StoreError` when the store cannot be opened.
    public convenience init(readingStoreAt url: URL, inferred: InferredStoreModel, busyTimeout: Double = 10) throws {
        try self.init(readingAt: url, model: inferred.model, busyTimeout: busyTimeout,
                      checksSchema: inferred.matchesStoreExactly)
    }
}
