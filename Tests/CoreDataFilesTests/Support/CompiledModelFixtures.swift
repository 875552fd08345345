@testable import CoreDataFiles
import Foundation
import ObjectGraph
import SQLiteDB
import TestSupport

/// The compiled models and Apple-made stores of `Fixtures/coredata-more/` (see the fixtures
/// README), and what a compiled model keeps of a model file.
enum CompiledModelFixtures {
    static let sampleModelFolder = "alemar11__CoreDataPlus/Tests/Resources/SampleModel"
    static let sampleModel3Folder = "alemar11__CoreDataPlus/Tests/Resources/SampleModel3"
    static let sampleModelBundle = sampleModelFolder + "/Fixtures/SampleModel.momd"
    static let sampleModel3Bundle = sampleModel3Folder + "/Fixtures/SampleModel3.momd"

    /// Every compiled version with the `.xcdatamodel` it was compiled from.
    static let compiledWithSource: [(mom: String, source: String)] = [
        (sampleModelBundle + "/SampleModel.mom", sampleModelFolder + "/SampleModel.xcdatamodeld/SampleModel.xcdatamodel"),
        (sampleModelBundle + "/SampleModel2.mom", sampleModelFolder + "/SampleModel.xcdatamodeld/SampleModel2.xcdatamodel"),
        (sampleModelBundle + "/SampleModel3.mom", sampleModelFolder + "/SampleModel.xcdatamodeld/SampleModel3.xcdatamodel"),
        (sampleModel3Bundle + "/SampleModel3.mom", sampleModel3Folder + "/SampleModel3.xcdatamodeld/SampleModel3.xcdatamodel"),
        (sampleModel3Bundle + "/SampleModel3_v2.mom", sampleModel3Folder + "/SampleModel3.xcdatamodeld/SampleModel3_v2.xcdatamodel"),
        (sampleModel3Bundle + "/SampleModel3_v3.mom", sampleModel3Folder + "/SampleModel3.xcdatamodeld/SampleModel3_v3.xcdatamodel"),
    ]

    /// An Apple-made store with a model cache: its path and the entities its model has.
    struct AppleStore: Sendable, CustomStringConvertible {
        var path: String
        var entityCount: Int
        /// The files beside the store that belong to it (`-wal`).
        var companions: [String] = []
        var description: String { URL(fileURLWithPath: path).lastPathComponent }
    }

    static let storesWithCache: [AppleStore] = [
        AppleStore(path: "../coredata/moneywell/Test.moneywell/StoreContent/persistentStore", entityCount: 26),
        AppleStore(path: sampleModelFolder + "/Fixtures/SampleModel_V1.sqlite", entityCount: 4),
        AppleStore(path: sampleModelFolder + "/Fixtures/SampleModel_V2.sqlite", entityCount: 4),
        AppleStore(path: "alemar11__CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V2.sqlite", entityCount: 6),
        AppleStore(path: sampleModel3Folder + "/Fixtures/SampleModel3_V1.sqlite", entityCount: 1),
        AppleStore(path: "wibosco__CoreDataMigration-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_1.sqlite", entityCount: 1),
        AppleStore(path: "wibosco__CoreDataMigration-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_2.sqlite", entityCount: 1),
        AppleStore(path: "wibosco__CoreDataMigration-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_WAL.sqlite",
                   entityCount: 2, companions: ["-wal"]),
        AppleStore(path: "openhouse__osxphotos/tests/Test-10.15.1.photoslibrary/database/Photos.sqlite", entityCount: 53),
    ]

    /// `Fixtures/coredata-more/<path>` inside the test bundle.
    static func url(_ path: String) throws -> URL {
        guard let root = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw CoreDataFixtures.Missing(description: "the test bundle has no Fixtures folder")
        }
        let url = root.appendingPathComponent("coredata-more").appendingPathComponent(path).standardizedFileURL
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CoreDataFixtures.Missing(description: "no fixture at \(url.path)")
        }
        return url
    }

    /// A copy of `store` (and its companions) in `directory`, which reading may change.
    static func copy(_ store: AppleStore, into directory: TemporaryDirectory) throws -> URL {
        let source = try url(store.path)
        let destination = directory.path(source.lastPathComponent)
        try FileManager.default.copyItem(at: source, to: destination)
        for suffix in store.companions {
            try FileManager.default.copyItem(at: URL(fileURLWithPath: source.path + suffix),
                                             to: URL(fileURLWithPath: destination.path + suffix))
        }
        return destination
    }

    /// The store's `NSStoreModelVersionHashes`.
    static func recordedHashes(of store: URL) throws -> [String: Data] {
        let connection = try Connection(path: store.path, configuration: .init(readOnly: true, journalMode: nil, synchronous: nil))
        return try StoreMetadata(connection: connection).versionHashes
    }
}

extension XCDataModelFile {
    /// What Xcode's model compiler keeps of this model: its entities and properties in name
    /// order, without Xcode's bookkeeping (tool versions, the source language), code
    /// generation hints (`usesScalarValueType`, a transformable's custom class) or the
    /// attributes of fetch requests beyond name, entity and predicate.
    var compiledForm: XCDataModelFile {
        var model = self
        model.documentVersion = nil
        model.lastSavedToolsVersion = nil
        model.systemVersion = nil
        model.minimumToolsVersion = nil
        model.sourceLanguage = nil
        model.entities = model.entities.map { entity in
            var entity = entity
            entity.attributes = entity.attributes.map { attribute in
                var attribute = attribute
                attribute.usesScalarValueType = false
                attribute.customClassName = nil
                return attribute
            }.sorted { CompiledModelDecoder.precedes($0.name, $1.name) }
            entity.relationships.sort { CompiledModelDecoder.precedes($0.name, $1.name) }
            entity.fetchedProperties.sort { CompiledModelDecoder.precedes($0.name, $1.name) }
            return entity
        }.sorted { CompiledModelDecoder.precedes($0.name, $1.name) }
        return model
    }
}
