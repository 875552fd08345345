import ObjectGraphTestModels
import Foundation
import Testing
@testable import CoreDataFiles
@testable import ObjectGraph

@Suite("Reading .xcdatamodel and .xcdatamodeld files")
struct XCDataModelReaderTests {
    // MARK: - BSManagedDocument (a real Xcode 4.5 model)

    @Test("reads Model 1 of the BSManagedDocument model: Ebook with two required attributes")
    func bsManagedDocumentModel1() throws {
        let url = try CoreDataFixtures.url("bsmanageddocument/Model.xcdatamodeld/Model 1.xcdatamodel")
        let model = try XCDataModelReader.read(at: url)
        #expect(model == XCDataModelFile(
            entities: [
                XCEntity(name: "Ebook", representedClassName: "Ebook", attributes: [
                    XCAttribute(name: "contents", attributeType: "Binary"),
                    XCAttribute(name: "title", attributeType: "String"),
                ]),
            ],
            versionIdentifier: "",
            documentVersion: "1.0",
            lastSavedToolsVersion: "1811",
            systemVersion: "12C60",
            minimumToolsVersion: "Xcode 4.3"))
        // No optional="YES" means required; Apple's version hash for this store confirms it.
        #expect(model.entities[0].attributes.map(\.isOptional) == [false, false])
    }

    @Test("reads Model 2 of the BSManagedDocument model with importDate's default")
    func bsManagedDocumentModel2() throws {
        let url = try CoreDataFixtures.url("bsmanageddocument/Model.xcdatamodeld")
        let model = try XCDataModelReader.read(at: url)
        let ebook = try #require(model.entity(named: "Ebook"))
        #expect(ebook.attributes.map(\.name) == ["contents", "importDate", "title"])
        #expect(ebook.attribute(named: "importDate") == XCAttribute(
            name: "importDate", attributeType: "Date", defaultDateTimeInterval: 380_894_400))
        #expect(ebook.attribute(named: "importDate")?.attributeTypeCode == 900)
    }

    @Test("lists both BSManagedDocument versions and marks the one .xccurrentversion names")
    func bsManagedDocumentVersions() throws {
        let url = try CoreDataFixtures.url("bsmanageddocument/Model.xcdatamodeld")
        let versions = try XCDataModelReader.versions(at: url)
        #expect(versions.map(\.name) == ["Model 1", "Model 2"])
        #expect(versions.map(\.isCurrent) == [false, true])
        #expect(versions.map(\.url.lastPathComponent) == ["Model 1.xcdatamodel", "Model 2.xcdatamodel"])
    }

    @Test("reading the contents file, its folder or the bundle's current version gives the same model")
    func sameModelEveryWay() throws {
        let folder = try CoreDataFixtures.url("bsmanageddocument/Model.xcdatamodeld/Model 2.xcdatamodel")
        let fromFolder = try XCDataModelReader.read(at: folder)
        let fromFile = try XCDataModelReader.read(at: folder.appendingPathComponent("contents"))
        let fromBundle = try XCDataModelReader.read(at: folder.deletingLastPathComponent())
        let fromData = try XCDataModelReader.parse(Data(contentsOf: folder.appendingPathComponent("contents")))
        #expect(fromFolder == fromFile)
        #expect(fromFolder == fromBundle)
        #expect(fromFolder == fromData)
    }

    // MARK: - Versions without .xccurrentversion

    @Test("without .xccurrentversion the versions sort numerically and the last is current")
    func versionsWithoutCurrentVersionFile() throws {
        let url = try CoreDataFixtures.url("vacations/Versions.xcdatamodeld")
        let versions = try XCDataModelReader.versions(at: url)
        #expect(versions.map(\.name) == ["Model", "Model 2", "Model 10"])
        #expect(versions.map(\.isCurrent) == [false, false, true])
        #expect(try XCDataModelReader.read(at: url).versionIdentifier == "Model 10")
    }

    @Test("a .xccurrentversion name without the .xcdatamodel extension still finds the version")
    func currentVersionWithoutExtension() throws {
        try CoreDataFixtures.withTemporaryDirectory { directory in
            let bundle = directory.appendingPathComponent("Notes.xcdatamodeld")
            for version in ["A", "B"] {
                try CoreDataFixtures.write(
                    String(decoding: CoreDataFixtures.model("<entity name=\"\(version)\"/>"), as: UTF8.self),
                    to: "Notes.xcdatamodeld/\(version).xcdatamodel/contents", in: directory)
            }
            try CoreDataFixtures.write("""
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>A</string></dict></plist>
                """, to: "Notes.xcdatamodeld/.xccurrentversion", in: directory)
            #expect(try XCDataModelReader.versions(at: bundle).map(\.isCurrent) == [true, false])
            #expect(try XCDataModelReader.read(at: bundle).entities.map(\.name) == ["A"])
        }
    }

    @Test("a .xccurrentversion without _XCCurrentVersionName falls back to the last version")
    func currentVersionFileWithoutKey() throws {
        try CoreDataFixtures.withTemporaryDirectory { directory in
            let bundle = directory.appendingPathComponent("Notes.xcdatamodeld")
            for version in ["A", "B"] {
                try CoreDataFixtures.write(
                    String(decoding: CoreDataFixtures.model("<entity name=\"\(version)\"/>"), as: UTF8.self),
                    to: "Notes.xcdatamodeld/\(version).xcdatamodel/contents", in: directory)
            }
            try CoreDataFixtures.write("""
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict><key>Other</key><string>A</string></dict></plist>
                """, to: "Notes.xcdatamodeld/.xccurrentversion", in: directory)
            #expect(try XCDataModelReader.read(at: bundle).entities.map(\.name) == ["B"])
        }
    }

    // MARK: - Everything (our fixture)

    @Test("reads the model-level parts of Everything: identifier, tools, fetch request, configuration")
    func everythingModelLevel() throws {
        let model = try XCDataModelReader.read(at: CoreDataFixtures.url("vacations/Everything.xcdatamodel"))
        #expect(model.entities.map(\.name) == ["Item", "Photo", "Place", "Tag", "Video"])
        #expect(model.versionIdentifier == "v3")
        #expect(model.lastSavedToolsVersion == "22522")
        #expect(model.systemVersion == "23A344")
        #expect(model.minimumToolsVersion == "Automatic")
        #expect(model.sourceLanguage == "Swift")
        #expect(model.configurations == [XCConfiguration(name: "Cloud", entityNames: ["Photo", "Tag"],
                                                         usedWithCloudKit: true)])
        #expect(model.fetchRequests.count == 1)
        #expect(model.fetchRequests.first?.name == "VisitedPhotos")
        #expect(model.fetchRequests.first?.entity == "Photo")
        #expect(model.fetchRequests.first?.predicateString == "visited == YES")
        #expect(model.fetchRequests.first?.attributes["fetchLimit"] == "10")
    }

    @Test("reads every attribute type Xcode writes, with its type code")
    func everyAttributeType() throws {
        let model = try XCDataModelReader.read(at: CoreDataFixtures.url("vacations/Everything.xcdatamodel"))
        let photo = try #require(model.entity(named: "Photo"))
        let item = try #require(model.entity(named: "Item"))
        let types = Dictionary(uniqueKeysWithValues: (item.attributes + photo.attributes).map {
            ($0.name, "\($0.attributeType)=\($0.attributeTypeCode ?? -1)")
        })
        #expect(types == [
            "created": "Date=900", "identifier": "UUID=1100", "note": "String=700",
            "bytes": "Integer 64=300", "dateTaken": "Date=900", "deletedTag": "String=700",
            "favorites": "Integer 32=200", "imageURL": "URI=1200", "latitude": "Double=500",
            "longitude": "Float=600", "metadata": "Transformable=1800", "price": "Decimal=400",
            "scratch": "Undefined=0", "sourceID": "Object ID=2000", "thumbnail": "Binary=1000",
            "title": "String=700", "unique": "String=700", "views": "Integer 16=100",
            "visited": "Boolean=800",
        ])
    }

    @Test("reads attribute flags, defaults, ranges, transformer and renaming identifier exactly")
    func attributeDetails() throws {
        let model = try XCDataModelReader.read(at: CoreDataFixtures.url("vacations/Everything.xcdatamodel"))
        let photo = try #require(model.entity(named: "Photo"))
        #expect(photo.attribute(named: "bytes") == XCAttribute(
            name: "bytes", attributeType: "Integer 64", isOptional: true, isIndexed: true,
            defaultValueString: "0"))
        #expect(photo.attribute(named: "dateTaken") == XCAttribute(
            name: "dateTaken", attributeType: "Date", isOptional: true,
            minDateTimeInterval: -978_307_200, maxDateTimeInterval: 1_000_000_000))
        #expect(photo.attribute(named: "deletedTag") == XCAttribute(
            name: "deletedTag", attributeType: "String", isOptional: true, isIndexedBySpotlight: true,
            preservesValueInHistoryOnDeletion: true, versionHashModifier: "b"))
        #expect(photo.attribute(named: "metadata") == XCAttribute(
            name: "metadata", attributeType: "Transformable", isOptional: true,
            valueTransformerName: "NSSecureUnarchiveFromData", customClassName: "[String: String]"))
        #expect(photo.attribute(named: "thumbnail") == XCAttribute(
            name: "thumbnail", attributeType: "Binary", isOptional: true, allowsExternalBinaryDataStorage: true))
        #expect(photo.attribute(named: "title") == XCAttribute(
            name: "title", attributeType: "String", isOptional: true, defaultValueString: "Untitled",
            renamingIdentifier: "caption"))
        #expect(photo.attribute(named: "unique") == XCAttribute(
            name: "unique", attributeType: "String", minValueString: "1", maxValueString: "32",
            regularExpressionString: "^[0-9]+$"))
        #expect(photo.attribute(named: "views") == XCAttribute(
            name: "views", attributeType: "Integer 16", defaultValueString: "0", usesScalarValueType: true))
        #expect(photo.attribute(named: "scratch") == XCAttribute(
            name: "scratch", attributeType: "Undefined", isOptional: true, isTransient: true))
        let tag = try #require(model.entity(named: "Tag"))
        #expect(tag.attribute(named: "name")?.userInfo == ["fold": "case"])
        let item = try #require(model.entity(named: "Item"))
        #expect(item.attribute(named: "created")?.defaultDateTimeInterval == 0)
        #expect(item.attribute(named: "note")?.isTransient == true)
    }

    @Test("reads relationships: to-one, ordered to-many, bounded self-inverse, transient, required with Deny")
    func relationships() throws {
        let model = try XCDataModelReader.read(at: CoreDataFixtures.url("vacations/Everything.xcdatamodel"))
        let photo = try #require(model.entity(named: "Photo"))
        #expect(photo.relationships == [
            XCRelationship(name: "cachedPlace", destinationEntity: "Place", isOptional: true, isTransient: true,
                           maxCount: 1),
            XCRelationship(name: "place", destinationEntity: "Place", inverseName: "photos",
                           inverseEntity: "Place", isOptional: true, maxCount: 1),
            XCRelationship(name: "similar", destinationEntity: "Photo", inverseName: "similar",
                           inverseEntity: "Photo", isToMany: true, isOptional: true,
                           deletionRule: "No Action", maxCount: 5),
            XCRelationship(name: "tags", destinationEntity: "Tag", inverseName: "photos", inverseEntity: "Tag",
                           isToMany: true, isOrdered: true, isOptional: true),
        ])
        #expect(photo.relationships.map(\.maxCount) == [1, 1, 5, 0])
        let place = try #require(model.entity(named: "Place"))
        #expect(place.relationship(named: "photos") == XCRelationship(
            name: "photos", destinationEntity: "Photo", inverseName: "place", inverseEntity: "Photo",
            isToMany: true, deletionRule: "Deny", minCount: 1))
        #expect(model.entity(named: "Tag")?.relationship(named: "photos")?.deletionRule == "Cascade")
    }

    @Test("reads inheritance, abstract entities, renaming identifier and modifier of entities")
    func inheritance() throws {
        let model = try XCDataModelReader.read(at: CoreDataFixtures.url("vacations/Everything.xcdatamodel"))
        let item = try #require(model.entity(named: "Item"))
        let photo = try #require(model.entity(named: "Photo"))
        let video = try #require(model.entity(named: "Video"))
        #expect(item.isAbstract)
        #expect(!photo.isAbstract)
        #expect(photo.parentEntity == "Item")
        #expect(photo.renamingIdentifier == "Picture")
        #expect(photo.versionHashModifier == "2")
        #expect(photo.userInfo == ["source": "flickr"])
        #expect(model.ancestors(of: video).map(\.name) == ["Photo", "Item"])
        #expect(model.subentities(of: item).map(\.name) == ["Photo"])
        #expect(model.subentities(of: photo).map(\.name) == ["Video"])
    }

    @Test("reads uniqueness constraints, fetch indexes, compound indexes and fetched properties")
    func constraintsAndIndexes() throws {
        let model = try XCDataModelReader.read(at: CoreDataFixtures.url("vacations/Everything.xcdatamodel"))
        let photo = try #require(model.entity(named: "Photo"))
        #expect(photo.uniquenessConstraints == [["unique"], ["title", "dateTaken"]])
        #expect(model.entity(named: "Item")?.uniquenessConstraints == [["identifier"]])
        #expect(photo.indexes == [
            XCIndex(name: "byDateTaken", elements: [XCIndexElement(property: "dateTaken", isAscending: false)]),
            XCIndex(name: "byPlaceAndTitle", elements: [
                XCIndexElement(property: "place"), XCIndexElement(property: "title"),
            ]),
        ])
        #expect(photo.indexes.map(\.propertyNames) == [["dateTaken"], ["place", "title"]])
        #expect(model.entity(named: "Place")?.compoundIndexes == [["name"]])
        #expect(photo.fetchedProperties == [
            XCFetchedProperty(name: "laterPhotos", isOptional: true, fetchRequest: XCFetchRequest(
                name: "fetchedPropertyFetchRequest", entity: "Photo",
                predicateString: "dateTaken > $FETCH_SOURCE.dateTaken",
                attributes: ["name": "fetchedPropertyFetchRequest", "entity": "Photo",
                             "predicateString": "dateTaken > $FETCH_SOURCE.dateTaken"])),
        ])
        #expect(photo.propertyNames.count == 16 + 4 + 1)
    }

    @Test("reads the 26-entity MoneyWell model rebuilt from its store, with two levels of inheritance")
    func moneyWell() throws {
        let model = try XCDataModelReader.read(at: CoreDataFixtures.url("moneywell/MoneyWell.xcdatamodel"))
        #expect(model.entities.count == 26)
        #expect(model.entities.filter(\.isAbstract).map(\.name) == ["Activity"])
        let event = try #require(model.entity(named: "Event"))
        #expect(model.ancestors(of: event).map(\.name) == ["ScheduledTransaction", "Activity"])
        let activity = try #require(model.entity(named: "Activity"))
        #expect(activity.relationship(named: "transferSibling")?.inverseName == "transferSibling")
    }

    // MARK: - XML details

    @Test("accepts true/false and 1/0 for flags, and entity references that libxml2 resolves internally")
    func lenientSpelling() throws {
        let model = try XCDataModelReader.parse(Data("""
            <?xml version="1.0"?>
            <!DOCTYPE model [<!ENTITY kind "Stri">]>
            <model>
                <entity name="A" isAbstract="true">
                    <attribute name="a" optional="1" transient="false" attributeType="&kind;ng"/>
                </entity>
            </model>
            """.utf8))
        #expect(model.entities == [XCEntity(name: "A", isAbstract: true, attributes: [
            XCAttribute(name: "a", attributeType: "String", isOptional: true),
        ])])
    }

    @Test("ignores elements it does not know and the diagram's <elements>")
    func unknownElements() throws {
        let model = try XCDataModelReader.parse(CoreDataFixtures.model("""
            <entity name="A"><somethingNew x="1"/><attribute name="a" attributeType="String"/></entity>
            <futureThing/>
            <elements><element name="A" positionX="0" positionY="0" width="128" height="44"/></elements>
            """))
        #expect(model.entities == [XCEntity(name: "A", attributes: [
            XCAttribute(name: "a", attributeType: "String"),
        ])])
    }

    @Test("a relationship without deletionRule nullifies; a to-many without maxCount has no limit")
    func relationshipDefaults() throws {
        let model = try XCDataModelReader.parse(CoreDataFixtures.model("""
            <entity name="A">
                <relationship name="bs" toMany="YES" destinationEntity="B" inverseName="a" inverseEntity="B"/>
            </entity>
            <entity name="B">
                <relationship name="a" destinationEntity="A" inverseName="bs" inverseEntity="A"/>
            </entity>
            """))
        #expect(model.entity(named: "A")?.relationship(named: "bs") == XCRelationship(
            name: "bs", destinationEntity: "B", inverseName: "a", inverseEntity: "B", isToMany: true,
            deletionRule: "Nullify", minCount: 0, maxCount: 0))
        #expect(model.entity(named: "B")?.relationship(named: "a")?.maxCount == 1)
        #expect(model.versionIdentifier == nil)
    }
}
