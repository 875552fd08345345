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

/// Reads entity declarations from `ManagedObject` subclasses with `Mirror`.
enum ModelReflection {
    /// The entity a class declares: its own wrappers become properties, its superclass (when a
    /// managed object) the parent entity.
    static func entityDescription(of type: ManagedObject.Type) -> EntityDescription {
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
        // then each superclass's. Record every wrapper's name by ordinal.
        var names: [(Int32, String)] = []
        var mirror: Mirror? = Mirror(reflecting: prototype)
        var isOwnClass = true
        while let current = mirror {
            for child in current.children {
                guard let label = child.label, label.hasPrefix("_"), let property = child.value as? ReflectedProperty else { continue }
                let name = String(label.dropFirst())
                names.append((property.wrapperOrdinal, name))
                guard isOwnClass, let declaration = declarations[property.wrapperOrdinal] else { continue }
                switch declaration(name) {
                case .attribute(let attribute): description.attributes.append(attribute)
                case .relationship(let relationship): description.relationships.append(relationship)
                }
            }
            isOwnClass = false
            mirror = current.superclassMirror
        }
        var order = Array(repeating: "", count: (names.map(\.0).max().map { Int($0) + 1 }) ?? 0)
        for (ordinal, name) in names where ordinal >= 0 { order[Int(ordinal)] = name }
        description.wrapperOrder = order
        return description
    }
}

extension Entity {
    /// Stands in for the entity while a class is instantiated only to be reflected.
    static let placeholder = Entity(
        name: "", number: 0, isAbstract: true, parent: nil, root: 0, subentities: [], hierarchy: [],
        attributes: [], relationships: [], uniquenessConstraints: [], table: "", renamingIdentifier: nil,
        versionHash: Data(), objectClass: ManagedObject.self, wrapperTargets: [])
}
