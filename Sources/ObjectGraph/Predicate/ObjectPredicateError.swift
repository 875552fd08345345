import Foundation

/// An error from parsing, substituting or evaluating a predicate; its description says
/// what went wrong and where.
///
/// Positions are 0-based offsets in Unicode scalars into the format string (the same as
/// the character offset for text without combining sequences).
///
/// ```swift
/// do { _ = try ObjectPredicate(format: "title == AND x") }
/// catch { print(error) }   // Unexpected 'AND' at position 9: expected an expression
/// ```
public struct ObjectPredicateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of error this is.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// A token that the grammar does not allow here.
        case unexpectedToken
        /// The format ended where more was needed.
        case unexpectedEnd
        /// A character that starts no token.
        case unexpectedCharacter
        /// A quote without its closing quote.
        case unterminatedString
        /// A backslash escape that the string syntax does not know.
        case invalidEscape
        /// A malformed or out-of-range number.
        case invalidNumber
        /// A `[…]` after an operator with letters other than `c` and `d`.
        case unknownStringOption
        /// A `[` without its `]`.
        case unterminatedStringOption
        /// A `%` followed by something other than a known specifier.
        case unknownFormatSpecifier
        /// A specifier with no argument left for it (arguments left over are ignored, as Apple's
        /// parser ignores them).
        case tooFewArguments
        /// An argument of the wrong kind for its specifier (e.g. a string for `%d`).
        case invalidArgument
        /// An `@name` that is not `@count`, `@sum`, `@avg`, `@min` or `@max`.
        case unknownCollectionOperator
        /// `BETWEEN` without exactly two bounds.
        case invalidBetweenBounds
        /// A `CAST` that cannot be done.
        case invalidCast
        /// Parentheses, `NOT`s, aggregates or subqueries nested beyond the limit.
        case nestingTooDeep
        /// A `$VARIABLE` with no value.
        case missingVariable
        /// A `MATCHES` pattern that is not a valid regular expression, or that backtracks without
        /// end on a value.
        case invalidRegularExpression
    }

    /// What kind of error this is.
    package let code: Code
    /// Where in the format string, when the error has a place there.
    package let position: Int?
    /// The full message.
    public let description: String

    /// Makes an error; `message` is the whole description (control characters and line breaks
    /// quoted from the format show as `\u{…}`, so that it is one line).
    public init(_ code: Code, position: Int?, message: String) {
        self.code = code
        self.position = position
        self.description = Self.printable(message)
    }
}

extension ObjectPredicateError {
    /// The deepest nesting the parser accepts.
    package static let maximumNestingDepth = 200

    static func unexpected(_ found: String, at position: Int, expected: String) -> ObjectPredicateError {
        ObjectPredicateError(.unexpectedToken, position: position,
                       message: "Unexpected '\(found)' at position \(position): expected \(expected)")
    }

    static func unexpectedEnd(at position: Int, expected: String) -> ObjectPredicateError {
        ObjectPredicateError(.unexpectedEnd, position: position,
                       message: "Unexpected end of format at position \(position): expected \(expected)")
    }

    static func unexpectedCharacter(_ character: Unicode.Scalar, at position: Int) -> ObjectPredicateError {
        ObjectPredicateError(.unexpectedCharacter, position: position,
                       message: "Unexpected character '\(Self.visible(character))' at position \(position)")
    }

    static func unterminatedString(at position: Int) -> ObjectPredicateError {
        ObjectPredicateError(.unterminatedString, position: position,
                       message: "Unterminated string starting at position \(position)")
    }

    static func invalidEscape(_ escape: String, at position: Int) -> ObjectPredicateError {
        ObjectPredicateError(.invalidEscape, position: position,
                       message: "Invalid escape '\(escape)' in string at position \(position)")
    }

    static func invalidNumber(_ text: String, at position: Int) -> ObjectPredicateError {
        ObjectPredicateError(.invalidNumber, position: position,
                       message: "Invalid number '\(text)' at position \(position)")
    }

    static func unknownStringOption(_ text: String, at position: Int) -> ObjectPredicateError {
        ObjectPredicateError(.unknownStringOption, position: position,
                       message: "Unknown string option '\(text)' at position \(position)")
    }

    static func unterminatedStringOption(at position: Int) -> ObjectPredicateError {
        ObjectPredicateError(.unterminatedStringOption, position: position,
                       message: "Unterminated string option starting at position \(position)")
    }

    static func unknownFormatSpecifier(_ text: String, at position: Int) -> ObjectPredicateError {
        ObjectPredicateError(.unknownFormatSpecifier, position: position,
                       message: "Unknown format specifier '\(text)' at position \(position)")
    }

    static func tooFewArguments(_ specifier: String, at position: Int) -> ObjectPredicateError {
        ObjectPredicateError(.tooFewArguments, position: position,
                       message: "Too few arguments for format: \(specifier) at position \(position)")
    }

    static func invalidArgument(
        _ index: Int, for specifier: String, at position: Int, expected: String, got value: PredicateValue
    ) -> ObjectPredicateError {
        ObjectPredicateError(.invalidArgument, position: position,
                       message: "Invalid argument \(index) for \(specifier) at position \(position): expected \(expected), got \(value)")
    }

    static func unknownCollectionOperator(_ name: String, at position: Int) -> ObjectPredicateError {
        ObjectPredicateError(.unknownCollectionOperator, position: position,
                       message: "Unknown collection operator '@\(name)' at position \(position)")
    }

    static func invalidBetweenBounds(at position: Int) -> ObjectPredicateError {
        ObjectPredicateError(.invalidBetweenBounds, position: position,
                       message: "BETWEEN needs two bounds {lower, upper} at position \(position)")
    }

    static func invalidBetweenBounds(got value: String) -> ObjectPredicateError {
        ObjectPredicateError(.invalidBetweenBounds, position: nil,
                       message: "BETWEEN needs two bounds {lower, upper}, got \(value)")
    }

    static func invalidCast(_ message: String, at position: Int) -> ObjectPredicateError {
        ObjectPredicateError(.invalidCast, position: position, message: "\(message) at position \(position)")
    }

    static func nestingTooDeep(at position: Int) -> ObjectPredicateError {
        ObjectPredicateError(.nestingTooDeep, position: position,
                       message: "Nesting deeper than \(maximumNestingDepth) levels at position \(position)")
    }

    static func missingVariable(_ name: String) -> ObjectPredicateError {
        ObjectPredicateError(.missingVariable, position: nil, message: "No value for variable $\(name)")
    }

    static func invalidRegularExpression(_ pattern: String) -> ObjectPredicateError {
        ObjectPredicateError(.invalidRegularExpression, position: nil,
                       message: "Invalid regular expression \(PredicateValue.quote(pattern)) in MATCHES")
    }

    static func regularExpressionTooExpensive(_ pattern: String, length: Int) -> ObjectPredicateError {
        ObjectPredicateError(.invalidRegularExpression, position: nil,
                       message: "Regular expression \(PredicateValue.quote(pattern)) in MATCHES takes too many steps "
                           + "on a string of \(length) characters (it backtracks without end)")
    }

    /// Text with its control characters and line breaks as `\u{…}`: quoted from a format, a
    /// string token may hold a newline.
    static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isLineBreakingOrControl) else { return text }
        return text.unicodeScalars.map { isLineBreakingOrControl($0) ? visible($0) : String($0) }.joined()
    }

    private static func isLineBreakingOrControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    /// Control characters and other invisible scalars print as `\u{…}`.
    static func visible(_ scalar: Unicode.Scalar) -> String {
        switch scalar.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator,
             .spaceSeparator:
            return "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        default:
            return String(scalar)
        }
    }
}
