import Foundation
import ObjectGraph
import SQLiteDB

/// The model to read a store with when no model file is given, and where it came from: the
/// store's own model from `Z_MODELCACHE` when that is the model the store was written with,
/// else a model inferred from its tables (`StoreModelInference`), the last resort.
///
/// The cache is used when it decodes, its version hashes equal the store's
/// `NSStoreModelVersionHashes` (Core Data's own check), its entities carry the numbers
/// `Z_PRIMARYKEY` gives them, and every table and column it lays out is in the store. Then the
/// store reads with the exact names, types (Booleans, UUIDs, decimals, transformables), ordered
/// flags and inverses it was made with. Otherwise `modelCacheProblem` says why not.
///
/// ```swift
/// let storeModel = try StoreModel.load(fromStoreAt: storeURL)
/// print(storeModel.source, storeModel.modelCacheProblem ?? "")
/// let context = ObjectContext(coordinator: try StoreCoordinator(readingStoreAt: storeURL, storeModel: storeModel))
/// ```
public struct StoreModel: Sendable {
    /// Where a store's own model came from.
    public enum Source: String, Sendable, Equatable {
        /// The store's `Z_MODELCACHE`.
        case modelCache
        /// Inferred from the store's tables.
        case inferred
    }

    /// The model to open the store with.
    public let model: ObjectModel
    /// Whether `model` is the store's cached model or one inferred from its tables.
    public let source: Source
    /// Why the store's model cache was not used; nil when it was.
    public let modelCacheProblem: String?
    /// The cache, when the store has a readable one (used or not).
    public let modelCache: StoreModelCache?
    /// The inference, when the model was inferred.
    public let inferred: InferredStoreModel?
    /// What a migration to this model would change in the store (empty when nothing): our
    /// layout rules may not regenerate every index or column Core Data wrote (ordered
    /// relationships' order columns, history tables), in which case the store is read as it is.
    public let schemaDifferences: [String]

    /// True when the store opens with this model without any migration.
    public var matchesStoreExactly: Bool { schemaDifferences.isEmpty }

    /// Finds the model of the store at `url`, which is opened read-only.
    ///
    /// - Throws: `StoreError` when the file is not a Core Data store and no model can be
    ///   inferred, `SQLiteError` when it cannot be read.
    public static func load(fromStoreAt url: URL) throws -> StoreModel {
        let connection = try Connection(path: url.path, configuration: .init(
            readOnly: true, create: false, journalMode: nil, synchronous: nil))
        return try load(from: connection)
    }

    /// Finds the model of the store open on `connection`; reads only.
    public static func load(from connection: Connection) throws -> StoreModel {
        var cache: StoreModelCache?
        let problem: String
        do {
            cache = try StoreModelCache.read(from: connection)
            if let cache {
                switch try usableModel(cache, connection: connection) {
                case .success(let (model, differences)):
                    return StoreModel(model: model, source: .modelCache, modelCacheProblem: nil, modelCache: cache,
                                      inferred: nil, schemaDifferences: differences)
                case .failure(let unusable):
                    problem = unusable.reason
                }
            } else {
                problem = "the store keeps no model cache (Z_MODELCACHE)"
            }
        } catch let error as XCDataModelError {
            problem = "its Z_MODELCACHE cannot be read: \(error)"
        } catch let error as ModelError {
            problem = "the model in Z_MODELCACHE cannot be used: \(error)"
        }
        let inferred = try StoreModelInference.infer(from: connection)
        return StoreModel(model: inferred.model, source: .inferred, modelCacheProblem: problem, modelCache: cache,
                          inferred: inferred, schemaDifferences: inferred.schemaDifferences)
    }

    private struct Unusable: Error {
        var reason: String
    }

    /// The cached model built, checked against the store's hashes, numbering and tables.
    private static func usableModel(_ cache: StoreModelCache, connection: Connection) throws -> Result<(ObjectModel, [String]), Unusable> {
        guard cache.matchesStore else {
            let differing = cache.entitiesDifferingFromStore
            let listed = differing.prefix(5).joined(separator: ", ") + (differing.count > 5 ? " and \(differing.count - 5) more" : "")
            return .failure(Unusable(reason: "the model in Z_MODELCACHE is not the one the store was last written with "
                + "(version hashes differ for \(listed)); the store was probably migrated by a tool that left the cache behind"))
        }
        let model: ObjectModel
        do {
            model = try ObjectModel(file: cache.model)
        } catch {
            return .failure(Unusable(reason: "the model in Z_MODELCACHE cannot be used: \(error)"))
        }
        let catalog = try StoreCatalog(connection: connection)
        if let mismatch = numberingMismatch(model, file: cache.model, catalog: catalog) {
            return .failure(Unusable(reason: "the model in Z_MODELCACHE does not number its entities as the store does: \(mismatch)"))
        }
        if let missing = missingStorage(model, catalog: catalog) {
            return .failure(Unusable(reason: "the store lacks \(missing), which the model in Z_MODELCACHE lays out"))
        }
        let differences: [String]
        do {
            differences = try StoreMigrationPlan.sql(on: connection, model: model)
        } catch let error as MigrationError {
            differences = ["\(error)"]
        }
        return .success((model, differences))
    }

    /// The first entity whose number or parent differs from `Z_PRIMARYKEY`'s; nil when all agree.
    /// Rows numbered after the model's entities (Core Data's history and CloudKit entities,
    /// 16000 and up) are Core Data's own, not the model's. A migration that renames an entity
    /// leaves its old name in `Z_NAME` (CoreDataPlus's V2 store keeps `ExpensiveSportCar` for
    /// `LuxuryCar`): the renaming identifier names it too.
    private static func numberingMismatch(_ model: ObjectModel, file: XCDataModelFile, catalog: StoreCatalog) -> String? {
        let entries = Dictionary(catalog.entries.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        for entity in model.entities {
            guard let entry = entries[entity.number] else { return "Z_PRIMARYKEY has no entity \(entity.number) (\(entity.name))" }
            let names = [entity.name, file.entity(named: entity.name)?.renamingIdentifier].compactMap { $0 }
            guard names.contains(entry.name), entry.parent == (entity.parent ?? 0) else {
                return "entity \(entity.number) is \(entity.name) in the model, \(entry.name) in Z_PRIMARYKEY"
            }
        }
        if let extra = catalog.entries.first(where: { $0.number > model.entities.count && $0.number < 16000 }) {
            return "Z_PRIMARYKEY has entity \(extra.number) (\(extra.name)), which the model does not"
        }
        return nil
    }

    /// The tables and columns the model reads that the store does not have; nil when none.
    private static func missingStorage(_ model: ObjectModel, catalog: StoreCatalog) -> String? {
        var missing: [String] = []
        for entity in model.rootEntities {
            guard let columns = catalog.tables[entity.table] else {
                missing.append("the table \(entity.table)")
                continue
            }
            let names = Set(columns.map(\.name))
            missing += model.columns(ofTable: entity.table).filter { !names.contains($0.name) }.map { "the column \(entity.table).\($0.name)" }
        }
        for joinTable in model.joinTables {
            guard let columns = catalog.tables[joinTable.name] else {
                missing.append("the table \(joinTable.name)")
                continue
            }
            let names = Set(columns.map(\.name))
            missing += [joinTable.sourceColumn, joinTable.destinationColumn].filter { !names.contains($0) }
                .map { "the column \(joinTable.name).\($0)" }
        }
        guard !missing.isEmpty else { return nil }
        return missing.prefix(3).joined(separator: ", ") + (missing.count > 3 ? " and \(missing.count - 3) more" : "")
    }
}

extension StoreCoordinator {
    /// Opens a store read-only with the model `StoreModel` found for it: checked against the
    /// schema when the model regenerates it exactly (so nothing would migrate), as it is otherwise.
    ///
    /// - Throws: `SQLiteError` or `StoreError` when the store cannot be opened.
    public convenience init(readingStoreAt url: URL, storeModel: StoreModel, busyTimeout: Double = 10) throws {
        try self.init(readingAt: url, model: storeModel.model, busyTimeout: busyTimeout,
                      checksSchema: storeModel.matchesStoreExactly)
    }
}
