import Foundation

/// A Swift value that can fill a format specifier (`%@`, `%K`, `%d`, `%f`, `%s`) of a
/// predicate format string.
///
/// Strings, integers, floating-point numbers, `Bool`, `Date`, `Data`, optionals of these
/// (`nil` becomes `NULL`), arrays and sets of these, and `PredicateValue` itself conform.
/// Managed objects conform by returning `.object(reference)`.
///
/// ```swift
/// let title: String? = nil
/// let predicate = try ObjectPredicate(format: "title == %@ AND tags.name IN %@", title, ["sea", "sun"])
/// ```
public protocol PredicateArgument {
    /// The constant this argument stands for.
    var predicateValue: PredicateValue { get }
}

extension PredicateValue: PredicateArgument {
    /// The value itself.
    public var predicateValue: PredicateValue { self }
}

extension String: PredicateArgument {
    /// The String as a predicate constant: `.string(self)`.
    public var predicateValue: PredicateValue { .string(self) }
}

extension Substring: PredicateArgument {
    /// The Substring as a predicate constant: `.string(String(self))`.
    public var predicateValue: PredicateValue { .string(String(self)) }
}

extension Bool: PredicateArgument {
    /// The Bool as a predicate constant: `.bool(self)`.
    public var predicateValue: PredicateValue { .bool(self) }
}

extension Int: PredicateArgument {
    /// The Int as a predicate constant: `.int(Int64(self))`.
    public var predicateValue: PredicateValue { .int(Int64(self)) }
}

extension Int8: PredicateArgument {
    /// The Int8 as a predicate constant: `.int(Int64(self))`.
    public var predicateValue: PredicateValue { .int(Int64(self)) }
}

extension Int16: PredicateArgument {
    /// The Int16 as a predicate constant: `.int(Int64(self))`.
    public var predicateValue: PredicateValue { .int(Int64(self)) }
}

extension Int32: PredicateArgument {
    /// The Int32 as a predicate constant: `.int(Int64(self))`.
    public var predicateValue: PredicateValue { .int(Int64(self)) }
}

extension Int64: PredicateArgument {
    /// The Int64 as a predicate constant: `.int(self)`.
    public var predicateValue: PredicateValue { .int(self) }
}

extension UInt8: PredicateArgument {
    /// The UInt8 as a predicate constant: `.int(Int64(self))`.
    public var predicateValue: PredicateValue { .int(Int64(self)) }
}

extension UInt16: PredicateArgument {
    /// The UInt16 as a predicate constant: `.int(Int64(self))`.
    public var predicateValue: PredicateValue { .int(Int64(self)) }
}

extension UInt32: PredicateArgument {
    /// The UInt32 as a predicate constant: `.int(Int64(self))`.
    public var predicateValue: PredicateValue { .int(Int64(self)) }
}

extension UInt: PredicateArgument {
    /// Values above `Int64.max` become doubles, as SQLite would store them.
    public var predicateValue: PredicateValue {
        if let exact = Int64(exactly: self) { return .int(exact) }
        return .double(Double(self))
    }
}

extension UInt64: PredicateArgument {
    /// Values above `Int64.max` become doubles, as SQLite would store them.
    public var predicateValue: PredicateValue {
        if let exact = Int64(exactly: self) { return .int(exact) }
        return .double(Double(self))
    }
}

extension Double: PredicateArgument {
    /// The Double as a predicate constant: `.double(self)`.
    public var predicateValue: PredicateValue { .double(self) }
}

extension Float: PredicateArgument {
    /// The Float as a predicate constant: `.double(Double(self))`.
    public var predicateValue: PredicateValue { .double(Double(self)) }
}

extension Date: PredicateArgument {
    /// The Date as a predicate constant: `.date(self)`.
    public var predicateValue: PredicateValue { .date(self) }
}

extension Data: PredicateArgument {
    /// The Data as a predicate constant: `.data(self)`.
    public var predicateValue: PredicateValue { .data(self) }
}

extension Optional: PredicateArgument where Wrapped: PredicateArgument {
    /// The wrapped value's constant; `NULL` for nil.
    public var predicateValue: PredicateValue {
        switch self {
        case .none: return .null
        case .some(let wrapped): return wrapped.predicateValue
        }
    }
}

extension Array: PredicateArgument where Element: PredicateArgument {
    /// The elements' constants, as an array for `IN`.
    public var predicateValue: PredicateValue { .array(map(\.predicateValue)) }
}

extension Set: PredicateArgument where Element: PredicateArgument {
    /// Sorted by their format text, so the same set always gives the same predicate.
    public var predicateValue: PredicateValue {
        .array(map(\.predicateValue).sorted { $0.description < $1.description })
    }
}
