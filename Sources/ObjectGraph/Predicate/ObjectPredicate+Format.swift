import Foundation

extension ObjectPredicate {
    /// Parses a Core Data format string, filling its specifiers from `arguments` in order.
    ///
    /// ```swift
    /// let predicate = try ObjectPredicate(format: "unique == %@ AND (tags.@count > %d OR title BEGINSWITH[cd] 'a')",
    ///                               "123", 2)
    /// ```
    ///
    /// `%@` takes any argument (arrays and sets become collections, `nil` becomes `NULL`);
    /// `%K` a key path string, for a whole key path or any key of one (`%K.%K`, `place.%K`);
    /// `%d %i %u` (with `l`, `ll`, `h`, `q` lengths) an integer or `Bool`; `%f %e %g` a number
    /// (integers widen to doubles); `%s` a string. `%%` is the string `"%"`. Inside quotes
    /// nothing is substituted. Arguments beyond the specifiers are ignored, as Apple's parser
    /// ignores them; too few is an error.
    ///
    /// - Throws: `ObjectPredicateError` with the position of the first problem.
    public init(format: String, _ arguments: any PredicateArgument...) throws(ObjectPredicateError) {
        self = try PredicateParser.parse(format, arguments: arguments.map(\.predicateValue))
    }

    /// Parses a Core Data format string with an array of arguments.
    ///
    /// ```swift
    /// let predicate = try ObjectPredicate(format: "unique == %@", arguments: ["123"])
    /// ```
    ///
    /// - Throws: `ObjectPredicateError` with the position of the first problem.
    public init(format: String, arguments: [any PredicateArgument]) throws(ObjectPredicateError) {
        self = try PredicateParser.parse(format, arguments: arguments.map(\.predicateValue))
    }
}
