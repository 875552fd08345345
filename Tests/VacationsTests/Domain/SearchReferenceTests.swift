import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport
@testable import Vacations

/// `vacation search` against a reference computed here, over random vacations: words from a
/// small vocabulary with diacritics and case variants (precomposed and decomposed), imported
/// through the importer's batch path, then changed through visits and unvisits; queries of one
/// to three words, some prefixes. The reference finds the photos holding every word (folded as
/// the tokenizer folds: case and diacritics) and ranks them by FTS5's bm25, computed here from
/// its published formula, then by date taken (none first), then by key.
@Suite("Search results equal a reference over random vacations")
struct SearchReferenceTests {
    static let vocabulary = [
        "Belém", "belem", "BELÉM", "Bele\u{301}m", "Lisboa", "lisboa", "São", "sao", "Paulo", "café", "Café", "CAFE",
        "açúcar", "acucar", "Zürich", "zurich", "Kraków", "krakow", "niño", "Nino", "tram", "Tram", "torre", "Torres",
        "tower", "sea", "Sea", "mar", "Mar", "ponte", "pão", "pao", "crème", "creme", "Brûlée", "brulee", "x1", "x12",
    ]
    static let owners = ["Ana Sousa", "José Núñez", "ZOË Smith", "Bo"]
    static let places = ["Lisboa, Portugal", "São Paulo, Brasil", "Zürich, Schweiz", "Kraków, Polska", "Belém, Pará, Brasil"]
    static let days = [nil, 1.0, 2.0, 2.0, 3.0, 5.0, 8.0]

    /// Folded as `unicode61 remove_diacritics 2` folds: case and diacritics.
    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
    }

    /// The words of a text: runs of letters and digits, folded.
    static func tokens(_ text: String?) -> [String] {
        guard let text else { return [] }
        return text.split { !$0.isLetter && !$0.isNumber }.map { fold(String($0)) }
    }

    struct Document {
        var key: Int64
        var id: String
        var date: Date?
        var tokens: [String]
    }

    /// The photos holding every word of `query`, best first.
    static func reference(_ query: String, documents: [Document]) -> [String] {
        // Each word once (as typed: the language drops a word typed twice), then folded.
        var typed: [(text: String, prefix: Bool)] = []
        for word in query.split(separator: " ") {
            let parsed = word.hasSuffix("*") ? (String(word.dropLast()), true) : (String(word), false)
            if !typed.contains(where: { $0.text == parsed.0 && $0.prefix == parsed.1 }) { typed.append(parsed) }
        }
        let words = typed.map { (text: fold($0.text), prefix: $0.prefix) }
        func hits(_ word: (text: String, prefix: Bool), _ document: Document) -> Int {
            document.tokens.filter { word.prefix ? $0.hasPrefix(word.text) : $0 == word.text }.count
        }
        let rows = documents.count
        let averageLength = Double(documents.map(\.tokens.count).reduce(0, +)) / Double(rows)
        let inverseFrequencies = words.map { word -> Double in
            let containing = documents.filter { hits(word, $0) > 0 }.count
            let idf = log((Double(rows - containing) + 0.5) / (Double(containing) + 0.5))
            return idf <= 0 ? 1e-6 : idf
        }
        let (k1, b) = (1.2, 0.75)
        var scored: [(score: Double, document: Document)] = []
        for document in documents {
            let frequencies = words.map { Double(hits($0, document)) }
            guard frequencies.allSatisfy({ $0 > 0 }) else { continue }
            let length = Double(document.tokens.count)
            var score = 0.0
            for (index, frequency) in frequencies.enumerated() {
                score += inverseFrequencies[index] * ((frequency * (k1 + 1.0)) / (frequency + k1 * (1 - b + b * length / averageLength)))
            }
            scored.append((-1.0 * score, document))
        }
        return scored.sorted { left, right in
            if left.score != right.score { return left.score < right.score }
            switch (left.document.date, right.document.date) {
            case let (leftDate?, rightDate?) where leftDate != rightDate: return leftDate < rightDate
            case (nil, _?): return true
            case (_?, nil): return false
            default: return left.document.key < right.document.key
            }
        }.map(\.document.id)
    }

    /// A photo-list feed of `count` random photos with ids from `firstID`.
    static func feed(count: Int, firstID: Int, using random: inout SplitMix64) -> String {
        func words(_ range: ClosedRange<Int>) -> String {
            (0..<Int.random(in: range, using: &random)).map { _ in vocabulary.randomElement(using: &random) ?? "" }
                .joined(separator: [" ", " ", ", ", "-", ". "].randomElement(using: &random) ?? " ")
        }
        func escaped(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "<", with: "&lt;")
        }
        var xml = "<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<rsp stat=\"ok\">\n<photos page=\"1\" pages=\"1\" perpage=\"\(count)\" total=\"\(count)\">\n"
        for index in 0..<count {
            var attributes = "id=\"\(firstID + index)\" title=\"\(escaped(words(0...4)))\" ownername=\"\(escaped(owners.randomElement(using: &random) ?? ""))\""
            attributes += " tags=\"\(escaped(words(0...4).replacingOccurrences(of: ",", with: "").replacingOccurrences(of: ".", with: "")))\""
            if let place = places.randomElement(using: &random), Bool.random(using: &random) || index % 3 == 0 {
                attributes += " derived_place=\"\(escaped(place))\""
            }
            if let day = days.randomElement(using: &random) ?? nil {
                attributes += " datetaken=\"2024-01-0\(Int(day)) 10:00:00\""
            }
            let description = Bool.random(using: &random) ? "<description>\(escaped(words(0...6)))</description>" : ""
            xml += "  <photo \(attributes)>\(description)</photo>\n"
        }
        return xml + "</photos>\n</rsp>\n"
    }

    /// The documents as the vacation stores them now.
    static func documents(in store: VacationStore) throws -> [Document] {
        try store.context().fetch(FetchRequest<Photo>()).map { photo in
            let text = [photo.title, photo.subtitle, photo.owner, photo.place?.name] + photo.tagNames.map { Optional($0) }
            return Document(key: photo.objectID.primaryKey, id: photo.unique, date: photo.dateTaken, tokens: text.flatMap(tokens))
        }
    }

    static func randomQuery(using random: inout SplitMix64) -> String {
        (0..<Int.random(in: 1...3, using: &random)).map { _ in
            let word = vocabulary.randomElement(using: &random) ?? "sea"
            switch Int.random(in: 0..<10, using: &random) {
            case 0: return "nowhere"
            case 1, 2, 3:
                let letters = Array(word)
                return String(letters.prefix(Int.random(in: 1...max(1, letters.count), using: &random))) + "*"
            default: return word
            }
        }.joined(separator: " ")
    }

    @Test("search equals the reference over random vacations, imported, edited and searched", arguments: 0..<6)
    func matchesReference(round: Int) throws {
        // SEARCH_REFERENCE_SEED=<seed> replays a round (give the seed printed for it).
        let replay = ProcessInfo.processInfo.environment["SEARCH_REFERENCE_SEED"].flatMap { UInt64($0) }
        let seed = replay ?? (UInt64(Date().timeIntervalSince1970 * 1000) &+ UInt64(round))
        print("SearchReferenceTests seed \(seed) (round \(round))")
        var random = SplitMix64(seed: seed)
        let store = try VacationStore()
        let feedURL = store.directory.path("feed.xml")
        try Self.feed(count: Int.random(in: 30...80, using: &random), firstID: 1_000, using: &random).write(to: feedURL, atomically: true, encoding: .utf8)
        #expect(store.importFeeds([feedURL], chunkSize: 16).files.allSatisfy { $0.failure == nil }, "seed \(seed)")
        // Some photos again with other words (updates through a context), some removed.
        let changes = store.directory.path("changes.xml")
        try Self.feed(count: 15, firstID: 1_000 + Int.random(in: 0...20, using: &random), using: &random)
            .write(to: changes, atomically: true, encoding: .utf8)
        var drafts: [PhotoDraft] = []
        try FlickrFeedReader.read(contentsOf: changes, photo: { drafts.append(DraftRules().draft(from: $0)) })
        let context = ObjectContext(coordinator: store.coordinator)
        _ = try VacationEditor(context: context).visit(drafts)
        _ = try VacationEditor(context: context).unvisit((0..<4).map { _ in String(1_000 + Int.random(in: 0...60, using: &random)) })
        try context.save()
        #expect(try store.problems() == [], "seed \(seed)")

        let documents = try Self.documents(in: store)
        var answered = 0
        for _ in 0..<40 {
            let query = Self.randomQuery(using: &random)
            let found = try VacationSearch.photos(matching: query, in: store.context()).map(\.unique)
            #expect(found == Self.reference(query, documents: documents), "seed \(seed), query \"\(query)\"")
            if found.count > 1 { answered += 1 }
        }
        // The vocabulary is small: most queries find several photos, whose order is then compared.
        #expect(answered >= 10, "seed \(seed)")
        // Every word of the vocabulary, alone and as a prefix of itself.
        for word in Self.vocabulary {
            for query in [word, word + "*"] {
                let found = try VacationSearch.photos(matching: query, in: store.context()).map(\.unique)
                #expect(found == Self.reference(query, documents: documents), "seed \(seed), query \"\(query)\"")
            }
        }
    }
}
