import CommandLineKit
import Foundation
import CoreDataFiles
import ObjectGraph
import SQLiteDB

/// Where a store is: a document package (a folder holding `StoreContent/persistentStore`, as
/// `UIManagedDocument` and `BSManagedDocument` write them) or a store file.
///
/// ```swift
/// let location = try StoreLocation(path: "Trip.vacation")
/// location.storeURL.path   // "Trip.vacation/StoreContent/persistentStore"
/// ```
struct StoreLocation {
    /// The path as given.
    let path: String
    let storeURL: URL
    /// The package folder, when the path named one.
    let documentURL: URL?

    /// Finds the store at `path`.
    ///
    /// - Throws: `DocStoreError` 66 for a missing path, 65 for a folder that is not a document or
    ///   a file that is not a Core Data store.
    init(path: String) throws {
        self.path = path
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw DocStoreError.noSuchFile(path)
        }
        if isDirectory.boolValue {
            let store = url.appendingPathComponent("StoreContent").appendingPathComponent("persistentStore")
            guard FileManager.default.fileExists(atPath: store.path) else {
                throw CommandFailure.badInput("\(path) is a folder but not a Core Data document (no StoreContent/persistentStore)")
            }
            storeURL = store
            documentURL = url
        } else {
            storeURL = url
            documentURL = nil
        }
        try Self.checkIsStore(storeURL, path: path)
    }

    /// Whether `url` names a store or a document rather than a model: a SQLite file, or a
    /// folder with `StoreContent/persistentStore`.
    ///
    /// - Throws: `CommandFailure` (1) when the file is there but cannot be read.
    static func looksLikeStore(_ url: URL) throws -> Bool {
        if FileManager.default.fileExists(atPath: url.appendingPathComponent("StoreContent/persistentStore").path) { return true }
        return try Self.isSQLite(url)
    }

    /// True when `url` is a file that starts with SQLite's header; false for a folder.
    ///
    /// - Throws: `CommandFailure` (1) when the file cannot be read: an unreadable store is not
    ///   "not a store".
    static func isSQLite(_ url: URL) throws -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else { return false }
        let header: Data
        do {
            let handle = try FileHandle(forReadingFrom: url)
            // Closing a file opened only for reading loses nothing whatever it answers.
            defer { try? handle.close() }
            header = try handle.read(upToCount: 16) ?? Data()
        } catch {
            throw CommandFailure.failed("Cannot read \(url.path): \(error.localizedDescription)")
        }
        return header == Data("SQLite format 3\u{0}".utf8)
    }

    /// Refuses files that are not SQLite databases with Core Data's bookkeeping tables.
    private static func checkIsStore(_ url: URL, path: String) throws {
        guard try isSQLite(url) else { throw CommandFailure.badInput("\(path) is not a Core Data store (not a SQLite database)") }
        do {
            let connection = try Connection(path: url.path, configuration: .init(
                readOnly: true, create: false, journalMode: nil, synchronous: nil))
            guard try connection.tableExists("Z_METADATA"), try connection.tableExists("Z_PRIMARYKEY") else {
                throw CommandFailure.badInput("\(path) is not a Core Data store (no Z_METADATA and Z_PRIMARYKEY tables)")
            }
        } catch {
            throw DocStoreError.from(error, path: path)
        }
    }
}

/// A model as `--model` or `docstore model` names it: a Core Data model file (XML or compiled),
/// or a store or document whose own model is read from its `Z_MODELCACHE` or inferred.
struct ModelSource {
    let model: ObjectModel
    /// The model file's path, or nil for a store's own model.
    let file: String?
    /// For a store's own model: whether it came from the store's cache or was inferred, and why.
    let storeModel: StoreModel?
    /// The model file as read, for what only the file keeps (configurations, fetched
    /// properties, fetch request templates, compound indexes); nil for a store's own model.
    var modelFile: XCDataModelFile?

    /// The inference, for a model inferred from a store.
    var inferred: InferredStoreModel? { storeModel?.inferred }

    /// Loads the model file at `path`, or finds the model of the store or document there.
    ///
    /// - Throws: `DocStoreError` 66 for a missing path, 65 for a malformed model.
    static func load(_ path: String) throws -> ModelSource {
        let url = URL(fileURLWithPath: path)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw DocStoreError("no such model: \(path)", exitCode: ExitCode.notFound)
        }
        if try StoreLocation.looksLikeStore(url) {
            return try storeModel(of: StoreLocation(path: path))
        }
        do {
            let modelFile = try XCDataModelReader.read(at: url)
            return ModelSource(model: try ObjectModel(file: modelFile), file: path, storeModel: nil, modelFile: modelFile)
        } catch {
            throw DocStoreError.from(error, path: path)
        }
    }

    /// The store's own model: from its `Z_MODELCACHE` when that is the model it was written
    /// with, else inferred from its tables.
    static func storeModel(of location: StoreLocation) throws -> ModelSource {
        do {
            let storeModel = try StoreModel.load(fromStoreAt: location.storeURL)
            return ModelSource(model: storeModel.model, file: nil, storeModel: storeModel)
        } catch {
            throw DocStoreError.from(error, path: location.path)
        }
    }

    /// Opens the store read-only with this model, which must not need a migration.
    ///
    /// - Throws: `DocStoreError` 65 when the store needs migrating to the model.
    func openForReading(_ location: StoreLocation) throws -> StoreCoordinator {
        do {
            if let storeModel { return try StoreCoordinator(readingStoreAt: location.storeURL, storeModel: storeModel) }
            let plan = try StoreMigrationPlan.statements(forStoreAt: location.storeURL, model: model)
            guard try !StoreMigrationPlan.readingNeedsMigration(forStoreAt: location.storeURL, model: model) else {
                throw CommandFailure.badInput(
                    "the store at \(location.path) does not match the model \(file ?? "") (it would need \(plan.count) migration statements)",
                    hint: "Leave out --model to read it with the store's own model, or run 'docstore migrate' on a copy.")
            }
            return try StoreCoordinator(url: location.storeURL, model: model, readOnly: true, journalMode: nil)
        } catch let error as MigrationError {
            throw CommandFailure.badInput("the store at \(location.path) does not match the model \(file ?? ""): \(error)")
        } catch {
            throw DocStoreError.from(error, path: location.path)
        }
    }

    /// One line on where a store's own model came from.
    var storeModelDescription: String? {
        guard let storeModel else { return nil }
        switch storeModel.source {
        case .modelCache: return "the store's own, from Z_MODELCACHE"
        case .inferred: return "inferred from the store (\(storeModel.modelCacheProblem ?? "no usable model cache"))"
        }
    }
}
