/// One word of the command line, classified without knowing any command's spec.
package struct ArgumentToken: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// `--name` or `--name=value`; `name` keeps its dashes.
        case longOption(name: String, attachedValue: String?)
        /// `-abc`: one or more single-letter options.
        case shortOptions([Character])
        /// A plain word: also `-`, the empty string, a negative number and anything after `--`.
        case value(String)
        /// The `--` that ends options.
        case terminator
    }

    package var kind: Kind
    /// The argument exactly as it was given.
    package var original: String
    /// The argument's position in the array given to the tokenizer.
    package var index: Int
    /// Whether this word came after `--`, so it can only be a positional value.
    package var isAfterTerminator: Bool

    package init(kind: Kind, original: String, index: Int, isAfterTerminator: Bool = false) {
        self.kind = kind
        self.original = original
        self.index = index
        self.isAfterTerminator = isAfterTerminator
    }

    /// The word as a value, if it can be one (an option's value or a positional).
    package var value: String? {
        if case .value(let value) = kind { return value }
        return nil
    }
}

/// Stage 1: splits `argv` into tokens.
///
///     ArgumentTokenizer.tokenize(["--limit=5", "-h", "-", "--", "-x"])
///     // [.longOption("--limit", "5"), .shortOptions(["h"]), .value("-"),
///     //  .terminator, .value("-x") after the terminator]
package enum ArgumentTokenizer {
    package static func tokenize(_ arguments: [String]) -> [ArgumentToken] {
        var tokens: [ArgumentToken] = []
        tokens.reserveCapacity(arguments.count)
        var afterTerminator = false
        for (index, argument) in arguments.enumerated() {
            if afterTerminator {
                tokens.append(ArgumentToken(
                    kind: .value(argument), original: argument, index: index, isAfterTerminator: true))
                continue
            }
            let kind = classify(argument)
            if kind == .terminator { afterTerminator = true }
            tokens.append(ArgumentToken(kind: kind, original: argument, index: index))
        }
        return tokens
    }

    static func classify(_ argument: String) -> ArgumentToken.Kind {
        if argument == "--" { return .terminator }
        if argument.hasPrefix("--") {
            // Only the first `=` separates: `--where=a=b` has the value `a=b`.
            if let equals = argument.firstIndex(of: "=") {
                return .longOption(
                    name: String(argument[..<equals]),
                    attachedValue: String(argument[argument.index(after: equals)...]))
            }
            return .longOption(name: argument, attachedValue: nil)
        }
        if argument.hasPrefix("-") && argument.count > 1 && !isNegativeNumber(argument) {
            return .shortOptions(Array(argument.dropFirst()))
        }
        return .value(argument)
    }

    /// `-5`, `-1.5`, `-.5`, `-2e3`: values, since no option is named by a digit.
    static func isNegativeNumber(_ argument: String) -> Bool {
        guard argument.hasPrefix("-") else { return false }
        let body = argument.utf8.dropFirst()
        var sawDigit = false
        var sawDot = false
        var sawExponent = false
        var previous: UInt8 = 0
        for byte in body {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                sawDigit = true
            case UInt8(ascii: "."):
                if sawDot || sawExponent { return false }
                sawDot = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                if sawExponent || !sawDigit { return false }
                sawExponent = true
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                if previous != UInt8(ascii: "e") && previous != UInt8(ascii: "E") { return false }
            default:
                return false
            }
            previous = byte
        }
        let last = body.last ?? 0
        return sawDigit && last != UInt8(ascii: "e") && last != UInt8(ascii: "E")
            && last != UInt8(ascii: "+") && last != UInt8(ascii: "-")
    }
}
