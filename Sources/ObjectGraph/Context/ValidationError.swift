import Foundation

/// A save refused because an object breaks a rule of the model.
///
/// Its description names the object, the property and the rule:
/// `Photo t3: title is required`.
public struct ValidationError: Error, CustomStringConvertible, Sendable, Equatable {
    package enum Rule: String, Sendable {
        /// A non-optional attribute or to-one relationship has no value.
        case required
        /// A floating-point attribute holds NaN, which SQLite cannot store.
        case notANumber
        case tooFewObjects
        case tooManyObjects
        /// A delete refused by a deny rule while related objects exist.
        case deny
    }

    /// The object that failed validation.
    public var objectID: ObjectID
    /// The name of that object's entity.
    public var entityName: String
    /// The property whose rule failed.
    public var property: String
    package var rule: Rule
    package var detail: String

    /// One line naming the object, the property and the rule.
    public var description: String {
        let object = objectID.isTemporary ? "t\(-objectID.primaryKey)" : "p\(objectID.primaryKey)"
        return "\(entityName) \(object): \(property) \(detail)"
    }
}
