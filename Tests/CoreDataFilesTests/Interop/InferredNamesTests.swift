import Foundation
import CoreDataFiles
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

/// Names inferred from stores alone, against the names their models declare: every column of
/// every store whose model is among the fixtures.
@Suite("Inferred names read as the developer wrote them, measured on every column of real stores")
struct InferredNamesTests {
    struct Case: CustomStringConvertible {
        var store: String
        var model: String
        var more = true
        /// Columns whose inferred name equals the model's, of all the store's property columns.
        var right: Int
        var total: Int
        var description: String { store }
    }

    static let cases = [
        Case(store: AppleStores.moneyWell, model: "moneywell/MoneyWell.xcdatamodel", more: false, right: 151, total: 255),
        Case(store: AppleStores.bsManagedDocument, model: "bsmanageddocument/Model.xcdatamodeld/Model 1.xcdatamodel", more: false,
             right: 2, total: 2),
        Case(store: CoreDataMigrationComparisonTests.sampleModel + "Fixtures/SampleModel_V1.sqlite",
             model: CoreDataMigrationComparisonTests.sampleModel + "SampleModel.xcdatamodeld/SampleModel.xcdatamodel", right: 9, total: 11),
        Case(store: CoreDataMigrationComparisonTests.sampleModel + "Fixtures/SampleModel_V2.sqlite",
             model: CoreDataMigrationComparisonTests.sampleModel + "SampleModel.xcdatamodeld/SampleModel2.xcdatamodel", right: 7, total: 9),
        Case(store: "alemar11__CoreDataPlus/Tests/Resources/SampleModel3/Fixtures/SampleModel3_V1.sqlite",
             model: "alemar11__CoreDataPlus/Tests/Resources/SampleModel3/SampleModel3.xcdatamodeld/SampleModel3.xcdatamodel", right: 2, total: 2),
        Case(store: CoreDataMigrationComparisonTests.wibosco + "CoreDataMigration_Example_1.sqlite",
             model: CoreDataMigrationComparisonTests.wiboscoModels + "CoreDataMigration_Example.xcdatamodel", right: 3, total: 3),
        Case(store: CoreDataMigrationComparisonTests.wibosco + "CoreDataMigration_Example_2.sqlite",
             model: CoreDataMigrationComparisonTests.wiboscoModels + "CoreDataMigration_Example 2.xcdatamodel", right: 2, total: 3),
        Case(store: CoreDataMigrationComparisonTests.wibosco + "CoreDataMigration_Example_3.sqlite",
             model: CoreDataMigrationComparisonTests.wiboscoModels + "CoreDataMigration_Example 3.xcdatamodel", right: 6, total: 6),
        Case(store: CoreDataMigrationComparisonTests.wibosco + "CoreDataMigration_Example_WAL.sqlite",
             model: CoreDataMigrationComparisonTests.wiboscoModels + "CoreDataMigration_Example 4.xcdatamodel", right: 7, total: 7),
    ]

    /// `TABLE.COLUMN` → the name the model gives the property stored there.
    static func truth(_ model: ObjectModel) -> [String: String] {
        var names: [String: String] = [:]
        for entity in model.entities {
            for attribute in entity.attributes where attribute.declaringEntity == entity.number {
                if let column = attribute.column { names["\(entity.table).\(column)"] = attribute.name }
            }
            for relationship in entity.relationships where relationship.declaringEntity == entity.number {
                if case .foreignKey(let column, _) = relationship.storage { names["\(entity.table).\(column)"] = relationship.name }
            }
        }
        return names
    }

    @Test("the inferred names equal the model's for as many columns as measured, and each spells its column", arguments: cases)
    func measure(_ testCase: Case) throws {
        let directory = try TemporaryDirectory()
        let store = testCase.more ? try AppleStores.copyMore(testCase.store, into: directory) : try AppleStores.copy(testCase.store, into: directory)
        let model = try ObjectModel(contentsOf: testCase.more ? AppleStores.more(testCase.model) : CoreDataFixtures.url(testCase.model))
        let truth = Self.truth(model)
        let inferred = try StoreModelInference.infer(fromStoreAt: store)
        var wrong: [String] = []
        var right = 0
        for column in inferred.columns where column.role != .entityColumn {
            #expect(column.property.uppercased() == String(column.column.dropFirst()).withoutClashNumber(in: column.property))
            guard let name = truth["\(column.table).\(column.column)"] else { continue }
            if name == column.property { right += 1 } else { wrong.append("\(name) read as \(column.property)") }
        }
        #expect(right + wrong.count == testCase.total)
        #expect(right == testCase.right, "\(wrong.sorted())")
    }

    @Test("names the store's own SQL spells are taken as they are: constraints, Xcode's fetch indexes, derived attributes' triggers")
    func evidence() throws {
        let directory = try TemporaryDirectory()
        func names(_ path: String) throws -> Set<String> {
            let inferred = try StoreModelInference.infer(fromStoreAt: try AppleStores.copyMore(path, into: directory))
            return Set(inferred.columns.map { "\($0.entity).\($0.property)" })
        }
        let sampleModel2 = try names("alemar11__CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V2.sqlite")
        // From Z_DA_…('ZBOOK', Z_ENT, Z_PK, 'pagesCount', ZPAGESCOUNT), Z_Book_UNIQUE_uniqueID and Z_Author_UNIQUE_alias.
        #expect(sampleModel2.isSuperset(of: ["Book.pagesCount", "Book.uniqueID", "Author.alias"]))
        let photos = try names(DocStoreFixtures.photos)
        // From Z_AdditionalAssetAttributes_byAdjustedFingerPrintIndex, Z_CloudMaster_byCloudMasterGUIDIndex,
        // Z_Codec_UNIQUE_fourCharCodeName, Z_AssetAnalysisState_bySortTokenIndex, Z_GenericAlbum_byUuidIndex…
        #expect(photos.isSuperset(of: [
            "AdditionalAssetAttributes.adjustedFingerPrint", "CloudMaster.cloudMasterGUID", "Codec.fourCharCodeName",
            "AssetAnalysisState.sortToken", "AssetAnalysisState.workerType", "GenericAlbum.uuid", "Keyword.title",
            "AdditionalAssetAttributes.reverseLocationDataIsValid",
        ]))
        // … and their words spell other columns: `uploadAttempts` from byUploadAttemptsIndex helps `lastUploadAttemptDate`.
        #expect(photos.isSuperset(of: ["AdditionalAssetAttributes.lastUploadAttemptDate", "AdditionalAssetAttributes.embeddedThumbnailWidth"]))
    }
}

enum DocStoreFixtures {
    static let photos = "openhouse__osxphotos/tests/Test-10.15.1.photoslibrary/database/Photos.sqlite"
}

extension String {
    /// The column without the number Core Data adds to a name another entity of the table took.
    func withoutClashNumber(in property: String) -> String {
        property.uppercased() == self ? self : String(reversed().drop { $0.isNumber }.reversed())
    }
}
