import Foundation
import SQLiteDB

/// Errors raised by dynamic (by-name) access to an object's properties.
package struct PropertyAccessError: Error, CustomStringConvertible, Sendable, Equatable {
    package var message: String
    package var description: String { message }
}

extension ManagedObject {
    // MARK: Attributes

    /// The stored value of attribute `slot`, firing the fault first.
    @usableFromInline
    final func storedValue(slot: Int) -> SQLiteValue {
        fireFaultIfNeeded()
        return slot < values.count ? values[slot] : .null
    }

    /// Attribute `slot` of a string attribute: its text taken straight from the stored value,
    /// what every read of a `String` property does (the general path copied the stored value
    /// out, then its text, and let the copy go: about a third of such a read). A stored value
    /// that is not text reads as `fromStored` makes it.
    @usableFromInline
    final func storedString(slot: Int) -> String? {
        fireFaultIfNeeded()
        guard slot < values.count else { return nil }
        if case .text(let text) = values[slot] { return text }
        return String?.fromStored(values[slot])
    }

    /// Sets attribute `slot` to a stored value and records the change.
    @usableFromInline
    final func setStoredValue(_ value: SQLiteValue, slot: Int) {
        fireFaultIfNeeded()
        guard slot < values.count else { return }
        let context = owningContext
        if let context, context.undoManager != nil { context.willChange(self) }
        values[slot] = value
        context?.objectDidChange(self)
    }

    /// The value of an attribute by name, in stored form.
    ///
    /// - Throws: `PropertyAccessError` when the entity has no such attribute.
    public func storedValue(forKey key: String) throws -> SQLiteValue {
        guard let slot = entity.attributeSlots[key] else {
            throw PropertyAccessError(message: "\(entity.name) has no attribute named \(key)")
        }
        return storedValue(slot: slot)
    }

    /// Sets an attribute by name; the value is converted to the attribute's stored form.
    ///
    /// ```swift
    /// try ebook.setStoredValue(.text("Moby Dick"), forKey: "title")
    /// ```
    /// - Throws: `PropertyAccessError` for an unknown key or a value the attribute cannot hold.
    package func setStoredValue(_ value: SQLiteValue, forKey key: String) throws {
        guard let slot = entity.attributeSlots[key] else {
            throw PropertyAccessError(message: "\(entity.name) has no attribute named \(key)")
        }
        let attribute = entity.attributes[slot]
        guard let converted = SQLiteValue.coerce(value, to: attribute.type) else {
            throw PropertyAccessError(message: "\(value) is not a valid \(attribute.type.coreDataName) for \(entity.name).\(key)")
        }
        setStoredValue(converted, slot: slot)
    }

    /// A typed attribute value by name.
    public func value<Value: AttributeValue>(forKey key: String, as type: Value.Type = Value.self) throws -> Value {
        Value.fromStored(try storedValue(forKey: key))
    }

    /// Sets a typed attribute value by name.
    public func setValue<Value: AttributeValue>(_ value: Value, forKey key: String) throws {
        try setStoredValue(value.storedValue, forKey: key)
    }

    // MARK: Composite attributes

    /// A composite attribute's value: each leaf element's stored value by its path inside the
    /// composite (`"latitude"`, `"inner.width"` for a nested composite). An element is also an
    /// attribute of its own, `storedValue(forKey: "location.latitude")`.
    ///
    /// ```swift
    /// let location = try quake.compositeValues(forKey: "location")   // ["latitude": .real(38.7), …]
    /// ```
    /// - Throws: `PropertyAccessError` when the entity has no such composite.
    public func compositeValues(forKey key: String) throws -> [String: SQLiteValue] {
        guard entity.compositePaths.contains(key) else {
            throw PropertyAccessError(message: "\(entity.name) has no composite attribute named \(key)")
        }
        let prefix = key + "."
        var result: [String: SQLiteValue] = [:]
        for attribute in entity.attributes where attribute.composite != nil && attribute.name.hasPrefix(prefix) {
            result[String(attribute.name.dropFirst(prefix.count))] = storedValue(slot: attribute.slot)
        }
        return result
    }

    /// Sets a composite attribute whole: each element to its value in `values` (by path inside
    /// the composite), converted to its type; elements missing from `values` become nil, as
    /// Core Data's dictionary-valued composites do.
    ///
    /// - Throws: `PropertyAccessError` for an unknown composite or element, or a value an
    ///   element cannot hold; nothing changes then.
    public func setCompositeValues(_ values: [String: SQLiteValue], forKey key: String) throws {
        guard entity.compositePaths.contains(key) else {
            throw PropertyAccessError(message: "\(entity.name) has no composite attribute named \(key)")
        }
        let prefix = key + "."
        let elements = entity.attributes.filter { $0.composite != nil && $0.name.hasPrefix(prefix) }
        let known = Set(elements.map { String($0.name.dropFirst(prefix.count)) })
        if let unknown = values.keys.sorted().first(where: { !known.contains($0) }) {
            throw PropertyAccessError(message: "composite \(entity.name).\(key) has no element named \(unknown)")
        }
        var converted: [(slot: Int, value: SQLiteValue)] = []
        for element in elements {
            let value = values[String(element.name.dropFirst(prefix.count))] ?? .null
            guard let stored = SQLiteValue.coerce(value, to: element.type) else {
                throw PropertyAccessError(message: "\(value) is not a valid \(element.type.coreDataName) for \(entity.name).\(element.name)")
            }
            converted.append((element.slot, stored))
        }
        for (slot, value) in converted { setStoredValue(value, slot: slot) }
    }

    /// Keeps an error a relationship setter met (setters cannot throw) for the next save.
    @usableFromInline
    final func deferErrorToSave(_ error: Error) {
        owningContext?.recordDeferredError(error)
    }

    // MARK: Relationships

    /// The target of a to-one relationship, materialised in this object's context.
    @usableFromInline
    final func toOneObject(index: Int) -> ManagedObject? {
        let slot = entity.relationshipSlots[index]
        fireFaultIfNeeded()
        guard let id = toOne[slot], let context = owningContext else { return nil }
        return context.registeredOrFault(id)
    }

    /// The members of a to-many relationship, loading it on first use.
    final func toManyIDs(index: Int) -> Set<ObjectID> {
        let relationship = entity.relationships[index]
        if let members = toMany[relationship.slot].members { return members }
        owningContext?.loadToMany(of: self, relationship: relationship)
        return toMany[relationship.slot].members ?? toMany[relationship.slot].added
    }

    /// The IDs of a to-many relationship's members, by name, loading them when needed but
    /// making no object: what a caller that only compares membership needs (an import visiting
    /// a photo again compares its tags so, for a fifth of what the set of objects costs).
    ///
    /// - Throws: `PropertyAccessError` when there is no such to-many relationship.
    package func memberIDs(ofToMany key: String) throws -> Set<ObjectID> {
        guard let index = entity.relationshipIndexes[key], entity.relationships[index].isToMany else {
            throw PropertyAccessError(message: "\(entity.name) has no to-many relationship named \(key)")
        }
        return toManyIDs(index: index)
    }

    @usableFromInline
    final func toManyObjects(index: Int) -> [ManagedObject] {
        guard let context = owningContext else { return [] }
        return toManyIDs(index: index).sorted().compactMap { context.registeredOrFault($0) }
    }

    /// The related object of a to-one relationship, by name.
    ///
    /// - Throws: `PropertyAccessError` when there is no such to-one relationship.
    public func object(forKey key: String) throws -> ManagedObject? {
        guard let index = entity.relationshipIndexes[key], !entity.relationships[index].isToMany else {
            throw PropertyAccessError(message: "\(entity.name) has no to-one relationship named \(key)")
        }
        return toOneObject(index: index)
    }

    /// The related objects of a to-many relationship, by name, in key order.
    public func objects(forKey key: String) throws -> [ManagedObject] {
        guard let index = entity.relationshipIndexes[key], entity.relationships[index].isToMany else {
            throw PropertyAccessError(message: "\(entity.name) has no to-many relationship named \(key)")
        }
        return toManyObjects(index: index)
    }

    /// Sets a to-one relationship by name, keeping the inverse in step.
    package func setObject(_ object: ManagedObject?, forKey key: String) throws {
        guard let index = entity.relationshipIndexes[key], !entity.relationships[index].isToMany else {
            throw PropertyAccessError(message: "\(entity.name) has no to-one relationship named \(key)")
        }
        try owningContext?.setToOne(of: self, index: index, to: object)
    }

    /// Replaces the members of a to-many relationship by name, keeping inverses in step.
    package func setObjects(_ objects: [ManagedObject], forKey key: String) throws {
        guard let index = entity.relationshipIndexes[key], entity.relationships[index].isToMany else {
            throw PropertyAccessError(message: "\(entity.name) has no to-many relationship named \(key)")
        }
        try owningContext?.setToMany(of: self, index: index, to: objects)
    }

    /// Adds one object to a to-many relationship by name.
    package func addObject(_ object: ManagedObject, forKey key: String) throws {
        guard let index = entity.relationshipIndexes[key], entity.relationships[index].isToMany else {
            throw PropertyAccessError(message: "\(entity.name) has no to-many relationship named \(key)")
        }
        try owningContext?.link(self, index: index, to: object)
    }

    /// Removes one object from a to-many relationship by name.
    func removeObject(_ object: ManagedObject, forKey key: String) throws {
        guard let index = entity.relationshipIndexes[key], entity.relationships[index].isToMany else {
            throw PropertyAccessError(message: "\(entity.name) has no to-many relationship named \(key)")
        }
        try owningContext?.unlink(self, index: index, from: object)
    }

    // MARK: Changes

    /// The attributes and to-one relationships whose values differ from the committed state,
    /// by name, in stored form (to-ones as the target's `ObjectID` text). Empty for a fault.
    public var changedValues: [String: SQLiteValue] {
        guard !isFault else { return [:] }
        var changes: [String: SQLiteValue] = [:]
        for attribute in entity.attributes {
            let old = committedValues?[attribute.slot]
            if old != values[attribute.slot] { changes[attribute.name] = values[attribute.slot] }
        }
        for relationship in entity.relationships where !relationship.isToMany {
            if committedToOne?[relationship.slot] != toOne[relationship.slot] {
                changes[relationship.name] = toOne[relationship.slot].map { .text($0.description) } ?? .null
            }
        }
        return changes
    }

    /// Names of the properties changed since the last save, to-many relationships included.
    public var changedKeys: Set<String> {
        var keys = Set(changedValues.keys)
        for relationship in entity.relationships where relationship.isToMany && toMany[relationship.slot].hasChanges {
            keys.insert(relationship.name)
        }
        return keys
    }
}
