/// A string as a dictionary key compared by its UTF-8 bytes. Swift's `String ==` holds for
/// canonically equivalent strings ("é" and "e\u{301}"), which SQLite, ICU's regular
/// expressions and the evaluator all tell apart: a cache keyed by `String` would answer for
/// one with what it made for the other.
struct ExactString: Hashable {
    let text: String

    init(_ text: String) {
        self.text = text
    }

    static func == (lhs: ExactString, rhs: ExactString) -> Bool {
        lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(text.utf8.count)
    }
}
