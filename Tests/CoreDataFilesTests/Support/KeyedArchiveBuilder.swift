@testable import CoreDataFiles
import Foundation

/// Builds `NSKeyedArchiver` archives as Core Data writes them, object by object, for tests of
/// what the fixtures do not hold (and of what no real archive would hold).
struct KeyedArchiveBuilder {
    var objects: [PlistValue] = [.string("$null")]
    private var classes: [String: Int] = [:]

    /// Appends a value to `$objects`; its UID.
    mutating func add(_ value: PlistValue) -> Int {
        objects.append(value)
        return objects.count - 1
    }

    /// A reference to a new string object.
    mutating func string(_ text: String) -> PlistValue { .uid(add(.string(text))) }

    /// A UID for an object filled in later with `fill` (objects refer to each other in cycles).
    mutating func reserve() -> Int { add(.null) }

    /// Makes `uid` an object of `className` (its `$classes` chain ending in `superclasses`).
    mutating func fill(_ uid: Int, _ className: String, superclasses: [String] = ["NSObject"], _ fields: [String: PlistValue]) {
        var fields = fields
        fields["$class"] = .uid(classUID(className, superclasses: superclasses))
        objects[uid] = .dictionary(fields)
    }

    /// A new object of `className`; its UID.
    mutating func object(_ className: String, superclasses: [String] = ["NSObject"], _ fields: [String: PlistValue]) -> Int {
        let uid = reserve()
        fill(uid, className, superclasses: superclasses, fields)
        return uid
    }

    mutating func classUID(_ className: String, superclasses: [String]) -> Int {
        if let uid = classes[className] { return uid }
        let uid = add(.dictionary(["$classname": .string(className), "$classes": .array(([className] + superclasses).map(PlistValue.string))]))
        classes[className] = uid
        return uid
    }

    /// A reference to an `NSMutableArray` (or `className`) of `members`.
    mutating func array(_ members: [PlistValue], className: String = "NSMutableArray") -> PlistValue {
        .uid(object(className, superclasses: className == "NSArray" ? ["NSObject"] : ["NSArray", "NSObject"], ["NS.objects": .array(members)]))
    }

    /// A reference to an `NSMutableDictionary` of `entries`.
    mutating func dictionary(_ entries: [(key: PlistValue, value: PlistValue)]) -> PlistValue {
        .uid(object("NSMutableDictionary", superclasses: ["NSDictionary", "NSObject"],
                    ["NS.keys": .array(entries.map(\.key)), "NS.objects": .array(entries.map(\.value))]))
    }

    /// The archive with `root` as `$top.root`.
    func data(root: Int) -> Data {
        BinaryPropertyListWriter.write(.dictionary([
            "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000),
            "$top": .dictionary(["root": .uid(root)]), "$objects": .array(objects),
        ]))
    }
}

/// A compiled model written key by key as `NSManagedObjectModel` and its descriptions encode
/// themselves: entities, attributes, relationships, with every key a test sets on top.
struct ModelArchiveBuilder {
    var builder = KeyedArchiveBuilder()
    let model: Int
    private(set) var entities: [(name: String, uid: Int)] = []
    private var properties: [Int: [(name: String, uid: Int)]] = [:]
    /// Keys set on the model object besides `NSEntities`.
    var modelFields: [String: PlistValue] = [:]

    init() {
        model = builder.reserve()
    }

    /// A new entity; `fields` are set on top of the name, class, model and property keys.
    mutating func entity(_ name: String, parent: Int? = nil, _ fields: [String: PlistValue] = [:]) -> Int {
        let uid = builder.reserve()
        entities.append((name, uid))
        properties[uid] = []
        var all = fields
        all["NSEntityName"] = builder.string(name)
        all["NSClassNameForEntity"] = all["NSClassNameForEntity"] ?? builder.string(name)
        all["NSManagedObjectModel"] = .uid(model)
        all["NSSuperentity"] = parent.map { .uid($0) } ?? .uid(0)
        builder.fill(uid, "NSEntityDescription", all)
        return uid
    }

    /// A new property of `entity` of `className`, named `name`; `fields` on top.
    @discardableResult
    mutating func property(_ className: String, _ name: String, of entity: Int, _ fields: [String: PlistValue]) -> Int {
        var all = fields
        all["NSPropertyName"] = builder.string(name)
        all["NSEntity"] = .uid(entity)
        let superclasses: [String]
        switch className {
        case "NSAttributeDescription", "NSRelationshipDescription", "NSFetchedPropertyDescription":
            superclasses = ["NSPropertyDescription", "NSObject"]
        case "NSDerivedAttributeDescription", "NSCompositeAttributeDescription":
            superclasses = ["NSAttributeDescription", "NSPropertyDescription", "NSObject"]
        default:
            superclasses = ["NSObject"]
        }
        let uid = builder.object(className, superclasses: superclasses, all)
        properties[entity, default: []].append((name, uid))
        return uid
    }

    /// An attribute of `type` (an `NSAttributeType` code), optional unless `fields` say otherwise.
    @discardableResult
    mutating func attribute(_ name: String, of entity: Int, type: Int64, _ fields: [String: PlistValue] = [:]) -> Int {
        var all: [String: PlistValue] = ["NSAttributeType": .integer(type), "NSIsOptional": .bool(true)]
        all.merge(fields) { _, new in new }
        return property("NSAttributeDescription", name, of: entity, all)
    }

    /// A relationship to `destination` (an entity UID); `inverse` is filled in with `link`.
    @discardableResult
    mutating func relationship(_ name: String, of entity: Int, to destination: Int, maxCount: Int64, _ fields: [String: PlistValue] = [:]) -> Int {
        var all: [String: PlistValue] = ["NSDestinationEntity": .uid(destination), "NSMaxCount": .integer(maxCount),
                                         "NSMinCount": .integer(0), "NSDeleteRule": .integer(1), "NSIsOptional": .bool(true)]
        all.merge(fields) { _, new in new }
        return property("NSRelationshipDescription", name, of: entity, all)
    }

    /// Makes `first` and `second` each other's inverse.
    mutating func link(_ first: Int, _ second: Int) {
        for (uid, inverse) in [(first, second), (second, first)] {
            guard case .dictionary(var fields) = builder.objects[uid] else { continue }
            fields["NSInverseRelationship"] = .uid(inverse)
            builder.objects[uid] = .dictionary(fields)
        }
    }

    /// Sets `key` on the archived object `uid`.
    mutating func set(_ key: String, _ value: PlistValue, on uid: Int) {
        guard case .dictionary(var fields) = builder.objects[uid] else { return }
        fields[key] = value
        builder.objects[uid] = .dictionary(fields)
    }

    /// The archive: the model, its entities by name, each entity's properties by name.
    mutating func data() -> Data {
        for (_, uid) in entities {
            let list = properties[uid] ?? []
            let dictionary = builder.dictionary(list.map { (key: builder.string($0.name), value: .uid($0.uid)) })
            set("NSProperties", dictionary, on: uid)
            let subentities = entities.filter { entity in
                guard case .dictionary(let fields) = builder.objects[entity.uid] else { return false }
                return fields["NSSuperentity"] == .uid(uid)
            }
            set("NSSubentities", builder.dictionary(subentities.map { (key: builder.string($0.name), value: .uid($0.uid)) }), on: uid)
        }
        var fields = modelFields
        fields["NSEntities"] = builder.dictionary(entities.map { (key: builder.string($0.name), value: .uid($0.uid)) })
        builder.fill(model, "NSManagedObjectModel", fields)
        return builder.data(root: model)
    }
}
