import Foundation
import ObjectGraph
import SQLiteDB

/// The order Core Data keeps for ordered to-many relationships, read from the store: a join
/// table's `Z_FOK_<destination column>` for a many-to-many, the destination table's
/// `Z_FOK_<inverse>` for a one-to-many. `docstore dump` lists ordered members in that order.
///
/// ```swift
/// let order = try StoredOrder(coordinator: coordinator)
/// order.sorted(members, of: relationship, source: album.objectID)   // by Z_FOK_34ASSETS
/// ```
struct StoredOrder {
    private struct Pair: Hashable {
        let source: Int64
        let member: Int64
    }

    /// Keyed by `<declaring entity number>.<relationship name>`.
    private var positions: [String: [Pair: Int64]] = [:]

    init(coordinator: StoreCoordinator) throws {
        let model = coordinator.model
        var queries: [(key: String, sql: String)] = []
        let columnsByTable = try coordinator.withConnection { connection in
            try Self.tablesWithOrderColumns(connection)
        }
        for entity in model.entities {
            for relationship in entity.relationships
            where relationship.declaringEntity == entity.number && relationship.isToMany && relationship.declaration.isOrdered {
                let key = "\(entity.number).\(relationship.name)"
                switch relationship.storage {
                case .joinTable(let table, let sourceColumn, let destinationColumn):
                    let order = "Z_FOK_" + destinationColumn.dropFirst(2)
                    guard columnsByTable[table]?.contains(order) == true else { continue }
                    queries.append((key, "SELECT \(quoteIdentifier(sourceColumn)), \(quoteIdentifier(destinationColumn)), \(quoteIdentifier(order))"
                        + " FROM \(quoteIdentifier(table)) WHERE \(quoteIdentifier(order)) IS NOT NULL"))
                case .inverseForeignKey:
                    let destination = model.entities[relationship.destination - 1]
                    guard let inverseIndex = relationship.inverseIndex,
                          case .foreignKey(let column, _) = destination.relationships[inverseIndex].storage else { continue }
                    let order = "Z_FOK_" + column.dropFirst()
                    guard columnsByTable[destination.table]?.contains(order) == true else { continue }
                    queries.append((key, "SELECT \(quoteIdentifier(column)), Z_PK, \(quoteIdentifier(order))"
                        + " FROM \(quoteIdentifier(destination.table)) WHERE \(quoteIdentifier(order)) IS NOT NULL"))
                case .foreignKey:
                    continue
                }
            }
        }
        for (key, sql) in queries {
            let rows = try coordinator.withConnection { connection in
                try connection.rows(sql) { [$0.int64(at: 0), $0.int64(at: 1), $0.int64(at: 2)] }
            }
            positions[key] = Dictionary(rows.map { (Pair(source: $0[0], member: $0[1]), $0[2]) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// Every table's `Z_FOK_…` columns.
    private static func tablesWithOrderColumns(_ connection: Connection) throws -> [String: Set<String>] {
        let tables = try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'") {
            $0.string(at: 0) ?? ""
        }
        var result: [String: Set<String>] = [:]
        for table in tables {
            let columns = try connection.rows("SELECT name FROM pragma_table_info(?) WHERE name LIKE 'Z\\_FOK\\_%' ESCAPE '\\'",
                                              [.text(table)]) { $0.string(at: 0) ?? "" }
            if !columns.isEmpty { result[table] = Set(columns) }
        }
        return result
    }

    /// `members` in the stored order of `relationship` from `source` (members without a
    /// position last, in key order); unchanged for a relationship without a stored order.
    func sorted(_ members: [ObjectID], of relationship: EntityRelationship, source: ObjectID) -> [ObjectID] {
        guard let stored = positions["\(relationship.declaringEntity).\(relationship.name)"] else { return members }
        return members.sorted { left, right in
            let leftPosition = stored[Pair(source: source.primaryKey, member: left.primaryKey)] ?? .max
            let rightPosition = stored[Pair(source: source.primaryKey, member: right.primaryKey)] ?? .max
            return (leftPosition, left.primaryKey) < (rightPosition, right.primaryKey)
        }
    }
}
