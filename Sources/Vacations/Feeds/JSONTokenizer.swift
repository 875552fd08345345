/// A streaming JSON pull parser over UTF-8 bytes, read a chunk at a time from a
/// ``FeedInput``. It checks the grammar as it goes and hands out one token at a time; the
/// text of a key, string or number is left in ``text`` as bytes. Numbers stay as their
/// literal text, so an id never passes through `Double`.
///
/// The input has already been checked as UTF-8, so only ASCII matters here. Visible to the
/// package so that `vacation-bench`'s floor reads JSON feeds with the same tokenizer.
package struct JSONTokenizer {
    package enum Token: Equatable {
        case beginObject, endObject, beginArray, endArray
        /// An object key; its text is in ``text``.
        case key
        case string, number
        case literalTrue, literalFalse, null
    }

    private enum State {
        case start, expectValue, expectValueOrEnd, expectKey, expectKeyOrEnd, afterValue, done
    }

    private let input: FeedInput
    private let format: FeedFormat
    private var state = State.start
    /// One entry per open container: `true` for an object.
    private var containers: [Bool] = []
    /// The text of the last key, string or number (escapes decoded).
    package private(set) var text: [UInt8] = []
    /// While skipping, strings are checked but not kept.
    private var keepsText = true
    private var pendingHighSurrogate: UInt32?

    package init(input: FeedInput, format: FeedFormat) {
        self.input = input
        self.format = format
        text.reserveCapacity(256)
    }

    /// The absolute offset of the next unread byte.
    var offset: Int { input.offsetOfStart }

    // MARK: Tokens

    /// The next token. - Throws: ``FeedError`` on malformed or truncated input.
    package mutating func next() throws -> Token {
        while true {
            guard let byte = try nextNonWhitespace() else { throw endOfInputError() }
            switch state {
            case .afterValue:
                let inObject = containers.last ?? false
                if byte == UInt8(ascii: ",") {
                    input.consume(1)
                    state = inObject ? .expectKey : .expectValue
                    continue
                }
                if byte == (inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    return closeContainer()
                }
                throw unexpected(byte, inObject ? "expected ',' or '}'" : "expected ',' or ']'")
            case .expectKeyOrEnd where byte == UInt8(ascii: "}"):
                return closeContainer()
            case .expectKeyOrEnd, .expectKey:
                guard byte == UInt8(ascii: "\"") else { throw unexpected(byte, "expected a string key") }
                input.consume(1)
                try scanString()
                guard let colon = try nextNonWhitespace() else { throw endOfInputError() }
                guard colon == UInt8(ascii: ":") else { throw unexpected(colon, "expected ':' after an object key") }
                input.consume(1)
                state = .expectValue
                return .key
            case .expectValueOrEnd where byte == UInt8(ascii: "]"):
                return closeContainer()
            case .start, .expectValue, .expectValueOrEnd:
                return try scanValue(byte)
            case .done:
                throw unexpected(byte, "the document has ended")
            }
        }
    }

    /// Skips the value that starts with the next token (a whole object or array included).
    package mutating func skipValue() throws {
        let token = try next()
        if token == .beginObject || token == .beginArray { try skipRestOfContainer() }
    }

    /// Skips to the end of the container whose opening token was just read.
    mutating func skipRestOfContainer() throws {
        keepsText = false
        defer { keepsText = true }
        var depth = 1
        while depth > 0 {
            switch try next() {
            case .beginObject, .beginArray: depth += 1
            case .endObject, .endArray: depth -= 1
            default: break
            }
        }
    }

    /// Whether the text of the last token equals `literal`.
    package func textEquals(_ literal: StaticString) -> Bool {
        guard literal.utf8CodeUnitCount == text.count else { return false }
        return text.withUnsafeBytes { bytes in
            bytes.elementsEqual(UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
        }
    }

    var textString: String { String(decoding: text, as: UTF8.self) }

    // MARK: Around the document

    /// Skips a UTF-8 byte order mark at the very start.
    mutating func skipByteOrderMark() throws {
        guard try peek() == 0xEF else { return }
        for expected: UInt8 in [0xEF, 0xBB, 0xBF] {
            guard let byte = try peek() else { throw endOfInputError() }
            guard byte == expected else { throw unexpected(byte, "a broken byte order mark") }
            input.consume(1)
        }
    }

    /// Reads the `callbackName(` that opens a JSONP feed.
    mutating func readCallbackOpening() throws {
        guard let first = try nextNonWhitespace() else { throw endOfInputError() }
        guard isIdentifierByte(first, first: true) else { throw unexpected(first, "expected a JSONP callback name") }
        while let byte = try peek(), isIdentifierByte(byte, first: false) { input.consume(1) }
        guard let parenthesis = try nextNonWhitespace() else { throw endOfInputError() }
        guard parenthesis == UInt8(ascii: "(") else { throw unexpected(parenthesis, "expected '(' after the JSONP callback name") }
        input.consume(1)
    }

    /// After the root value: only whitespace may follow (in JSONP, `)` and an optional `;`).
    mutating func finishDocument() throws {
        if format == .jsonp {
            guard let parenthesis = try nextNonWhitespace() else {
                throw FeedError(.truncated, format: format, at: .byteOffset(offset), "the JSONP callback is not closed with ')'")
            }
            guard parenthesis == UInt8(ascii: ")") else {
                throw unexpected(parenthesis, "expected ')' to close the JSONP callback")
            }
            input.consume(1)
            if try nextNonWhitespace() == UInt8(ascii: ";") { input.consume(1) }
        }
        if let byte = try nextNonWhitespace() {
            throw FeedError(.trailingGarbage, format: format, at: .byteOffset(offset), "found \(Self.describe(byte))")
        }
    }

    // MARK: Scanning

    private mutating func scanValue(_ byte: UInt8) throws -> Token {
        switch byte {
        case UInt8(ascii: "{"):
            try openContainer(isObject: true)
            return .beginObject
        case UInt8(ascii: "["):
            try openContainer(isObject: false)
            return .beginArray
        case UInt8(ascii: "\""):
            input.consume(1)
            try scanString()
            finishValue()
            return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try scanNumber()
            finishValue()
            return .number
        case UInt8(ascii: "t"):
            try scanLiteral("true")
            return .literalTrue
        case UInt8(ascii: "f"):
            try scanLiteral("false")
            return .literalFalse
        case UInt8(ascii: "n"):
            try scanLiteral("null")
            return .null
        default:
            throw unexpected(byte, "expected a value")
        }
    }

    private mutating func openContainer(isObject: Bool) throws {
        guard containers.count < FlickrFeedReader.maximumDepth else {
            throw FeedError(.tooDeep, format: format, at: .byteOffset(offset))
        }
        input.consume(1)
        containers.append(isObject)
        state = isObject ? .expectKeyOrEnd : .expectValueOrEnd
    }

    private mutating func closeContainer() -> Token {
        input.consume(1)
        let wasObject = containers.removeLast()
        finishValue()
        return wasObject ? .endObject : .endArray
    }

    private mutating func finishValue() {
        state = containers.isEmpty ? .done : .afterValue
    }

    /// Reads a string's body (after the opening quote) into ``text``, decoding escapes.
    private mutating func scanString() throws {
        if keepsText { text.removeAll(keepingCapacity: true) }
        pendingHighSurrogate = nil
        while true {
            var window = input.window
            if window.isEmpty {
                guard try input.fill() else { throw endOfInputError(inside: "a string") }
                window = input.window
            }
            // The common case: a run of plain bytes, copied in one go.
            var index = 0
            while index < window.count {
                let byte = window[index]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                index += 1
            }
            if index > 0 {
                flushHighSurrogate()
                try append(UnsafeRawBufferPointer(rebasing: window[0..<index]))
                input.consume(index)
            }
            if index == window.count { continue }
            let byte = window[index]
            if byte == UInt8(ascii: "\"") {
                input.consume(1)
                flushHighSurrogate()
                return
            }
            if byte < 0x20 { throw unexpected(byte, "a control character in a string must be escaped") }
            input.consume(1)
            try scanEscape()
        }
    }

    private mutating func scanEscape() throws {
        guard let byte = try peek() else { throw endOfInputError(inside: "a string") }
        let decoded: UInt8
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded = byte
        case UInt8(ascii: "b"): decoded = 0x08
        case UInt8(ascii: "f"): decoded = 0x0C
        case UInt8(ascii: "n"): decoded = 0x0A
        case UInt8(ascii: "r"): decoded = 0x0D
        case UInt8(ascii: "t"): decoded = 0x09
        case UInt8(ascii: "u"):
            input.consume(1)
            return try scanUnicodeEscape()
        default:
            throw unexpected(byte, "an unknown escape in a string")
        }
        input.consume(1)
        flushHighSurrogate()
        try appendScalar(UInt32(decoded))
    }

    /// `\uXXXX`, pairing surrogates; a lone surrogate becomes U+FFFD rather than failing
    /// the feed, as titles cut by length sometimes end in one.
    private mutating func scanUnicodeEscape() throws {
        var unit: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = try peek() else { throw endOfInputError(inside: "a string") }
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw unexpected(byte, "expected four hexadecimal digits after \\u")
            }
            input.consume(1)
            unit = unit << 4 | digit
        }
        switch unit {
        case 0xD800...0xDBFF:
            flushHighSurrogate()
            pendingHighSurrogate = unit
        case 0xDC00...0xDFFF:
            if let high = pendingHighSurrogate {
                pendingHighSurrogate = nil
                try appendScalar(0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00))
            } else {
                try appendScalar(0xFFFD)
            }
        default:
            flushHighSurrogate()
            try appendScalar(unit)
        }
    }

    private mutating func flushHighSurrogate() {
        guard pendingHighSurrogate != nil else { return }
        pendingHighSurrogate = nil
        // Cannot fail: three bytes never pass the length limit on their own.
        try? appendScalar(0xFFFD)
    }

    private mutating func appendScalar(_ scalar: UInt32) throws {
        var bytes: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
        let count: Int
        switch scalar {
        case 0..<0x80:
            bytes.0 = UInt8(scalar)
            count = 1
        case 0x80..<0x800:
            bytes = (UInt8(0xC0 | scalar >> 6), UInt8(0x80 | scalar & 0x3F), 0, 0)
            count = 2
        case 0x800..<0x10000:
            bytes = (UInt8(0xE0 | scalar >> 12), UInt8(0x80 | scalar >> 6 & 0x3F), UInt8(0x80 | scalar & 0x3F), 0)
            count = 3
        default:
            bytes = (UInt8(0xF0 | scalar >> 18), UInt8(0x80 | scalar >> 12 & 0x3F),
                     UInt8(0x80 | scalar >> 6 & 0x3F), UInt8(0x80 | scalar & 0x3F))
            count = 4
        }
        try withUnsafeBytes(of: &bytes) { try append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }

    private mutating func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard keepsText else { return }
        guard text.count + bytes.count <= FlickrFeedReader.maximumTextLength else {
            throw FeedError(.malformed, format: format, at: .byteOffset(offset),
                            "a string longer than \(FlickrFeedReader.maximumTextLength) bytes")
        }
        text.append(contentsOf: bytes)
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, kept as text.
    private mutating func scanNumber() throws {
        if keepsText { text.removeAll(keepingCapacity: true) }
        if try peek() == UInt8(ascii: "-") { try take() }
        guard let first = try peek() else { throw endOfInputError(inside: "a number") }
        if first == UInt8(ascii: "0") {
            try take()
        } else if isDigit(first) {
            try takeDigits()
        } else {
            throw unexpected(first, "expected a digit")
        }
        if try peek() == UInt8(ascii: ".") {
            try take()
            try requireDigits()
        }
        if let byte = try peek(), byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            try take()
            if let sign = try peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { try take() }
            try requireDigits()
        }
        if text.count > 64 {
            throw FeedError(.malformed, format: format, at: .byteOffset(offset), "a number longer than 64 characters")
        }
    }

    private mutating func requireDigits() throws {
        guard let byte = try peek() else { throw endOfInputError(inside: "a number") }
        guard isDigit(byte) else { throw unexpected(byte, "expected a digit") }
        try takeDigits()
    }

    private mutating func takeDigits() throws {
        while let byte = try peek(), isDigit(byte) { try take() }
    }

    /// Consumes one byte, keeping it in ``text``.
    private mutating func take() throws {
        guard let byte = try peek() else { return }
        input.consume(1)
        if keepsText { text.append(byte) }
    }

    private mutating func scanLiteral(_ literal: StaticString) throws {
        let bytes = UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for expected in bytes {
            guard let byte = try peek() else { throw endOfInputError(inside: "a literal") }
            guard byte == expected else { throw unexpected(byte, "expected \(literal)") }
            input.consume(1)
        }
        finishValue()
    }

    // MARK: Bytes

    @inline(__always)
    private mutating func peek() throws -> UInt8? {
        if input.start == input.end {
            guard try input.fill() else { return nil }
        }
        return input.window[0]
    }

    private mutating func nextNonWhitespace() throws -> UInt8? {
        while true {
            let window = input.window
            if window.isEmpty {
                guard try input.fill() else { return nil }
                continue
            }
            var index = 0
            while index < window.count, FlickrNames.isASCIIWhitespace(window[index]) { index += 1 }
            input.consume(index)
            if index < window.count { return window[index] }
        }
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private func isIdentifierByte(_ byte: UInt8, first: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "_"), UInt8(ascii: "$"):
            return true
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."):
            return !first
        default:
            return false
        }
    }

    // MARK: Errors

    private func unexpected(_ byte: UInt8, _ detail: String) -> FeedError {
        FeedError(.malformed, format: format, at: .byteOffset(offset), "\(detail), found \(Self.describe(byte))")
    }

    private func endOfInputError(inside what: String? = nil) -> FeedError {
        let place: String
        if let what {
            place = "inside \(what)"
        } else if let isObject = containers.last {
            place = isObject ? "inside an object" : "inside an array"
        } else {
            place = state == .done ? "after the document" : "before the document"
        }
        let detail = state == .start && containers.isEmpty ? "the input is empty" : "the input ends \(place)"
        return FeedError(.truncated, format: format, at: .byteOffset(offset), detail)
    }

    static func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }
}
