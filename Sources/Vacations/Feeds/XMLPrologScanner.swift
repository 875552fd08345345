/// Watches the bytes before the root element and refuses a DOCTYPE (or any other `<!`
/// declaration) before libxml2 sees a byte of it: Flickr never sends one, and a DTD is how
/// external entities (XXE) and entity expansion bombs get in.
struct XMLPrologScanner {
    private enum State {
        case between, lessThan, bang, bangDash
        case instruction, instructionQuestion
        case comment, commentDash, commentDashDash
        case finished
    }

    private var state = State.between
    private var line = 1
    private var column = 0
    private var markupLine = 1
    private var markupColumn = 1

    /// Whether the root element has started; after that libxml2 is on its own.
    var isFinished: Bool { state == .finished }

    /// Scans the next bytes of the prolog.
    /// - Throws: ``FeedError`` `.forbidden` at the `<!` of a declaration.
    mutating func scan(_ bytes: UnsafeRawBufferPointer) throws {
        for byte in bytes {
            if byte == 0x0A {
                line += 1
                column = 0
            } else {
                column += 1
            }
            switch state {
            case .between:
                if byte == UInt8(ascii: "<") {
                    state = .lessThan
                    markupLine = line
                    markupColumn = column
                } else if !(byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte >= 0x80) {
                    // Text before the root (a BOM's bytes are >= 0x80): libxml2 reports it.
                    state = .finished
                }
            case .lessThan:
                switch byte {
                case UInt8(ascii: "?"): state = .instruction
                case UInt8(ascii: "!"): state = .bang
                default: state = .finished
                }
            case .bang:
                if byte == UInt8(ascii: "-") {
                    state = .bangDash
                } else {
                    throw refusal()
                }
            case .bangDash:
                if byte == UInt8(ascii: "-") { state = .comment } else { throw refusal() }
            case .instruction:
                if byte == UInt8(ascii: "?") { state = .instructionQuestion }
            case .instructionQuestion:
                if byte == UInt8(ascii: ">") {
                    state = .between
                } else if byte != UInt8(ascii: "?") {
                    state = .instruction
                }
            case .comment:
                if byte == UInt8(ascii: "-") { state = .commentDash }
            case .commentDash:
                state = byte == UInt8(ascii: "-") ? .commentDashDash : .comment
            case .commentDashDash:
                if byte == UInt8(ascii: ">") {
                    state = .between
                } else if byte != UInt8(ascii: "-") {
                    state = .comment
                }
            case .finished:
                return
            }
        }
    }

    private func refusal() -> FeedError {
        FeedError(.forbidden, format: .xml, at: .lineColumn(line: markupLine, column: markupColumn),
                  "a DOCTYPE or other declaration; Flickr never sends one, and its entities could read local files or expand without bound")
    }
}
