import CommandLineKit
import CoreDataFiles
import DocStoreCLI
import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

/// `docstore dump` against what SQLite holds, column by column, for every store among the
/// fixtures: every row of every entity is one object, every stored value appears with its
/// type, every join-table row is a member of its to-many (in order where Core Data keeps one),
/// and every column is accounted for — read into the dump, or listed by the inference as left out.
@Suite("docstore dump shows every stored value of every store, as sqlite3 holds it")
struct DocStoreDumpComparisonTests {
    struct Case: CustomStringConvertible {
        /// A store (or document) in `Fixtures/coredata` or `Fixtures/coredata-more`.
        var store: String
        /// A model file to dump with; nil: the model inferred from the store.
        var model: String?
        /// Columns the dump cannot show, `TABLE.COLUMN`, as the inference lists them.
        var leftOut: [String] = []
        var description: String { store + (model.map { " with " + $0 } ?? "") }
    }

    static let sampleModel = "coredata-more/alemar11__CoreDataPlus/Tests/Resources/SampleModel/"
    static let wibosco = "coredata-more/wibosco__CoreDataMigration-Example/CoreDataMigration-ExampleTests/Resources/SQLite/"
    static let wiboscoModels = "coredata-more/wibosco__CoreDataMigration-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld/"
    static let photosOrderColumns = [
        "ZADJUSTMENT.Z_FOK_ASSET", "ZCLOUDSHAREDALBUMINVITATIONRECORD.Z_FOK_ALBUM", "ZCLOUDSHAREDCOMMENT.Z_FOK_CLOUDFEEDCOMMENTENTRY",
        "ZCLOUDSHAREDCOMMENT.Z_FOK_CLOUDFEEDLIKECOMMENTENTRY", "ZCLOUDSHAREDCOMMENT.Z_FOK_COMMENTEDASSET",
        "ZCLOUDSHAREDCOMMENT.Z_FOK_LIKEDASSET", "ZGENERICALBUM.Z_FOK_PARENTFOLDER", "ZGENERICASSET.Z_FOK_CLOUDFEEDASSETSENTRY",
        "ZGENERICASSET.Z_FOK_IMPORTSESSION",
    ]

    static let cases = [
        Case(store: "coredata/bsmanageddocument/version1MRC.bstest"),
        Case(store: "coredata/bsmanageddocument/version1MRC.bstest", model: "coredata/bsmanageddocument/Model.xcdatamodeld/Model 1.xcdatamodel"),
        Case(store: "coredata/moneywell/Test.moneywell"),
        Case(store: "coredata/moneywell/Test.moneywell", model: "coredata/moneywell/MoneyWell.xcdatamodel"),
        Case(store: sampleModel + "Fixtures/SampleModel_V1.sqlite"),
        Case(store: sampleModel + "Fixtures/SampleModel_V1.sqlite", model: sampleModel + "SampleModel.xcdatamodeld/SampleModel.xcdatamodel"),
        Case(store: sampleModel + "Fixtures/SampleModel_V2.sqlite"),
        Case(store: sampleModel + "Fixtures/SampleModel_V2.sqlite", model: sampleModel + "SampleModel.xcdatamodeld/SampleModel2.xcdatamodel"),
        Case(store: "coredata-more/alemar11__CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V2.sqlite"),
        Case(store: "coredata-more/alemar11__CoreDataPlus/Tests/Resources/SampleModel3/Fixtures/SampleModel3_V1.sqlite"),
        Case(store: wibosco + "CoreDataMigration_Example_1.sqlite"),
        Case(store: wibosco + "CoreDataMigration_Example_1.sqlite", model: wiboscoModels + "CoreDataMigration_Example.xcdatamodel"),
        Case(store: wibosco + "CoreDataMigration_Example_2.sqlite", model: wiboscoModels + "CoreDataMigration_Example 2.xcdatamodel"),
        Case(store: wibosco + "CoreDataMigration_Example_3.sqlite"),
        Case(store: wibosco + "CoreDataMigration_Example_3.sqlite", model: wiboscoModels + "CoreDataMigration_Example 3.xcdatamodel"),
        Case(store: wibosco + "CoreDataMigration_Example_WAL.sqlite"),
        Case(store: wibosco + "CoreDataMigration_Example_WAL.sqlite", model: wiboscoModels + "CoreDataMigration_Example 4.xcdatamodel"),
        Case(store: "coredata-more/openhouse__osxphotos/tests/Test-10.15.1.photoslibrary/database/Photos.sqlite", leftOut: photosOrderColumns),
    ]

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("CoreDataFilesTests/Fixtures")

    /// A copy of the fixture (with its `-wal`), and the store file inside it.
    static func copy(_ path: String, into directory: TemporaryDirectory) throws -> (path: URL, store: URL) {
        let source = fixtures.appendingPathComponent(path)
        let destination = directory.path(source.lastPathComponent)
        try FileManager.default.copyItem(at: source, to: destination)
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: destination.path + suffix)
        }
        let package = destination.appendingPathComponent("StoreContent/persistentStore")
        return (destination, FileManager.default.fileExists(atPath: package.path) ? package : destination)
    }

    /// What one comparison found, gathered off Swift concurrency's threads (it takes seconds for Photos).
    struct Comparison: Sendable {
        var code: Int32
        var errors: String
        var objects: Int
        var uris: Set<String>
        var checked: [String]
        var unread: [String]
        var issues: [String]
        var ignored: [String]
    }

    static func comparison(_ testCase: Case) throws -> Comparison {
        let directory = try TemporaryDirectory()
        let (path, store) = try Self.copy(testCase.store, into: directory)
        var arguments = ["dump", path.path]
        if let model = testCase.model { arguments += ["--model", Self.fixtures.appendingPathComponent(model).path] }
        var output = "", errors = ""
        let code = DocStore.run(arguments, environment: [:], output: &output, errors: &errors)
        let objects = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] ?? []
        let inferred = try StoreModelInference.infer(fromStoreAt: store)
        // Without --model, dump reads with the store's own model (its Z_MODELCACHE, else inferred).
        let model = try testCase.model.map { try ObjectModel(contentsOf: Self.fixtures.appendingPathComponent($0)) }
            ?? StoreModel.load(fromStoreAt: store).model
        let check = try DumpCheck(store: store, model: model, objects: objects)
        for entity in model.entities { try check.entity(entity) }
        for entity in inferred.coreDataEntities { try check.coreDataEntity(entity) }
        return Comparison(code: code, errors: errors, objects: objects.count, uris: Set(objects.compactMap { $0["uri"] as? String }),
                          checked: check.checked,
                          unread: try check.unreadColumns(joinTables: model.joinTables.map(\.name), coreDataEntities: inferred.coreDataEntities),
                          issues: check.issues, ignored: inferred.ignored)
    }

    @Test("every row is an object and every column's value is in it, with its type", arguments: cases)
    func compare(_ testCase: Case) async throws {
        let result = try await onOwnThread { try Self.comparison(testCase) }
        #expect(result.code == 0 && result.errors == "", "\(result.errors)")
        #expect(result.objects > 0)
        // Every object is one of the rows checked: none invented.
        #expect(result.checked.count == result.objects)
        #expect(Set(result.checked) == result.uris)
        // Every column of every table was read, but the order columns of to-manys the store does not name.
        #expect(result.unread == testCase.leftOut, "\(result.unread)")
        if testCase.model == nil {
            #expect(testCase.leftOut.allSatisfy { column in result.ignored.contains { $0.hasPrefix("column \(column):") } })
        }
        for issue in result.issues.prefix(20) { Issue.record(Comment(rawValue: issue)) }
        #expect(result.issues.count == 0)
    }

    @Test("Photos' ordered many-to-manys list their members in Z_FOK order, reflexive ones both ways")
    func photosOrder() async throws {
        let directory = try TemporaryDirectory()
        let (_, store) = try Self.copy(Self.cases.last?.store ?? "", into: directory)
        let path = store.path
        let (dump, peopleDump) = try await onOwnThread {
            (docstore("dump", path, "--entity", "AlbumList"), docstore("dump", path, "--entity", "Person"))
        }
        let lists = try #require(try JSONSerialization.jsonObject(with: Data(dump.output.utf8)) as? [[String: Any]])
        let albums = try #require(lists.first { ($0["uri"] as? String)?.hasSuffix("/AlbumList/p6") == true }?["albums"] as? [String])
        let stored = try Fixtures.rows("SELECT Z_25ALBUMS FROM Z_25ALBUMLISTS WHERE Z_3ALBUMLISTS = 6 ORDER BY Z_FOK_25ALBUMS", in: store)
        #expect(albums.count == 31)
        #expect(albums.map { Int64($0.split(separator: "p").last ?? "") } == stored.map(\.[0].integerValue))
        let people = try #require(try JSONSerialization.jsonObject(with: Data(peopleDump.output.utf8)) as? [[String: Any]])
        let person8 = try #require(people.first { ($0["uri"] as? String)?.hasSuffix("/Person/p8") == true })
        let candidates = try #require(person8.first { $0.key.lowercased() == "mergecandidates" }?.value as? [String])
        #expect(candidates.map { $0.components(separatedBy: "/").last ?? "" } == ["p12", "p16"])
    }
}

/// Compares a dump with the store's rows.
final class DumpCheck {
    let connection: Connection
    let model: ObjectModel
    let uuid: String
    var byURI: [String: [String: Any]] = [:]
    var issues: [String] = []
    var checked: [String] = []
    /// `TABLE.COLUMN` read into the dump.
    var readColumns: Set<String> = []

    init(store: URL, model: ObjectModel, objects: [[String: Any]]) throws {
        connection = try Connection(path: store.path, configuration: .init(readOnly: true, journalMode: nil, synchronous: nil))
        self.model = model
        uuid = try connection.scalar("SELECT Z_UUID FROM Z_METADATA")?.textValue ?? ""
        for object in objects {
            guard let uri = object["uri"] as? String else { issues.append("an object without uri"); continue }
            byURI[uri] = object
        }
    }

    func uri(_ entity: String, _ key: Int64) -> String { "x-coredata://\(uuid)/\(entity)/p\(key)" }

    func rows(_ sql: String) throws -> [[String: SQLiteValue]] {
        let statement = try connection.prepare(sql)
        var rows: [[String: SQLiteValue]] = []
        try statement.forEachRow { row in
            var values: [String: SQLiteValue] = [:]
            for index in 0..<row.columnCount { values[row.columnName(at: index)] = row.value(at: index) }
            rows.append(values)
        }
        return rows
    }

    /// The entity name of the row with key `key` in `entity`'s hierarchy table.
    func entityName(of key: Int64, in entity: Entity) throws -> String? {
        guard let number = try connection.scalar("SELECT Z_ENT FROM \(quoteIdentifier(entity.table)) WHERE Z_PK = ?", [.integer(key)])?.integerValue
        else { return nil }
        return model.entity(number: Int(number))?.name
    }

    func entity(_ entity: Entity) throws {
        readColumns.formUnion(["Z_PK", "Z_ENT", "Z_OPT"].map { "\(entity.table).\($0)" })
        readColumns.formUnion(entity.attributes.compactMap(\.column).map { "\(entity.table).\($0)" })
        for relationship in entity.relationships {
            guard case .foreignKey(let column, let entityColumn) = relationship.storage else { continue }
            readColumns.formUnion(([column] + (entityColumn.map { [$0] } ?? [])).map { "\(entity.table).\($0)" })
        }
        for row in try rows("SELECT * FROM \(quoteIdentifier(entity.table)) WHERE Z_ENT = \(entity.number) ORDER BY Z_PK") {
            let key = row["Z_PK"]?.integerValue ?? 0
            let uri = self.uri(entity.name, key)
            guard let object = byURI[uri] else { issues.append("\(uri): not in the dump"); continue }
            checked.append(uri)
            if object["entity"] as? String != entity.name { issues.append("\(uri): entity \(object["entity"] ?? "none")") }
            for attribute in entity.attributes {
                guard let column = attribute.column else { continue }
                readColumns.insert("\(entity.table).\(column)")
                let stored = row[column] ?? .null
                if !Self.matches(object[attribute.name], stored, attribute.type) {
                    issues.append("\(uri).\(attribute.name) (\(column)): \(object[attribute.name] ?? "missing") for \(stored)")
                }
            }
            for relationship in entity.relationships {
                try check(relationship, of: entity, key: key, row: row, object: object, uri: uri)
            }
        }
    }

    private func check(_ relationship: EntityRelationship, of entity: Entity, key: Int64, row: [String: SQLiteValue],
                       object: [String: Any], uri: String) throws {
        let destination = model.entities[relationship.destination - 1]
        switch relationship.storage {
        case .foreignKey(let column, let entityColumn):
            readColumns.insert("\(entity.table).\(column)")
            if let entityColumn { readColumns.insert("\(entity.table).\(entityColumn)") }
            let value = object[relationship.name]
            guard let target = row[column]?.integerValue else {
                if !(value is NSNull) { issues.append("\(uri).\(relationship.name): \(value ?? "missing") for NULL") }
                return
            }
            let name = try entityName(of: target, in: destination)
            if value as? String != name.map({ self.uri($0, target) }) { issues.append("\(uri).\(relationship.name): \(value ?? "missing") for \(target)") }
        case .joinTable(let table, let sourceColumn, let destinationColumn):
            var sql = "SELECT \(destinationColumn) AS member FROM \(table) WHERE \(sourceColumn) = \(key)"
            let order = "Z_FOK_" + destinationColumn.dropFirst(2)
            if try connection.columns(of: table).contains(order) { sql += " ORDER BY \(order)" }
            let members = try rows(sql).compactMap { $0["member"]?.integerValue }
            try compareMembers(members, destination: destination, ordered: sql.contains("ORDER BY"), object: object,
                               name: relationship.name, uri: uri)
        case .inverseForeignKey:
            guard let inverseIndex = relationship.inverseIndex,
                  case .foreignKey(let column, _) = destination.relationships[inverseIndex].storage else { return }
            let members = try rows("SELECT Z_PK FROM \(destination.table) WHERE \(column) = \(key) AND Z_ENT IN ("
                                   + destination.hierarchy.map(String.init).joined(separator: ", ") + ")").compactMap { $0["Z_PK"]?.integerValue }
            try compareMembers(members, destination: destination, ordered: false, object: object, name: relationship.name, uri: uri)
        }
    }

    private func compareMembers(_ members: [Int64], destination: Entity, ordered: Bool, object: [String: Any], name: String, uri: String) throws {
        guard let listed = object[name] as? [String] else { return issues.append("\(uri).\(name): not an array") }
        let expected = try members.map { key in try entityName(of: key, in: destination).map { self.uri($0, key) } ?? "dangling \(key)" }
        if ordered ? listed != expected : Set(listed) != Set(expected) || listed.count != expected.count {
            issues.append("\(uri).\(name): \(listed) for \(expected)")
        }
    }

    func coreDataEntity(_ entity: CoreDataEntityTable) throws {
        readColumns.formUnion((["Z_PK", "Z_ENT", "Z_OPT"] + entity.columns.map(\.column)).map { "\(entity.table).\($0)" })
        for row in try rows("SELECT * FROM \(entity.table) WHERE Z_ENT = \(entity.number)") {
            let uri = self.uri(entity.name, row["Z_PK"]?.integerValue ?? 0)
            guard let object = byURI[uri] else { issues.append("\(uri): not in the dump"); continue }
            checked.append(uri)
            for column in entity.columns {
                readColumns.insert("\(entity.table).\(column.column)")
                let key = ["entity", "uri"].contains(column.property) ? column.column : column.property
                if !Self.matches(object[key], row[column.column] ?? .null, column.type) {
                    issues.append("\(uri).\(key): \(object[key] ?? "missing") for \(row[column.column] ?? .null)")
                }
            }
        }
    }

    /// Columns of the model's tables, join tables and Core Data's own tables that no check read.
    func unreadColumns(joinTables: [String], coreDataEntities: [CoreDataEntityTable]) throws -> [String] {
        let tables = Set(model.entities.map(\.table)).union(coreDataEntities.map(\.table))
        var unread: [String] = []
        for table in tables.sorted() {
            for column in try connection.columns(of: table) where !readColumns.contains("\(table).\(column)") {
                unread.append("\(table).\(column)")
            }
        }
        for table in joinTables {
            let columns = try connection.columns(of: table)
            if columns.isEmpty { unread.append("\(table): missing") }
        }
        return unread.sorted()
    }

    /// Whether the dump's `json` shows `stored` as an attribute of `type` should.
    static func matches(_ json: Any?, _ stored: SQLiteValue, _ type: AttributeType) -> Bool {
        guard let json else { return false }
        if stored.isNull { return json is NSNull }
        switch (type, stored) {
        case (.boolean, .integer(let value)) where value == 0 || value == 1:
            return (json as? Bool) == (value == 1)
        case (.integer16, .integer(let value)), (.integer32, .integer(let value)), (.integer64, .integer(let value)):
            return (json as? NSNumber)?.int64Value == value
        case (.double, _), (.float, _), (.decimal, _):
            guard let number = stored.realValue, let shown = (json as? NSNumber)?.doubleValue else { return raw(json, stored) }
            return shown == number || abs(shown - number) <= abs(number) * 1e-15
        case (.date, _):
            guard let seconds = stored.realValue else { return raw(json, stored) }
            if let text = json as? String, let parsed = parseISO8601(text) { return seconds - parsed >= 0 && seconds - parsed < 0.001 }
            return (json as? NSNumber)?.doubleValue == seconds
        case (.string, .text(let text)), (.uri, .text(let text)):
            return json as? String == text
        case (.uuid, .blob(let data)) where data.count == 16:
            return (json as? String).flatMap(UUID.init(uuidString:)).map { withUnsafeBytes(of: $0.uuid) { Data($0) } } == data
        case (.binary, .blob(let data)), (.transformable, .blob(let data)):
            return (json as? String).flatMap { Data(base64Encoded: $0) } == data
        default:
            return raw(json, stored)
        }
    }

    /// A value shown as SQLite holds it.
    static func raw(_ json: Any, _ stored: SQLiteValue) -> Bool {
        switch stored {
        case .null: return json is NSNull
        case .integer(let value): return (json as? NSNumber)?.int64Value == value
        case .real(let value): return (json as? NSNumber)?.doubleValue == value
        case .text(let text): return json as? String == text
        case .blob(let data): return (json as? String).flatMap { Data(base64Encoded: $0) } == data
        }
    }

    /// `2013-01-26T12:00:00Z` or `…:00.123Z` → seconds since 2001 (proleptic Gregorian, UTC).
    static func parseISO8601(_ text: String) -> Double? {
        let parts = text.split(whereSeparator: { "-T:Z".contains($0) }).map(String.init)
        guard parts.count == 6, let year = Int64(parts[0]), let month = Int64(parts[1]), let day = Int64(parts[2]),
              let hour = Int64(parts[3]), let minute = Int64(parts[4]), let seconds = Double(parts[5]) else { return nil }
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Double(days * 86_400 + hour * 3600 + minute * 60 - 978_307_200) + seconds
    }
}
