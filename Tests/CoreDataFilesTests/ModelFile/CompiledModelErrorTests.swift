import Foundation
import Testing
import TestSupport
@testable import CoreDataFiles
@testable import ObjectGraph

/// Bad archives are `XCDataModelError`s with one line that says what is wrong, never a crash,
/// a hang or another kind of error.
@Suite("Compiled models: malformed archives are clear errors")
struct CompiledModelErrorTests {
    private static func malformed(_ reason: String) -> XCDataModelError {
        XCDataModelError(.malformedArchive(reason: reason))
    }

    private static func fixtureBytes() throws -> [Data] {
        try CompiledModelFixtures.compiledWithSource.map { try Data(contentsOf: CompiledModelFixtures.url($0.mom)) }
    }

    /// Decodes `data`; an error that is not an `XCDataModelError` with a one-line description is recorded.
    private static func decodeOrReport(_ data: Data, _ context: @autoclosure () -> String) -> XCDataModelFile? {
        do {
            return try CompiledModelReader.decode(data)
        } catch let error as XCDataModelError {
            let text = error.description
            #expect(!text.contains("\n") && text.hasPrefix("Core Data model error: "), "\(context()): \(text)")
        } catch {
            Issue.record("\(context()): \(type(of: error)) \(error)")
        }
        return nil
    }

    @Test("every truncation of every fixture .mom is refused as malformed")
    func truncated() throws {
        for (index, data) in try Self.fixtureBytes().enumerated() {
            for length in 0..<data.count {
                do {
                    _ = try CompiledModelReader.decode(data.prefix(length))
                    Issue.record("fixture \(index) cut to \(length) bytes decoded")
                } catch let error as XCDataModelError {
                    guard case .malformedArchive = error.kind else {
                        Issue.record("fixture \(index) cut to \(length) bytes: \(error)")
                        continue
                    }
                }
            }
        }
    }

    @Test("random byte changes to the fixtures give a model or an XCDataModelError, nothing else")
    func mutated() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("CompiledModelErrorTests.mutated seed: \(seed)")
        var generator = SplitMix64(seed: seed)
        var decoded = 0
        for data in try Self.fixtureBytes() {
            for _ in 0..<300 {
                var bytes = [UInt8](data)
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
                if let model = Self.decodeOrReport(Data(bytes), "seed \(seed)") {
                    decoded += 1
                    // What decodes is a model the reader vouches for: it builds or says why not.
                    do { _ = try ObjectModel(file: model) } catch is ModelError {} catch is XCDataModelError {}
                }
            }
        }
        print("CompiledModelErrorTests.mutated: \(decoded) of \(6 * 300) changed archives still decoded")
    }

    @Test("archives that are not keyed archives of a model say what they are")
    func notAModelArchive() throws {
        let cases: [(PlistValue, String)] = [
            (.array([]), "the property list is not a dictionary"),
            (.dictionary(["$archiver": .string("NSArchiver")]), "not a keyed archive ($archiver is not NSKeyedArchiver)"),
            (.dictionary(["$archiver": .string("NSKeyedArchiver"), "$version": .integer(1)]), "keyed archive version 1, expected 100000"),
            (.dictionary(["$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000), "$objects": .array([.string("x")])]),
             "no $objects table starting with $null"),
            (.dictionary(["$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000), "$objects": .array([.string("$null")]),
                          "$top": .dictionary(["root": .uid(7)])]), "$top.root refers to object 7 of 1"),
        ]
        for (plist, reason) in cases {
            #expect(throws: Self.malformed(reason)) { try CompiledModelReader.decode(BinaryPropertyListWriter.write(plist)) }
        }
        var builder = KeyedArchiveBuilder()
        let root = builder.object("NSEntityDescription", ["NSEntityName": builder.string("Trip")])
        #expect(throws: Self.malformed("the archive holds an NSEntityDescription, not an NSManagedObjectModel")) {
            try CompiledModelReader.decode(builder.data(root: root))
        }
        #expect(throws: Self.malformed("not a binary property list (no bplist00 header)")) {
            try CompiledModelReader.decode(Data("<?xml version=\"1.0\"?><plist/>".utf8) + Data(count: 40))
        }
    }

    @Test("references out of range, of the wrong class or in a cycle are refused with where they are")
    func badReferences() throws {
        var outOfRange = ModelArchiveBuilder()
        let trip = outOfRange.entity("Trip")
        outOfRange.attribute("name", of: trip, type: 700, ["NSValueTransformerName": .uid(9999)])
        #expect(throws: Self.malformed("the value transformer of attribute Trip.name refers to object 9999 of 16")) {
            try CompiledModelReader.decode(outOfRange.data())
        }

        var wrongClass = ModelArchiveBuilder()
        let person = wrongClass.entity("Person")
        wrongClass.property("NSMutableString", "name", of: person, [:])
        #expect(throws: Self.malformed("property Person.name is an NSMutableString, not an NSPropertyDescription")) {
            try CompiledModelReader.decode(wrongClass.data())
        }

        var controlCharacters = ModelArchiveBuilder()
        let owner = controlCharacters.entity("Person")
        controlCharacters.property("NS\nString\u{7}", "name", of: owner, [:])
        let error = try #require(throws: XCDataModelError.self) { try CompiledModelReader.decode(controlCharacters.data()) }
        #expect(error.description == "Core Data model error: malformed compiled model: property Person.name is an NS\\u{a}String\\u{7}, not an NSPropertyDescription")

        var cycle = ModelArchiveBuilder()
        let first = cycle.entity("First")
        let second = cycle.entity("Second", parent: first)
        cycle.set("NSSuperentity", .uid(second), on: first)
        #expect(throws: Self.malformed("entity First inherits from itself")) { try CompiledModelReader.decode(cycle.data()) }

        var foreign = ModelArchiveBuilder()
        let listed = foreign.entity("Listed")
        let unlisted = foreign.builder.object("NSEntityDescription", ["NSEntityName": foreign.builder.string("Unlisted")])
        foreign.relationship("other", of: listed, to: unlisted, maxCount: 1)
        #expect(throws: Self.malformed("the destination of relationship Listed.other is an entity the model does not list")) {
            try CompiledModelReader.decode(foreign.data())
        }

        var predicateCycle = ModelArchiveBuilder()
        let entity = predicateCycle.entity("Trip")
        let compound = predicateCycle.builder.reserve()
        predicateCycle.builder.fill(compound, "NSCompoundPredicate", superclasses: ["NSPredicate", "NSObject"],
                                    ["NSCompoundPredicateType": .integer(1), "NSSubpredicates": predicateCycle.builder.array([.uid(compound)])])
        let request = predicateCycle.builder.object("NSFetchRequest", ["NSEntity": .uid(entity), "NSPredicate": .uid(compound)])
        predicateCycle.modelFields["NSFetchRequestTemplates"] = predicateCycle.builder.dictionary([(key: predicateCycle.builder.string("all"), value: .uid(request))])
        #expect(throws: Self.malformed("the predicate of fetch request template all contains itself (object \(compound))")) {
            try CompiledModelReader.decode(predicateCycle.data())
        }
    }

    @Test("values of the wrong kind, unknown types and rules, and names that disagree are refused")
    func badValues() throws {
        let cases: [(PlistValue, Int64, String, XCDataModelError)] = [
            (.string("yes"), 700, "NSIsIndexed", Self.malformed("the indexed flag of attribute Trip.name is not a Boolean")),
            (.integer(2100), 700, "NSAttributeType", XCDataModelError(.unknownAttributeType(entity: "Trip", attribute: "name", type: "NSAttributeType 2100"))),
            (.real(1.5), 700, "NSFlagsKey", Self.malformed("the flags of attribute Trip.name is not an integer")),
        ]
        for (value, type, key, error) in cases {
            var archive = ModelArchiveBuilder()
            let trip = archive.entity("Trip")
            archive.attribute("name", of: trip, type: type, [key: value])
            #expect(throws: error) { try CompiledModelReader.decode(archive.data()) }
        }
        var rule = ModelArchiveBuilder()
        let trip = rule.entity("Trip")
        rule.relationship("next", of: trip, to: trip, maxCount: 1, ["NSDeleteRule": .integer(7)])
        #expect(throws: Self.malformed("relationship Trip.next has the delete rule 7")) { try CompiledModelReader.decode(rule.data()) }

        var renamed = ModelArchiveBuilder()
        let entity = renamed.entity("Trip")
        renamed.set("NSEntityName", renamed.builder.string("Voyage"), on: entity)
        #expect(throws: Self.malformed("the model lists entity Trip under the name \"Voyage\"")) { try CompiledModelReader.decode(renamed.data()) }

        var dangling = ModelArchiveBuilder()
        let source = dangling.entity("Trip")
        dangling.relationship("stops", of: source, to: source, maxCount: 0, ["_NSInverseRelationshipName": dangling.builder.string("nowhere")])
        #expect(throws: XCDataModelError(.missingInverseRelationship(entity: "Trip", relationship: "stops", inverse: "nowhere", destination: "Trip"))) {
            try CompiledModelReader.decode(dangling.data())
        }
    }

    @Test("binary property lists that contain themselves, refer past their table or nest without end are refused")
    func badPropertyLists() throws {
        typealias Writer = BinaryPropertyListWriter
        let cases: [(Data, String)] = [
            (Writer.write([.array([0])], top: 0), "object 0 contains itself"),
            (Writer.write([.array([1]), .dictionary([(key: 2, value: 0)]), .scalar(.string("k"))], top: 0), "object 0 contains itself"),
            (Writer.write([.array([5])], top: 0), "object 0 refers to object 5 of 1"),
            (Writer.write([.dictionary([(key: 1, value: 1)]), .scalar(.integer(3))], top: 0), "dictionary 0 has a key that is not a string"),
            (Writer.write((0..<100).map { .array([$0 + 1]) } + [.scalar(.null)], top: 0), "collections nested more than 64 deep"),
        ]
        for (data, reason) in cases {
            #expect(throws: Self.malformed(reason)) { try CompiledModelReader.decode(data) }
        }
        var header = [UInt8](Writer.write(.string("x")))
        header[header.count - 25] = 9
        #expect(throws: Self.malformed("the trailer gives offsets of 8 and references of 9 bytes")) { try CompiledModelReader.decode(Data(header)) }
    }
}
