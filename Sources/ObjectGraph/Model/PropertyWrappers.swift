import Foundation
import SQLiteDB

/// Declares an attribute of a `ManagedObject` subclass; every set is change tracked.
///
/// ```swift
/// final class Photo: ManagedObject {
///     @Attribute(unique: true) var unique: String = ""
///     @Attribute var title: String?
///     @Attribute(indexed: true) var dateTaken: Date?
/// }
/// ```
/// The model reads the declaration once per class by reflection; the wrapper itself keeps only
/// its place in the object, so reads and writes go straight to the object's storage.
@propertyWrapper
public struct Attribute<Value: AttributeValue> {
    /// The wrapper's place among its object's wrappers: all an object stores per property.
    @usableFromInline let ordinal: Int32

    // The initialisers run for every property of every object made (fetched or inserted), so
    // they are inlinable: specialised for the property's type, they take a number and store
    // it. What they declare is built only while the model reflects the class.

    /// An attribute whose new objects start with `wrappedValue`. A `searchable` string is kept
    /// in the entity's full-text search index (`ObjectContext.search`).
    @inlinable
    public init(wrappedValue: Value, unique: Bool = false, indexed: Bool = false, transient: Bool = false,
                renamedFrom: String? = nil, searchable: Bool = false) {
        ordinal = WrapperOrdinal.next {
            Self.declaration(unique: unique, indexed: indexed, transient: transient, defaultValue: wrappedValue,
                             renamedFrom: renamedFrom, searchable: searchable)
        }
    }

    /// An attribute without a default: nil for optionals; a non-optional must be set before saving.
    @inlinable
    public init(unique: Bool = false, indexed: Bool = false, transient: Bool = false, renamedFrom: String? = nil,
                searchable: Bool = false) {
        ordinal = WrapperOrdinal.next {
            Self.declaration(unique: unique, indexed: indexed, transient: transient, defaultValue: nil,
                             renamedFrom: renamedFrom, searchable: searchable)
        }
    }

    /// The declaration, once reflection gives the property its name.
    @usableFromInline
    static func declaration(unique: Bool, indexed: Bool, transient: Bool, defaultValue: Value?,
                            renamedFrom: String?, searchable: Bool) -> WrapperDeclaration {
        { name in
            .attribute(AttributeDescription(
                name: name, type: Value.attributeType, isOptional: Value.isOptional,
                // A closure, not the key path `\.storedValue`: a key path in generic code is made at
                // run time (about 13,000 instructions for each attribute of every model built).
                defaultValue: defaultValue.map { $0.storedValue }.flatMap { $0.isNull ? nil : $0 },
                isIndexed: indexed, isUnique: unique, isTransient: transient, renamingIdentifier: renamedFrom,
                isSearchable: searchable))
        }
    }

    /// Unavailable: the property is read through the enclosing object (the static subscript).
    @available(*, unavailable, message: "@Attribute can only be used in ManagedObject subclasses")
    public var wrappedValue: Value {
        get { preconditionFailure("unreachable") }
        // swiftlint:disable:next unused_setter_value
        set { preconditionFailure("unreachable") }
    }

    // Inlinable so that each property's accessors are specialised where the class is declared:
    // the storage key path is then a literal the optimiser turns into a plain field read, where
    // a generic call would walk it at run time on every access.
    @inlinable @inline(__always)
    /// Reads and writes the attribute of `object`, through its storage; what an `@Attribute` property compiles to.
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Attribute<Value>>
    ) -> Value {
        get {
            let ordinal = Int(object[keyPath: storageKeyPath].ordinal)
            guard case .attribute(let slot) = object.entity.wrapperTargets[ordinal] else { return Value.fromStored(.null) }
            // Strings, the most read, without the stored value's copy (the checks fold away
            // where the getter is specialised for its property's type).
            if Value.self == String?.self { return unsafeBitCast(object.storedString(slot: slot), to: Value.self) }
            if Value.self == String.self { return unsafeBitCast(object.storedString(slot: slot) ?? "", to: Value.self) }
            return Value.fromStored(object.storedValue(slot: slot))
        }
        set {
            let ordinal = Int(object[keyPath: storageKeyPath].ordinal)
            guard case .attribute(let slot) = object.entity.wrapperTargets[ordinal] else { return }
            object.setStoredValue(newValue.storedValue, slot: slot)
        }
    }
}

extension Attribute: ReflectedProperty {
    var wrapperOrdinal: Int32 { ordinal }
}

/// A type a `@Relationship` can hold: an optional object (to-one) or a set of objects (to-many).
public protocol RelationshipValue {
    static var destinationType: ManagedObject.Type { get }
    static var isToMany: Bool { get }
    static func read(_ object: ManagedObject, index: Int) -> Self
    func write(to object: ManagedObject, index: Int) throws
}

extension Optional: RelationshipValue where Wrapped: ManagedObject {
    /// The destination's class.
    public static var destinationType: ManagedObject.Type { Wrapped.self }
    /// False: an optional object is a to-one.
    public static var isToMany: Bool { false }
    // Inlinable so that a property's getter is specialized for its class (no generic calls).
    /// The to-one's object, loading it when needed; nil when there is none.
    @inlinable
    public static func read(_ object: ManagedObject, index: Int) -> Wrapped? {
        guard let target = object.toOneObject(index: index) else { return nil }
        return downcast(target, to: Wrapped.self)
    }
    /// Sets the to-one of `object` to this value, keeping the inverse in step.
    public func write(to object: ManagedObject, index: Int) throws {
        try object.owningContext?.setToOne(of: object, index: index, to: self)
    }
}

extension Set: RelationshipValue where Element: ManagedObject {
    /// The destination's class.
    public static var destinationType: ManagedObject.Type { Element.self }
    /// True: a set of objects is a to-many.
    public static var isToMany: Bool { true }
    /// The to-many's objects, loading them when needed.
    // Inlinable, as `Optional.read` is: unspecialized, the generic `compactMap` and `Set.init`
    // asked the runtime for the array's associated types, two conformance scans at first use.
    @inlinable
    public static func read(_ object: ManagedObject, index: Int) -> Set<Element> {
        let objects = object.toManyObjects(index: index)
        var result = Set<Element>(minimumCapacity: objects.count)
        for target in objects {
            if let element = downcast(target, to: Element.self) { result.insert(element) }
        }
        return result
    }
    /// Replaces the to-many of `object` with this set, keeping the inverses in step.
    public func write(to object: ManagedObject, index: Int) throws {
        try object.owningContext?.setToMany(of: object, index: index, to: self)
    }
}

/// Declares a relationship of a `ManagedObject` subclass; inverses are kept in step in memory.
///
/// ```swift
/// @Relationship(inverse: "photos") var place: Place?
/// @Relationship(inverse: "place", deleteRule: .cascade) var photos: Set<Photo>
/// @Relationship(inverse: "photos", searchable: "name") var tags: Set<Tag>   // tags' names searched with the photo
/// ```
/// Assigning an object from another context is a programming error and is ignored.
@propertyWrapper
public struct Relationship<Value: RelationshipValue> {
    /// The wrapper's place among its object's wrappers (see `Attribute`).
    @usableFromInline let ordinal: Int32

    /// `searchable` names a string attribute of the destination whose values the object's
    /// full-text search index holds (a to-one or a many-to-many only).
    @inlinable
    public init(inverse: String?, deleteRule: DeleteRule = .nullify, optional: Bool = true,
                minCount: Int = 0, maxCount: Int = 0, renamedFrom: String? = nil, searchable: String? = nil) {
        ordinal = WrapperOrdinal.next {
            Self.declaration(inverse: inverse, deleteRule: deleteRule, optional: optional, minCount: minCount,
                             maxCount: maxCount, renamedFrom: renamedFrom, searchable: searchable)
        }
    }

    /// The declaration, once reflection gives the property its name.
    @usableFromInline
    static func declaration(inverse: String?, deleteRule: DeleteRule, optional: Bool, minCount: Int, maxCount: Int,
                            renamedFrom: String?, searchable: String?) -> WrapperDeclaration {
        { name in
            .relationship(RelationshipDescription(
                name: name, destination: Value.destinationType.entityName, inverse: inverse,
                isToMany: Value.isToMany, deleteRule: deleteRule, isOptional: optional,
                minCount: minCount, maxCount: maxCount, renamingIdentifier: renamedFrom,
                searchableAttribute: searchable))
        }
    }

    /// Unavailable: the property is read through the enclosing object (the static subscript).
    @available(*, unavailable, message: "@Relationship can only be used in ManagedObject subclasses")
    public var wrappedValue: Value {
        get { preconditionFailure("unreachable") }
        // swiftlint:disable:next unused_setter_value
        set { preconditionFailure("unreachable") }
    }

    // Inlinable for the reason given at `Attribute`'s subscript.
    @inlinable @inline(__always)
    /// Reads and writes the relationship of `object`; what a `@Relationship` property compiles to.
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Relationship<Value>>
    ) -> Value {
        get {
            let ordinal = Int(object[keyPath: storageKeyPath].ordinal)
            guard case .relationship(let index) = object.entity.wrapperTargets[ordinal] else {
                return Value.read(object, index: -1)
            }
            return Value.read(object, index: index)
        }
        set {
            let ordinal = Int(object[keyPath: storageKeyPath].ordinal)
            guard case .relationship(let index) = object.entity.wrapperTargets[ordinal] else { return }
            do {
                try newValue.write(to: object, index: index)
            } catch {
                // A setter cannot throw; the error surfaces again when the context saves.
                object.deferErrorToSave(error)
            }
        }
    }
}

extension Relationship: ReflectedProperty {
    var wrapperOrdinal: Int32 { ordinal }
}
