import Foundation

/// An object a predicate can be evaluated on: it answers one key at a time.
///
/// Managed objects conform; tests use small structs or classes:
///
/// ```swift
/// final class Place: PredicateKeyValueReadable {
///     var name: String?
///     var photos: [Photo] = []
///     func predicateValue(forKey key: String) -> PredicateEvaluationValue {
///         switch key {
///         case "name": return .init(name)
///         case "photos": return .objects(photos)
///         default: return .null
///         }
///     }
/// }
/// ```
package protocol PredicateKeyValueReadable {
    /// The value of an attribute (`.value`), a to-one relationship (`.object`, or `.null`
    /// when empty) or a to-many relationship (`.collection` of `.object`s). Unknown keys
    /// should give `.null`.
    ///
    /// - Throws: whatever reading the value can throw (e.g. firing a fault); evaluation
    ///   stops and rethrows it.
    func predicateValue(forKey key: String) throws -> PredicateEvaluationValue

    /// The object's identity, compared with `.object` constants (`place == %@`).
    /// Classes get `ObjectIdentifier(self)` by default.
    var predicateObjectReference: PredicateObjectReference { get }
}

extension PredicateKeyValueReadable where Self: AnyObject {
    package var predicateObjectReference: PredicateObjectReference {
        PredicateObjectReference(ObjectIdentifier(self))
    }
}

/// A value met while evaluating a predicate: a constant, an object, or a collection of
/// either (a to-many relationship, an aggregate, or the flattened values of a key path
/// through a to-many relationship).
///
/// ```swift
/// let tags: PredicateEvaluationValue = .objects([beach, sunset])
/// let title: PredicateEvaluationValue = "Lisbon at night"
/// ```
package enum PredicateEvaluationValue {
    /// A constant; `.value(.null)` for nil.
    case value(PredicateValue)
    /// An object.
    case object(any PredicateKeyValueReadable)
    /// Several values.
    case collection([PredicateEvaluationValue])

    /// Nil.
    package static var null: PredicateEvaluationValue { .value(.null) }

    /// A constant from any argument value; `nil` becomes `.null`.
    package init(_ value: some PredicateArgument) {
        self = .value(value.predicateValue)
    }

    /// A to-one relationship: the object, or `.null`.
    package static func object(_ object: (any PredicateKeyValueReadable)?) -> PredicateEvaluationValue {
        guard let object else { return .null }
        return .object(object)
    }

    /// A to-many relationship.
    package static func objects(_ objects: [any PredicateKeyValueReadable]) -> PredicateEvaluationValue {
        .collection(objects.map { .object($0) })
    }
}

extension PredicateEvaluationValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral
{
    package init(nilLiteral: ()) { self = .null }
    package init(booleanLiteral value: Bool) { self = .value(.bool(value)) }
    package init(integerLiteral value: Int64) { self = .value(.int(value)) }
    package init(floatLiteral value: Double) { self = .value(.double(value)) }
    package init(stringLiteral value: String) { self = .value(.string(value)) }
}
