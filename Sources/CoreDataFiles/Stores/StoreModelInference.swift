import Foundation
import ObjectGraph
import SQLiteDB

/// A model inferred from a Core Data store's tables, with where each property came from and
/// whether our layout rules regenerate the store's schema exactly.
///
/// ```swift
/// let inferred = try StoreModelInference.infer(fromStoreAt: storeURL)
/// let coordinator = try StoreCoordinator(readingStoreAt: storeURL, inferred: inferred)
/// ```
public struct InferredStoreModel: Sendable {
    /// The model inferred from the store's tables, to open the store with.
    public let model: ObjectModel
    /// Every property column of every hierarchy table, and what it became.
    public let columns: [InferredColumn]
    /// Every many-to-many join table, and the relationship pair it became.
    public let joinTables: [InferredJoinTable]
    /// Core Data's own entities the store keeps rows of (persistent history, CloudKit
    /// mirroring), outside the model: read from their tables column by column.
    public let coreDataEntities: [CoreDataEntityTable]
    /// What the model leaves out, one line each (`table ACHANGE`, `entity CHANGE (16001)`).
    public let ignored: [String]
    /// The SQL a migration to this model would run on the store (or why it could not): empty
    /// when our layout rules regenerate the store's tables, columns and indexes exactly.
    public let schemaDifferences: [String]

    /// True when the store opens with this model without any migration.
    public var matchesStoreExactly: Bool { schemaDifferences.isEmpty }

    /// The column that holds `property` of `entity` (or of one of its ancestors).
    public func column(entity: String, property: String) -> InferredColumn? {
        var current: Entity? = model.entity(named: entity)
        while let candidate = current {
            if let column = columns.first(where: { $0.entity == candidate.name && $0.property == property && $0.role != .entityColumn }) {
                return column
            }
            current = candidate.parent.flatMap { model.entity(number: $0) }
        }
        return nil
    }
}

/// One column of a hierarchy table and the property it became.
public struct InferredColumn: Sendable, Equatable {
    package enum Role: Sendable, Equatable {
        case attribute(AttributeType)
        /// A to-one relationship's key column.
        case toOne(destination: String, evidence: ToOneEvidence)
        /// `Z<n>_<NAME>`: the `Z_ENT` of the to-one `property`'s target.
        case entityColumn
    }

    /// The hierarchy table holding the column.
    public let table: String
    /// The column's name.
    public let column: String
    /// The entity that declares the property.
    public let entity: String
    /// The property's name, inferred from the column's.
    public let property: String
    package let role: Role
}

/// Why an `INTEGER` column was taken for a to-one relationship.
package enum ToOneEvidence: String, Sendable, Equatable {
    /// A companion `Z<n>_<NAME>` column exists: the destination is entity `n`.
    case entityColumn
    /// The column's name names the destination, and the stored keys agree.
    case name
    /// The stored keys are all keys of one entity's rows, and of no other's.
    case data
    /// The model record that stores this framework wrote keep in their metadata.
    case modelRecord
    /// Its place among the table's columns, after a to-one of the same entity (Core Data puts
    /// each entity's attributes first), and its values, all keys of one entity of its own table.
    case columnOrder
}

/// A join table `Z_<n><NAME>` and the pair of to-many relationships it holds.
public struct InferredJoinTable: Sendable, Equatable {
    /// The join table's name.
    public let table: String
    /// Entity `n`, which declares `relationship`; its keys are in `sourceColumn`.
    public let entity: String
    package let relationship: String
    package let sourceColumn: String
    /// The other side, which declares `inverse`; its keys are in `destinationColumn`.
    public let destination: String
    /// The relationship of `destination` whose inverse is `relationship`.
    public let inverse: String
    package let destinationColumn: String
    /// `Z_FOK_…` of the source's keys: `inverse` is ordered, in this column's order.
    let sourceOrderColumn: String?
    /// `Z_FOK_…` of the destination's keys: `relationship` is ordered, in this column's order.
    let destinationOrderColumn: String?

    /// True for a relationship that is its own inverse (`REFLEXIVE` column).
    package var isReflexive: Bool { destinationColumn == ObjectModel.JoinTable.reflexiveColumn }
}

/// Infers a model from a Core Data store alone, for when no model file is at hand.
///
/// Entities, numbers and inheritance come from `Z_PRIMARYKEY`; properties from the columns of
/// each root entity's table; to-one relationships from indexed `INTEGER` columns (see
/// `ToOneEvidence`); many-to-many relationships from `Z_<n><NAME>` join tables; names and types
/// from the model record of stores this framework wrote. The rules in full are in the README,
/// "A model from a store alone".
///
/// ```swift
/// let model = try ObjectModel.inferred(fromStoreAt: storeURL)
/// ```
public enum StoreModelInference {
    /// Infers the model of the store at `url`, which is opened read-only.
    ///
    /// - Throws: `StoreError` when the file is not a Core Data store or its bookkeeping is
    ///   inconsistent, `SQLiteError` when it cannot be read.
    package static func infer(fromStoreAt url: URL) throws -> InferredStoreModel {
        let connection = try Connection(path: url.path, configuration: .init(
            readOnly: true, create: false, journalMode: nil, synchronous: nil))
        return try infer(from: connection)
    }

    /// Infers the model of the store open on `connection`; reads only.
    package static func infer(from connection: Connection) throws -> InferredStoreModel {
        var inference = try Inference(connection: connection)
        return try inference.run()
    }
}

extension ObjectModel {
    /// The model of a Core Data store inferred from its tables (see `StoreModelInference`).
    ///
    /// ```swift
    /// let model = try ObjectModel.inferred(fromStoreAt: URL(fileURLWithPath: "Test.moneywell/StoreContent/persistentStore"))
    /// ```
    /// - Throws: `StoreError` when the file is not a Core Data store.
    public static func inferred(fromStoreAt url: URL) throws -> ObjectModel {
        try StoreModelInference.infer(fromStoreAt: url).model
    }
}

/// The work of one inference.
struct Inference {
    let connection: Connection
    let catalog: StoreCatalog
    /// The entities the model holds: `Z_PRIMARYKEY` rows numbered 1, 2, 3… without a gap.
    let entries: [StoreCatalog.Entry]
    let naming: PropertyNaming
    /// Names the store's schema spells (constraints, indexes, triggers).
    let evidence: StoreNameEvidence
    /// The model record of a store this framework wrote; nil for Apple-made stores.
    let record: ModelRecord?
    var ignored: [String] = []

    struct Property {
        var name: String
        var column: String
        var role: InferredColumn.Role
        var entityColumn: String?
        var isIndexed: Bool
        /// The name with the column's clash number, for when the name without it is taken.
        var fallbackName: String?
    }

    init(connection: Connection) throws {
        self.connection = connection
        catalog = try StoreCatalog(connection: connection)
        var entries: [StoreCatalog.Entry] = []
        var skipped: [String] = []
        for entry in catalog.entries {
            if entry.number == entries.count + 1 && skipped.isEmpty {
                entries.append(entry)
            } else {
                skipped.append("entity \(entry.name) (\(entry.number)): numbered outside Core Data's sequence 1...n")
            }
        }
        self.entries = entries
        ignored = skipped
        evidence = try StoreNameEvidence(connection: connection, catalog: catalog, entityNames: catalog.entries.map(\.name))
        // Property names often hold other properties' names (amount, saleAmount): every column
        // name of the store is a word for spelling the others.
        let columnWords = catalog.tables.values.flatMap { $0.map(\.name) }
            .filter { $0.hasPrefix("Z") && !$0.hasPrefix("Z_") && $0.count > 4 }.map { String($0.dropFirst()).withoutTrailingDigits }
        naming = PropertyNaming(entityNames: entries.map(\.name), extraWords: evidence.words, columnWords: columnWords)
        record = try Self.readRecord(connection)
        try checkEntries()
    }

    // MARK: Entities

    func entry(_ number: Int) -> StoreCatalog.Entry? {
        number >= 1 && number <= entries.count ? entries[number - 1] : nil
    }

    /// Root first, ending with `number`.
    func chain(_ number: Int) -> [Int] {
        var chain = [number]
        while let parent = entry(chain[0])?.parent, parent != 0, !chain.contains(parent) { chain.insert(parent, at: 0) }
        return chain
    }

    /// Entities without subentities: the only destinations a to-one without an entity column can have.
    func isLeaf(_ number: Int) -> Bool { !entries.contains { $0.parent == number } }

    private func checkEntries() throws {
        var names: Set<String> = []
        for entry in entries {
            guard !entry.name.isEmpty, names.insert(entry.name).inserted else {
                throw StoreError("Z_PRIMARYKEY names entity \(entry.number) '\(entry.name)', which is empty or taken")
            }
            guard entry.parent == 0 || self.entry(entry.parent) != nil else {
                throw StoreError("Z_PRIMARYKEY gives entity \(entry.name) the parent \(entry.parent), which is not an entity")
            }
            var seen: Set<Int> = [entry.number]
            var current = entry.parent
            while current != 0 {
                guard seen.insert(current).inserted else {
                    throw StoreError("Z_PRIMARYKEY makes entity \(entry.name) inherit from itself")
                }
                current = self.entry(current)?.parent ?? 0
            }
        }
    }

    /// The deepest entity whose hierarchy holds every entity of `numbers`; nil for none.
    func commonAncestor(of numbers: Set<Int>) -> Int? {
        guard let first = numbers.first else { return nil }
        var common = chain(first)
        for number in numbers {
            let other = chain(number)
            common = Array(zip(common, other).prefix { $0 == $1 }.map(\.0))
        }
        return common.last
    }

    // MARK: Running

    mutating func run() throws -> InferredStoreModel {
        var descriptions = entries.map { entry in
            EntityDescription(name: entry.name, parent: entry.parent == 0 ? nil : self.entry(entry.parent)?.name)
        }
        var columns: [InferredColumn] = []
        var propertyNames: [Int: Set<String>] = [:]
        var tables: Set<String> = []
        for root in entries where root.parent == 0 {
            let table = StoreCatalog.tableName(ofRoot: root.name)
            tables.insert(table)
            let properties = try inferProperties(ofTable: table, root: root.number)
            var taken: [Int: Set<String>] = [:]
            for (owner, var property) in properties {
                let ownerName = entries[owner - 1].name
                let family = entries.map(\.number).filter { chain($0).contains(owner) || chain(owner).contains($0) }
                if let fallback = property.fallbackName, family.contains(where: { taken[$0, default: []].contains(property.name) }) {
                    property.name = fallback
                }
                taken[owner, default: []].insert(property.name)
                switch property.role {
                case .attribute(let type):
                    descriptions[owner - 1].attributes.append(AttributeDescription(name: property.name, type: type, isIndexed: property.isIndexed))
                case .toOne(let destination, _):
                    descriptions[owner - 1].relationships.append(RelationshipDescription(name: property.name, destination: destination, inverse: nil))
                case .entityColumn:
                    continue
                }
                columns.append(InferredColumn(table: table, column: property.column, entity: ownerName, property: property.name, role: property.role))
                if let entityColumn = property.entityColumn {
                    columns.append(InferredColumn(table: table, column: entityColumn, entity: ownerName, property: property.name, role: .entityColumn))
                }
                for number in entries.map(\.number) where chain(number).first == root.number {
                    propertyNames[number, default: []].insert(property.name)
                }
            }
        }
        let joinTables = inferJoinTables(propertyNames: propertyNames)
        for join in joinTables {
            guard let source = entries.first(where: { $0.name == join.entity }),
                  let destination = entries.first(where: { $0.name == join.destination }) else { continue }
            var relationship = RelationshipDescription(name: join.relationship, destination: join.destination, inverse: join.inverse,
                                                       isToMany: true, isOrdered: join.destinationOrderColumn != nil)
            relationship.storedJoinTable = .init(name: join.table, sourceColumn: join.sourceColumn, destinationColumn: join.destinationColumn)
            descriptions[source.number - 1].relationships.append(relationship)
            if !join.isReflexive {
                descriptions[destination.number - 1].relationships.append(RelationshipDescription(
                    name: join.inverse, destination: join.entity, inverse: join.relationship, isToMany: true,
                    isOrdered: join.sourceOrderColumn != nil))
            }
            tables.insert(join.table)
        }
        addUniquenessConstraints(to: &descriptions, columns: &columns)
        addRecordedToManys(to: &descriptions)
        let coreDataEntities = inferCoreDataEntities()
        tables.formUnion(coreDataEntities.map(\.table))
        ignored.removeAll { line in coreDataEntities.contains { line.hasPrefix("entity \($0.name) (\($0.number)):") } }
        for table in catalog.tables.keys.sorted() where !tables.contains(table)
            && !["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"].contains(table) && !table.hasPrefix("sqlite_") {
            ignored.append("table \(table)")
        }
        let model: ObjectModel
        do {
            model = try ObjectModel(entities: descriptions)
        } catch let error as ModelError {
            throw StoreError("cannot infer a model from the store: \(error.message)")
        }
        for entry in entries where model.entity(named: entry.name)?.number != entry.number {
            throw StoreError("the store numbers entity \(entry.name) \(entry.number), but Core Data's rule numbers it "
                + "\(model.entity(named: entry.name)?.number ?? 0): the store cannot be read by entity number")
        }
        return InferredStoreModel(model: model, columns: columns, joinTables: joinTables, coreDataEntities: coreDataEntities, ignored: ignored,
                                  schemaDifferences: try schemaDifferences(for: model))
    }

    /// What the migration planner would do to the store for `model`; empty when nothing.
    /// A migration the planner refuses is a difference, named by its error; a store that cannot
    /// be read is an error, never a difference.
    private func schemaDifferences(for model: ObjectModel) throws -> [String] {
        do {
            return try StoreMigrationPlan.sql(on: connection, model: model)
        } catch let error as MigrationError {
            return ["\(error)"]
        }
    }

    // MARK: Columns

    /// Each property column of a hierarchy table, with the entity that declares it.
    private mutating func inferProperties(ofTable table: String, root: Int) throws -> [(owner: Int, property: Property)] {
        guard let columns = catalog.tables[table] else {
            throw StoreError("the store has no table \(table) for entity \(entries[root - 1].name)")
        }
        let names = Set(columns.map(\.name))
        guard names.isSuperset(of: ["Z_PK", "Z_ENT", "Z_OPT"]) else {
            throw StoreError("table \(table) lacks Core Data's Z_PK, Z_ENT and Z_OPT columns")
        }
        let hierarchy = Set(entries.map(\.number).filter { chain($0).first == root })
        let propertyColumns = columns.filter { !["Z_PK", "Z_ENT", "Z_OPT"].contains($0.name) }
        let presence = try entitiesWithValues(in: table, columns: propertyColumns.map(\.name), hierarchy: hierarchy)
        let flags = try flagColumns(in: table, columns: propertyColumns.filter { $0.type == "INTEGER" }.map(\.name))
        // `Z<n>_<NAME>` next to `Z<NAME>`: the entity column of a to-one.
        var entityColumns: [String: (column: String, destination: Int)] = [:]
        for column in propertyColumns {
            guard let (number, rest) = Self.entityColumnParts(column.name), names.contains("Z" + rest) else { continue }
            entityColumns["Z" + rest] = (column.name, number)
        }
        let companions = Set(entityColumns.values.map(\.column))
        var result: [(Int, Property)] = []
        var ordered: [OrderedColumn] = []
        for column in propertyColumns where !companions.contains(column.name) {
            guard column.name.count > 1, column.name.hasPrefix("Z"), !column.name.hasPrefix("Z_") else {
                if column.name.hasPrefix("Z_FOK_") {
                    // The order of an ordered to-many whose name the store does not keep: the inverse of this to-one.
                    ignored.append("column \(table).\(column.name): the order of the ordered to-many inverse to Z\(column.name.dropFirst(6)), which the store does not name")
                } else {
                    ignored.append("column \(table).\(column.name): not a Core Data property column")
                }
                continue
            }
            let base = String(column.name.dropFirst())
            let hint: PropertyNaming.Hint = flags.contains(column.name) ? .boolean : column.type == "TIMESTAMP" ? .timestamp : .none
            // Core Data numbers a column whose name another entity of the table took (ZACCOUNT1):
            // the property is named without the number, unless that clashes (see `run`).
            let clashFreeBase = base.withoutTrailingDigits
            let numbered = clashFreeBase != base && names.contains("Z" + clashFreeBase)
            let exact = evidence.exactNames[table]?[column.name]
            let name = exact ?? naming.propertyName(forColumnBase: numbered ? clashFreeBase : base, hint: hint)
            let isIndexed = catalog.hasColumnIndex(table: table, column: column.name)
            var owners = presence[column.name] ?? []
            var property = Property(name: name, column: column.name, role: .attribute(Self.attributeType(forColumnType: column.type)),
                                    entityColumn: nil, isIndexed: false)
            if numbered && exact == nil { property.fallbackName = naming.propertyName(forColumnBase: base, hint: hint) }
            if column.type == "INTEGER", let companion = entityColumns[column.name], entry(companion.destination) != nil {
                property.role = .toOne(destination: entries[companion.destination - 1].name, evidence: .entityColumn)
                property.entityColumn = companion.column
                owners.formUnion(presence[companion.column] ?? [])
            } else if column.type == "INTEGER", isIndexed,
                      let (destination, evidence) = try toOneDestination(table: table, column: column.name, base: base) {
                property.role = .toOne(destination: entries[destination - 1].name, evidence: evidence)
            } else {
                property.isIndexed = isIndexed
            }
            var isRecorded = false
            if let recorded = applyRecord(to: property, columnType: column.type, hierarchy: hierarchy, companion: entityColumns[column.name]?.column) {
                property = recorded.property
                owners = [recorded.owner]
                isRecorded = true
            }
            if let companion = entityColumns[column.name], property.entityColumn == nil {
                ignored.append("column \(table).\(companion.column): names no entity")
            }
            let owner = commonAncestor(of: owners) ?? root
            result.append((owner, property))
            // The data bounds the declaring entity from below (an ancestor of every row with a
            // value); the column's place in the table narrows it down.
            let clashFree = base.withoutTrailingDigits
            let sortName = names.contains("Z" + clashFree) && clashFree != base ? clashFree : base
            let candidates = isRecorded ? [owner] : owners.isEmpty ? hierarchy.sorted() : chain(owner)
            ordered.append(OrderedColumn(group: Self.columnGroup(of: property.role), isRelationship: property.role.isToOne,
                                         name: sortName, candidates: candidates, preferred: owner))
        }
        // Each entity's attributes come before its relationships: an indexed integer "attribute"
        // that only entities up to an earlier to-one's could declare is a to-one itself.
        for index in ordered.indices where ordered[index].group == 0 && !ordered[index].isRelationship
            && ordered[index].candidates.count >= 1 && catalog.hasColumnIndex(table: table, column: result[index].1.column) {
            let latest = ordered[index].candidates.max() ?? 0
            let follows = ordered[..<index].contains { $0.group == 0 && $0.isRelationship && ($0.candidates.min() ?? 0) >= latest }
            guard follows, let destination = try selfReferenceDestination(table: table, column: result[index].1.column, hierarchy: hierarchy) else { continue }
            ordered[index].isRelationship = true
            result[index].1.role = .toOne(destination: entries[destination - 1].name, evidence: .columnOrder)
            result[index].1.isIndexed = false
        }
        if let owners = Self.ownersInColumnOrder(ordered) {
            for index in result.indices { result[index].0 = owners[index] }
        }
        return result
    }

    /// The integer columns that hold values, all 0 or 1 — Booleans, most likely — and the empty
    /// ones named as flags are; in one query.
    private func flagColumns(in table: String, columns: [String]) throws -> Set<String> {
        guard !columns.isEmpty else { return [] }
        let tests = columns.map { "count(\(quoteIdentifier($0))), count(CASE WHEN \(quoteIdentifier($0)) NOT IN (0, 1) THEN 1 END)" }
        let statement = try connection.prepare("SELECT " + tests.joined(separator: ", ") + " FROM \(quoteIdentifier(table))")
        guard try statement.step() else { return [] }
        // A column without values may be a flag too, but only its name can say so (IS…, HAS…).
        return Set(columns.enumerated().filter { offset, column in
            statement.int(at: 2 * offset + 1) == 0
                && (statement.int(at: 2 * offset) > 0 || ["ZIS", "ZHAS"].contains { column.hasPrefix($0) })
        }.map(\.element))
    }

    /// For each column, the entities whose rows hold a value in it; in one query per table.
    private mutating func entitiesWithValues(in table: String, columns: [String], hierarchy: Set<Int>) throws -> [String: Set<Int>] {
        let counts = columns.map { "count(\(quoteIdentifier($0)))" }
        let sql = "SELECT Z_ENT, count(*)" + counts.map { ", " + $0 }.joined() + " FROM \(quoteIdentifier(table)) GROUP BY Z_ENT"
        var presence: [String: Set<Int>] = [:]
        let statement = try connection.prepare(sql)
        try statement.forEachRow { row in
            let entity = row.int(at: 0)
            guard hierarchy.contains(entity) else {
                ignored.append("\(row.int(at: 1)) rows of \(table) with Z_ENT \(entity), which is not an entity of that table")
                return
            }
            for (offset, column) in columns.enumerated() where row.int(at: offset + 2) > 0 {
                presence[column, default: []].insert(entity)
            }
        }
        return presence
    }

    /// `Z12_PARENT` → (12, "PARENT").
    static func entityColumnParts(_ name: String) -> (Int, String)? {
        guard name.hasPrefix("Z") else { return nil }
        let afterZ = name.dropFirst()
        let digits = afterZ.prefix { $0.isASCII && $0.isNumber }
        let rest = afterZ.dropFirst(digits.count)
        guard !digits.isEmpty, rest.hasPrefix("_"), rest.count > 1, let number = Int(digits) else { return nil }
        return (number, String(rest.dropFirst()))
    }

    /// Core Data's column types, then SQLite's affinity rules for anything else.
    static func attributeType(forColumnType type: String) -> AttributeType {
        switch type {
        case "INTEGER": return .integer64
        case "FLOAT": return .double
        case "TIMESTAMP": return .date
        case "DECIMAL": return .decimal
        case "VARCHAR": return .string
        case "BLOB": return .binary
        default:
            if type.contains("INT") { return .integer64 }
            if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") { return .string }
            if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") { return .double }
            if type.contains("DATE") || type.contains("TIME") { return .date }
            if type.contains("DEC") || type.contains("NUM") { return .decimal }
            return .binary
        }
    }

    // MARK: Constraints

    /// Unique indexes `Z_<ENTITY>_UNIQUE_…` become uniqueness constraints of that entity, whose
    /// attributes must then be visible to it: each moves up to the nearest common ancestor.
    private func addUniquenessConstraints(to descriptions: inout [EntityDescription], columns: inout [InferredColumn]) {
        for index in catalog.indexes.values.sorted(by: { $0.name < $1.name }) where index.isUnique {
            // Core Data spells the entity as the model does (`Z_Car_UNIQUE_…`); stores this
            // framework wrote before spelled it in capitals.
            let owners = entries.filter { entry in
                [entry.name, entry.name.uppercased()].contains { index.name.hasPrefix("Z_\($0)_UNIQUE_") }
                    && chain(entry.number).first.map { StoreCatalog.tableName(ofRoot: entries[$0 - 1].name) } == index.table
            }
            guard let owner = owners.max(by: { $0.name.count < $1.name.count }) else { continue }
            let properties = index.columns.compactMap { column in
                columns.first { $0.table == index.table && $0.column == column }
            }
            guard properties.count == index.columns.count, properties.allSatisfy({ if case .attribute = $0.role { true } else { false } }) else { continue }
            for property in properties {
                guard let declaring = entries.first(where: { $0.name == property.entity }),
                      !chain(owner.number).contains(declaring.number),
                      let common = commonAncestor(of: [declaring.number, owner.number]),
                      let position = descriptions[declaring.number - 1].attributes.firstIndex(where: { $0.name == property.property })
                else { continue }
                let attribute = descriptions[declaring.number - 1].attributes.remove(at: position)
                descriptions[common - 1].attributes.append(attribute)
                if let moved = columns.firstIndex(of: property) {
                    columns[moved] = InferredColumn(table: property.table, column: property.column, entity: entries[common - 1].name,
                                                    property: property.property, role: property.role)
                }
            }
            descriptions[owner.number - 1].uniquenessConstraints.append(properties.map(\.property))
        }
    }
}
