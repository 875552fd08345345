import Foundation

/// Reads Core Data / `NSPredicate` format strings into `ObjectPredicate` and `ObjectExpression`
/// values, filling `%@`-style specifiers from the arguments in order.
///
/// ```swift
/// let predicate = try PredicateParser.parse("ANY tags.name ==[c] %@", arguments: ["Beach"])
/// let key = try PredicateParser.parseExpression("place.name")   // .keyPath(["place", "name"])
/// ```
///
/// Precedence from loosest: `OR`/`||`, `AND`/`&&`, `NOT`/`!`, then comparisons. A `(` at
/// the start of a predicate opens a parenthesized predicate. Keywords are case-insensitive;
/// `#name` writes a key that is also a keyword. Nesting (parentheses, `NOT`, aggregates,
/// `SUBQUERY`, `CAST`) is limited to `ObjectPredicateError.maximumNestingDepth` levels, so no
/// input can exhaust the stack.
package struct PredicateParser {
    var lexer: PredicateParser.Lexer
    var current: Token
    let arguments: [PredicateValue]
    var argumentIndex = 0
    var depth = 0

    init(format: String, arguments: [PredicateValue]) throws(ObjectPredicateError) {
        lexer = Lexer(format)
        current = try lexer.next()
        self.arguments = arguments
    }

    /// Parses a whole format string as a predicate.
    ///
    /// Arguments beyond those the specifiers use are ignored; too few is an error.
    ///
    /// - Throws: `ObjectPredicateError` naming the position of the first problem.
    package static func parse(_ format: String, arguments: [PredicateValue] = []) throws(ObjectPredicateError) -> ObjectPredicate {
        var parser = try PredicateParser(format: format, arguments: arguments)
        let predicate = try parser.parseOr()
        try parser.finish(expected: "AND, OR or end of format")
        return predicate
    }

    /// Parses a whole format string as one expression, e.g. a key path for sorting.
    ///
    /// - Throws: `ObjectPredicateError` as `parse(_:arguments:)` does.
    package static func parseExpression(_ format: String, arguments: [PredicateValue] = []) throws(ObjectPredicateError) -> ObjectExpression {
        var parser = try PredicateParser(format: format, arguments: arguments)
        let expression = try parser.parseExpression()
        try parser.finish(expected: "end of format")
        return expression
    }

    /// Words with a meaning of their own; keys spelled like them print as `#word`.
    static let keywords: Set<String> = [
        "AND", "OR", "NOT", "ANY", "ALL", "NONE", "SOME", "IN", "BETWEEN", "BEGINSWITH", "ENDSWITH",
        "CONTAINS", "LIKE", "MATCHES", "NIL", "NULL", "TRUE", "FALSE", "YES", "NO", "TRUEPREDICATE",
        "FALSEPREDICATE", "SELF", "SUBQUERY", "CAST",
    ]

    /// Whether `name` is a keyword (ASCII case-insensitively).
    static func isReservedWord(_ name: String) -> Bool {
        keywords.contains(asciiUppercased(name))
    }

    static func asciiUppercased(_ name: String) -> String {
        // Scalar by scalar, as `Lexer.text(from:)` builds its text (no generic append).
        var result = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            result.append(("a"..."z").contains(scalar) ? Unicode.Scalar(scalar.value - 32) ?? scalar : scalar)
        }
        return String(result)
    }

    // MARK: - Tokens

    mutating func advance() throws(ObjectPredicateError) {
        current = try lexer.next()
    }

    /// The keyword the current token spells, if any.
    var currentKeyword: String? {
        guard case .identifier(let name, escaped: false) = current.kind else { return nil }
        let upper = Self.asciiUppercased(name)
        return Self.keywords.contains(upper) ? upper : nil
    }

    func isSymbol(_ symbol: Symbol) -> Bool {
        current.kind == .symbol(symbol)
    }

    func unexpected(expected: String) -> ObjectPredicateError {
        if current.kind == .end { return .unexpectedEnd(at: current.position, expected: expected) }
        let shown = current.text.count > 40 ? String(current.text.prefix(40)) + "…" : current.text
        return .unexpected(shown, at: current.position, expected: expected)
    }

    mutating func expect(_ symbol: Symbol) throws(ObjectPredicateError) {
        guard isSymbol(symbol) else { throw unexpected(expected: "'\(symbol.rawValue)'") }
        try advance()
    }

    /// Arguments left over are ignored, as Apple's parser ignores them: its own guide passes two
    /// to `%K like '%@'` (a quoted `%@` is a literal, not a specifier).
    mutating func finish(expected: String) throws(ObjectPredicateError) {
        guard current.kind == .end else { throw unexpected(expected: expected) }
    }

    mutating func enter(at position: Int) throws(ObjectPredicateError) {
        depth += 1
        if depth > ObjectPredicateError.maximumNestingDepth { throw .nestingTooDeep(at: position) }
    }

    mutating func leave() {
        depth -= 1
    }

    // MARK: - Predicates

    mutating func parseOr() throws(ObjectPredicateError) -> ObjectPredicate {
        var operands = [try parseAnd()]
        while currentKeyword == "OR" || isSymbol(.or) {
            try advance()
            operands.append(try parseAnd())
        }
        return operands.count == 1 ? operands[0] : .or(operands)
    }

    mutating func parseAnd() throws(ObjectPredicateError) -> ObjectPredicate {
        var operands = [try parseNot()]
        while currentKeyword == "AND" || isSymbol(.and) {
            try advance()
            operands.append(try parseNot())
        }
        return operands.count == 1 ? operands[0] : .and(operands)
    }

    mutating func parseNot() throws(ObjectPredicateError) -> ObjectPredicate {
        guard currentKeyword == "NOT" || isSymbol(.not) else { return try parsePrimaryPredicate() }
        try enter(at: current.position)
        try advance()
        let operand = try parseNot()
        leave()
        return .not(operand)
    }

    mutating func parsePrimaryPredicate() throws(ObjectPredicateError) -> ObjectPredicate {
        if isSymbol(.leftParenthesis) {
            try enter(at: current.position)
            try advance()
            let predicate = try parseOr()
            try expect(.rightParenthesis)
            leave()
            return predicate
        }
        switch currentKeyword {
        case "TRUEPREDICATE":
            try advance()
            return .true
        case "FALSEPREDICATE":
            try advance()
            return .false
        default:
            return .comparison(try parseComparison())
        }
    }

    mutating func parseComparison() throws(ObjectPredicateError) -> PredicateComparison {
        var modifier = ComparisonModifier.direct
        switch currentKeyword {
        case "ANY", "SOME": modifier = .any
        case "ALL": modifier = .all
        case "NONE": modifier = .none
        default: break
        }
        if modifier != .direct { try advance() }
        let lhs = try parseExpression()
        let comparisonOperator = try parseOperator()
        var options: StringComparisonOptions = []
        if case .options(let letters) = current.kind {
            options = try Self.stringOptions(letters, token: current)
            try advance()
        }
        let rhsPosition = current.position
        let rhs = try parseExpression()
        if comparisonOperator == .between {
            try Self.checkBetweenBounds(rhs, at: rhsPosition)
        }
        return PredicateComparison(lhs, comparisonOperator, rhs, modifier: modifier, options: options)
    }

    mutating func parseOperator() throws(ObjectPredicateError) -> ComparisonOperator {
        let found: ComparisonOperator?
        switch current.kind {
        case .symbol(.equal): found = .equalTo
        case .symbol(.notEqual): found = .notEqualTo
        case .symbol(.less): found = .lessThan
        case .symbol(.lessOrEqual): found = .lessThanOrEqualTo
        case .symbol(.greater): found = .greaterThan
        case .symbol(.greaterOrEqual): found = .greaterThanOrEqualTo
        default:
            switch currentKeyword {
            case "IN": found = .in
            case "BETWEEN": found = .between
            case "BEGINSWITH": found = .beginsWith
            case "ENDSWITH": found = .endsWith
            case "CONTAINS": found = .contains
            case "LIKE": found = .like
            case "MATCHES": found = .matches
            default: found = nil
            }
        }
        guard let found else { throw unexpected(expected: "a comparison operator") }
        try advance()
        return found
    }

    static func stringOptions(_ letters: String, token: Token) throws(ObjectPredicateError) -> StringComparisonOptions {
        var options: StringComparisonOptions = []
        for letter in letters.unicodeScalars {
            switch letter {
            case "c", "C": options.insert(.caseInsensitive)
            case "d", "D": options.insert(.diacriticInsensitive)
            default: throw .unknownStringOption(token.text, at: token.position)
            }
        }
        if options.isEmpty { throw .unknownStringOption(token.text, at: token.position) }
        return options
    }

    /// A literal right side of BETWEEN must hold two bounds; key paths and variables are
    /// checked when evaluated.
    static func checkBetweenBounds(_ rhs: ObjectExpression, at position: Int) throws(ObjectPredicateError) {
        switch rhs {
        case .constant(.array(let bounds)) where bounds.count == 2: return
        case .aggregate(let bounds) where bounds.count == 2: return
        case .constant, .aggregate: throw .invalidBetweenBounds(at: position)
        default: return
        }
    }
}
