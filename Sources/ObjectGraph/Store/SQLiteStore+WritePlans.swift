import Foundation
import SQLiteDB

/// Prepared statements for writing rows, made once per entity (per shape, for updates; per
/// table, for links) and reused for every row of every save. Building the SQL text and hashing
/// it into the connection's statement cache for each row cost more than SQLite's own work.
struct WritePlans {
    /// Where an entity's properties live: attribute columns by slot, to-one columns by slot.
    struct Layout {
        /// Column of each attribute slot; nil for transient attributes.
        let attributeColumns: [String?]
        /// Key column and entity column (when the destination has subentities) of each to-one
        /// slot; nil for a to-one kept elsewhere.
        let toOneColumns: [(column: String, entityColumn: String?)?]

        init(_ entity: Entity) {
            attributeColumns = entity.attributes.map(\.column)
            var toOne: [(column: String, entityColumn: String?)?] = Array(repeating: nil, count: entity.toOneCount)
            for relationship in entity.relationships where !relationship.isToMany {
                if case .foreignKey(let column, let entityColumn) = relationship.storage {
                    toOne[relationship.slot] = (column, entityColumn)
                }
            }
            toOneColumns = toOne
        }
    }

    /// `INSERT INTO <table> (Z_PK, Z_ENT, Z_OPT, <attributes>, <to-ones>) VALUES (?, …)`.
    struct InsertPlan {
        let statement: Statement
        let layout: Layout
        /// Attribute slots bound after Z_PK, Z_ENT and Z_OPT, in column order.
        let attributeSlots: [Int]
        /// To-one slots bound after the attributes; `withEntity` also binds the target's Z_ENT.
        let toOne: [(slot: Int, withEntity: Bool)]
    }

    /// Which columns an update writes: updates of the same shape share one statement.
    struct UpdateShape: Hashable {
        let entity: Int
        /// Whether the statement reads the new `Z_OPT` back (`RETURNING Z_OPT`).
        let returnsVersion: Bool
        let attributeSlots: [Int]
        let toOneSlots: [Int]
    }

    /// `UPDATE … SET Z_OPT = Z_OPT + 1, <columns> = ? WHERE Z_PK = ? [RETURNING Z_OPT]`.
    struct UpdatePlan {
        let statement: Statement
        let toOne: [(slot: Int, withEntity: Bool)]
    }

    /// Insert and delete of one join table's rows (or setting and clearing a hidden key), by
    /// (source, destination) keys.
    struct LinkPlan {
        let insert: Statement
        let delete: Statement
    }

    var inserts: [Int: InsertPlan] = [:]
    var updates: [UpdateShape: UpdatePlan] = [:]
    var links: [String: LinkPlan] = [:]
    /// `INSERT OR IGNORE INTO <join table> … VALUES (?, ?), …` of a number of rows, by table
    /// and number (`SQLiteStore.linkBatchLimit` at most).
    var linkInserts: [LinkBatch: Statement] = [:]
    struct LinkBatch: Hashable {
        let table: String
        let rows: Int
    }
    /// The plan used last: a save writes its links table by table, so this saves the hashing.
    var lastLink: (table: String, plan: LinkPlan)?
    /// `SELECT Z_PK, Z_ENT FROM <table> WHERE <constraint columns> = ?`, by table and columns.
    var uniqueLookups: [[String]: Statement] = [:]
}

extension SQLiteStore {
    func insertPlan(for entity: Entity) throws -> WritePlans.InsertPlan {
        if let plan = writePlans.inserts[entity.number] { return plan }
        let layout = WritePlans.Layout(entity)
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        var attributeSlots: [Int] = []
        for (slot, column) in layout.attributeColumns.enumerated() {
            guard let column else { continue }
            columns.append(column)
            attributeSlots.append(slot)
        }
        var toOne: [(slot: Int, withEntity: Bool)] = []
        for (slot, storage) in layout.toOneColumns.enumerated() {
            guard let storage else { continue }
            columns.append(storage.column)
            if let entityColumn = storage.entityColumn { columns.append(entityColumn) }
            toOne.append((slot, storage.entityColumn != nil))
        }
        let sql = "INSERT INTO \(entity.table) (\(columns.joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        let plan = WritePlans.InsertPlan(statement: try connection.prepare(sql), layout: layout,
                                         attributeSlots: attributeSlots, toOne: toOne)
        writePlans.inserts[entity.number] = plan
        return plan
    }

    func updatePlan(for shape: WritePlans.UpdateShape, layout: WritePlans.Layout, table: String) throws -> WritePlans.UpdatePlan {
        if let plan = writePlans.updates[shape] { return plan }
        var assignments = ["Z_OPT = Z_OPT + 1"]
        for slot in shape.attributeSlots {
            if let column = layout.attributeColumns[slot] { assignments.append("\(column) = ?") }
        }
        var toOne: [(slot: Int, withEntity: Bool)] = []
        for slot in shape.toOneSlots {
            guard let storage = layout.toOneColumns[slot] else { continue }
            assignments.append("\(storage.column) = ?")
            if let entityColumn = storage.entityColumn { assignments.append("\(entityColumn) = ?") }
            toOne.append((slot, storage.entityColumn != nil))
        }
        let sql = "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = ?"
            + (shape.returnsVersion ? " RETURNING Z_OPT" : "")
        let plan = WritePlans.UpdatePlan(statement: try connection.prepare(sql), toOne: toOne)
        writePlans.updates[shape] = plan
        return plan
    }

    func linkPlan(for table: String) throws -> WritePlans.LinkPlan {
        if let last = writePlans.lastLink, last.table == table { return last.plan }
        if let plan = writePlans.links[table] {
            writePlans.lastLink = (table, plan)
            return plan
        }
        let plan: WritePlans.LinkPlan
        if let hidden = model.hiddenKeys.first(where: { $0.linkName == table }) {
            // A to-many without an inverse: the destination row holds the source's key. Taking
            // a member away clears the key only while it still names this source.
            plan = WritePlans.LinkPlan(
                insert: try connection.prepare("UPDATE \(hidden.table) SET \(hidden.column) = ? WHERE Z_PK = ?"),
                delete: try connection.prepare("UPDATE \(hidden.table) SET \(hidden.column) = NULL WHERE \(hidden.column) = ? AND Z_PK = ?"))
        } else {
            let joinTable = model.joinTables.first { $0.name == table }
            let source = joinTable?.sourceColumn ?? "?"
            let destination = joinTable?.destinationColumn ?? "?"
            plan = WritePlans.LinkPlan(
                insert: try connection.prepare("INSERT OR IGNORE INTO \(table) (\(source), \(destination)) VALUES (?, ?)"),
                delete: try connection.prepare("DELETE FROM \(table) WHERE \(source) = ? AND \(destination) = ?"))
        }
        writePlans.links[table] = plan
        return plan
    }

    /// The most links one statement inserts.
    static let linkBatchLimit = 32

    /// A statement inserting `rows` links into join table `table` (nil for a hidden key's
    /// link, which is an update of the destination's row).
    func linkInsert(into table: String, rows: Int) throws -> Statement? {
        let key = WritePlans.LinkBatch(table: table, rows: rows)
        if let statement = writePlans.linkInserts[key] { return statement }
        guard !model.hiddenKeys.contains(where: { $0.linkName == table }),
              let joinTable = model.joinTables.first(where: { $0.name == table }) else { return nil }
        let values = Array(repeating: "(?, ?)", count: rows).joined(separator: ", ")
        let statement = try connection.prepare(
            "INSERT OR IGNORE INTO \(table) (\(joinTable.sourceColumn), \(joinTable.destinationColumn)) VALUES \(values)")
        writePlans.linkInserts[key] = statement
        return statement
    }

    func uniqueLookup(table: String, columns: [String]) throws -> Statement {
        let key = [table] + columns
        if let statement = writePlans.uniqueLookups[key] { return statement }
        let sql = "SELECT Z_PK, Z_ENT FROM \(table) WHERE " + columns.map { "\($0) = ?" }.joined(separator: " AND ")
        let statement = try connection.prepare(sql)
        writePlans.uniqueLookups[key] = statement
        return statement
    }
}
