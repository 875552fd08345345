import Foundation
import Testing
@testable import CoreDataFiles
@testable import ObjectGraph

@Suite("Errors from reading Core Data models")
struct XCDataModelErrorTests {
    /// The error `parse` throws for `body` inside `<model>`, which must be one.
    private func parseError(_ body: String) throws -> XCDataModelError {
        try #require(throws: XCDataModelError.self) {
            try XCDataModelReader.parse(CoreDataFixtures.model(body))
        }
    }

    private func parseError(document: String) throws -> XCDataModelError {
        try #require(throws: XCDataModelError.self) {
            try XCDataModelReader.parse(Data(document.utf8))
        }
    }

    // MARK: - Files and folders

    @Test("a path with nothing at it is 'no such file or folder'")
    func fileNotFound() throws {
        let url = URL(fileURLWithPath: "/nonexistent/Gone.xcdatamodeld")
        let error = try #require(throws: XCDataModelError.self) { try XCDataModelReader.read(at: url) }
        #expect(error.kind == .fileNotFound)
        #expect(error.description == "Core Data model error: no such file or folder (Gone.xcdatamodeld)")
        let versionsError = try #require(throws: XCDataModelError.self) { try XCDataModelReader.versions(at: url) }
        #expect(versionsError.kind == .fileNotFound)
    }

    @Test("a .xcdatamodel folder without contents, and an Xcode 3 one, are not models")
    func folderWithoutContents() throws {
        try CoreDataFixtures.withTemporaryDirectory { directory in
            let empty = directory.appendingPathComponent("Empty.xcdatamodel")
            try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
            let error = try #require(throws: XCDataModelError.self) { try XCDataModelReader.read(at: empty) }
            #expect(error.description
                == "Core Data model error: not a Core Data model: a .xcdatamodel folder without a contents file (Empty.xcdatamodel)")

            let old = try CoreDataFixtures.write("binary", to: "Old.xcdatamodel/elements", in: directory)
                .deletingLastPathComponent()
            let oldError = try #require(throws: XCDataModelError.self) { try XCDataModelReader.read(at: old) }
            #expect(oldError.kind == .notAModel(
                reason: "Xcode 3 binary format (elements/layout); open and save it in a newer Xcode"))
        }
    }

    @Test("a .xcdatamodeld without versions, or given as a file, is not a model")
    func bundleWithoutVersions() throws {
        try CoreDataFixtures.withTemporaryDirectory { directory in
            let bundle = directory.appendingPathComponent("Empty.xcdatamodeld")
            try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
            let error = try #require(throws: XCDataModelError.self) { try XCDataModelReader.read(at: bundle) }
            #expect(error.description
                == "Core Data model error: not a Core Data model: no .xcdatamodel versions inside (Empty.xcdatamodeld)")

            let file = try CoreDataFixtures.write("x", to: "File.xcdatamodeld", in: directory)
            let fileError = try #require(throws: XCDataModelError.self) { try XCDataModelReader.versions(at: file) }
            #expect(fileError.kind == .notAModel(reason: "a .xcdatamodeld is a folder"))
        }
    }

    @Test(".xccurrentversion naming a missing version, or not a property list, is an error")
    func badCurrentVersionFile() throws {
        try CoreDataFixtures.withTemporaryDirectory { directory in
            let bundle = directory.appendingPathComponent("Notes.xcdatamodeld")
            try CoreDataFixtures.write(String(decoding: CoreDataFixtures.model("<entity name=\"A\"/>"), as: UTF8.self),
                                       to: "Notes.xcdatamodeld/A.xcdatamodel/contents", in: directory)
            let plist = try CoreDataFixtures.write("""
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>B.xcdatamodel</string></dict></plist>
                """, to: "Notes.xcdatamodeld/.xccurrentversion", in: directory)
            let missing = try #require(throws: XCDataModelError.self) { try XCDataModelReader.read(at: bundle) }
            #expect(missing.description == "Core Data model error: not a Core Data model: .xccurrentversion names "
                + "\"B.xcdatamodel\", which is not in the bundle (Notes.xcdatamodeld/.xccurrentversion)")

            try Data("not a plist <".utf8).write(to: plist)
            let garbage = try #require(throws: XCDataModelError.self) { try XCDataModelReader.versions(at: bundle) }
            #expect(garbage.kind == .unreadable(reason: "not a property list"))

            try Data("<plist version=\"1.0\"><array/></plist>".utf8).write(to: plist)
            let array = try #require(throws: XCDataModelError.self) { try XCDataModelReader.versions(at: bundle) }
            #expect(array.kind == .unreadable(reason: "not a property list dictionary"))

            try Data("<plist version=\"1.0\"><dict><key>_XCCurrentVersionName</key><integer>2</integer></dict></plist>".utf8)
                .write(to: plist)
            let number = try #require(throws: XCDataModelError.self) { try XCDataModelReader.versions(at: bundle) }
            #expect(number.kind == .unreadable(reason: "_XCCurrentVersionName is not a name"))
        }
    }

    // MARK: - XML

    @Test("malformed XML names libxml2's complaint and the line")
    func malformedXML() throws {
        let error = try parseError(document: "<model>\n  <entity name=\"A\">\n</model>\n")
        guard case .malformedXML(let message) = error.kind else {
            Issue.record("expected malformedXML, got \(error.kind)")
            return
        }
        #expect(message.contains("mismatch"))
        #expect(error.line == 3)
        #expect(error.description.hasPrefix("Core Data model error: malformed XML: "))
        #expect(error.description.hasSuffix("(line 3)"))
    }

    @Test("an empty file, a root other than <model> and an external entity are refused")
    func refusedDocuments() throws {
        let empty = try #require(throws: XCDataModelError.self) { try XCDataModelReader.parse(Data()) }
        #expect(empty.kind == .malformedXML(message: "the file is empty"))

        let plist = try parseError(document: "<plist version=\"1.0\"><dict/></plist>")
        #expect(plist.kind == .unexpectedRootElement("plist"))
        #expect(plist.description == "Core Data model error: the root element is <plist>, expected <model> (line 1)")

        let external = try parseError(document: """
            <?xml version="1.0"?>
            <!DOCTYPE model [<!ENTITY secret SYSTEM "file:///etc/hostname">]>
            <model><entity name="&secret;"/></model>
            """)
        guard case .malformedXML = external.kind else {
            Issue.record("expected malformedXML, got \(external.kind)")
            return
        }
        #expect(external.line == 3)
    }

    @Test("an entity expansion bomb is refused quickly")
    func entityBomb() throws {
        var declarations = ["<!ENTITY lol0 \"lollollollollollollollollollol\">"]
        for level in 1..<10 {
            declarations.append("<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">")
        }
        let document = "<?xml version=\"1.0\"?>\n<!DOCTYPE model [\n" + declarations.joined(separator: "\n")
            + "]>\n<model><entity name=\"&lol9;\"/></model>\n"
        let error = try parseError(document: document)
        guard case .malformedXML = error.kind else {
            Issue.record("expected malformedXML, got \(error.kind)")
            return
        }
    }

    @Test("an entity without a name is refused at its line")
    func entityWithoutName() throws {
        let error = try parseError("<entity representedClassName=\"A\"/>")
        #expect(error.kind == .missingXMLAttribute(element: "entity", attribute: "name", owner: nil))
        #expect(error.line == 3)
        #expect(error.description == "Core Data model error: <entity> has no name=\"…\" (line 3)")
    }

    @Test("attributes without a name, with an unknown type, or a composite without its composite, are refused")
    func badAttributes() throws {
        #expect(try parseError("<entity name=\"A\"><attribute attributeType=\"String\"/></entity>").kind
            == .missingXMLAttribute(element: "attribute", attribute: "name", owner: "A"))
        #expect(try parseError("<entity name=\"A\"><attribute name=\"a\" attributeType=\"Composite\"/></entity>").kind
            == .missingXMLAttribute(element: "attribute", attribute: "composite", owner: "A.a"))
        #expect(try parseError("<entity name=\"A\"><attribute name=\"a\" attributeType=\"Composite\" composite=\"Nope\"/></entity>").kind
            == .unknownReference(kind: "composite attribute \"a\"", name: "Nope", owner: "A"))
        let loop = try parseError("""
            <entity name="A"><attribute name="a" attributeType="Composite" composite="Outer"/></entity>
            <composite name="Outer"><attribute name="inner" attributeType="Composite" composite="Inner"/></composite>
            <composite name="Inner"><attribute name="outer" attributeType="Composite" composite="Outer"/></composite>
            """)
        #expect(loop.kind == .compositeCycle(["Outer", "Inner", "Outer"]))
        #expect(loop.description == "Core Data model error: composites contain themselves: Outer -> Inner -> Outer (line 5)")
        #expect(try parseError("<composite name=\"C\"/><composite name=\"C\"/>").kind
            == .duplicateName(kind: "composite", name: "C"))
        #expect(try parseError("<composite name=\"C\"><attribute name=\"x\" attributeType=\"String\"/><attribute name=\"x\" attributeType=\"Date\"/></composite>").kind
            == .duplicateName(kind: "composite element", name: "C.x"))
        #expect(try parseError("<entity name=\"A\"><fetchIndex name=\"i\"><fetchIndexElement property=\"a\" type=\"Hash\"/></fetchIndex><attribute name=\"a\" attributeType=\"String\"/></entity>").kind
            == .invalidValue(element: "fetchIndexElement", attribute: "type", value: "Hash", owner: "A.i"))
        let unknown = try parseError("<entity name=\"A\">\n<attribute name=\"a\" attributeType=\"Text\"/></entity>")
        #expect(unknown.kind == .unknownAttributeType(entity: "A", attribute: "a", type: "Text"))
        #expect(unknown.line == 4)
        #expect(unknown.description
            == "Core Data model error: attribute \"A.a\" has unknown attributeType \"Text\" (line 4)")
    }

    @Test("values of the wrong form are refused with the element, attribute and value")
    func invalidValues() throws {
        let cases: [(body: String, kind: XCDataModelError.Kind)] = [
            ("<entity name=\"A\" isAbstract=\"maybe\"/>",
             .invalidValue(element: "entity", attribute: "isAbstract", value: "maybe", owner: "A")),
            ("<entity name=\"A\"><attribute name=\"a\" optional=\"Y\" attributeType=\"String\"/></entity>",
             .invalidValue(element: "attribute", attribute: "optional", value: "Y", owner: "A.a")),
            ("<entity name=\"A\"><attribute name=\"d\" attributeType=\"Date\" defaultDateTimeInterval=\"soon\"/></entity>",
             .invalidValue(element: "attribute", attribute: "defaultDateTimeInterval", value: "soon", owner: "A.d")),
            ("<entity name=\"A\"><relationship name=\"r\" minCount=\"-1\" destinationEntity=\"A\"/></entity>",
             .invalidValue(element: "relationship", attribute: "minCount", value: "-1", owner: "A.r")),
            ("<entity name=\"A\"><relationship name=\"r\" maxCount=\"many\" destinationEntity=\"A\"/></entity>",
             .invalidValue(element: "relationship", attribute: "maxCount", value: "many", owner: "A.r")),
            ("<entity name=\"A\"><relationship name=\"r\" deletionRule=\"Explode\" destinationEntity=\"A\"/></entity>",
             .invalidValue(element: "relationship", attribute: "deletionRule", value: "Explode", owner: "A.r")),
            ("<entity name=\"A\"><attribute name=\"a\" attributeType=\"String\"/><fetchIndex name=\"i\">"
                + "<fetchIndexElement property=\"a\" order=\"sideways\"/></fetchIndex></entity>",
             .invalidValue(element: "fetchIndexElement", attribute: "order", value: "sideways", owner: "A.i")),
        ]
        for (body, kind) in cases {
            #expect(try parseError(body).kind == kind, "\(body)")
        }
        #expect(try parseError(cases[1].body).description
            == "Core Data model error: <attribute> in \"A.a\" has optional=\"Y\", which is not a valid value (line 3)")
    }

    @Test("a relationship without destination, an index element without property, an entry without key")
    func missingXMLAttributes() throws {
        #expect(try parseError("<entity name=\"A\"><relationship name=\"r\"/></entity>").kind
            == .missingXMLAttribute(element: "relationship", attribute: "destinationEntity", owner: "A.r"))
        #expect(try parseError("<entity name=\"A\"><fetchIndex name=\"i\"><fetchIndexElement type=\"Binary\"/></fetchIndex></entity>").kind
            == .missingXMLAttribute(element: "fetchIndexElement", attribute: "property", owner: "A.i"))
        #expect(try parseError("<entity name=\"A\"><userInfo><entry value=\"v\"/></userInfo></entity>").kind
            == .missingXMLAttribute(element: "entry", attribute: "key", owner: "A"))
        #expect(try parseError("<configuration/>").kind
            == .missingXMLAttribute(element: "configuration", attribute: "name", owner: nil))
    }

    // MARK: - Consistency

    @Test("a relationship to a missing entity is refused at the relationship's line")
    func missingDestination() throws {
        let error = try parseError("""
            <entity name="Photo">
                <relationship name="place" maxCount="1" destinationEntity="Plase"/>
            </entity>
            """)
        #expect(error.kind == .missingDestinationEntity(entity: "Photo", relationship: "place", destination: "Plase"))
        #expect(error.line == 4)
        #expect(error.description == "Core Data model error: relationship \"Photo.place\" points to entity "
            + "\"Plase\", which the model does not define (line 4)")
    }

    @Test("an inverse the destination does not have is refused; an inherited one is found")
    func missingInverse() throws {
        let error = try parseError("""
            <entity name="A"><relationship name="b" destinationEntity="B" inverseName="a"/></entity>
            <entity name="B"/>
            """)
        #expect(error.kind == .missingInverseRelationship(entity: "A", relationship: "b", inverse: "a", destination: "B"))
        #expect(error.description.contains("has inverse \"a\", which entity \"B\" does not have"))
        let model = try XCDataModelReader.parse(CoreDataFixtures.model("""
            <entity name="A"><relationship name="b" destinationEntity="Sub" inverseName="a"/></entity>
            <entity name="Base"><relationship name="a" destinationEntity="A" inverseName="b"/></entity>
            <entity name="Sub" parentEntity="Base"/>
            """))
        #expect(model.entities.count == 3)
    }

    @Test("a missing parent entity and inheritance cycles are refused")
    func inheritanceProblems() throws {
        let missing = try parseError("<entity name=\"A\" parentEntity=\"B\"/>")
        #expect(missing.kind == .missingParentEntity(entity: "A", parent: "B"))
        #expect(missing.description
            == "Core Data model error: entity \"A\" has parentEntity \"B\", which the model does not define (line 3)")

        let deep = try parseError("<entity name=\"A\" parentEntity=\"B\"/><entity name=\"B\" parentEntity=\"C\"/>")
        #expect(deep.kind == .missingParentEntity(entity: "B", parent: "C"))

        let cycle = try parseError("""
            <entity name="A" parentEntity="B"/>
            <entity name="B" parentEntity="C"/>
            <entity name="C" parentEntity="A"/>
            """)
        #expect(cycle.kind == .inheritanceCycle(["A", "B", "C", "A"]))
        #expect(cycle.description == "Core Data model error: entities inherit from themselves: A -> B -> C -> A (line 3)")

        let selfParent = try parseError("<entity name=\"A\" parentEntity=\"A\"/>")
        #expect(selfParent.kind == .inheritanceCycle(["A", "A"]))
    }

    @Test("duplicate entity names, duplicate properties and redeclared inherited properties are refused")
    func duplicates() throws {
        #expect(try parseError("<entity name=\"A\"/><entity name=\"A\"/>").kind
            == .duplicateName(kind: "entity", name: "A"))
        let property = try parseError("""
            <entity name="A">
                <attribute name="x" attributeType="String"/>
                <relationship name="x" destinationEntity="A"/>
            </entity>
            """)
        #expect(property.kind == .duplicateName(kind: "property", name: "A.x"))
        #expect(property.description == "Core Data model error: property name \"A.x\" is used twice (line 5)")
        #expect(try parseError("""
            <entity name="Base"><attribute name="x" attributeType="String"/></entity>
            <entity name="Sub" parentEntity="Base"><attribute name="x" attributeType="String"/></entity>
            """).kind == .duplicateName(kind: "property", name: "Sub.x"))
    }

    @Test("constraints, indexes, configurations and fetch requests naming missing things are refused")
    func unknownReferences() throws {
        let cases: [(body: String, kind: XCDataModelError.Kind)] = [
            ("<entity name=\"A\"><uniquenessConstraints><uniquenessConstraint><constraint value=\"x\"/>"
                + "</uniquenessConstraint></uniquenessConstraints></entity>",
             .unknownReference(kind: "uniqueness constraint", name: "x", owner: "A")),
            ("<entity name=\"A\"><compoundIndexes><compoundIndex><index value=\"x\"/></compoundIndex>"
                + "</compoundIndexes></entity>",
             .unknownReference(kind: "compound index", name: "x", owner: "A")),
            ("<entity name=\"A\"><fetchIndex name=\"byX\"><fetchIndexElement property=\"x\"/></fetchIndex></entity>",
             .unknownReference(kind: "index \"byX\"", name: "x", owner: "A")),
            ("<entity name=\"A\"><fetchedProperty name=\"f\"><fetchRequest name=\"r\" entity=\"Z\"/>"
                + "</fetchedProperty></entity>",
             .unknownReference(kind: "fetched property \"f\"", name: "Z", owner: "A")),
            ("<entity name=\"A\"/><configuration name=\"C\"><memberEntity name=\"Z\"/></configuration>",
             .unknownReference(kind: "configuration", name: "Z", owner: "C")),
            ("<entity name=\"A\"/><fetchRequest name=\"R\" entity=\"Z\"/>",
             .unknownReference(kind: "fetch request", name: "Z", owner: "R")),
        ]
        for (body, kind) in cases {
            #expect(try parseError(body).kind == kind, "\(body)")
        }
        #expect(try parseError(cases[4].body).description
            == "Core Data model error: configuration in \"C\" names \"Z\", which is not there (line 3)")
        // An inherited property satisfies a constraint or an index.
        _ = try XCDataModelReader.parse(CoreDataFixtures.model("""
            <entity name="Base"><attribute name="x" attributeType="String"/></entity>
            <entity name="Sub" parentEntity="Base"><fetchIndex name="byX"><fetchIndexElement property="x"/></fetchIndex>
            <uniquenessConstraints><uniquenessConstraint><constraint value="x"/></uniquenessConstraint></uniquenessConstraints>
            </entity>
            """))
    }

    @Test("validate checks models built by hand, without lines")
    func validateHandBuilt() throws {
        let model = XCDataModelFile(entities: [
            XCEntity(name: "A", relationships: [XCRelationship(name: "b", destinationEntity: "B")]),
        ])
        let error = try #require(throws: XCDataModelError.self) { try XCDataModelReader.validate(model) }
        #expect(error.kind == .missingDestinationEntity(entity: "A", relationship: "b", destination: "B"))
        #expect(error.line == nil)
        #expect(error.description
            == "Core Data model error: relationship \"A.b\" points to entity \"B\", which the model does not define")
    }

    @Test("errors from a file name the model bundle path and the line")
    func errorNamesFile() throws {
        try CoreDataFixtures.withTemporaryDirectory { directory in
            let url = try CoreDataFixtures.write("<model>\n<entity/>\n</model>",
                                                 to: "Trip.xcdatamodeld/Trip 2.xcdatamodel/contents", in: directory)
            let error = try #require(throws: XCDataModelError.self) {
                try XCDataModelReader.read(at: url.deletingLastPathComponent().deletingLastPathComponent())
            }
            #expect(error.description
                == "Core Data model error: <entity> has no name=\"…\" (Trip.xcdatamodeld/Trip 2.xcdatamodel/contents, line 2)")
        }
    }
}
