import Foundation
import ObjectGraph
import SQLiteDB

/// Property names a store spells out in its own schema, where the model is not at hand:
/// Core Data writes names as the model declares them into some of its SQL.
///
/// - a uniqueness constraint's index, `Z_Car_UNIQUE_numberPlate ON ZCAR (ZNUMBERPLATE …)`;
/// - a fetch index Xcode made from an indexed attribute, `Z_AlbumList_byUuidIndex ON ZALBUMLIST (ZUUID …)`;
/// - a derived attribute's triggers, `NSCoreDataDATriggerUpdatedAffectedObjectValue('ZBOOK', Z_ENT, Z_PK, 'pagesCount', ZPAGESCOUNT)`.
///
/// Those give exact names for their columns; the words of every name the schema spells (index
/// names such as `byMakerAndNumberPlate`, R-tree tables such as `Z_RT_GenericAsset_boundedByRect`)
/// help spell the other columns' names.
///
/// ```swift
/// let evidence = try StoreNameEvidence(connection: connection, catalog: catalog, entityNames: ["Car"])
/// evidence.exactNames["ZCAR"]?["ZNUMBERPLATE"]   // "numberPlate"
/// ```
struct StoreNameEvidence {
    /// Table → column → the property name the schema spells.
    var exactNames: [String: [String: String]] = [:]
    /// Words of the names the schema spells, as spelled there.
    var words: [String] = []

    init(connection: Connection, catalog: StoreCatalog, entityNames: [String]) throws {
        let entities = entityNames.sorted { $0.count > $1.count }
        for index in catalog.indexes.values.sorted(by: { $0.name < $1.name }) where index.name.hasPrefix("Z_") {
            guard let entity = entities.first(where: { index.name.hasPrefix("Z_\($0)_") }) else { continue }
            let rest = String(index.name.dropFirst("Z_\(entity)_".count))
            if rest.hasPrefix("UNIQUE_") {
                recordConstraintNames(String(rest.dropFirst("UNIQUE_".count)), table: index.table, columns: index.columns)
            } else if rest.contains(where: \.isLowercase) {
                words += PropertyNaming.splitWords(rest)
                recordFetchIndexName(rest, table: index.table, columns: index.columns)
            }
        }
        for table in catalog.tables.keys.sorted() where table.hasPrefix("Z_RT_") {
            // Z_RT_<Entity>_<fetch index name>: an R-tree fetch index's table.
            words += table.dropFirst("Z_RT_".count).split(separator: "_").flatMap { PropertyNaming.splitWords(String($0)) }
        }
        let triggers = try connection.rows("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND sql IS NOT NULL ORDER BY name") {
            $0.string(at: 0) ?? ""
        }
        for sql in triggers { recordTriggerNames(sql) }
        for names in exactNames.values {
            for name in names.values { words += PropertyNaming.splitWords(name) }
        }
    }

    /// `numberPlate` or `firstName_lastName`: one name per column, each spelling its column.
    private mutating func recordConstraintNames(_ list: String, table: String, columns: [String]) {
        var rest = Substring(list)
        var found: [(String, String)] = []
        for (offset, column) in columns.enumerated() {
            guard column.hasPrefix("Z") else { return }
            let base = String(column.dropFirst())
            // A column numbered for a clash (ZACCOUNT1) holds a property named without the number.
            let spellings = [base, base.withoutTrailingDigits].filter { !$0.isEmpty && rest.count >= $0.count }
            guard let length = spellings.first(where: { rest.prefix($0.count).uppercased() == $0 })?.count else { return }
            let name = rest.prefix(length)
            found.append((column, String(name)))
            rest = rest.dropFirst(name.count)
            if offset < columns.count - 1 {
                guard rest.first == "_" else { return }
                rest = rest.dropFirst()
            }
        }
        guard rest.isEmpty else { return }
        // A name in capitals throughout (`Z_TRANSACTIONSTRING_UNIQUE_NAME`) says nothing of its case.
        for (column, name) in found where name.contains(where: \.isLowercase) { exactNames[table, default: [:]][column] = name }
    }

    /// Xcode names the fetch index it makes from an indexed attribute `by<Name>Index`.
    private mutating func recordFetchIndexName(_ name: String, table: String, columns: [String]) {
        guard columns.count == 1, let column = columns.first, name.hasPrefix("by"), name.hasSuffix("Index"),
              name.count > "byIndex".count else { return }
        let property = name.dropFirst(2).dropLast("Index".count)
        guard let first = property.first, "Z" + property.uppercased() == column else { return }
        exactNames[table, default: [:]][column] = first.lowercased() + property.dropFirst()
    }

    /// A derived attribute's trigger names its table, its property and its column together.
    private mutating func recordTriggerNames(_ sql: String) {
        let pattern = #"NSCoreData\w*\(\s*'(\w+)'\s*,\s*Z_ENT\s*,\s*Z_PK\s*,\s*'(\w+)'\s*,\s*(\w+)\s*\)"#
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return }  // A constant pattern; it compiles.
        let text = sql as NSString
        for match in expression.matches(in: sql, range: NSRange(location: 0, length: text.length)) where match.numberOfRanges == 4 {
            let table = text.substring(with: match.range(at: 1))
            let name = text.substring(with: match.range(at: 2))
            let column = text.substring(with: match.range(at: 3))
            // Older triggers pass the column's own name ('ZFACECOUNT'); only a spelled name counts.
            guard name.contains(where: \.isLowercase), "Z" + name.uppercased() == column else { continue }
            exactNames[table, default: [:]][column] = name
        }
    }
}
