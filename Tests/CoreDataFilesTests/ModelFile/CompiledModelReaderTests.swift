import Foundation
import Testing
@testable import CoreDataFiles
@testable import ObjectGraph

@Suite("Compiled models (.mom, .momd) read into the model file's values")
struct CompiledModelReaderTests {
    typealias Fixtures = CompiledModelFixtures

    @Test("every .mom decodes to exactly what its .xcdatamodel holds, entity by entity and property by property",
          arguments: CompiledModelFixtures.compiledWithSource.map(\.mom))
    func equalsSource(mom: String) throws {
        let source = try #require(Fixtures.compiledWithSource.first { $0.mom == mom }?.source)
        let compiled = try CompiledModelReader.read(at: Fixtures.url(mom))
        let xml = try XCDataModelReader.read(at: Fixtures.url(source)).compiledForm
        #expect(compiled.entities.map(\.name) == xml.entities.map(\.name))
        for (compiledEntity, xmlEntity) in zip(compiled.entities, xml.entities) {
            #expect(compiledEntity.attributes == xmlEntity.attributes, "attributes of \(xmlEntity.name)")
            #expect(compiledEntity.relationships == xmlEntity.relationships, "relationships of \(xmlEntity.name)")
            #expect(compiledEntity.fetchedProperties == xmlEntity.fetchedProperties, "fetched properties of \(xmlEntity.name)")
            #expect(compiledEntity == xmlEntity, "entity \(xmlEntity.name)")
        }
        #expect(compiled == xml)
    }

    @Test("the core model built from a .mom is the one built from its source: numbers, tables, columns, defaults, hashes",
          arguments: CompiledModelFixtures.compiledWithSource.map(\.mom))
    func sameCoreModel(mom: String) throws {
        let source = try #require(Fixtures.compiledWithSource.first { $0.mom == mom }?.source)
        let compiled = try ObjectModel(contentsOf: Fixtures.url(mom))
        let xml = try ObjectModel(contentsOf: Fixtures.url(source))
        #expect(compiled.entities.map(\.name) == xml.entities.map(\.name))
        #expect(compiled.versionHashes == xml.versionHashes)
        #expect(compiled.versionIdentifier == xml.versionIdentifier)
        for (left, right) in zip(compiled.entities, xml.entities) {
            #expect(left.number == right.number && left.table == right.table && left.parent == right.parent)
            #expect(left.attributes.map(\.declaration) == right.attributes.map(\.declaration), "\(left.name)")
            #expect(left.attributes.map(\.column) == right.attributes.map(\.column), "\(left.name)")
            #expect(left.relationships.map(\.declaration) == right.relationships.map(\.declaration), "\(left.name)")
            #expect(compiled.columns(ofTable: left.table) == xml.columns(ofTable: right.table))
        }
    }

    @Test("SampleModel's compiled details: the transient default, the Boolean default, the UUID kept in history, the renamed entity, the fetch index")
    func sampleModelDetails() throws {
        let first = try CompiledModelReader.read(at: Fixtures.url(Fixtures.sampleModelBundle + "/SampleModel.mom"))
        let car = try #require(first.entity(named: "Car"))
        #expect(car.uniquenessConstraints == [["numberPlate"]])
        #expect(car.attribute(named: "currentDrivingSpeed") == XCAttribute(
            name: "currentDrivingSpeed", attributeType: "Integer 64", isOptional: true, isTransient: true, defaultValueString: "0"))
        #expect(car.attribute(named: "color") == XCAttribute(
            name: "color", attributeType: "Transformable", isOptional: true, valueTransformerName: "ColorTransformer"))
        #expect(car.attribute(named: "numberPlate") == XCAttribute(name: "numberPlate", attributeType: "String"))
        #expect(first.entity(named: "Person")?.attribute(named: "id") == XCAttribute(
            name: "id", attributeType: "UUID", preservesValueInHistoryOnDeletion: true))
        #expect(first.entity(named: "ExpensiveSportCar")?.attribute(named: "isLimitedEdition")?.defaultValueString == "NO")
        #expect(first.entity(named: "ExpensiveSportCar")?.parentEntity == "SportCar")
        #expect(first.entity(named: "SportCar")?.attributes.isEmpty == true)
        #expect(first.versionIdentifier == "1")
        #expect(car.relationship(named: "owner") == XCRelationship(
            name: "owner", destinationEntity: "Person", inverseName: "cars", inverseEntity: "Person", isOptional: true, maxCount: 1))

        let second = try CompiledModelReader.read(at: Fixtures.url(Fixtures.sampleModelBundle + "/SampleModel2.mom"))
        #expect(second.entity(named: "LuxuryCar")?.renamingIdentifier == "ExpensiveSportCar")
        #expect(second.entity(named: "Car")?.indexes == [XCIndex(name: "byMakerAndNumberPlate", elements: [
            XCIndexElement(property: "maker"), XCIndexElement(property: "numberPlate"),
        ])])
        // The archive repeats the fetch index as NSCompoundIndexes for older readers; it is one index.
        #expect(second.entity(named: "Car")?.compoundIndexes == [])
    }

    @Test("the version hashes of every compiled version equal those Xcode's compiler wrote into VersionInfo.plist",
          arguments: [CompiledModelFixtures.sampleModelBundle, CompiledModelFixtures.sampleModel3Bundle])
    func hashesEqualVersionInfo(bundlePath: String) throws {
        let bundle = try CompiledModelBundle(at: Fixtures.url(bundlePath))
        #expect(bundle.versions.count == 3)
        for version in bundle.versions {
            let recorded = try #require(version.recordedVersionHashes, "VersionInfo.plist has no hashes for \(version.name)")
            let model = try CompiledModelReader.read(at: version.url)
            #expect(try CoreDataVersionHash.entityHashes(in: model) == recorded, "\(version.name)")
            #expect(try ObjectModel(file: model).versionHashes == recorded, "\(version.name)")
        }
    }

    @Test("a .momd lists its versions in numeric order and reads the one VersionInfo.plist names")
    func bundleVersions() throws {
        let bundle = try CompiledModelBundle(at: Fixtures.url(Fixtures.sampleModelBundle))
        #expect(bundle.versions.map(\.name) == ["SampleModel", "SampleModel2", "SampleModel3"])
        #expect(bundle.current.name == "SampleModel")
        #expect(bundle.versions.map(\.recordedVersionHashes?.count) == [4, 4, 5])
        let third = try CompiledModelBundle(at: Fixtures.url(Fixtures.sampleModel3Bundle))
        #expect(third.versions.map(\.name) == ["SampleModel3", "SampleModel3_v2", "SampleModel3_v3"])
        #expect(third.current.name == "SampleModel3")
        let current = try CompiledModelReader.read(at: Fixtures.url(Fixtures.sampleModelBundle))
        #expect(current == (try CompiledModelReader.read(at: bundle.current.url)))
    }

    @Test("every path that takes a model takes a compiled one: XCDataModelReader.read and ObjectModel(contentsOf:)")
    func dispatch() throws {
        for path in [Fixtures.sampleModelBundle, Fixtures.sampleModelBundle + "/SampleModel2.mom", Fixtures.sampleModel3Bundle] {
            let url = try Fixtures.url(path)
            #expect(CompiledModelReader.isCompiledModel(url))
            #expect(try XCDataModelReader.read(at: url) == (try CompiledModelReader.read(at: url)))
            #expect(try ObjectModel(contentsOf: url).versionHashes == (try ObjectModel(file: CompiledModelReader.read(at: url)).versionHashes))
        }
        #expect(!CompiledModelReader.isCompiledModel(try Fixtures.url(Fixtures.sampleModelFolder + "/SampleModel.xcdatamodeld")))
    }

    @Test("a compiled model copied under another name (no .mom extension) is recognised by its content")
    func sniffed() throws {
        try CoreDataFixtures.withTemporaryDirectory { directory in
            let copy = directory.appendingPathComponent("model.bin")
            try FileManager.default.copyItem(at: Fixtures.url(Fixtures.sampleModelBundle + "/SampleModel3.mom"), to: copy)
            #expect(CompiledModelReader.isCompiledModel(copy))
            #expect(try XCDataModelReader.read(at: copy).entities.map(\.name) == ["Car", "LuxuryCar", "Maker", "Person", "SportCar"])
        }
    }

    @Test("an .omo, a .momd without a .mom, a missing current version and a missing file are clear errors")
    func bundleErrors() throws {
        try CoreDataFixtures.withTemporaryDirectory { directory in
            let omo = try Fixtures.url(Fixtures.sampleModelBundle + "/SampleModel.omo")
            #expect(throws: XCDataModelError(.notAModel(reason: "an optimized compiled model (.omo) is not readable; read the .mom beside it"), url: omo)) {
                try CompiledModelReader.read(at: omo)
            }
            let onlyOmo = directory.appendingPathComponent("Only.momd")
            try FileManager.default.createDirectory(at: onlyOmo, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: omo, to: onlyOmo.appendingPathComponent("Only.omo"))
            #expect(throws: XCDataModelError(.notAModel(reason: "only optimized models (.omo), which are not readable, and no .mom"), url: onlyOmo)) {
                try ObjectModel(contentsOf: onlyOmo)
            }
            let wrongCurrent = directory.appendingPathComponent("Wrong.momd")
            try FileManager.default.createDirectory(at: wrongCurrent, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Fixtures.url(Fixtures.sampleModelBundle + "/SampleModel2.mom"), to: wrongCurrent.appendingPathComponent("SampleModel2.mom"))
            try FileManager.default.copyItem(at: Fixtures.url(Fixtures.sampleModelBundle + "/VersionInfo.plist"), to: wrongCurrent.appendingPathComponent("VersionInfo.plist"))
            #expect(throws: XCDataModelError(.notAModel(reason: "VersionInfo.plist names the current version \"SampleModel\", which is not in the folder"),
                                             url: wrongCurrent.appendingPathComponent("VersionInfo.plist"))) {
                try XCDataModelReader.read(at: wrongCurrent)
            }
            let missing = directory.appendingPathComponent("Missing.mom")
            #expect(throws: XCDataModelError(.fileNotFound, url: missing)) { try XCDataModelReader.read(at: missing) }
            let error = XCDataModelError(.malformedArchive(reason: "object 3 contains itself"), url: wrongCurrent.appendingPathComponent("SampleModel2.mom"))
            #expect(error.description == "Core Data model error: malformed compiled model: object 3 contains itself (Wrong.momd/SampleModel2.mom)")
        }
    }
}
