import Foundation

/// The string operators on already folded strings, shared by the evaluator and the SQL
/// back end.
///
/// They work on UTF-8 bytes and Unicode scalars, like SQLite, never on Swift's
/// grapheme-aware `String` comparison (for which `"e\u{301}".hasPrefix("e")` is false).
///
/// ```swift
/// PredicateStringMatching.like("IMG_0042.jpg", pattern: "IMG_*.jp?g")   // false
/// PredicateStringMatching.like("IMG_0042.jpg", pattern: "IMG_*.jp?")    // true
/// ```
package enum PredicateStringMatching {
    /// Whether `string` starts with `prefix` byte for byte; an empty prefix never matches
    /// (as with `NSString`, `"abc" BEGINSWITH ""` is false).
    package static func beginsWith(_ string: String, _ prefix: String) -> Bool {
        !prefix.isEmpty && string.utf8.starts(with: prefix.utf8)
    }

    /// Whether `string` ends with `suffix` byte for byte; an empty suffix never matches.
    package static func endsWith(_ string: String, _ suffix: String) -> Bool {
        !suffix.isEmpty && string.utf8.reversed().starts(with: suffix.utf8.reversed())
    }

    /// Whether `string` contains `part` byte for byte; an empty part never matches.
    package static func contains(_ string: String, _ part: String) -> Bool {
        guard !part.isEmpty else { return false }
        let haystack = Array(string.utf8)
        let needle = Array(part.utf8)
        guard needle.count <= haystack.count else { return false }
        let first = needle[0]
        var start = 0
        while start + needle.count <= haystack.count {
            if haystack[start] == first, haystack[start..<(start + needle.count)].elementsEqual(needle) {
                return true
            }
            start += 1
        }
        return false
    }

    /// Whether the whole of `string` matches `pattern`, where `*` matches any run of Unicode
    /// scalars (also none), `?` exactly one, and a backslash makes the next scalar literal.
    ///
    /// Runs in O(string × pattern) at worst, whatever the pattern.
    package static func like(_ string: String, pattern: String) -> Bool {
        let text = Array(string.unicodeScalars)
        var tokens: [LikeToken] = []
        var scalars = pattern.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            switch scalar {
            case "*": if tokens.last != .anyRun { tokens.append(.anyRun) }
            case "?": tokens.append(.anyOne)
            case "\\": tokens.append(.literal(scalars.next() ?? "\\"))
            default: tokens.append(.literal(scalar))
            }
        }
        // Greedy matching with a single backtrack point (the last `*`) is complete for
        // patterns whose only wildcard runs are `*`.
        var textIndex = 0
        var tokenIndex = 0
        var starToken: Int?
        var starText = 0
        while textIndex < text.count {
            if tokenIndex < tokens.count {
                switch tokens[tokenIndex] {
                case .anyRun:
                    starToken = tokenIndex
                    starText = textIndex
                    tokenIndex += 1
                    continue
                case .anyOne:
                    textIndex += 1
                    tokenIndex += 1
                    continue
                case .literal(let literal) where literal == text[textIndex]:
                    textIndex += 1
                    tokenIndex += 1
                    continue
                case .literal:
                    break
                }
            }
            guard let star = starToken else { return false }
            tokenIndex = star + 1
            starText += 1
            textIndex = starText
        }
        while tokenIndex < tokens.count, tokens[tokenIndex] == .anyRun { tokenIndex += 1 }
        return tokenIndex == tokens.count
    }

    private enum LikeToken: Equatable {
        case anyRun
        case anyOne
        case literal(Unicode.Scalar)
    }

    /// Whether the whole of `string` matches the ICU regular expression `pattern`
    /// (`NSRegularExpression`), as `MATCHES` does.
    ///
    /// - Throws: `ObjectPredicateError` (`.invalidRegularExpression`) when the pattern does not compile.
    package static func matches(_ string: String, regularExpression pattern: String, caseInsensitive: Bool) throws(ObjectPredicateError) -> Bool {
        try PredicateRegularExpression(pattern, caseInsensitive: caseInsensitive).matches(string)
    }

    /// Applies a string operator (`BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`, `MATCHES`, and
    /// also `==`, `!=`, `<`, … by bytes) with its options: both strings are folded with
    /// `PredicateStringFolding`, except that for `MATCHES` `[c]` becomes a case-insensitive
    /// regular expression and only `[d]` folds the pattern.
    ///
    /// `IN` with a single string on the right is equality.
    ///
    /// - Throws: `ObjectPredicateError` for an invalid `MATCHES` pattern, or for `BETWEEN`, which
    ///   needs two bounds.
    package static func evaluate(
        _ comparisonOperator: ComparisonOperator, _ string: String, _ other: String,
        options: StringComparisonOptions = []
    ) throws(ObjectPredicateError) -> Bool {
        try evaluate(comparisonOperator, string, other, options: options) { (pattern, caseInsensitive) throws(ObjectPredicateError) in
            try PredicateRegularExpression(pattern, caseInsensitive: caseInsensitive)
        }
    }

    /// `evaluate(_:_:_:options:)` with the regular expression compiled by `compile`, which
    /// lets the evaluator cache them.
    static func evaluate(
        _ comparisonOperator: ComparisonOperator, _ string: String, _ other: String,
        options: StringComparisonOptions,
        compile: (String, Bool) throws(ObjectPredicateError) -> PredicateRegularExpression
    ) throws(ObjectPredicateError) -> Bool {
        if comparisonOperator == .between { throw .invalidBetweenBounds(got: PredicateValue.quote(other)) }
        let folding = foldingOptions(for: comparisonOperator, options)
        return try evaluateFolded(comparisonOperator, PredicateStringFolding.fold(string, options: folding),
                                  PredicateStringFolding.fold(other, options: folding), options: options,
                                  compile: compile)
    }

    /// The options both operands of `comparisonOperator` are folded with: all of them, except
    /// for `MATCHES`, which folds case through the regular expression (so `\W` keeps its
    /// meaning) and diacritics only by folding.
    static func foldingOptions(for comparisonOperator: ComparisonOperator, _ options: StringComparisonOptions) -> StringComparisonOptions {
        comparisonOperator == .matches ? options.intersection(.diacriticInsensitive) : options
    }

    /// The operator applied to operands already folded with `foldingOptions(for:_:)`; the SQL
    /// functions call this with a right operand folded once per statement.
    static func evaluateFolded(
        _ comparisonOperator: ComparisonOperator, _ left: String, _ right: String,
        options: StringComparisonOptions,
        compile: (String, Bool) throws(ObjectPredicateError) -> PredicateRegularExpression
    ) throws(ObjectPredicateError) -> Bool {
        switch comparisonOperator {
        case .matches: return try compile(right, options.contains(.caseInsensitive)).matches(left)
        case .equalTo: return left.utf8.elementsEqual(right.utf8)
        case .notEqualTo: return !left.utf8.elementsEqual(right.utf8)
        case .lessThan: return compareBytes(left, right) < 0
        case .lessThanOrEqualTo: return compareBytes(left, right) <= 0
        case .greaterThan: return compareBytes(left, right) > 0
        case .greaterThanOrEqualTo: return compareBytes(left, right) >= 0
        case .beginsWith: return beginsWith(left, right)
        case .endsWith: return endsWith(left, right)
        case .contains: return contains(left, right)
        case .like: return like(left, pattern: right)
        case .in: return left.utf8.elementsEqual(right.utf8)
        case .between: throw .invalidBetweenBounds(got: PredicateValue.quote(right))
        }
    }

    /// Orders strings by their UTF-8 bytes (SQLite's BINARY collation): -1, 0 or 1.
    package static func compareBytes(_ lhs: String, _ rhs: String) -> Int {
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let a?, let b?): if a != b { return a < b ? -1 : 1 }
            }
        }
    }
}

/// A compiled `MATCHES` pattern, anchored to the whole string.
struct PredicateRegularExpression {
    private let whole: NSRegularExpression
    /// Used when wrapping the pattern in `\A(?:…)\z` changes its syntax (e.g. an open `\Q`):
    /// then an anchored match must cover the whole string.
    private let anchoredOnly: Bool
    private let pattern: String

    init(_ pattern: String, caseInsensitive: Bool) throws(ObjectPredicateError) {
        self.pattern = pattern
        let options: NSRegularExpression.Options = caseInsensitive ? [.caseInsensitive] : []
        // Foundation refuses an empty pattern; as a regular expression it matches only "".
        let pattern = pattern.isEmpty ? "(?:)" : pattern
        let plain: NSRegularExpression
        do {
            plain = try NSRegularExpression(pattern: pattern, options: options)
        } catch {
            throw .invalidRegularExpression(pattern)
        }
        if let wrapped = try? NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z", options: options) {
            whole = wrapped
            anchoredOnly = false
        } else {
            whole = plain
            anchoredOnly = true
        }
    }

    /// ICU reports progress about every 10,000 matching steps; a match may take this many
    /// reports plus one per 100 characters of the string. Backtracking patterns such as
    /// `(a|a?)+b` would otherwise take seconds on each value (and then answer "no match").
    static let progressReportsAllowed = 100

    /// - Throws: `ObjectPredicateError` (`.invalidRegularExpression`) when matching takes more
    ///   steps than the string's length allows: a catastrophically backtracking pattern.
    func matches(_ string: String) throws(ObjectPredicateError) -> Bool {
        let length = string.utf16.count
        let range = NSRange(location: 0, length: length)
        let allowed = Self.progressReportsAllowed + length / 100
        var reports = 0
        var matched = false
        var exhausted = false
        let options: NSRegularExpression.MatchingOptions = anchoredOnly ? [.anchored, .reportProgress] : [.reportProgress]
        whole.enumerateMatches(in: string, options: options, range: range) { result, flags, stop in
            if let result {
                matched = !anchoredOnly || result.range == range
                stop.pointee = true
            } else if !flags.contains(.completed) {
                reports += 1
                if reports > allowed {
                    exhausted = true
                    stop.pointee = true
                }
            }
        }
        if exhausted { throw .regularExpressionTooExpensive(pattern, length: length) }
        return matched
    }
}
