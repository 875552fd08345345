import Foundation
import ObjectGraph
import SQLiteDB

/// One of Core Data's own entities (numbered from 16001: persistent history's `CHANGE`,
/// `TRANSACTION`, `TRANSACTIONSTRING`, CloudKit's `NSCKRecordMetadata`, …), kept in a table named
/// `A` + its name in capitals (`ACHANGE`), and its columns with the names and types they read as.
public struct CoreDataEntityTable: Sendable, Equatable {
    /// One column of the table and the attribute it reads as.
    public struct Column: Sendable, Equatable {
        /// The column's name in the table (`ZENTITY`).
        public let column: String
        /// The attribute's name, the column's without its `Z` (`ENTITY`).
        public let property: String
        /// The attribute type the column's declared type reads as.
        public let type: AttributeType

        /// A column read as `property` of `type`.
        public init(column: String, property: String, type: AttributeType) {
            self.column = column
            self.property = property
            self.type = type
        }
    }

    /// The entity's name in `Z_PRIMARYKEY` (`CHANGE`).
    public let name: String
    /// The entity's number, 16001 or more.
    public let number: Int
    /// The table holding its rows (`ACHANGE`).
    public let table: String
    /// Its columns after `Z_PK`, `Z_ENT` and `Z_OPT`, in table order.
    public let columns: [Column]

    /// One of Core Data's own entities, kept in `table`.
    public init(name: String, number: Int, table: String, columns: [Column]) {
        self.name = name
        self.number = number
        self.table = table
        self.columns = columns
    }

    /// The table Core Data keeps its own entity `name` in.
    package static func tableName(_ name: String) -> String { "A" + name.uppercased() }
}

extension StoreModelInference {
    /// Core Data's own entities whose rows the store at `url` keeps (persistent history,
    /// CloudKit), with their columns; for reading a store whose model comes from a file.
    ///
    /// - Throws: `StoreError` when the file is not a Core Data store.
    public static func coreDataEntities(fromStoreAt url: URL) throws -> [CoreDataEntityTable] {
        let connection = try Connection(path: url.path, configuration: .init(
            readOnly: true, create: false, journalMode: nil, synchronous: nil))
        return try Inference(connection: connection).inferCoreDataEntities()
    }
}

extension Inference {
    /// Core Data's own entities whose tables are there, with their columns as attributes.
    func inferCoreDataEntities() -> [CoreDataEntityTable] {
        let modelNumbers = Set(entries.map(\.number))
        let byNumber = Dictionary(catalog.entries.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        return catalog.entries.filter { !modelNumbers.contains($0.number) && $0.number >= 16000 }.compactMap { entry in
            // A subentity shares its root's table, as in the model's hierarchies.
            var root = entry
            var seen: Set<Int> = [entry.number]
            while root.parent != 0, let parent = byNumber[root.parent], seen.insert(parent.number).inserted { root = parent }
            let table = CoreDataEntityTable.tableName(root.name)
            guard let columns = catalog.tables[table], Set(columns.map(\.name)).isSuperset(of: ["Z_PK", "Z_ENT", "Z_OPT"]) else { return nil }
            let properties = columns.filter { !["Z_PK", "Z_ENT", "Z_OPT"].contains($0.name) && $0.name.count > 1 }.map { column in
                let base = column.name.hasPrefix("Z") ? String(column.name.dropFirst()) : column.name
                let name = evidence.exactNames[table]?[column.name] ?? naming.propertyName(forColumnBase: base)
                return CoreDataEntityTable.Column(column: column.name, property: name, type: Self.attributeType(forColumnType: column.type))
            }
            return CoreDataEntityTable(name: entry.name, number: entry.number, table: table, columns: properties)
        }
    }
}
