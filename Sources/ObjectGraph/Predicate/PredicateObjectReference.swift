import Foundation

/// The identity of an object used as a predicate constant, e.g. the place in `place == %@`.
///
/// Two references are equal when their bases are equal values of the same type. Managed
/// objects wrap their object ID; anything else can wrap an `ObjectIdentifier`:
///
/// ```swift
/// let reference = PredicateObjectReference(ObjectIdentifier(place))
/// let predicate = try ObjectPredicate(format: "place == %@", PredicateValue.object(reference))
/// ```
public struct PredicateObjectReference: Sendable, Hashable, CustomStringConvertible {
    /// The wrapped identity, e.g. an object ID; the SQL back end reads its primary key from it.
    package let base: any Hashable & Sendable

    /// Wraps an identity.
    public init(_ base: some Hashable & Sendable) {
        self.base = base
    }

    /// Equal when both wrap equal identities of the same type.
    public static func == (lhs: PredicateObjectReference, rhs: PredicateObjectReference) -> Bool {
        Self.isEqual(lhs.base, to: rhs.base)
    }

    private static func isEqual<Base: Hashable>(_ base: Base, to other: Any) -> Bool {
        guard let other = other as? Base else { return false }
        return base == other
    }

    /// Hashes the wrapped identity and its type.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(type(of: base)))
        hasher.combine(base)
    }

    /// The wrapped identity, for messages.
    public var description: String { "<object \(base)>" }
}
