import Foundation
import SQLiteDB

/// Managed objects evaluate predicates in memory with the values the store compares in SQL:
/// each attribute's stored form is read as its type's predicate value.
///
/// | attribute type | predicate value | SQL kind |
/// |---|---|---|
/// | String, URI | `.string` | TEXT, by UTF-8 bytes |
/// | Boolean | `.bool` | INTEGER 0 / 1 |
/// | Integer 16/32/64 | `.int` | INTEGER |
/// | Double, Float | `.double` | REAL |
/// | Decimal | `.int` or `.double` | NUMERIC |
/// | Date | `.date` | seconds since 2001 |
/// | Binary, Transformable | `.data` | BLOB |
/// | UUID | `.data` (its 16 bytes) | BLOB |
///
/// To-one relationships read as `.object` (or null), to-many ones as a collection of objects.
/// An object's identity is its `ObjectID`, so a predicate made in one context matches the same
/// object in another:
///
/// ```swift
/// let predicate = try ObjectPredicate(format: "place == %@ AND ANY tags.name ==[c] %@", lisbon, "sea")
/// try predicate.evaluate(with: photo)
/// ```
extension ManagedObject: PredicateKeyValueReadable, PredicateArgument {
    /// The value of an attribute or relationship by name.
    ///
    /// - Throws: `PropertyAccessError` when the entity has no property named `key`,
    ///   `ObjectLoadError` when the object or the relationship cannot be loaded (a predicate
    ///   judged on values that never loaded would answer wrongly).
    package func predicateValue(forKey key: String) throws -> PredicateEvaluationValue {
        if let slot = entity.attributeSlots[key] {
            try owningContext?.loadFault(self)
            return .value(Self.predicateValue(storedValue(slot: slot), type: entity.attributes[slot].type))
        }
        if let index = entity.relationshipIndexes[key] {
            if entity.relationships[index].isToMany { return .objects(try predicateMembers(index: index)) }
            try owningContext?.loadFault(self)
            return .object(toOneObject(index: index))
        }
        if entity.compositePaths.contains(key) { return .object(CompositeElements(object: self, path: key)) }
        throw PropertyAccessError(message: "\(entity.name) has no attribute or relationship named \(key)")
    }

    /// The members of a to-many relationship in primary-key order (unique within the
    /// destination's table), so sums and means of doubles add up in the same order every run.
    private func predicateMembers(index: Int) throws -> [ManagedObject] {
        guard let context = owningContext else { return [] }
        let keys = try context.loadedToManyIDs(of: self, index: index).sorted { $0.primaryKey < $1.primaryKey }
        return keys.compactMap { context.registeredOrFault($0) }
    }

    /// The object's `ObjectID`.
    package var predicateObjectReference: PredicateObjectReference { PredicateObjectReference(objectID) }

    /// `.object` with the object's ID, for `place == %@`.
    public var predicateValue: PredicateValue { .object(predicateObjectReference) }

    /// A stored value as the predicate value of an attribute of `type`.
    static func predicateValue(_ stored: SQLiteValue, type: AttributeType) -> PredicateValue {
        if stored.isNull { return .null }
        switch type {
        case .string, .uri:
            return String(stored: stored).map(PredicateValue.string) ?? .null
        case .boolean:
            return Bool(stored: stored).map(PredicateValue.bool) ?? .null
        case .integer16, .integer32, .integer64:
            return Int64(stored: stored).map(PredicateValue.int) ?? .null
        case .double, .float:
            return Double(stored: stored).map(PredicateValue.double) ?? .null
        case .decimal:
            // A DECIMAL column has NUMERIC affinity: SQLite keeps the text of a number as one.
            switch stored {
            case .integer(let integer): return .int(integer)
            case .real(let real): return .double(real)
            case .text(let text):
                if let integer = Int64(text) { return .int(integer) }
                return Double(text).map(PredicateValue.double) ?? .string(text)
            default: return .null
            }
        case .date:
            return Date(stored: stored).map(PredicateValue.date) ?? .null
        case .binary, .transformable, .uuid, .undefined, .objectID, .composite:
            return Data(stored: stored).map(PredicateValue.data) ?? .null
        }
    }
}

extension ManagedObject: PredicateSchemaChecking {
    /// The object's entity: every object of an entity gets the same answer.
    ///
    /// - Throws: `PropertyAccessError` for an object no longer in a context (deleted and saved,
    ///   or its context gone): without its model, a predicate cannot be checked as a fetch checks it.
    func predicateSchema() throws -> AnyObject {
        _ = try predicateModel()
        return entity
    }

    /// Runs the fetch's own checks: key paths first, then the whole compilation, as a fetch of
    /// this object's entity does.
    func checkPredicate(_ predicate: ObjectPredicate) throws {
        let model = try predicateModel()
        try PredicateSQLCompiler.validate(predicate: predicate, sortDescriptors: [], entity: entity, model: model)
        _ = try PredicateSQLCompiler.compile(predicate: predicate, sortDescriptors: [], entity: entity, model: model)
    }
}

private extension ManagedObject {
    func predicateModel() throws -> ObjectModel {
        guard let model = owningContext?.model else {
            throw PropertyAccessError(message: "\(entity.name) object \(objectID) is in no context: a predicate cannot be checked against its model")
        }
        return model
    }
}

extension ObjectID: PredicateArgument {
    /// `.object` with this ID: `Predicate(format: "place == %@", placeID)`.
    public var predicateValue: PredicateValue { .object(PredicateObjectReference(self)) }
}

extension UUID: PredicateArgument {
    /// Its 16 bytes, as a UUID attribute stores them.
    public var predicateValue: PredicateValue { withUnsafeBytes(of: uuid) { .data(Data($0)) } }
}

extension URL: PredicateArgument {
    /// Its absolute string, as a URI attribute stores it.
    public var predicateValue: PredicateValue { .string(absoluteString) }
}

extension Decimal: PredicateArgument {
    /// The nearest double, as SQLite keeps a DECIMAL column's numbers.
    public var predicateValue: PredicateValue { .double(NSDecimalNumber(decimal: self).doubleValue) }
}

/// A composite attribute of an object, read one element at a time (`location.latitude > 38`).
struct CompositeElements: PredicateKeyValueReadable {
    let object: ManagedObject
    /// The composite's path in the object (`location`, `size.inner`).
    let path: String

    func predicateValue(forKey key: String) throws -> PredicateEvaluationValue {
        try object.predicateValue(forKey: path + "." + key)
    }

    var predicateObjectReference: PredicateObjectReference { object.predicateObjectReference }
}
