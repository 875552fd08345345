import Foundation

/// What a property wrapper declares.
@usableFromInline
enum ReflectedDeclaration {
    case attribute(AttributeDescription)
    case relationship(RelationshipDescription)
}

/// A wrapper's declaration, given the property's name (which only reflection knows).
@usableFromInline
typealias WrapperDeclaration = (_ name: String) -> ReflectedDeclaration

/// A property wrapper the model can read by reflection.
protocol ReflectedProperty {
    var wrapperOrdinal: Int32 { get }
}

/// Reads entity declarations from `ManagedObject` subclasses: each wrapper declares itself as an
/// instance is made, and its property's name comes from the class's `declaredPropertyNames` or,
/// when a class of the hierarchy gives none, from `Mirror`.
enum ModelReflection {
    /// The entity a class declares: its own wrappers become properties, its superclass (when a
    /// managed object) the parent entity.
    ///
    /// - Throws: `ModelError` when the declared names do not match the wrappers an instance makes.
    static func entityDescription(of type: ManagedObject.Type, byReflection: Bool = false) throws -> EntityDescription {
        let placeholder = Entity.placeholder
        let (prototype, declarations) = WrapperOrdinal.recordingDeclarations {
            type.init(ObjectSeed(entity: placeholder, objectID: ObjectID(entityNumber: 0, primaryKey: 0),
                                 context: nil, isFault: false))
        }
        var description = EntityDescription(name: type.entityName, isAbstract: type.isAbstract, objectClass: type)
        if let parent = Swift._getSuperclass(type) as? ManagedObject.Type, parent != ManagedObject.self {
            description.parent = parent.entityName
        }
        description.uniquenessConstraints = type.uniquenessConstraints

        // Wrappers take ordinals in initialisation order: this class's own properties first,
        // then each superclass's. Name every wrapper by its ordinal.
        let names: [(ordinal: Int32, name: String, isOwn: Bool)]
        if !byReflection, let declared = declaredNames(of: type) {
            guard declared.all.count == declarations.count else {
                throw ModelError("\(type.entityName) and its managed-object superclasses declare \(declared.all.count) property names "
                                 + "(declaredPropertyNames) for \(declarations.count) @Attribute and @Relationship properties; "
                                 + "every class of the hierarchy must list its own, in declaration order")
            }
            names = declared.all.enumerated().map { (Int32($0.offset), $0.element, $0.offset < declared.ownCount) }
        } else {
            names = reflectedNames(of: prototype)
        }
        for (ordinal, name, isOwn) in names where isOwn {
            guard let declaration = declarations[ordinal] else { continue }
            switch declaration(name) {
            case .attribute(let attribute): description.attributes.append(attribute)
            case .relationship(let relationship): description.relationships.append(relationship)
            }
        }
        var order = Array(repeating: "", count: (names.map(\.ordinal).max().map { Int($0) + 1 }) ?? 0)
        for (ordinal, name, _) in names where ordinal >= 0 { order[Int(ordinal)] = name }
        description.wrapperOrder = order
        return description
    }

    /// The names `declaredPropertyNames` gives for the class and each managed-object superclass,
    /// in ordinal order (the class's own first); nil when a class of the hierarchy gives none.
    private static func declaredNames(of type: ManagedObject.Type) -> (all: [String], ownCount: Int)? {
        guard let own = type.declaredPropertyNames else { return nil }
        var all = own
        var current: AnyClass? = Swift._getSuperclass(type)
        while let superclass = current as? ManagedObject.Type, superclass != ManagedObject.self {
            guard let names = superclass.declaredPropertyNames else { return nil }
            // A class that does not override the list inherits its superclass's.
            if all.count == own.count, !own.isEmpty, names == own { return nil }
            all += names
            current = Swift._getSuperclass(superclass)
        }
        return (all, own.count)
    }

    /// Every wrapper's ordinal and name, read with `Mirror`: each stored property `_name` holding
    /// a wrapper. Each property's type is looked up at run time, and each first question whether
    /// a type conforms to a protocol scans every conformance the process has: about 10 M
    /// instructions for the vacations model, where `declaredPropertyNames` costs nothing.
    private static func reflectedNames(of prototype: ManagedObject) -> [(ordinal: Int32, name: String, isOwn: Bool)] {
        var names: [(ordinal: Int32, name: String, isOwn: Bool)] = []
        var mirror: Mirror? = Mirror(reflecting: prototype)
        var isOwnClass = true
        while let current = mirror, current.subjectType != ManagedObject.self {
            for child in current.children {
                guard let label = child.label, label.hasPrefix("_"), let property = child.value as? ReflectedProperty else { continue }
                names.append((property.wrapperOrdinal, String(label.dropFirst()), isOwnClass))
            }
            isOwnClass = false
            mirror = current.superclassMirror
        }
        return names
    }

    /// The names of every class whose `declaredPropertyNames` differ from what reflection reads
    /// (the properties' names and order), with both lists; empty when all agree.
    static func declaredNameMismatches(_ classes: [ManagedObject.Type]) -> [String] {
        classes.compactMap { type in
            guard let declared = type.declaredPropertyNames else { return nil }
            let prototype = WrapperOrdinal.recordingDeclarations {
                type.init(ObjectSeed(entity: Entity.placeholder, objectID: ObjectID(entityNumber: 0, primaryKey: 0),
                                     context: nil, isFault: false))
            }.0
            let reflected = reflectedNames(of: prototype).filter(\.isOwn).sorted { $0.ordinal < $1.ordinal }.map(\.name)
            return reflected == declared ? nil
                : "\(type.entityName): declaredPropertyNames \(declared), reflection reads \(reflected)"
        }
    }
}

extension Entity {
    /// Stands in for the entity while a class is instantiated only to be reflected.
    static let placeholder = Entity(
        name: "", number: 0, isAbstract: true, parent: nil, root: 0, subentities: [], hierarchy: [],
        attributes: [], relationships: [], uniquenessConstraints: [], table: "", renamingIdentifier: nil,
        versionHashes: ModelVersionHashes([]), objectClass: ManagedObject.self, wrapperTargets: [])
}
