import Foundation
import Locking

/// A model's entity version hashes (`NSStoreModelVersionHashes`), worked out on first use and
/// then kept: a SHA-256 over every entity and property, which only writing a store's metadata
/// and matching a store Apple's Core Data made need. A command that only reads a store this
/// framework wrote never asks, and building the model no longer pays for them (about 1 M
/// instructions for the vacations model, a twentieth of a `vacation show`).
///
/// Shared by every entity of one model; safe to ask from any thread (the first asker computes,
/// under a lock, and the others wait for its answer).
final class ModelVersionHashes: Sendable {
    private let descriptions: [EntityDescription]
    private let hashes = Locked<[String: Data]?>(nil)

    /// Hashes of `descriptions`, which `ModelBuilder` has already checked: every parent in the
    /// model, no inheritance cycle.
    init(_ descriptions: [EntityDescription]) {
        self.descriptions = descriptions
    }

    /// Entity name → version hash.
    var all: [String: Data] {
        hashes.withLock { known in
            if let known { return known }
            let computed: [String: Data]
            do {
                computed = try CoreDataVersionHash.entityHashes(of: descriptions)
            } catch {
                // Unreachable: `entityHashes` throws only for a missing parent or an inheritance
                // cycle, and `ModelBuilder.build` refuses both before a model exists.
                computed = [:]
            }
            known = computed
            return computed
        }
    }

    /// The version hash of the entity named `name`.
    func hash(of name: String) -> Data { all[name] ?? Data() }
}
