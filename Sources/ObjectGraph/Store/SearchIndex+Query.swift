import Foundation

/// The words of a full-text search, parsed from what a person typed.
///
/// The language is ours, not FTS5's: nothing in the text is an operator. It is split into words
/// at every character that is not a letter, a digit or a mark (the characters SQLite's
/// `unicode61` tokenizer keeps), and a `*` right after a word makes that word a prefix. Every
/// word must match, in any order; case and diacritics do not count (the tokenizer folds both,
/// in the index and in the query alike). So `belém lis*` finds "Belem, Lisbon"; quotes,
/// parentheses, `AND`, `OR`, `NEAR`, `-`, `^`, `+` and column filters such as `title:` are
/// separators or plain words, and no text can make an FTS5 syntax error.
///
/// ```swift
/// let query = try SearchQuery("Belém lis* title:porto")
/// query.words.map(\.text)        // ["Belém", "lis", "title", "porto"]
/// query.matchExpression          // "\"Belém\" \"lis\"* \"title\" \"porto\""
/// ```
public struct SearchQuery: Sendable, Hashable, CustomStringConvertible {
    /// One word of the query.
    package struct Word: Sendable, Hashable {
        /// The word as typed (letters, digits and marks only).
        package let text: String
        /// Whether the word matches every word that starts with it (`lis*`).
        package let isPrefix: Bool

        package init(text: String, isPrefix: Bool) {
            self.text = text
            self.isPrefix = isPrefix
        }
    }

    /// The words, in the order typed, each once.
    package let words: [Word]

    /// Parses `text`.
    ///
    /// - Throws: `SearchQueryError` when the text holds no word (empty, or only spaces,
    ///   punctuation and symbols).
    public init(_ text: String) throws(SearchQueryError) {
        var words: [Word] = []
        var current = String.UnicodeScalarView()
        func finish(prefix: Bool) {
            guard !current.isEmpty else { return }
            let word = Word(text: String(current), isPrefix: prefix)
            if !words.contains(word) { words.append(word) }
            current = String.UnicodeScalarView()
        }
        for scalar in text.unicodeScalars {
            if Self.startsWord(scalar) || (!current.isEmpty && Self.continuesWord(scalar)) {
                current.append(scalar)
            } else {
                finish(prefix: scalar == "*")
            }
        }
        finish(prefix: false)
        guard !words.isEmpty else {
            throw SearchQueryError(text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
                ? "the search text is empty: give the words to look for"
                : "the search text has no words to look for (only letters and digits are searched)")
        }
        self.words = words
    }

    /// The FTS5 expression: each word an FTS5 string (in double quotes), a prefix followed by
    /// `*`, separated by spaces (FTS5's implicit AND).
    package var matchExpression: String {
        words.map { word in
            "\"" + word.text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" + (word.isPrefix ? "*" : "")
        }.joined(separator: " ")
    }

    /// The words as the query reads them, `*` after a prefix.
    public var description: String {
        words.map { $0.text + ($0.isPrefix ? "*" : "") }.joined(separator: " ")
    }

    /// Letters, digits and private-use characters: what `unicode61` makes tokens of.
    static func startsWord(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber, .privateUse:
            return true
        default:
            return false
        }
    }

    /// Marks (accents written as separate characters) belong to the word they follow; the
    /// tokenizer folds them away.
    static func continuesWord(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return startsWord(scalar)
        }
    }
}

/// A search that cannot run: text without words, or an entity without a search index.
public struct SearchQueryError: Error, CustomStringConvertible, Sendable, Equatable {
    package var message: String
    /// An error with this message.
    public init(_ message: String) { self.message = message }
    /// Why the text is no query.
    public var description: String { message }
}

/// What to search for: an entity, the words, and optionally a predicate the results must also
/// match, tie-breaks and a window. Results come best match first (FTS5's bm25), then by
/// `sortDescriptors`, then by primary key.
///
/// ```swift
/// var request = try SearchRequest<Photo>("belem lis*", limit: 20)
/// request.predicate = try ObjectPredicate(format: "dateTaken > %@", start)
/// request.sortDescriptors = [ObjectSortDescriptor("dateTaken")]
/// let photos = try context.search(request)
/// ```
public struct SearchRequest<Result: ManagedObject>: Sendable {
    /// The entity to search; nil means the entity whose class is `Result`.
    public var entityName: String?
    package var query: SearchQuery
    /// Which matches to keep; nil for all of them.
    public var predicate: ObjectPredicate?
    /// How matches that rank the same are ordered.
    package var sortDescriptors: [ObjectSortDescriptor]
    /// At most this many results; nil for all.
    public var fetchLimit: Int?
    /// How many of the ranked results to skip first.
    public var fetchOffset: Int
    /// Relationships to load along with the results (`place`, `tags`).
    public var relationshipKeyPathsForPrefetching: [String]

    /// A search for `query` among objects of `entityName` (else `Result`'s entity) matching `predicate`.
    public init(query: SearchQuery, entityName: String? = nil, predicate: ObjectPredicate? = nil,
                sortedBy sortDescriptors: [ObjectSortDescriptor] = [], limit: Int? = nil, offset: Int = 0) {
        self.entityName = entityName
        self.query = query
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = limit
        self.fetchOffset = offset
        self.relationshipKeyPathsForPrefetching = []
    }

    /// A request for the words of `text` (see `SearchQuery`).
    ///
    /// - Throws: `SearchQueryError` when the text holds no word.
    public init(_ text: String, entityName: String? = nil, predicate: ObjectPredicate? = nil,
                sortedBy sortDescriptors: [ObjectSortDescriptor] = [], limit: Int? = nil, offset: Int = 0) throws(SearchQueryError) {
        self.init(query: try SearchQuery(text), entityName: entityName, predicate: predicate, sortedBy: sortDescriptors,
                  limit: limit, offset: offset)
    }
}

/// A search as the store runs it.
struct SearchPlan: Sendable {
    var fetch: FetchPlan
    var index: SearchIndex
    var match: String
}
