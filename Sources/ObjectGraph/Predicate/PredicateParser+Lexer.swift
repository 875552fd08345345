import Foundation

extension PredicateParser {
    /// One lexical token of a format string, with where it starts.
    struct Token: Equatable {
        enum Kind: Equatable {
            /// A name; `escaped` when written `#name`, which is never a keyword.
            case identifier(String, escaped: Bool)
            /// An integer without its sign; negation happens in the parser so that
            /// `-9223372036854775808` fits.
            case integer(UInt64)
            /// A decimal, an exponent, or an integer too large for `UInt64`.
            case decimal(Double)
            case string(String)
            /// `$NAME`, without the `$`.
            case variable(String)
            /// `@count` and the like, without the `@`.
            case collectionOperator(String)
            /// `%@`, `%K`, `%lld`, … without the `%`; `%%` gives `"%"`.
            case formatSpecifier(String)
            /// The letters inside `[…]` after an operator.
            case options(String)
            case symbol(Symbol)
            case end
        }

        let kind: Kind
        let position: Int
        /// The source text, for error messages.
        let text: String
    }

    enum Symbol: String, Equatable {
        case leftParenthesis = "("
        case rightParenthesis = ")"
        case leftBrace = "{"
        case rightBrace = "}"
        case comma = ","
        case dot = "."
        case minus = "-"
        case equal = "=="
        case notEqual = "!="
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
        case and = "&&"
        case or = "||"
        case not = "!"
    }

    /// Splits a format string into tokens on demand, so errors come in reading order.
    struct Lexer {
        private let scalars: [Unicode.Scalar]
        private var index = 0

        init(_ format: String) {
            scalars = Array(format.unicodeScalars)
        }

        /// The offset just past the last scalar.
        var endPosition: Int { scalars.count }

        mutating func next() throws(ObjectPredicateError) -> Token {
            skipWhitespace()
            guard index < scalars.count else {
                return Token(kind: .end, position: index, text: "end of format")
            }
            let start = index
            let scalar = scalars[index]
            switch scalar {
            case "\"", "'":
                return try lexString(quote: scalar)
            case "0"..."9":
                return try lexNumber()
            case "$":
                return try lexPrefixedName(kind: { .variable($0) })
            case "@":
                return try lexPrefixedName(kind: { .collectionOperator($0) })
            case "#":
                return try lexPrefixedName(kind: { .identifier($0, escaped: true) })
            case "%":
                return try lexFormatSpecifier()
            case "[":
                return try lexOptions()
            default:
                if Self.isIdentifierStart(scalar) {
                    let name = scanIdentifier()
                    return Token(kind: .identifier(name, escaped: false), position: start, text: name)
                }
                if let symbol = lexSymbol() {
                    return Token(kind: .symbol(symbol), position: start, text: text(from: start))
                }
                throw .unexpectedCharacter(scalar, at: start)
            }
        }

        private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
            let position = index + offset
            return position < scalars.count ? scalars[position] : nil
        }

        private func text(from start: Int) -> String {
            // Scalar by scalar: appending the slice whole goes through generic code that looks
            // up the slice's associated types at run time (about 0.3 M instructions at first use).
            var result = ""
            for scalar in scalars[start..<index] { result.unicodeScalars.append(scalar) }
            return result
        }

        private mutating func skipWhitespace() {
            while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 }
        }

        private mutating func scanIdentifier() -> String {
            let start = index
            while let scalar = peek(), Self.isIdentifierContinuation(scalar) { index += 1 }
            return text(from: start)
        }

        private mutating func lexPrefixedName(kind: (String) -> Token.Kind) throws(ObjectPredicateError) -> Token {
            let start = index
            guard let first = peek(1), Self.isIdentifierStart(first) else {
                throw .unexpectedCharacter(scalars[start], at: start)
            }
            index += 1
            let name = scanIdentifier()
            return Token(kind: kind(name), position: start, text: text(from: start))
        }

        private mutating func lexSymbol() -> Symbol? {
            let first = scalars[index]
            let second = peek(1)
            let pair: (Symbol, Int)?
            switch (first, second) {
            case ("=", "="): pair = (.equal, 2)
            case ("=", "<"): pair = (.lessOrEqual, 2)
            case ("=", ">"): pair = (.greaterOrEqual, 2)
            case ("=", _): pair = (.equal, 1)
            case ("!", "="): pair = (.notEqual, 2)
            case ("!", _): pair = (.not, 1)
            case ("<", "="): pair = (.lessOrEqual, 2)
            case ("<", ">"): pair = (.notEqual, 2)
            case ("<", _): pair = (.less, 1)
            case (">", "="): pair = (.greaterOrEqual, 2)
            case (">", _): pair = (.greater, 1)
            case ("&", "&"): pair = (.and, 2)
            case ("|", "|"): pair = (.or, 2)
            case ("(", _): pair = (.leftParenthesis, 1)
            case (")", _): pair = (.rightParenthesis, 1)
            case ("{", _): pair = (.leftBrace, 1)
            case ("}", _): pair = (.rightBrace, 1)
            case (",", _): pair = (.comma, 1)
            case (".", _): pair = (.dot, 1)
            case ("-", _): pair = (.minus, 1)
            default: pair = nil
            }
            guard let (symbol, length) = pair else { return nil }
            index += length
            return symbol
        }

        /// `[c]`, `[d]`, `[cd]`: the letters are checked by the parser.
        private mutating func lexOptions() throws(ObjectPredicateError) -> Token {
            let start = index
            index += 1
            let letters = index
            while let scalar = peek(), scalar != "]", scalar != "[", !scalar.properties.isWhitespace {
                index += 1
            }
            guard peek() == "]" else { throw .unterminatedStringOption(at: start) }
            var inner = ""
            inner.unicodeScalars.append(contentsOf: scalars[letters..<index])
            index += 1
            return Token(kind: .options(inner), position: start, text: text(from: start))
        }

        private mutating func lexFormatSpecifier() throws(ObjectPredicateError) -> Token {
            let start = index
            index += 1
            guard let first = peek() else { throw .unknownFormatSpecifier("%", at: start) }
            if first == "%" || first == "@" || first == "K" {
                index += 1
                return Token(kind: .formatSpecifier(String(first)), position: start, text: text(from: start))
            }
            // Length modifiers (ignored, values are 64-bit anyway), then the conversion.
            var specifier = ""
            while let scalar = peek(), "lhqzjt".unicodeScalars.contains(scalar), specifier.unicodeScalars.count < 2 {
                specifier.unicodeScalars.append(scalar)
                index += 1
            }
            guard let conversion = peek(), "diufegs".unicodeScalars.contains(conversion) else {
                if let scalar = peek(), !scalar.properties.isWhitespace { index += 1 }
                throw .unknownFormatSpecifier(text(from: start), at: start)
            }
            index += 1
            specifier.unicodeScalars.append(conversion)
            return Token(kind: .formatSpecifier(specifier), position: start, text: text(from: start))
        }

        private mutating func lexString(quote: Unicode.Scalar) throws(ObjectPredicateError) -> Token {
            let start = index
            index += 1
            var value = ""
            while true {
                guard let scalar = peek() else { throw .unterminatedString(at: start) }
                index += 1
                if scalar == quote { break }
                if scalar == "\\" {
                    value.unicodeScalars.append(try lexEscape(stringStart: start))
                } else {
                    value.unicodeScalars.append(scalar)
                }
            }
            return Token(kind: .string(value), position: start, text: text(from: start))
        }

        /// The escape after a backslash (already consumed): `\" \' \\ \n \t \r \0`, and Apple's
        /// `\ooo` (three octal digits), `\xHH` / `\XHH` (two hex digits) and `\uXXXX` / `\UXXXX`;
        /// also `\u{X…}`.
        private mutating func lexEscape(stringStart: Int) throws(ObjectPredicateError) -> Unicode.Scalar {
            let backslash = index - 1
            guard let escape = peek() else { throw .unterminatedString(at: stringStart) }
            index += 1
            switch escape {
            case "\"", "'", "\\", "/": return escape
            case "n": return "\n"
            case "t": return "\t"
            case "r": return "\r"
            case "0"..."7":
                if let second = peek(), let third = peek(1), Self.isOctalDigit(second), Self.isOctalDigit(third),
                   let value = UInt32(String(String.UnicodeScalarView([escape, second, third])), radix: 8),
                   let scalar = Unicode.Scalar(value) {
                    index += 2
                    return scalar
                }
                guard escape == "0" else { throw .invalidEscape(text(from: backslash), at: backslash) }
                return "\0"
            case "x", "X":
                guard let high = peek(), let low = peek(1), high.properties.isASCIIHexDigit, low.properties.isASCIIHexDigit,
                      let value = UInt32(String(String.UnicodeScalarView([high, low])), radix: 16),
                      let scalar = Unicode.Scalar(value) else {
                    throw .invalidEscape(text(from: backslash), at: backslash)
                }
                index += 2
                return scalar
            case "u", "U":
                let value = try lexUnicodeEscapeValue(backslash: backslash)
                if (0xD800...0xDBFF).contains(value), peek() == "\\", peek(1) == "u" || peek(1) == "U" {
                    let resume = index
                    index += 2
                    let low = try lexUnicodeEscapeValue(backslash: resume)
                    if (0xDC00...0xDFFF).contains(low),
                       let combined = Unicode.Scalar(0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)) {
                        return combined
                    }
                    throw .invalidEscape(text(from: backslash), at: backslash)
                }
                guard let scalar = Unicode.Scalar(value) else {
                    throw .invalidEscape(text(from: backslash), at: backslash)
                }
                return scalar
            default:
                throw .invalidEscape(text(from: backslash), at: backslash)
            }
        }

        /// Four hex digits, or one to eight in braces.
        private mutating func lexUnicodeEscapeValue(backslash: Int) throws(ObjectPredicateError) -> UInt32 {
            var digits = ""
            if peek() == "{" {
                index += 1
                while let scalar = peek(), scalar != "}", digits.unicodeScalars.count < 9 {
                    digits.unicodeScalars.append(scalar)
                    index += 1
                }
                let closed = peek() == "}"
                if closed { index += 1 }
                guard closed, !digits.isEmpty, digits.unicodeScalars.count <= 8 else {
                    throw .invalidEscape(text(from: backslash), at: backslash)
                }
            } else {
                while let scalar = peek(), digits.unicodeScalars.count < 4, scalar.properties.isASCIIHexDigit {
                    digits.unicodeScalars.append(scalar)
                    index += 1
                }
                guard digits.unicodeScalars.count == 4 else {
                    throw .invalidEscape(text(from: backslash), at: backslash)
                }
            }
            guard let value = UInt32(digits, radix: 16) else {
                throw .invalidEscape(text(from: backslash), at: backslash)
            }
            return value
        }

        /// Decimal integers, decimals with `.` and exponents, and `0x` / `0o` / `0b` integers.
        private mutating func lexNumber() throws(ObjectPredicateError) -> Token {
            let start = index
            if peek() == "0", let marker = peek(1), let radix = Self.radix(marker) {
                index += 2
                let digitsStart = index
                while let scalar = peek(), Self.isIdentifierContinuation(scalar) { index += 1 }
                var digits = ""
                digits.unicodeScalars.append(contentsOf: scalars[digitsStart..<index])
                guard !digits.isEmpty, let value = UInt64(digits, radix: radix) else {
                    throw .invalidNumber(text(from: start), at: start)
                }
                return Token(kind: .integer(value), position: start, text: text(from: start))
            }
            var isDecimal = false
            skipDigits()
            if peek() == ".", let next = peek(1), Self.isDigit(next) {
                isDecimal = true
                index += 1
                skipDigits()
            }
            if let marker = peek(), marker == "e" || marker == "E" {
                let sign = peek(1)
                let digitOffset = (sign == "+" || sign == "-") ? 2 : 1
                if let digit = peek(digitOffset), Self.isDigit(digit) {
                    isDecimal = true
                    index += digitOffset
                    skipDigits()
                }
            }
            if let scalar = peek(), Self.isIdentifierContinuation(scalar) {
                while let scalar = peek(), Self.isIdentifierContinuation(scalar) { index += 1 }
                throw .invalidNumber(text(from: start), at: start)
            }
            let literal = text(from: start)
            if !isDecimal, let value = UInt64(literal) {
                return Token(kind: .integer(value), position: start, text: literal)
            }
            guard let value = Double(literal), value.isFinite else {
                throw .invalidNumber(literal, at: start)
            }
            return Token(kind: .decimal(value), position: start, text: literal)
        }

        private mutating func skipDigits() {
            while let scalar = peek(), Self.isDigit(scalar) { index += 1 }
        }

        private static func radix(_ marker: Unicode.Scalar) -> Int? {
            switch marker {
            case "x", "X": return 16
            case "o", "O": return 8
            case "b", "B": return 2
            default: return nil
            }
        }

        static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
            ("0"..."9").contains(scalar)
        }

        static func isOctalDigit(_ scalar: Unicode.Scalar) -> Bool {
            ("0"..."7").contains(scalar)
        }

        static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "_" || scalar.properties.isAlphabetic
        }

        static func isIdentifierContinuation(_ scalar: Unicode.Scalar) -> Bool {
            if isIdentifierStart(scalar) || isDigit(scalar) { return true }
            switch scalar.properties.generalCategory {
            case .decimalNumber, .nonspacingMark, .spacingMark: return true
            default: return false
            }
        }
    }
}
