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
        let range = try connection.rows(
            "SELECT min(\(quoteIdentifier(column))), max(\(quoteIdentifier(column))) FROM \(quoteIdentifier(table))") {
            ($0.isNull(at: 0) ? nil : $0.int64(at: 0), $0.isNull(at: 1) ? nil : $0.int64(at: 1))
        }.first
        let hasValues = range?.0 != nil
        func agrees(_ entry: StoreCatalog.Entry) throws -> Bool {
            guard hasValues else { return true }
            guard let root = chain(entry.number).first, let rootEntry = self.entry(root) else { return false }
            let destinationTable = StoreCatalog.tableName(ofRoot: rootEntry.name)
            guard catalog.tables[destinationTable] != nil else { return false }
            // A cheap first test: the keys must lie within the destination table's (max of a rowid is instant).
            let highestKey = try connection.scalar("SELECT max(Z_PK) FROM \(quoteIdentifier(destinationTable))")?.integerValue ?? 0
            guard let low = range?.0, let high = range?.1, low >= 1, high <= highestKey else { return false }
            let strays = try connection.scalar(
                "SELECT count(*) FROM \(quoteIdentifier(table)) WHERE \(quoteIdentifier(column)) IS NOT NULL"
                    + " AND \(quoteIdentifier(column)) NOT IN (SELECT Z_PK FROM \(quoteIdentifier(destinationTable)) WHERE Z_ENT = ?)",
                [.integer(Int64(entry.number))])?.integerValue
            return strays == 0
        }
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

    // MARK: Many-to-many relationships

    /// Join tables `Z_<n><NAME>` with columns `Z_<n><INVERSE>` then `Z_<m><NAME>…`: entity `n`
    /// declares `name`, entity `m` declares `inverse`. A table whose name or columns do not fit,
    /// or whose names would clash with a property of either side, is left out.
    func inferJoinTables(propertyNames: [Int: Set<String>]) -> [InferredJoinTable] {
        var taken = propertyNames
        var result: [InferredJoinTable] = []
        for (table, columns) in catalog.tables.sorted(by: { $0.key < $1.key }) {
            guard let (owner, rest) = Self.joinParts(table), let source = entry(owner), columns.count >= 2,
                  let (sourceNumber, inverseBase) = Self.joinParts(columns[0].name), sourceNumber == owner,
                  let (destinationNumber, _) = Self.joinParts(columns[1].name), let destination = entry(destinationNumber)
            else { continue }
            let relationship = recordedToManyName(entity: source.name, capitalised: rest)
                ?? naming.propertyName(forColumnBase: rest)
            let inverse = recordedToManyName(entity: destination.name, capitalised: inverseBase)
                ?? naming.propertyName(forColumnBase: inverseBase)
            let sourceFamily = entries.map(\.number).filter { chain($0).contains(owner) || chain(owner).contains($0) }
            let destinationFamily = entries.map(\.number).filter { chain($0).contains(destinationNumber) || chain(destinationNumber).contains($0) }
            let clashes = sourceFamily.contains { taken[$0, default: []].contains(relationship) }
                || destinationFamily.contains { taken[$0, default: []].contains(inverse) }
                || (owner == destinationNumber && relationship == inverse)
            guard !clashes else { continue }
            for number in sourceFamily { taken[number, default: []].insert(relationship) }
            for number in destinationFamily { taken[number, default: []].insert(inverse) }
            result.append(InferredJoinTable(
                table: table, entity: source.name, relationship: relationship, sourceColumn: columns[0].name,
                destination: destination.name, inverse: inverse, destinationColumn: columns[1].name))
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
