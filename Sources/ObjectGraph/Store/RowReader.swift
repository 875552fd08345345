import Foundation
import SQLiteDB

/// Reads rows of one hierarchy table into snapshots, whatever entity each row belongs to.
final class RowReader {
    let table: String
    /// `t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.<every property column>`.
    let selectList: String
    /// A class: a row takes its entity's layout by reference, not by copying four arrays.
    private final class Layout {
        /// Per attribute slot: its column (in the select list) times two, plus one for a date or
        /// floating-point slot (SQLite hands whole numbers back as INTEGER, which we turn back
        /// into REAL so that in-memory values compare equal); -1 for a transient attribute.
        let columnCodes: [Int]
        /// Key column, and entity column or fixed destination entity, of each to-one slot.
        let toOneColumns: [(key: Int, entityColumn: Int?, destination: Int)]

        init(columnCodes: [Int], toOneColumns: [(key: Int, entityColumn: Int?, destination: Int)]) {
            self.columnCodes = columnCodes
            self.toOneColumns = toOneColumns
        }
    }
    private var layouts: [Int: Layout] = [:]
    /// Rows with a single to-one that point at the same object share one array for it (many
    /// photos, one place): a large fetch makes one per target rather than one per row. Objects
    /// copy it on write, as any array. Emptied by `endQuery()` after each query, so it holds
    /// one query's targets at most.
    @exclusivity(unchecked) private var toOneArrays: [ObjectID: [ObjectID?]] = [:]
    private let nilToOne: [ObjectID?] = [nil]
    /// The layout of the previous row's entity: rows of one table are mostly of one entity.
    // Read and written for every row (see `ManagedObject.values` on the unchecked accesses).
    @exclusivity(unchecked) private var lastLayout: (entity: Int, layout: Layout)?

    init(model: ObjectModel, table: String) {
        self.table = table
        let columns = model.columns(ofTable: table).map(\.name)
        selectList = (["Z_PK", "Z_ENT", "Z_OPT"] + columns).map { "t0." + $0 }.joined(separator: ", ")
        var index: [String: Int] = [:]
        for (position, column) in columns.enumerated() { index[column] = position + 3 }
        for entity in model.entities where entity.table == table {
            let columnCodes = entity.attributes.map { attribute -> Int in
                guard let column = attribute.column.flatMap({ index[$0] }) else { return -1 }
                return column * 2 + ([.date, .double, .float].contains(attribute.type) ? 1 : 0)
            }
            var toOne: [(Int, Int?, Int)] = Array(repeating: (-1, nil, 0), count: entity.toOneCount)
            for relationship in entity.relationships where !relationship.isToMany {
                guard case .foreignKey(let column, let entityColumn) = relationship.storage else { continue }
                toOne[relationship.slot] = (index[column] ?? -1, entityColumn.flatMap { index[$0] }, relationship.destination)
            }
            layouts[entity.number] = Layout(columnCodes: columnCodes, toOneColumns: toOne)
        }
    }

    /// Forgets the arrays shared by the previous query's rows.
    func endQuery() {
        if !toOneArrays.isEmpty { toOneArrays.removeAll() }
    }

    private func target(_ column: (key: Int, entityColumn: Int?, destination: Int), _ statement: Statement, _ offset: Int) -> ObjectID? {
        guard column.key >= 0, !statement.isNull(at: column.key + offset) else { return nil }
        let entity = column.entityColumn.map { statement.int(at: $0 + offset) } ?? column.destination
        return ObjectID(entityNumber: entity, primaryKey: statement.int64(at: column.key + offset))
    }

    private func sharedToOne(_ target: ObjectID?) -> [ObjectID?] {
        guard let target else { return nilToOne }
        if let shared = toOneArrays[target] { return shared }
        let array: [ObjectID?] = [target]
        toOneArrays[target] = array
        return array
    }

    /// The snapshot in the statement's current row (columns as `selectList`), or nil when the row's
    /// `Z_ENT` names no entity of this table.
    func snapshot(_ statement: Statement, offset: Int = 0) -> ObjectSnapshot? {
        let entityNumber = statement.int(at: offset + 1)
        let layout: Layout
        if let last = lastLayout, last.entity == entityNumber {
            layout = last.layout
        } else {
            guard let found = layouts[entityNumber] else { return nil }
            layout = found
            lastLayout = (entityNumber, found)
        }
        // Every row of a large fetch makes this array. Reserved, then appended to: the
        // standard library's uninitialized-capacity initializer allocated through generic code
        // that looked the array's storage class up again for every row (about 400 instructions).
        let codes = layout.columnCodes
        var values: [SQLiteValue] = []
        values.reserveCapacity(codes.count)
        codes.withUnsafeBufferPointer { codes in
            for code in codes {
                var value = code >= 0 ? statement.value(at: (code >> 1) + offset) : .null
                if code & 1 == 1, case .integer(let integer) = value { value = .real(Double(integer)) }
                values.append(value)
            }
        }
        let toOne: [ObjectID?]
        if layout.toOneColumns.count == 1 {
            toOne = sharedToOne(target(layout.toOneColumns[0], statement, offset))
        } else {
            toOne = layout.toOneColumns.map { target($0, statement, offset) }
        }
        return ObjectSnapshot(id: ObjectID(entityNumber: entityNumber, primaryKey: statement.int64(at: offset)),
                              version: statement.int64(at: offset + 2), values: values, toOne: toOne)
    }
}
