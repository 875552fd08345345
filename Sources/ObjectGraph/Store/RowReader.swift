import Foundation
import SQLiteDB

/// Reads rows of one hierarchy table into snapshots, whatever entity each row belongs to.
final class RowReader {
    let table: String
    /// `t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.<every property column>`.
    let selectList: String
    private struct Layout {
        /// Column index (in the select list) of each attribute slot; -1 for transient ones.
        var attributeColumns: [Int]
        /// Slots of date and floating-point attributes: SQLite hands whole numbers back as
        /// INTEGER, which we turn back into REAL so that in-memory values compare equal.
        var realSlots: [Bool]
        /// Key column, and entity column or fixed destination entity, of each to-one slot.
        var toOneColumns: [(key: Int, entityColumn: Int?, destination: Int)]
        var attributeCount: Int
    }
    private var layouts: [Int: Layout] = [:]
    /// The layout of the previous row's entity: rows of one table are mostly of one entity.
    private var lastLayout: (entity: Int, layout: Layout)?

    init(model: ObjectModel, table: String) {
        self.table = table
        let columns = model.columns(ofTable: table).map(\.name)
        selectList = (["Z_PK", "Z_ENT", "Z_OPT"] + columns).map { "t0." + $0 }.joined(separator: ", ")
        var index: [String: Int] = [:]
        for (position, column) in columns.enumerated() { index[column] = position + 3 }
        for entity in model.entities where entity.table == table {
            let attributeColumns = entity.attributes.map { attribute in attribute.column.flatMap { index[$0] } ?? -1 }
            var toOne: [(Int, Int?, Int)] = Array(repeating: (-1, nil, 0), count: entity.toOneCount)
            for relationship in entity.relationships where !relationship.isToMany {
                guard case .foreignKey(let column, let entityColumn) = relationship.storage else { continue }
                toOne[relationship.slot] = (index[column] ?? -1, entityColumn.flatMap { index[$0] }, relationship.destination)
            }
            let realSlots = entity.attributes.map { [.date, .double, .float].contains($0.type) }
            layouts[entity.number] = Layout(attributeColumns: attributeColumns, realSlots: realSlots, toOneColumns: toOne,
                                            attributeCount: entity.attributes.count)
        }
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
        var values = [SQLiteValue]()
        values.reserveCapacity(layout.attributeCount)
        for (slot, column) in layout.attributeColumns.enumerated() {
            guard column >= 0 else {
                values.append(.null)
                continue
            }
            let value = statement.value(at: column + offset)
            if layout.realSlots[slot], case .integer(let integer) = value {
                values.append(.real(Double(integer)))
            } else {
                values.append(value)
            }
        }
        var toOne = [ObjectID?]()
        toOne.reserveCapacity(layout.toOneColumns.count)
        for (key, entityColumn, destination) in layout.toOneColumns {
            if key < 0 || statement.isNull(at: key + offset) {
                toOne.append(nil)
            } else {
                let target = entityColumn.map { statement.int(at: $0 + offset) } ?? destination
                toOne.append(ObjectID(entityNumber: target, primaryKey: statement.int64(at: key + offset)))
            }
        }
        return ObjectSnapshot(id: ObjectID(entityNumber: entityNumber, primaryKey: statement.int64(at: offset)),
                              version: statement.int64(at: offset + 2), values: values, toOne: toOne)
    }
}
