import Foundation
import SQLiteDB

/// A store's `Z_METADATA` row, read and decoded in one place: the store's UUID and its
/// metadata property list (`NSStoreType`, `NSStoreModelVersionHashes`, …, and our model record).
///
/// ```swift
/// let metadata = try StoreMetadata(connection: connection)
/// metadata.uuid                  // "6B9BB6CC-F2A5-49EB-880B-A459EB7AC7F8"
/// metadata.versionHashes         // NSStoreModelVersionHashes
/// ```
package struct StoreMetadata: Sendable {
    /// `Z_METADATA.Z_UUID`.
    package var uuid: String
    /// `Z_METADATA.Z_PLIST`, decoded; empty when the store keeps no property list.
    package var values: [String: any Sendable]

    /// Reads the first row of `Z_METADATA` (Core Data keeps one, `Z_VERSION` 1).
    ///
    /// - Throws: `StoreError` when there is no `Z_METADATA` table, it is empty or its
    ///   `Z_PLIST` is not a property list; `SQLiteError` when the store cannot be read.
    package init(connection: Connection) throws {
        guard let metadata = try Self.readIfPresent(connection) else {
            throw StoreError("the store's Z_METADATA table is empty")
        }
        self = metadata
    }

    /// The metadata, or nil when `Z_METADATA` has no row (a store being made by hand or by a
    /// tool that has not written it yet); the same errors as `init(connection:)` otherwise.
    package static func readIfPresent(_ connection: Connection) throws -> StoreMetadata? {
        guard try connection.tableExists("Z_METADATA") else {
            throw StoreError("\(connection.path) is not a Core Data store (no Z_METADATA table)")
        }
        let statement = try connection.prepare("SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1")
        guard try statement.step() else { return nil }
        return try StoreMetadata(uuid: statement.string(at: 0) ?? "", plist: statement.data(at: 1))
    }

    /// The metadata of a row already read: `Z_UUID` and `Z_PLIST` as `Statement.data(at:)` gives it.
    init(uuid: String, plist data: Data?) throws {
        self.uuid = uuid
        values = [:]
        if let data, !data.isEmpty {
            // The binary form (what Core Data and this framework write) is read directly; any
            // other form, and whatever that reader leaves, goes through Foundation.
            if let values = BinaryPropertyList.dictionary(from: data) {
                self.values = values
                return
            }
            let plist: Any
            do {
                plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            } catch {
                throw StoreError("the store's metadata is not a property list")
            }
            guard let dictionary = plist as? [String: Any] else {
                throw StoreError("the store's metadata is not a property list")
            }
            values = dictionary.compactMapValues { PropertyListValue.sendable($0) }
        }
    }

    /// `NSStoreModelVersionHashes`: the model the store was last written with.
    package var versionHashes: [String: Data] {
        (values["NSStoreModelVersionHashes"] as? [String: any Sendable])?.compactMapValues { $0 as? Data } ?? [:]
    }

    /// The record of its model that this framework keeps in stores it writes; nil in stores
    /// made by Apple's Core Data.
    package var modelRecord: ModelRecord? {
        values[ModelRecord.metadataKey].flatMap { ModelRecord(plist: $0) }
    }
}
