import Foundation
import ObjectGraph
import SQLiteDB

/// The model an Apple-made store keeps of itself: `Z_MODELCACHE`, one row whose `Z_CONTENT` is
/// the raw DEFLATE of a keyed archive of the `NSManagedObjectModel` Core Data last opened the
/// store with, decoded as a compiled model is.
///
/// Core Data trusts the cache only when its version hashes equal the store's
/// `NSStoreModelVersionHashes`; `matchesStore` is that check. A store migrated by a tool that
/// rewrote the hashes but left the cache behind (this framework's own migrations do so) has a
/// cache of an older model.
///
/// ```swift
/// if let cache = try StoreModelCache.read(fromStoreAt: storeURL), cache.matchesStore {
///     let model = try ObjectModel(file: cache.model)   // the names and types the app declared
/// }
/// ```
public struct StoreModelCache: Sendable {
    /// The cached model.
    public let model: XCDataModelFile
    /// The cached model's entity version hashes, computed as Core Data computes them.
    package let versionHashes: [String: Data]
    /// The store's `NSStoreModelVersionHashes`.
    let storeVersionHashes: [String: Data]

    /// Whether the cache describes the model the store was last written with.
    public var matchesStore: Bool { versionHashes == storeVersionHashes }

    /// Entities whose hash differs between the cache and the store, or that only one has; sorted.
    var entitiesDifferingFromStore: [String] {
        Set(versionHashes.keys).union(storeVersionHashes.keys)
            .filter { versionHashes[$0] != storeVersionHashes[$0] }.sorted()
    }

    /// Reads the cache of the store at `url`, which is opened read-only; nil when the store
    /// keeps none (no `Z_MODELCACHE` table, no row, or an empty one).
    ///
    /// - Throws: `XCDataModelError` when the cache does not inflate or decode to a model,
    ///   `StoreError`/`SQLiteError` when the file is not a readable Core Data store.
    public static func read(fromStoreAt url: URL) throws -> StoreModelCache? {
        let connection = try Connection(path: url.path, configuration: .init(
            readOnly: true, create: false, journalMode: nil, synchronous: nil))
        return try read(from: connection)
    }

    /// Reads the cache of the store open on `connection`; reads only.
    public static func read(from connection: Connection) throws -> StoreModelCache? {
        let storeURL = URL(fileURLWithPath: connection.path)
        let metadata = try StoreMetadata(connection: connection)
        guard try connection.tableExists("Z_MODELCACHE"),
              let content = try connection.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1") else { return nil }
        let compressed: Data
        switch content {
        case .blob(let bytes): compressed = bytes
        case .text(let text): compressed = Data(text.utf8)
        default: return nil
        }
        guard !compressed.isEmpty else { return nil }
        let model = try decode(compressed, url: storeURL)
        return StoreModelCache(model: model, versionHashes: try CoreDataVersionHash.entityHashes(in: model),
                               storeVersionHashes: metadata.versionHashes)
    }

    /// Decodes the content of a `Z_MODELCACHE` row: raw DEFLATE of a compiled model.
    ///
    /// - Parameter url: Only used to say where a problem is.
    /// - Throws: `XCDataModelError`.
    package static func decode(_ compressed: Data, url: URL? = nil) throws -> XCDataModelFile {
        let archive: Data
        do {
            archive = try RawInflate.inflate(compressed)
        } catch {
            throw XCDataModelError(.malformedArchive(reason: "Z_MODELCACHE does not inflate: \(error.reason)"), url: url)
        }
        return try CompiledModelReader.decode(archive, url: url)
    }

    /// The model the store at `url` was made with, from its cache, when the cache matches the
    /// store's version hashes; nil when there is no cache or it describes another model.
    ///
    /// ```swift
    /// let model = try StoreModelCache.model(ofStoreAt: storeURL) ?? ObjectModel.inferred(fromStoreAt: storeURL)
    /// ```
    /// - Throws: as `read(fromStoreAt:)`, and `ModelError` when the cached model cannot be built.
    public static func model(ofStoreAt url: URL) throws -> ObjectModel? {
        guard let cache = try read(fromStoreAt: url), cache.matchesStore else { return nil }
        return try ObjectModel(file: cache.model)
    }
}
