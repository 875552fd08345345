import Foundation

/// Names tables and columns as Core Data does (checked against Apple-made stores):
///
/// - one table per hierarchy, `Z` + the root entity's name in capitals;
/// - after `Z_PK, Z_ENT, Z_OPT`, columns grouped by kind — integers and to-one keys, then dates
///   and floating point, decimals, strings, URIs, blobs — and within a group by entity number,
///   attributes before relationships, then by name;
/// - a name already used in the table gets a number (`ZACCOUNT1`);
/// - a to-one whose destination has subentities gets `Z<n>_<NAME>` for the target's `Z_ENT`;
/// - a many-to-many gets `Z_<n><NAME>` with `Z_<n><INVERSE>` and `Z_<m><NAME>` columns, named by
///   the side whose entity has subentities, else the side with the lower entity number (Photos'
///   `Z_25ALBUMLISTS` for GenericAlbum.albumLists ↔ AlbumList.albums, MoneyWell's `Z_3TAGS`); join
///   column names are unique across the model, except a relationship that is its own inverse,
///   whose second column is `REFLEXIVE` (Photos' `Z_45MERGECANDIDATES`);
/// - a to-many without an inverse gets a hidden key column in the destination's table,
///   `Z<n><NAME>` (`n` the number of the entity declaring it), after every other integer column
///   of that table (Core Data adds it once all properties have their columns);
/// - a composite attribute gets a column per leaf element, `Z<ELEMENT>`, where the composite
///   itself would sort, elements in the composite's order.
package struct ColumnLayout {
    struct Key: Hashable {
        let entity: Int
        let property: String
        init(_ entity: Int, _ property: String) {
            self.entity = entity
            self.property = property
        }
    }

    private(set) var attributeColumns: [Key: String] = [:]
    private(set) var toOneColumns: [Key: (column: String, entityColumn: String?)] = [:]
    private(set) var joinTables: [ObjectModel.JoinTable] = []
    /// Hidden key columns of to-manys without an inverse, by (declaring entity, relationship).
    private(set) var hiddenKeys: [Key: ObjectModel.HiddenKey] = [:]
    /// Each table's property columns, in Core Data's order.
    private(set) var tableColumns: [String: [ObjectModel.Column]] = [:]
    private var joinTableByKey: [Key: ObjectModel.JoinTable] = [:]
    private let byName: [String: EntityDescription]
    private let chains: [String: [String]]
    private let number: [String: Int]

    package static func tableName(_ rootEntity: String) -> String { "Z" + rootEntity.uppercased() }

    init(order: [String], number: [String: Int], byName: [String: EntityDescription], chains: [String: [String]]) throws {
        self.byName = byName
        self.chains = chains
        self.number = number
        let hasSubentities = Set(byName.values.compactMap(\.parent))
        // Columns, table by table.
        for root in order where byName[root]?.parent == nil {
            enum Kind { case attribute, toOne, hiddenKey }
            struct Item {
                let group: Int, entity: Int, kind: Kind
                /// Where the property sorts among its entity's (a composite's name for its elements).
                let name: String, secondary: String, element: Int
                let columnBase: String, key: Key, entityColumnFor: Int?, sqlType: String
                var rank: Int { kind == .attribute ? 0 : kind == .toOne ? 1 : 2 }
            }
            var items: [Item] = []
            for name in order where chains[name]?.first == root {
                guard let description = byName[name], let entityNumber = number[name] else { continue }
                for attribute in description.attributes where !attribute.isTransient {
                    if attribute.type == .composite {
                        for (position, leaf) in attribute.flattenedElements.enumerated() {
                            let simpleName = String(leaf.name.split(separator: ".").last ?? Substring(leaf.name))
                            items.append(Item(group: leaf.type.columnGroup, entity: entityNumber, kind: .attribute,
                                              name: attribute.name, secondary: attribute.name, element: position,
                                              columnBase: "Z" + simpleName.uppercased(), key: Key(entityNumber, leaf.name),
                                              entityColumnFor: nil, sqlType: leaf.type.sqlType))
                        }
                        continue
                    }
                    items.append(Item(group: attribute.type.columnGroup, entity: entityNumber, kind: .attribute,
                                      name: attribute.name, secondary: attribute.name, element: 0,
                                      columnBase: "Z" + attribute.name.uppercased(), key: Key(entityNumber, attribute.name),
                                      entityColumnFor: nil, sqlType: attribute.type.sqlType))
                }
                for relationship in description.relationships where !relationship.isToMany {
                    let destinationNumber = number[relationship.destination]
                    let needsEntityColumn = hasSubentities.contains(relationship.destination)
                    items.append(Item(group: 0, entity: entityNumber, kind: .toOne, name: relationship.name,
                                      secondary: relationship.name, element: 0,
                                      columnBase: "Z" + relationship.name.uppercased(), key: Key(entityNumber, relationship.name),
                                      entityColumnFor: needsEntityColumn ? destinationNumber : nil, sqlType: "INTEGER"))
                }
            }
            // Hidden keys go last among the integers, ordered by the declaring entity's name and
            // then the relationship's: the order Core Data adds them in, after every property.
            for owner in order {
                guard let description = byName[owner], let ownerNumber = number[owner] else { continue }
                for relationship in description.relationships where relationship.isToMany && relationship.inverse == nil {
                    guard chains[relationship.destination]?.first == root else { continue }
                    items.append(Item(group: 0, entity: Int.max, kind: .hiddenKey, name: owner.lowercased(),
                                      secondary: owner + "." + relationship.name, element: 0,
                                      columnBase: "Z\(ownerNumber)" + relationship.name.uppercased(),
                                      key: Key(ownerNumber, relationship.name), entityColumnFor: nil, sqlType: "INTEGER"))
                }
            }
            items.sort {
                ($0.group, $0.entity, $0.rank, $0.name.uppercased(), $0.secondary, $0.element)
                    < ($1.group, $1.entity, $1.rank, $1.name.uppercased(), $1.secondary, $1.element)
            }
            var used: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
            func claim(_ base: String) -> String {
                var candidate = base
                var suffix = 1
                while used.contains(candidate) {
                    candidate = base + String(suffix)
                    suffix += 1
                }
                used.insert(candidate)
                return candidate
            }
            let table = ColumnLayout.tableName(root)
            for item in items {
                let column = claim(item.columnBase)
                tableColumns[table, default: []].append(ObjectModel.Column(name: column, type: item.sqlType))
                switch item.kind {
                case .toOne:
                    let entityColumn = item.entityColumnFor.map { claim("Z\($0)_" + item.name.uppercased()) }
                    if let entityColumn {
                        tableColumns[table, default: []].append(ObjectModel.Column(name: entityColumn, type: "INTEGER"))
                    }
                    toOneColumns[item.key] = (column, entityColumn)
                case .attribute:
                    attributeColumns[item.key] = column
                case .hiddenKey:
                    hiddenKeys[item.key] = ObjectModel.HiddenKey(
                        table: table, column: column, sourceEntity: item.key.entity, relationship: item.key.property)
                }
            }
        }
        // Join tables, in owning entity order, then relationship name.
        var usedJoinColumns: Set<String> = []
        func claimJoinColumn(_ base: String) -> String {
            var candidate = base
            var suffix = 1
            while usedJoinColumns.contains(candidate) {
                candidate = base + String(suffix)
                suffix += 1
            }
            usedJoinColumns.insert(candidate)
            return candidate
        }
        // Join tables a store already has, as it names them.
        for name in order {
            guard let description = byName[name], let ownNumber = number[name] else { continue }
            for relationship in description.relationships where relationship.isToMany {
                guard let layout = relationship.storedJoinTable, let inverseName = relationship.inverse,
                      let inverse = ColumnLayout.declaredRelationship(inverseName, from: relationship.destination, byName: byName, chains: chains),
                      let otherNumber = number[inverse.declaringEntity], joinTableByKey[Key(ownNumber, relationship.name)] == nil else { continue }
                let table = ObjectModel.JoinTable(name: layout.name, sourceColumn: layout.sourceColumn,
                                                  destinationColumn: layout.destinationColumn, sourceEntity: ownNumber,
                                                  relationship: relationship.name)
                usedJoinColumns.formUnion([layout.sourceColumn, layout.destinationColumn])
                joinTables.append(table)
                joinTableByKey[Key(ownNumber, relationship.name)] = table
                guard !(ownNumber == otherNumber && relationship.name == inverseName) else { continue }
                joinTableByKey[Key(otherNumber, inverseName)] = ObjectModel.JoinTable(
                    name: table.name, sourceColumn: table.destinationColumn, destinationColumn: table.sourceColumn,
                    sourceEntity: otherNumber, relationship: inverseName)
            }
        }
        for name in order {
            guard let description = byName[name], let ownNumber = number[name] else { continue }
            for relationship in description.relationships.sorted(by: { $0.name < $1.name }) where relationship.isToMany {
                guard joinTableByKey[Key(ownNumber, relationship.name)] == nil else { continue }
                guard let inverseName = relationship.inverse,
                      let inverse = ColumnLayout.declaredRelationship(inverseName, from: relationship.destination, byName: byName, chains: chains),
                      inverse.relationship.isToMany,
                      let otherNumber = number[inverse.declaringEntity] else { continue }
                let ownRank = (hasSubentities.contains(name) ? 0 : 1, ownNumber)
                let otherRank = (hasSubentities.contains(inverse.declaringEntity) ? 0 : 1, otherNumber)
                let isOwner = ownRank < otherRank || (ownNumber == otherNumber && relationship.name <= inverseName)
                guard isOwner else { continue }
                let isReflexive = ownNumber == otherNumber && relationship.name == inverseName
                let table = ObjectModel.JoinTable(
                    name: "Z_\(ownNumber)" + relationship.name.uppercased(),
                    sourceColumn: claimJoinColumn("Z_\(ownNumber)" + inverseName.uppercased()),
                    destinationColumn: isReflexive ? ObjectModel.JoinTable.reflexiveColumn
                        : claimJoinColumn("Z_\(otherNumber)" + relationship.name.uppercased()),
                    sourceEntity: ownNumber, relationship: relationship.name)
                joinTables.append(table)
                joinTableByKey[Key(ownNumber, relationship.name)] = table
                if isReflexive { continue }
                joinTableByKey[Key(otherNumber, inverseName)] = ObjectModel.JoinTable(
                    name: table.name, sourceColumn: table.destinationColumn, destinationColumn: table.sourceColumn,
                    sourceEntity: otherNumber, relationship: inverseName)
            }
        }
    }

    /// The relationship named `name` as declared by `entity` or one of its ancestors.
    static func declaredRelationship(_ name: String, from entity: String, byName: [String: EntityDescription],
                                     chains: [String: [String]]) -> (relationship: RelationshipDescription, declaringEntity: String)? {
        for ancestor in (chains[entity] ?? [entity]).reversed() {
            if let relationship = byName[ancestor]?.relationships.first(where: { $0.name == name }) {
                return (relationship, ancestor)
            }
        }
        return nil
    }

    func storage(for relationship: RelationshipDescription, declaredBy declaring: Int, entity: String) throws -> RelationshipStorage {
        let key = Key(declaring, relationship.name)
        if !relationship.isToMany {
            guard let columns = toOneColumns[key] else {
                throw ModelError("relationship \(entity).\(relationship.name) has no column")
            }
            return .foreignKey(column: columns.column, entityColumn: columns.entityColumn)
        }
        if let table = joinTableByKey[key] {
            return .joinTable(table: table.name, sourceColumn: table.sourceColumn, destinationColumn: table.destinationColumn)
        }
        if let hidden = hiddenKeys[key] {
            return .inverseForeignKey(column: hidden.column, isHidden: true)
        }
        guard let inverseName = relationship.inverse,
              let inverse = ColumnLayout.declaredRelationship(inverseName, from: relationship.destination, byName: byName, chains: chains),
              let declaring = number[inverse.declaringEntity],
              let columns = toOneColumns[Key(declaring, inverseName)] else {
            throw ModelError("to-many relationship \(entity).\(relationship.name) has no inverse to-one to keep it")
        }
        return .inverseForeignKey(column: columns.column)
    }
}
