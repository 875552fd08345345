import Foundation
import SQLiteDB
import Testing
@testable import CoreDataFiles
@testable import ObjectGraph

/// Version hashes compared, entity by entity, with what Apple's tools wrote: the hashes Xcode's
/// model compiler put in `VersionInfo.plist`, and the `NSStoreModelVersionHashes` of stores
/// Core Data made. Both are read here with Foundation's property list reader, not our code.
@Suite("Version hashes equal Apple's, entity by entity")
struct AppleVersionHashTests {
    static let coreDataPlus = "alemar11__CoreDataPlus/Tests/Resources/"
    static let wibosco = "wibosco__CoreDataMigration-Example/"
    static let wiboscoModels = wibosco + "CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld/"
    static let wiboscoStores = wibosco + "CoreDataMigration-ExampleTests/Resources/SQLite/"

    /// (compiled bundle, model bundle): each `.momd` was compiled from that `.xcdatamodeld`.
    static let compiled: [(momd: String, modeld: String)] = [
        (coreDataPlus + "SampleModel/Fixtures/SampleModel.momd", coreDataPlus + "SampleModel/SampleModel.xcdatamodeld"),
        (coreDataPlus + "SampleModel3/Fixtures/SampleModel3.momd", coreDataPlus + "SampleModel3/SampleModel3.xcdatamodeld"),
    ]

    /// (store Core Data made, the model version it was made or migrated with).
    static let stores: [(store: String, model: String)] = [
        (coreDataPlus + "SampleModel/Fixtures/SampleModel_V1.sqlite", coreDataPlus + "SampleModel/SampleModel.xcdatamodeld/SampleModel.xcdatamodel"),
        (coreDataPlus + "SampleModel/Fixtures/SampleModel_V2.sqlite", coreDataPlus + "SampleModel/SampleModel.xcdatamodeld/SampleModel2.xcdatamodel"),
        (coreDataPlus + "SampleModel3/Fixtures/SampleModel3_V1.sqlite", coreDataPlus + "SampleModel3/SampleModel3.xcdatamodeld/SampleModel3.xcdatamodel"),
        (wiboscoStores + "CoreDataMigration_Example_1.sqlite", wiboscoModels + "CoreDataMigration_Example.xcdatamodel"),
        (wiboscoStores + "CoreDataMigration_Example_2.sqlite", wiboscoModels + "CoreDataMigration_Example 2.xcdatamodel"),
        (wiboscoStores + "CoreDataMigration_Example_3.sqlite", wiboscoModels + "CoreDataMigration_Example 3.xcdatamodel"),
        (wiboscoStores + "CoreDataMigration_Example_WAL.sqlite", wiboscoModels + "CoreDataMigration_Example 4.xcdatamodel"),
    ]

    static func base64(_ hashes: [String: Data]) -> [String: String] { hashes.mapValues { $0.base64EncodedString() } }

    @Test("every entity of every version hashes as Xcode's model compiler wrote in VersionInfo.plist", arguments: compiled.indices)
    func compiledHashes(index: Int) throws {
        let (momd, modeld) = Self.compiled[index]
        let data = try Data(contentsOf: try CoreDataFixtures.more(momd + "/VersionInfo.plist"))
        let plist = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        let versions = try #require(plist["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]])
        #expect(versions.count == 3)
        for (version, apple) in versions.sorted(by: { $0.key < $1.key }) {
            let file = try XCDataModelReader.read(at: try CoreDataFixtures.more("\(modeld)/\(version).xcdatamodel"))
            let ours = try CoreDataVersionHash.entityHashes(in: file)
            #expect(Self.base64(ours) == Self.base64(apple), "\(version)")
            // The model the object graph builds (and writes into stores) carries the same hashes.
            let model = try ObjectModel(file: file)
            #expect(Self.base64(model.versionHashes) == Self.base64(apple), "\(version)")
        }
    }

    @Test("every Apple-made store's NSStoreModelVersionHashes are its model's", arguments: stores.indices)
    func storeHashes(index: Int) throws {
        let (store, modelPath) = Self.stores[index]
        let recorded = try CoreDataFixtures.withTemporaryDirectory { directory in
            try Self.recordedHashes(of: try CoreDataFixtures.copyStore(store, to: directory))
        }
        let model = try ObjectModel(contentsOf: try CoreDataFixtures.more(modelPath))
        #expect(!recorded.isEmpty)
        for name in recorded.keys.sorted() {
            #expect(model.entity(named: name)?.versionHash.base64EncodedString() == recorded[name]?.base64EncodedString(), "\(store): \(name)")
        }
        #expect(Set(model.entities.map(\.name)) == Set(recorded.keys))
    }

    /// `NSStoreModelVersionHashes` as Core Data wrote it, read with SQLite and Foundation only.
    static func recordedHashes(of store: URL) throws -> [String: Data] {
        let connection = try Connection(path: store.path, configuration: .init(readOnly: true, create: false, journalMode: nil, synchronous: nil))
        let blob = try #require(try connection.scalar("SELECT Z_PLIST FROM Z_METADATA")?.blobValue)
        let plist = try PropertyListSerialization.propertyList(from: blob, format: nil) as? [String: Any]
        return try #require(plist?["NSStoreModelVersionHashes"] as? [String: Data])
    }

    // MARK: - A model made in code, with a derived attribute

    /// CoreDataPlus's SampleModel2, made in code (no model file): what its stores' model caches
    /// hold, written out by hand. `pagesCount` is derived from `pages.@count`, which Core Data
    /// keeps as the function `count:(pages)`; its to-many `books` has no maximum (`Int.max`,
    /// which the 32-bit count in the hash wraps to -1, as Core Data's does).
    static func sampleModel2(version: Int) -> [EntityDescription] {
        let cover = version == 1 ? "cover" : "frontCover"
        var author = [AttributeDescription(name: "alias", type: .string, isOptional: false)]
        if version == 1 { author.append(AttributeDescription(name: "siteURL", type: .uri)) }
        return [
            EntityDescription(name: "Writer", isAbstract: true, attributes: [AttributeDescription(name: "age", type: .integer16, isOptional: false)]),
            EntityDescription(name: "Author", parent: "Writer", attributes: author,
                              relationships: [RelationshipDescription(name: "books", destination: "Book", inverse: "author",
                                                                      isToMany: true, maxCount: Int.max)],
                              uniquenessConstraints: [["alias"]]),
            EntityDescription(name: "Feedback", attributes: [
                AttributeDescription(name: "authorAlias", type: .string, isOptional: false),
                AttributeDescription(name: "bookID", type: .uuid, isOptional: false),
                AttributeDescription(name: "comment", type: .string),
                AttributeDescription(name: "rating", type: .double, isOptional: false),
            ]),
            EntityDescription(name: "Book", attributes: [
                AttributeDescription(name: cover, type: .transformable, isOptional: false),
                AttributeDescription(name: "pagesCount", type: .integer64, derivationExpression: "pages.@count"),
                AttributeDescription(name: "price", type: .decimal, isOptional: false),
                AttributeDescription(name: "publishedAt", type: .date, isOptional: false),
                AttributeDescription(name: "title", type: .string, isOptional: false),
                AttributeDescription(name: "uniqueID", type: .uuid, isOptional: false),
            ], relationships: [
                RelationshipDescription(name: "author", destination: "Author", inverse: "books", isOptional: false, minCount: 1),
                RelationshipDescription(name: "pages", destination: "Page", inverse: "book", isToMany: true, isOptional: false,
                                        minCount: 1, maxCount: 10_000),
            ], uniquenessConstraints: [["uniqueID"]]),
            EntityDescription(name: "GraphicNovel", parent: "Book", attributes: [
                AttributeDescription(name: "isBlackAndWhite", type: .boolean, isOptional: false),
            ]),
            EntityDescription(name: "Page", attributes: [
                AttributeDescription(name: "content", type: .transformable, isOptional: false),
                AttributeDescription(name: "isBookmarked", type: .boolean, isOptional: false),
                AttributeDescription(name: "number", type: .integer32, isOptional: false),
            ], relationships: [
                RelationshipDescription(name: "book", destination: "Book", inverse: "pages", isOptional: false, minCount: 1),
            ]),
        ]
    }

    @Test("a derived attribute hashes as Core Data keeps it: SampleModel2's stores, all six entities", arguments: [1, 2])
    func derivedAttribute(version: Int) throws {
        let recorded = try CoreDataFixtures.withTemporaryDirectory { directory in
            try Self.recordedHashes(of: try CoreDataFixtures.copyStore(
                Self.coreDataPlus + "SampleModel2/Fixtures/SampleModel2_V\(version).sqlite", to: directory))
        }
        let ours = try CoreDataVersionHash.entityHashes(of: Self.sampleModel2(version: version))
        #expect(Self.base64(ours) == Self.base64(recorded))
        // Written as a model file would write it or as Core Data keeps it, the hash is the same.
        var canonical = Self.sampleModel2(version: version)
        canonical[3].attributes[1].derivationExpression = "count:(pages)"
        #expect(Self.base64(try CoreDataVersionHash.entityHashes(of: canonical)) == Self.base64(recorded))
    }

    @Test("derivation expressions are hashed in NSExpression's canonical form")
    func canonicalExpressions() {
        let cases: [(String, String)] = [
            ("pages.@count", "count:(pages)"), ("book.pages.@count", "count:(book.pages)"),
            ("lines.@sum", "sum:(lines)"), ("lines.@total", "sum:(lines)"), (" tags.@count ", "count:(tags)"),
            ("canonical:(title)", "canonical:(title)"), ("now()", "now()"), ("author.name", "author.name"),
            ("@count", "@count"), ("a b.@count", "a b.@count"),
        ]
        for (written, canonical) in cases {
            #expect(CoreDataVersionHash.canonicalDerivationExpression(written) == canonical, "\(written)")
        }
    }
}
