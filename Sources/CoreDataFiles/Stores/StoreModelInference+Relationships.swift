import Foundation
import ObjectGraph
import SQLiteDB

extension Inference {
    // MARK: To-one relationships

    /// The destination of an indexed `INTEGER` column that has no entity column, or nil when
    /// it reads as a plain integer attribute.
    ///
    /// Without an entity column the destination has no subentities, so only leaf entities are
    /// candidates. The column's name without trailing digits (`ACCOUNT1` → `ACCOUNT`) is tried
    /// against their capitalised names, in three tiers: equal; a suffix of the name (longest
    /// first: `TRANSFERACCOUNT` → `Account`); a prefix of an entity's name (`FAVORITE` →
    /// `FavoriteTransaction`). In a tier, the candidates the data agrees with — every stored
    /// value is the `Z_PK` of a row of that entity — are kept; one left decides, more than one
    /// leaves the column an attribute, none moves on to the next tier. When no name fits and
    /// the column holds values, the one leaf entity whose rows hold every value decides; with
    /// several (small keys are everywhere) the column stays an attribute.
    func toOneDestination(table: String, column: String, base: String) throws -> (Int, ToOneEvidence)? {
        let leaves = entries.filter { isLeaf($0.number) }
        let stripped = String(base.reversed().drop { $0.isASCII && $0.isNumber }.reversed())
        guard !stripped.isEmpty else { return nil }
        let agreement = try KeyAgreement(inference: self, table: table, column: column)
        let hasValues = agreement.hasValues
        func agrees(_ entry: StoreCatalog.Entry) throws -> Bool { try agreement.agrees(entry) }
        let suffixes = leaves.filter { stripped.hasSuffix($0.name.uppercased()) && stripped != $0.name.uppercased() }
        let longestSuffix = suffixes.map(\.name.count).max()
        let tiers: [[StoreCatalog.Entry]] = [
            leaves.filter { $0.name.uppercased() == stripped },
            suffixes.filter { $0.name.count == longestSuffix },
            leaves.filter { $0.name.uppercased().hasPrefix(stripped) && $0.name.uppercased() != stripped },
        ]
        for tier in tiers where !tier.isEmpty {
            let agreeing = try tier.filter(agrees)
            if agreeing.count == 1, let only = agreeing.first { return (only.number, .name) }
            if agreeing.count > 1 { return nil }
        }
        guard hasValues else { return nil }
        var found: StoreCatalog.Entry?
        for leaf in leaves where try agrees(leaf) {
            guard found == nil else { return nil }
            found = leaf
        }
        return found.map { ($0.number, .data) }
    }

    /// The destination of an indexed `INTEGER` column that the table's column order shows to be
    /// a to-one although no name points anywhere: the one leaf entity of the column's own
    /// hierarchy whose rows hold every stored value (a sibling, a parent), or nil.
    func selfReferenceDestination(table: String, column: String, hierarchy: Set<Int>) throws -> Int? {
        let agreement = try KeyAgreement(inference: self, table: table, column: column)
        guard agreement.hasValues else { return nil }
        let agreeing = try entries.filter { hierarchy.contains($0.number) && isLeaf($0.number) }.filter { try agreement.agrees($0) }
        return agreeing.count == 1 ? agreeing.first?.number : nil
    }

    /// Whether a column's stored values are all keys of one entity's rows.
    struct KeyAgreement {
        let inference: Inference
        let table: String
        let column: String
        let range: (low: Int64?, high: Int64?)
        var hasValues: Bool { range.low != nil }

        init(inference: Inference, table: String, column: String) throws {
            self.inference = inference
            self.table = table
            self.column = column
            range = try inference.connection.rows(
                "SELECT min(\(quoteIdentifier(column))), max(\(quoteIdentifier(column))) FROM \(quoteIdentifier(table))") {
                ($0.isNull(at: 0) ? nil : $0.int64(at: 0), $0.isNull(at: 1) ? nil : $0.int64(at: 1))
            }.first ?? (nil, nil)
        }

        /// True when every stored value is the `Z_PK` of a row of `entry` (vacuously, with none).
        func agrees(_ entry: StoreCatalog.Entry) throws -> Bool {
            guard hasValues else { return true }
            guard let root = inference.chain(entry.number).first, let rootEntry = inference.entry(root) else { return false }
            let destinationTable = StoreCatalog.tableName(ofRoot: rootEntry.name)
            guard inference.catalog.tables[destinationTable] != nil else { return false }
            // A cheap first test: the keys must lie within the destination table's (max of a rowid is instant).
            let highestKey = try inference.connection.scalar("SELECT max(Z_PK) FROM \(quoteIdentifier(destinationTable))")?.integerValue ?? 0
            guard let low = range.low, let high = range.high, low >= 1, high <= highestKey else { return false }
            let strays = try inference.connection.scalar(
                "SELECT count(*) FROM \(quoteIdentifier(table)) WHERE \(quoteIdentifier(column)) IS NOT NULL"
                    + " AND \(quoteIdentifier(column)) NOT IN (SELECT Z_PK FROM \(quoteIdentifier(destinationTable)) WHERE Z_ENT = ?)",
                [.integer(Int64(entry.number))])?.integerValue
            return strays == 0
        }
    }

    // MARK: Many-to-many relationships

    /// Join tables `Z_<n><NAME>` whose key columns are `Z_<n><INVERSE>` then `Z_<m><NAME>`: entity
    /// `n` declares `name`, entity `m` declares `inverse`, read from the table as the store names
    /// it. A key column may carry a number Core Data gave it because its name was taken by
    /// another join table (`Z_24TAGS1`): the property is named without it. `REFLEXIVE` as the
    /// second column makes a relationship that is its own inverse. `Z_FOK_<key column>` keeps the
    /// order of that column's objects: the relationship pointing at them is ordered. A table whose
    /// name or columns do not fit, or whose names would clash with a property of either side, is
    /// left out and listed in `ignored`.
    func inferJoinTables(propertyNames: [Int: Set<String>]) -> [InferredJoinTable] {
        var taken = propertyNames
        var result: [InferredJoinTable] = []
        let joinColumnNames = Set(catalog.tables.filter { Self.joinParts($0.key) != nil }.flatMap { $0.value.map(\.name) })
        /// The property a key column names, without a clash number.
        func base(_ name: String) -> String {
            let stripped = name.withoutTrailingDigits
            return stripped != name && joinColumnNames.contains(stripped) ? stripped : name
        }
        for (table, columns) in catalog.tables.sorted(by: { $0.key < $1.key }) {
            let keys = columns.map(\.name).filter { !$0.hasPrefix("Z_FOK_") }
            guard let (owner, rest) = Self.joinParts(table), let source = entry(owner), keys.count == 2,
                  let (sourceNumber, inverseBase) = Self.joinParts(base(keys[0])), sourceNumber == owner else { continue }
            let isReflexive = keys[1] == ObjectModel.JoinTable.reflexiveColumn
            let destinationNumber = isReflexive ? owner : Self.joinParts(keys[1]).map(\.0) ?? 0
            guard let destination = entry(destinationNumber), !isReflexive || inverseBase == rest else { continue }
            let relationship = recordedToManyName(entity: source.name, capitalised: rest)
                ?? naming.propertyName(forColumnBase: rest)
            let inverse = isReflexive ? relationship : recordedToManyName(entity: destination.name, capitalised: inverseBase)
                ?? naming.propertyName(forColumnBase: inverseBase)
            let sourceFamily = entries.map(\.number).filter { chain($0).contains(owner) || chain(owner).contains($0) }
            let destinationFamily = entries.map(\.number).filter { chain($0).contains(destinationNumber) || chain(destinationNumber).contains($0) }
            let clashes = sourceFamily.contains { taken[$0, default: []].contains(relationship) }
                || destinationFamily.contains { taken[$0, default: []].contains(inverse) }
                || (!isReflexive && owner == destinationNumber && relationship == inverse)
            guard !clashes else { continue }
            for number in sourceFamily { taken[number, default: []].insert(relationship) }
            for number in destinationFamily { taken[number, default: []].insert(inverse) }
            func orderColumn(of key: String) -> String? {
                let name = "Z_FOK_" + key.dropFirst(2)
                return columns.contains { $0.name == name } ? name : nil
            }
            result.append(InferredJoinTable(
                table: table, entity: source.name, relationship: relationship, sourceColumn: keys[0],
                destination: destination.name, inverse: inverse, destinationColumn: keys[1],
                sourceOrderColumn: orderColumn(of: keys[0]), destinationOrderColumn: isReflexive ? nil : orderColumn(of: keys[1])))
        }
        return result
    }

    /// `Z_12TAGS` → (12, "TAGS").
    static func joinParts(_ name: String) -> (Int, String)? {
        guard name.hasPrefix("Z_") else { return nil }
        let afterPrefix = name.dropFirst(2)
        let digits = afterPrefix.prefix { $0.isASCII && $0.isNumber }
        let rest = afterPrefix.dropFirst(digits.count)
        guard !digits.isEmpty, let first = rest.first, !(first.isASCII && first.isNumber), let number = Int(digits) else { return nil }
        return (number, String(rest))
    }
}
