import CoreDataFiles
import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

/// Apple-made stores with a model cache, read by `docstore` with their own model, compared with
/// what `sqlite3` holds, column by column.
@Suite("docstore reads Apple stores with their own model (Z_MODELCACHE)")
struct DocStoreStoreModelTests {
    static let moreRoot = Fixtures.root.deletingLastPathComponent().appendingPathComponent("coredata-more")

    /// A store with a model cache: where it lies under `Fixtures/`, and the files beside it.
    struct Store: Sendable, CustomStringConvertible {
        var path: String
        var companions: [String] = []
        var description: String { URL(fileURLWithPath: path).lastPathComponent }
    }

    static let stores: [Store] = [
        Store(path: "coredata/moneywell/Test.moneywell/StoreContent/persistentStore"),
        Store(path: "coredata-more/alemar11__CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel_V1.sqlite"),
        Store(path: "coredata-more/alemar11__CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel_V2.sqlite"),
        Store(path: "coredata-more/alemar11__CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V2.sqlite"),
        Store(path: "coredata-more/alemar11__CoreDataPlus/Tests/Resources/SampleModel3/Fixtures/SampleModel3_V1.sqlite"),
        Store(path: "coredata-more/wibosco__CoreDataMigration-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_1.sqlite"),
        Store(path: "coredata-more/wibosco__CoreDataMigration-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_WAL.sqlite",
              companions: ["-wal"]),
        Store(path: "coredata-more/openhouse__osxphotos/tests/Test-10.15.1.photoslibrary/database/Photos.sqlite"),
    ]

    /// A copy of `store` in `directory` (reading a WAL store checkpoints it).
    static func copy(_ store: Store, into directory: TemporaryDirectory) throws -> URL {
        let source = Fixtures.root.deletingLastPathComponent().appendingPathComponent(store.path)
        let destination = directory.path(source.lastPathComponent == "persistentStore" ? "MoneyWell.sqlite" : source.lastPathComponent)
        try FileManager.default.copyItem(at: source, to: destination)
        for suffix in store.companions {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: destination.path + suffix)
        }
        return destination
    }

    @Test("dump of every Apple store with its own model holds every stored value as sqlite3 holds it", arguments: stores)
    func dumpEqualsSQLite(store: Store) throws {
        let directory = try TemporaryDirectory()
        let url = try Self.copy(store, into: directory)
        let run = docstore("dump", url.path)
        #expect(run.code == 0 && run.errors == "")
        let objects = try JSONDecoder().decode([DumpValue].self, from: Data(run.output.utf8)).map(\.objectFields)
        let storeModel = try StoreModel.load(fromStoreAt: url)
        #expect(storeModel.source == .modelCache)
        let model = storeModel.model
        let connection = try Connection(path: url.path, configuration: .init(readOnly: true, journalMode: nil, synchronous: nil))
        var rowsPerEntity: [String: Int] = [:]
        var compared = 0
        // Core Data's own entities (history, CloudKit) are dumped too, from their `A…` tables.
        let ownEntities = Dictionary(uniqueKeysWithValues: try StoreModelInference.coreDataEntities(fromStoreAt: url).map { ($0.name, $0) })
        var ownRows: [String: Int] = [:]
        for object in objects {
            if case .string(let entityName)? = object["entity"], model.entity(named: entityName) == nil,
               ownEntities[entityName] != nil {
                ownRows[entityName, default: 0] += 1
                continue
            }
            guard case .string(let entityName)? = object["entity"], case .string(let uri)? = object["uri"],
                  let entity = model.entity(named: entityName), let key = Int64(uri.split(separator: "/").last?.dropFirst() ?? "") else {
                Issue.record("\(store): an object without a known entity and key: \(object)")
                continue
            }
            rowsPerEntity[entityName, default: 0] += 1
            let row = try #require(try connection.rows("SELECT * FROM \(entity.table) WHERE Z_PK = ?", [.integer(key)]) { statement in
                Dictionary(uniqueKeysWithValues: (0..<statement.columnCount).map { (statement.columnName(at: $0), statement.value(at: $0)) })
            }.first, "\(store): no row for \(uri)")
            #expect(row["Z_ENT"] == .integer(Int64(entity.number)), "\(uri)")
            for attribute in entity.attributes {
                guard let column = attribute.column else {
                    #expect(object[attribute.name] == nil, "\(uri): the transient \(attribute.name) is dumped")
                    continue
                }
                #expect(column.hasPrefix("Z" + attribute.name.uppercased()), "\(uri): \(attribute.name) is stored in \(column)")
                let value = try #require(object[attribute.name], "\(uri): \(attribute.name) is missing")
                #expect(Self.matches(value, row[column] ?? .null, type: attribute.type), "\(uri).\(attribute.name): dumped \(value), stored \(row[column] ?? .null)")
                compared += 1
            }
            for relationship in entity.relationships {
                let value = try #require(object[relationship.name], "\(uri): \(relationship.name) is missing")
                let destination = try #require(model.entity(number: relationship.destination))
                switch relationship.storage {
                case .foreignKey(let column, let entityColumn):
                    var expected: DumpValue = .null
                    if case .integer(let target)? = row[column] {
                        var targetEntity = destination.name
                        if let entityColumn, case .integer(let number)? = row[entityColumn] {
                            targetEntity = model.entity(number: Int(number))?.name ?? "?"
                        }
                        expected = .string("x-coredata://\(uri.split(separator: "/")[1])/\(targetEntity)/p\(target)")
                    }
                    #expect(value == expected, "\(uri).\(relationship.name)")
                case .joinTable(let table, let sourceColumn, let destinationColumn):
                    let keys = try connection.rows("SELECT \(destinationColumn) FROM \(table) WHERE \(sourceColumn) = ?", [.integer(key)]) { $0.int64(at: 0) }
                    guard case .array(let members) = value else { Issue.record("\(uri).\(relationship.name) is not an array"); continue }
                    #expect(Set(members.compactMap(\.key)) == Set(keys), "\(uri).\(relationship.name)")
                    #expect(members.count == keys.count, "\(uri).\(relationship.name)")
                case .inverseForeignKey:
                    guard case .array(let members) = value,
                          let inverse = relationship.declaration.inverse.flatMap({ destination.relationship(named: $0) }),
                          case .foreignKey(let column, let entityColumn) = inverse.storage else {
                        Issue.record("\(uri).\(relationship.name) is not an array read through its inverse's key")
                        continue
                    }
                    let owner = entityColumn.map { " AND \($0) = \(entity.number)" } ?? ""
                    let count = try connection.scalar("SELECT count(*) FROM \(destination.table) WHERE \(column) = ?\(owner)", [.integer(key)])
                    #expect(count == .integer(Int64(members.count)), "\(uri).\(relationship.name)")
                }
            }
        }
        for entity in model.entities {
            let count = try connection.scalar("SELECT count(*) FROM \(entity.table) WHERE Z_ENT = \(entity.number)")
            #expect(count == .integer(Int64(rowsPerEntity[entity.name] ?? 0)), "\(store): rows of \(entity.name)")
        }
        for entity in ownEntities.values {
            let count = try connection.scalar("SELECT count(*) FROM \(entity.table) WHERE Z_ENT = \(entity.number)")
            #expect(count == .integer(Int64(ownRows[entity.name] ?? 0)), "\(store): rows of Core Data's \(entity.name)")
        }
        #expect(compared > 0)
    }

    /// Whether the dumped `value` is the stored `stored` as the README says `dump` writes it
    /// (dates to the millisecond, which `dump` cuts rather than rounds: Photos' 559858173.022,
    /// held as 559858173.02199996, shows as .021).
    static func matches(_ value: DumpValue, _ stored: SQLiteValue, type: AttributeType) -> Bool {
        if type == .date, case .string(let text) = value {
            switch stored {
            case .real(let seconds): return Self.seconds(of: text).map { abs($0 - seconds) < 0.001 + 1e-6 } == true
            case .integer(let seconds): return Self.seconds(of: text).map { abs($0 - Double(seconds)) < 0.001 + 1e-6 } == true
            default: return false
            }
        }
        switch (value, stored) {
        case (.null, .null): return true
        case (.bool(let flag), .integer(let number)): return type == .boolean && flag == (number != 0)
        case (.integer(let number), .integer(let storedNumber)): return type != .boolean && number == storedNumber
        case (.integer(let number), .real(let real)): return Double(number) == real
        case (.real(let number), .real(let real)): return number == real || abs(number - real) <= abs(real) * 1e-15
        case (.real(let number), .integer(let integer)): return number == Double(integer)
        case (.string(let text), .text(let storedText)): return text == storedText
        case (.string(let text), .blob(let bytes)):
            if type == .uuid, bytes.count == 16 {
                let raw = [UInt8](bytes)
                return text == UUID(uuid: (raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7],
                                           raw[8], raw[9], raw[10], raw[11], raw[12], raw[13], raw[14], raw[15])).uuidString
            }
            return text == bytes.base64EncodedString()
        default:
            return false
        }
    }

    static func seconds(of text: String) -> Double? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = text.contains(".") ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        return formatter.date(from: text)?.timeIntervalSinceReferenceDate
    }

    @Test("info says the store was read with its own model, and dump gives the types it was made with")
    func infoAndTypes() throws {
        let directory = try TemporaryDirectory()
        let sample = try Self.copy(Self.stores[1], into: directory)
        let info = docstore("info", sample.path)
        #expect(info.code == 0)
        #expect(info.output.contains("\nModel:           the store's own (Z_MODELCACHE), which it "))
        #expect(info.output.contains("\nVersion hashes:  recorded for 4 entities, equal to the model's\n"))
        #expect(info.output.contains("\nModel cache:     yes (Z_MODELCACHE), used\n"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(docstore("info", sample.path, "--json").output.utf8)) as? [String: Any])
        let model = try #require(json["model"] as? [String: Any])
        #expect(model["source"] as? String == "modelCache" && model["versionHashesMatch"] as? Bool == true && model["modelCacheProblem"] is NSNull)
        let dump = docstore("dump", sample.path, "--entity", "Person").output
        #expect(dump.contains("""
              {
                "entity": "Person",
                "uri": "x-coredata://753753D3-A961-4901-AB05-8CC48B1D3853/Person/p1",
                "cars": [],
                "firstName": "Victoria",
                "id": "FEFE4176-912D-429F-9C83-662FFF641115",
                "lastName": "Coster",
                "updatedAt": "2021-04-07T15:52:49.638Z"
              }
            """))
        let cars = docstore("dump", sample.path, "--entity", "ExpensiveSportCar").output
        #expect(cars.contains("\"isLimitedEdition\": false,") && cars.contains("\"markedForDeletionAsOf\": null,"))
        let photos = try Self.copy(Self.stores[7], into: directory)
        let attributes = docstore("dump", photos.path, "--entity", "AdditionalAssetAttributes").output
        #expect(attributes.contains("\"allowedForAnalysis\": true,"))
        #expect(docstore("info", photos.path).output.contains("\nModel cache:     yes (Z_MODELCACHE), used\n"))
    }

    @Test("a store whose cache is stale is read with an inferred model, and info says why")
    func staleCache() throws {
        let directory = try TemporaryDirectory()
        let url = try Self.copy(Self.stores[4], into: directory)
        let connection = try Connection(path: url.path, configuration: .init(journalMode: nil))
        let plist = try #require(try connection.scalar("SELECT Z_PLIST FROM Z_METADATA")?.blobValue)
        var metadata = try #require(try PropertyListSerialization.propertyList(from: plist, options: [], format: nil) as? [String: Any])
        metadata["NSStoreModelVersionHashes"] = ["User": Data(repeating: 1, count: 32)]
        try connection.execute("UPDATE Z_METADATA SET Z_PLIST = ?",
                               [.blob(try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0))])
        let info = docstore("info", url.path)
        #expect(info.code == 0)
        #expect(info.output.contains("\nModel:           inferred from the store, which it "))
        #expect(info.output.contains("\nModel cache:     yes (Z_MODELCACHE), not used: the model in Z_MODELCACHE is not the one the store "
            + "was last written with (version hashes differ for User); the store was probably migrated by a tool that left the cache behind\n"))
    }

    @Test("compiled models work wherever a model is named: model M.momd, model M.mom, --model M.momd")
    func compiledModelArguments() throws {
        let bundle = Self.moreRoot.appendingPathComponent("alemar11__CoreDataPlus/Tests/Resources/SampleModel3/Fixtures/SampleModel3.momd").path
        let model = docstore("model", bundle)
        #expect(model == DocStoreRun(code: 0, output: """
            Model: \(bundle)

            User (1), table ZUSER, version hash azH06XtpHRbEyCC65V+JQI1HATvUIVHs/eHqx/5L55g=
              PROPERTY  TYPE    STORED IN
              name      String  ZNAME
              petName   String  ZPETNAME

            """, errors: ""))
        let version3 = docstore("model", bundle + "/SampleModel3_v3.mom")
        #expect(version3.code == 0 && version3.output.contains("\nPet (1), table ZPET, version hash "))
        #expect(version3.output.contains("  pet       to-one Pet (inverse owner)  ZPET\n"))
        let directory = try TemporaryDirectory()
        let store = try Self.copy(Self.stores[4], into: directory)
        let withModel = docstore("dump", store.path, "--model", bundle)
        #expect(withModel.code == 0 && withModel.errors == "")
        #expect(withModel == docstore("dump", store.path))
        #expect(docstore("info", store.path, "--model", bundle).output.contains("\nVersion hashes:  recorded for 1 entity, equal to the model's\n"))
        let damaged = directory.path("Broken.mom")
        try Data(try Data(contentsOf: URL(fileURLWithPath: bundle + "/SampleModel3.mom")).prefix(100)).write(to: damaged)
        let refused = docstore("model", damaged.path)
        #expect(refused.code == 65 && refused.output == "")
        #expect(refused.errors.hasPrefix("Error: ") && refused.errors.contains("malformed compiled model") && refused.errors.hasSuffix("\n"))
    }
}

/// A JSON value as `dump` writes it, with Booleans apart from numbers.
enum DumpValue: Decodable, Equatable, CustomStringConvertible {
    case null, bool(Bool), integer(Int64), real(Double), string(String), array([DumpValue]), object([String: DumpValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let flag = try? container.decode(Bool.self) { self = .bool(flag) }
        else if let number = try? container.decode(Int64.self) { self = .integer(number) }
        else if let number = try? container.decode(Double.self) { self = .real(number) }
        else if let text = try? container.decode(String.self) { self = .string(text) }
        else if let members = try? container.decode([DumpValue].self) { self = .array(members) }
        else { self = .object(try container.decode([String: DumpValue].self)) }
    }

    var objectFields: [String: DumpValue] {
        if case .object(let fields) = self { return fields }
        return [:]
    }

    /// The key at the end of an object URI (`…/Entity/p12` → 12).
    var key: Int64? {
        guard case .string(let uri) = self else { return nil }
        return Int64(uri.split(separator: "/").last?.dropFirst() ?? "")
    }

    var description: String {
        switch self {
        case .null: "null"
        case .bool(let flag): "\(flag)"
        case .integer(let number): "\(number)"
        case .real(let number): "\(number)"
        case .string(let text): text.debugDescription
        case .array(let members): "\(members)"
        case .object(let fields): "\(fields)"
        }
    }
}
