@testable import CoreDataFiles
import Foundation
import ObjectGraph
import SQLiteDB
import TestSupport

/// Copies of the Apple-made stores in temporary folders, and SQL straight on a store file.
enum AppleStores {
    static let bsManagedDocument = "bsmanageddocument/version1MRC.bstest/StoreContent/persistentStore"
    static let moneyWell = "moneywell/Test.moneywell/StoreContent/persistentStore"

    /// A copy of the fixture store at `path` (a WAL store must not be opened where it lies).
    static func copy(_ path: String, into directory: TemporaryDirectory) throws -> URL {
        let destination = directory.path(URL(fileURLWithPath: path).lastPathComponent)
        try FileManager.default.copyItem(at: CoreDataFixtures.url(path), to: destination)
        return destination
    }

    /// `Fixtures/coredata-more/<path>`: stores and models from more public projects.
    static func more(_ path: String) throws -> URL {
        guard let root = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw CoreDataFixtures.Missing(description: "the test bundle has no Fixtures folder")
        }
        let url = root.appendingPathComponent("coredata-more").appendingPathComponent(path)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CoreDataFixtures.Missing(description: "no fixture at \(url.path)")
        }
        return url
    }

    /// A copy of the `coredata-more` store at `path`, with its `-wal` when it has one.
    static func copyMore(_ path: String, into directory: TemporaryDirectory) throws -> URL {
        let source = try more(path)
        let destination = directory.path(source.lastPathComponent)
        try FileManager.default.copyItem(at: source, to: destination)
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: destination.path + suffix)
        }
        return destination
    }

    /// Rows of `query`, on a connection of its own that leaves the journal mode alone.
    static func rows(_ query: String, in store: URL) throws -> [[SQLiteValue]] {
        let connection = try Connection(path: store.path, configuration: .init(readOnly: true, journalMode: nil, synchronous: nil))
        let statement = try connection.prepare(query)
        var rows: [[SQLiteValue]] = []
        try statement.forEachRow { row in rows.append((0..<row.columnCount).map { row.value(at: $0) }) }
        return rows
    }

    static func scalar(_ query: String, in store: URL) throws -> SQLiteValue? {
        try rows(query, in: store).first?.first
    }

    /// Every table and index SQLite knows, `name → sql`.
    static func schema(of store: URL) throws -> [String: String] {
        let rows = try rows("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL", in: store)
        return Dictionary(rows.map { ($0[0].textValue ?? "", $0[1].textValue ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    /// Takes our model record out of a store's metadata, as if another tool had written it.
    static func removeModelRecord(from store: URL) throws {
        let connection = try Connection(path: store.path, configuration: .init(journalMode: nil))
        guard let data = try connection.scalar("SELECT Z_PLIST FROM Z_METADATA")?.blobValue,
              var plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any] else { return }
        plist.removeValue(forKey: "VacationsModel")
        let stripped = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        try connection.execute("UPDATE Z_METADATA SET Z_PLIST = ?", [.blob(stripped)])
    }

    /// The objects of exactly `entity` (not its subentities), in key order.
    static func objects(of entity: String, in context: ObjectContext) throws -> [ManagedObject] {
        var request = FetchRequest<ManagedObject>(entityName: entity)
        request.includesSubentities = false
        return try context.fetch(request).sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }
    }
}
