import Foundation
import Testing
@testable import CoreDataFiles
@testable import ObjectGraph

/// Keys of Core Data's archives that the fixtures do not exercise, written as Core Data writes
/// them (`-[NSAttributeDescription encodeWithCoder:]` and kin), and read back.
@Suite("Compiled models: every key Core Data archives maps onto the model file's values")
struct CompiledModelDecoderTests {
    /// A model with one entity `Trip`; `body` adds to it.
    private static func decode(_ body: (inout ModelArchiveBuilder, Int) -> Void) throws -> XCDataModelFile {
        var archive = ModelArchiveBuilder()
        let trip = archive.entity("Trip")
        body(&archive, trip)
        return try CompiledModelReader.decode(archive.data())
    }

    @Test("NSFlagsKey: 4 is external binary storage, 16 is preserve after deletion, 1 and 2 bring NSMaxValueName and NSMinValueName")
    func attributeFlags() throws {
        let model = try Self.decode { archive, trip in
            archive.attribute("photo", of: trip, type: 1000, ["NSFlagsKey": .integer(4)])
            archive.attribute("uuid", of: trip, type: 1100, ["NSFlagsKey": .integer(16 | 4)])
            archive.attribute("days", of: trip, type: 200, ["NSFlagsKey": .integer(3), "NSMinValueName": .integer(1), "NSMaxValueName": .integer(30)])
            archive.attribute("rating", of: trip, type: 500, ["NSFlagsKey": .integer(2), "NSMinValueName": .real(0.5)])
            archive.attribute("started", of: trip, type: 900, ["NSFlagsKey": .integer(1), "NSMaxValueName": .real(700000000.5)])
            archive.attribute("code", of: trip, type: 700, ["NSFlagsKey": .integer(3), "NSMinValueName": .integer(2), "NSMaxValueName": .integer(8)])
        }
        let trip = try #require(model.entity(named: "Trip"))
        #expect(trip.attribute(named: "photo")?.allowsExternalBinaryDataStorage == true)
        #expect(trip.attribute(named: "photo")?.preservesValueInHistoryOnDeletion == false)
        #expect(trip.attribute(named: "uuid")?.preservesValueInHistoryOnDeletion == true)
        #expect(trip.attribute(named: "uuid")?.allowsExternalBinaryDataStorage == true)
        #expect(trip.attribute(named: "days").map { [$0.minValueString, $0.maxValueString] } == ["1", "30"])
        #expect(trip.attribute(named: "rating").map { [$0.minValueString, $0.maxValueString] } == ["0.5", nil])
        #expect(trip.attribute(named: "started")?.maxDateTimeInterval == 700000000.5)
        #expect(trip.attribute(named: "code").map { [$0.minValueString, $0.maxValueString] } == ["2", "8"])
    }

    @Test("_P carries the flags when it is there; the separate keys when it is not")
    func propertyFlags() throws {
        let model = try Self.decode { archive, trip in
            // 0x1 always, 0x2 optional, 0x8 transient, 0x100 Spotlight, 0x200 external record, 0x800 cloud encryption.
            archive.attribute("a", of: trip, type: 700, ["_P": .integer(0x1 | 0x8 | 0x100 | 0x200 | 0x800), "NSIsOptional": .bool(true)])
            archive.attribute("b", of: trip, type: 700, ["NSIsOptional": .bool(false), "NSIsTransient": .bool(true),
                                                         "NSIndexedBySpotlight": .bool(true), "NSIsStoredInTruth": .bool(true)])
            archive.attribute("c", of: trip, type: 700, ["_P": .integer(0x1 | 0x2)])
        }
        let trip = try #require(model.entity(named: "Trip"))
        #expect(trip.attribute(named: "a") == XCAttribute(name: "a", attributeType: "String", isTransient: true, isIndexedBySpotlight: true,
                                                           isStoredInExternalRecord: true, allowsCloudEncryption: true))
        #expect(trip.attribute(named: "b") == XCAttribute(name: "b", attributeType: "String", isTransient: true, isIndexedBySpotlight: true,
                                                           isStoredInExternalRecord: true))
        #expect(trip.attribute(named: "c") == XCAttribute(name: "c", attributeType: "String", isOptional: true))
    }

    @Test("defaults are spelled as Xcode spells them, type by type")
    func defaults() throws {
        var uuidObject = 0
        let model = try Self.decode { archive, trip in
            let cases: [(String, Int64, PlistValue)] = [
                ("flagFromBool", 800, .bool(true)), ("flagFromInteger", 800, .integer(0)), ("small", 100, .integer(-1)),
                ("large", 300, .integer(9_007_199_254_740_993)), ("double", 500, .real(0)), ("fraction", 600, .real(0.5)),
                ("name", 700, .string("Set From Core Data Model Editor")),
            ]
            for (name, type, value) in cases {
                let reference = PlistValue.uid(archive.builder.add(value))
                archive.attribute(name, of: trip, type: type, ["NSDefaultValue": reference])
            }
            let decimal = archive.builder.object("NSDecimalNumberPlaceholder", [
                "NS.exponent": .integer(-2), "NS.length": .integer(1), "NS.negative": .bool(true), "NS.compact": .bool(true),
                "NS.mantissa": .data(Data([0x39, 0x30] + [UInt8](repeating: 0, count: 14))), "NS.mantissa.bo": .integer(1),
            ])
            archive.attribute("amount", of: trip, type: 400, ["NSDefaultValue": .uid(decimal)])
            let zero = archive.builder.object("NSDecimalNumberPlaceholder", [
                "NS.exponent": .integer(0), "NS.length": .integer(0), "NS.negative": .bool(false), "NS.compact": .bool(false),
                "NS.mantissa": .data(Data(count: 16)), "NS.mantissa.bo": .integer(1),
            ])
            archive.attribute("balance", of: trip, type: 400, ["NSDefaultValue": .uid(zero)])
            let date = archive.builder.object("NSDate", ["NS.time": .real(-946688700)])
            archive.attribute("started", of: trip, type: 900, ["NSDefaultValue": .uid(date)])
            uuidObject = archive.builder.object("NSUUID", ["NS.uuidbytes": .data(Data((0..<16).map { UInt8($0 * 17) }))])
            archive.attribute("identifier", of: trip, type: 1100, ["NSDefaultValue": .uid(uuidObject)])
            let custom = archive.builder.object("App.Cover", ["text": archive.builder.string("default cover")])
            archive.attribute("cover", of: trip, type: 1800, ["NSDefaultValue": .uid(custom), "NSAttributeValueClassName": archive.builder.string("Cover")])
        }
        let trip = try #require(model.entity(named: "Trip"))
        let expected: [String: String?] = [
            "flagFromBool": "YES", "flagFromInteger": "NO", "small": "-1", "large": "9007199254740993", "double": "0.0",
            "fraction": "0.5", "name": "Set From Core Data Model Editor", "amount": "-123.45", "balance": "0.0",
            "identifier": "00112233-4455-6677-8899-AABBCCDDEEFF", "cover": nil, "started": nil,
        ]
        for (name, value) in expected {
            #expect(trip.attribute(named: name)?.defaultValueString == value, "\(name)")
        }
        #expect(trip.attribute(named: "started")?.defaultDateTimeInterval == -946688700)
        #expect(trip.attribute(named: "cover")?.customClassName == "Cover")
    }

    @Test("validation predicates of the shapes Xcode's compiler writes become minimum, maximum and pattern")
    func validationPredicates() throws {
        let model = try Self.decode { archive, trip in
            func comparison(_ left: PlistValue, _ type: Int64, _ constant: PlistValue) -> PlistValue {
                let operatorObject = archive.builder.object("NSComparisonPredicateOperator", superclasses: ["NSPredicateOperator", "NSObject"],
                                                            ["NSOperatorType": .integer(type), "NSModifier": .integer(0), "NSOptions": .integer(0)])
                let right = archive.builder.object("NSConstantValueExpression", superclasses: ["NSExpression", "NSObject"],
                                                   ["NSConstantValue": constant, "NSExpressionType": .integer(0)])
                return .uid(archive.builder.object("NSComparisonPredicate", superclasses: ["NSPredicate", "NSObject"],
                                                   ["NSLeftExpression": left, "NSRightExpression": .uid(right), "NSPredicateOperator": .uid(operatorObject)]))
            }
            let selfExpression = PlistValue.uid(archive.builder.object("NSSelfExpression", superclasses: ["NSExpression", "NSObject"], ["NSExpressionType": .integer(1)]))
            let specifier = archive.builder.object("NSKeyPathSpecifierExpression", superclasses: ["NSExpression", "NSObject"],
                                                   ["NSKeyPath": archive.builder.string("length"), "NSExpressionType": .integer(10)])
            let lengthArguments = archive.builder.array([.uid(specifier)])
            let length = PlistValue.uid(archive.builder.object("NSKeyPathExpression", superclasses: ["NSFunctionExpression", "NSExpression", "NSObject"],
                                                               ["NSOperand": selfExpression, "NSArguments": lengthArguments,
                                                                "NSSelectorName": archive.builder.string("valueForKey:"), "NSExpressionType": .integer(3)]))
            let limits = archive.builder.array([comparison(selfExpression, 3, .integer(0)), comparison(selfExpression, 1, .integer(8))])
            archive.attribute("count", of: trip, type: 100, ["NSValidationPredicates": limits])
            let text = archive.builder.array([comparison(length, 3, .integer(1)), comparison(selfExpression, 6, archive.builder.string("[A-Z]+"))])
            archive.attribute("code", of: trip, type: 700, ["NSValidationPredicates": text])
        }
        let trip = try #require(model.entity(named: "Trip"))
        #expect(trip.attribute(named: "count").map { [$0.minValueString, $0.maxValueString] } == ["0", "8"])
        #expect(trip.attribute(named: "code").map { [$0.minValueString, $0.maxValueString, $0.regularExpressionString] } == ["1", nil, "[A-Z]+"])
    }

    @Test("relationships: delete rules, counts, order, inverse by reference or by name, NSUIntegerMax as no limit")
    func relationships() throws {
        var archive = ModelArchiveBuilder()
        let trip = archive.entity("Trip")
        let stop = archive.entity("Stop", ["NSIsAbstract": .bool(true), "NSVersionHashModifier": archive.builder.string("2")])
        let stops = archive.relationship("stops", of: trip, to: stop, maxCount: 0,
                                         ["NSDeleteRule": .integer(2), "NSIsOrdered": .bool(true), "NSMinCount": .integer(1)])
        let back = archive.relationship("trip", of: stop, to: trip, maxCount: 1, ["NSDeleteRule": .integer(0), "NSIsOptional": .bool(false)])
        archive.link(stops, back)
        archive.relationship("guides", of: trip, to: stop, maxCount: -1, ["NSDeleteRule": .integer(3),
                                                                          "_NSInverseRelationshipName": archive.builder.string("trip"),
                                                                          "NSUserInfo": archive.builder.dictionary([(key: archive.builder.string("key"), value: archive.builder.string("value"))])])
        let model = try CompiledModelReader.decode(archive.data())
        #expect(model.entity(named: "Trip")?.relationships == [
            XCRelationship(name: "guides", destinationEntity: "Stop", inverseName: "trip", inverseEntity: "Stop", isToMany: true,
                           isOptional: true, deletionRule: "Deny", maxCount: Int(UInt32.max), userInfo: ["key": "value"]),
            XCRelationship(name: "stops", destinationEntity: "Stop", inverseName: "trip", inverseEntity: "Stop", isToMany: true,
                           isOrdered: true, isOptional: true, deletionRule: "Cascade", minCount: 1, maxCount: 0),
        ])
        #expect(model.entity(named: "Stop")?.relationships == [
            XCRelationship(name: "trip", destinationEntity: "Trip", inverseName: "stops", inverseEntity: "Trip", deletionRule: "No Action", maxCount: 1),
        ])
        #expect(model.entity(named: "Stop")?.isAbstract == true)
        #expect(model.entity(named: "Stop")?.versionHashModifier == "2")
    }

    @Test("a store's cache repeats inherited properties in each subentity: they stay with the entity that declares them")
    func inheritedProperties() throws {
        var archive = ModelArchiveBuilder()
        let person = archive.entity("Person")
        let guide = archive.entity("Guide", parent: person)
        archive.attribute("name", of: person, type: 700)
        archive.attribute("name", of: guide, type: 700)
        archive.attribute("licence", of: guide, type: 700)
        let model = try CompiledModelReader.decode(archive.data())
        #expect(model.entity(named: "Person")?.attributes.map(\.name) == ["name"])
        #expect(model.entity(named: "Guide")?.attributes.map(\.name) == ["licence"])
        #expect(model.entity(named: "Guide")?.parentEntity == "Person")
    }

    @Test("uniqueness constraints, compound indexes, configurations, fetch request templates and fetched properties")
    func modelLevel() throws {
        var archive = ModelArchiveBuilder()
        let trip = archive.entity("Trip")
        let name = archive.attribute("name", of: trip, type: 700)
        archive.attribute("year", of: trip, type: 200)
        let constraint = archive.builder.array([.uid(name), archive.builder.string("year")])
        archive.set("NSUniqueTuples", archive.builder.array([constraint]), on: trip)
        archive.set("NSCompoundIndexes", archive.builder.array([archive.builder.array([archive.builder.string("year"), .uid(name)])]), on: trip)
        let variable = archive.builder.object("NSVariableExpression", superclasses: ["NSExpression", "NSObject"], ["NSVariable": archive.builder.string("YEAR")])
        let key = archive.builder.object("NSKeyPathSpecifierExpression", superclasses: ["NSExpression", "NSObject"], ["NSKeyPath": archive.builder.string("year")])
        let selfExpression = archive.builder.object("NSSelfExpression", superclasses: ["NSExpression", "NSObject"], [:])
        let left = archive.builder.object("NSKeyPathExpression", superclasses: ["NSFunctionExpression", "NSExpression", "NSObject"],
                                          ["NSOperand": .uid(selfExpression), "NSArguments": archive.builder.array([.uid(key)])])
        let operatorObject = archive.builder.object("NSEqualityPredicateOperator", superclasses: ["NSPredicateOperator", "NSObject"],
                                                    ["NSOperatorType": .integer(4), "NSModifier": .integer(0), "NSOptions": .integer(3)])
        let predicate = archive.builder.object("NSComparisonPredicate", superclasses: ["NSPredicate", "NSObject"],
                                               ["NSLeftExpression": .uid(left), "NSRightExpression": .uid(variable), "NSPredicateOperator": .uid(operatorObject)])
        let truePredicate = archive.builder.object("NSTruePredicate", superclasses: ["NSPredicate", "NSObject"], [:])
        let compound = archive.builder.object("NSCompoundPredicate", superclasses: ["NSPredicate", "NSObject"],
                                              ["NSCompoundPredicateType": .integer(2), "NSSubpredicates": archive.builder.array([.uid(predicate), .uid(truePredicate)])])
        let request = archive.builder.object("NSFetchRequest", ["NSEntity": .uid(trip), "NSPredicate": .uid(compound), "NSFetchLimit": .integer(10)])
        archive.modelFields["NSFetchRequestTemplates"] = archive.builder.dictionary([(key: archive.builder.string("byYear"), value: .uid(request))])
        archive.modelFields["NSConfigurations"] = archive.builder.dictionary([
            (key: archive.builder.string("Local"), value: archive.builder.array([.uid(trip)], className: "NSSet")),
        ])
        archive.modelFields["NSVersionIdentifiers"] = archive.builder.array([archive.builder.string("7")], className: "NSSet")
        let fetchedRequest = archive.builder.object("NSFetchRequest", ["NSEntity": .uid(trip), "NSPredicate": .uid(predicate)])
        archive.property("NSFetchedPropertyDescription", "sameYear", of: trip, ["NSFetchRequest": .uid(fetchedRequest), "_P": .integer(0xF)])
        let model = try CompiledModelReader.decode(archive.data())
        let entity = try #require(model.entity(named: "Trip"))
        #expect(entity.uniquenessConstraints == [["name", "year"]])
        #expect(entity.compoundIndexes == [["year", "name"]])
        #expect(model.configurations == [XCConfiguration(name: "Local", entityNames: ["Trip"])])
        #expect(model.versionIdentifier == "7")
        #expect(model.fetchRequests == [XCFetchRequest(
            name: "byYear", entity: "Trip", predicateString: "year ==[cd] $YEAR OR TRUEPREDICATE",
            attributes: ["name": "byYear", "entity": "Trip", "predicateString": "year ==[cd] $YEAR OR TRUEPREDICATE", "fetchLimit": "10"])])
        #expect(entity.fetchedProperties == [XCFetchedProperty(name: "sameYear", isOptional: true, fetchRequest: XCFetchRequest(
            name: "fetchedPropertyFetchRequest", entity: "Trip", predicateString: "year ==[cd] $YEAR",
            attributes: ["name": "fetchedPropertyFetchRequest", "entity": "Trip", "predicateString": "year ==[cd] $YEAR"]))])
    }
}
