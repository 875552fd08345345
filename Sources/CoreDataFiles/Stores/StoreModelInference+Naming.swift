import Foundation
import ObjectGraph

/// Turns Core Data's capitalised column names back into property names, as well as a store
/// without its model allows. No dictionary: the words come from the store itself.
///
/// - **Known words** are the store's entity names, whole and in parts (`InvestmentSecurityId`
///   gives itself, `Investment` and `Security`), and the words of every name its schema spells
///   (`StoreNameEvidence`: index names, triggers' property names); words shorter than three
///   letters are not used. A known word's plural (`S`, `ES`, `Y`→`IES`) is known too — at the
///   end of a name, or before another known word (`PAGESCOUNT` → `pagesCount` once `Count` is
///   known; without that `ACCOUNTSTAGS` stays `accountStags`, since an `S` could as well begin
///   the next word).
/// - **Cocoa's conventions**, applied only where the column's own evidence backs them: the
///   acronyms `ID`, `URL`, `UUID` end a name in capitals (`siteURL`, `bookID`; Swift's API
///   guidelines keep acronyms uniformly cased), or as the store's own names spell them
///   (`Id` where an entity is `InvestmentSecurityId`); a column holding only 0 and 1 reads as a Boolean,
///   so `IS…`/`HAS…` begin it (`isBookmarked`); a timestamp ending in `…EDAT` is a participle and
///   `At` (`updatedAt`).
/// - A name is split into known words plus at most one unknown run of three or more letters, with
///   the fewest unknown letters, then the fewest pieces. Two or more pieces, or one known word, give
///   lower camel case (the first word's leading capitals lowered); anything else is lowercased.
///   Trailing digits are kept. The result always capitalises back to the column's name.
///
/// ```swift
/// let naming = PropertyNaming(entityNames: ["Account", "RecurrenceRule"])
/// naming.propertyName(forColumnBase: "TRANSFERACCOUNT")   // "transferAccount"
/// naming.propertyName(forColumnBase: "DATEYMD")           // "dateymd"
/// ```
struct PropertyNaming {
    /// What a column's values say about its name.
    enum Hint {
        case none
        /// An integer column holding only 0 and 1.
        case boolean
        /// A `TIMESTAMP` column.
        case timestamp
    }

    /// Known words by their capitalised form, spelled as found.
    private let words: [String: String]
    /// The store's column names (without `Z`), known as words for spelling the other columns.
    private let columnNames: [String: String]
    private let longestWord: Int
    /// Acronyms Cocoa spells in capitals at the end of a name.
    private static let finalAcronyms: Set<String> = ["ID", "URL", "UUID"]
    /// How this store's own names spell those acronyms, where they spell them one way only
    /// (MoneyWell's `InvestmentSecurityId` writes `Id`).
    private let acronymSpellings: [String: String]

    init(entityNames: [String], extraWords: [String] = [], columnWords: [String] = []) {
        var words: [String: String] = [:]
        var spellings: [String: Set<String>] = [:]
        let all = entityNames.flatMap { [$0] + Self.splitWords($0) } + extraWords
        for word in all {
            Self.add(word, to: &words)
            if Self.finalAcronyms.contains(word.uppercased()) { spellings[word.uppercased(), default: []].insert(word) }
        }
        // Column names come in capitals: words in lower case, for spelling other columns (never their own).
        var columns: [String: String] = [:]
        for word in columnWords where words[word.uppercased()] == nil { Self.add(word.lowercased(), to: &columns) }
        columnNames = columns
        self.words = words
        acronymSpellings = spellings.compactMapValues { $0.count == 1 ? $0.first : nil }
        longestWord = (words.keys.map(\.count) + columnNames.keys.map(\.count)).max().map { $0 + 3 } ?? 3
    }

    private static func add(_ word: String, to words: inout [String: String]) {
        guard word.count >= 3, word.allSatisfy({ $0.isASCII && $0.isLetter }) else { return }
        let key = word.uppercased()
        if words[key] == nil { words[key] = word }
    }

    /// `TICDSSyncChange` → `TICDS`, `Sync`, `Change`.
    static func splitWords(_ name: String) -> [String] {
        let characters = Array(name)
        var result: [String] = []
        var current = ""
        for (index, character) in characters.enumerated() {
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            let previous = index > 0 ? characters[index - 1] : nil
            let startsWord = character.isUppercase
                && (previous.map { $0.isLowercase || $0.isNumber } ?? false
                    || (previous?.isUppercase == true && next?.isLowercase == true))
            if startsWord && !current.isEmpty {
                result.append(current)
                current = ""
            }
            current.append(character)
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    /// The property name for a column named `Z` + `base`.
    func propertyName(forColumnBase base: String, hint: Hint = .none) -> String {
        let digits = String(base.reversed().prefix { $0.isASCII && $0.isNumber }.reversed())
        let core = String(base.dropLast(digits.count))
        guard !core.isEmpty, core.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
            // Not a plain ASCII name: keep it as it is, which capitalises back unchanged.
            return base
        }
        switch hint {
        case .boolean:
            // A flag is no identifier: `ISVALID` is `isValid`, never `isValID`.
            for prefix in ["IS", "HAS"] where core.hasPrefix(prefix) && core.count >= prefix.count + 3 {
                let rest = camelCase(String(core.dropFirst(prefix.count)), acronyms: false)
                return prefix.lowercased() + Self.capitalisingFirst(rest) + digits
            }
            return camelCase(core, acronyms: false) + digits
        case .timestamp where core.hasSuffix("EDAT") && core.count > "EDAT".count + 2:
            return camelCase(String(core.dropLast(2))) + "At" + digits
        default:
            return camelCase(core) + digits
        }
    }

    private func camelCase(_ core: String, acronyms: Bool = true) -> String {
        guard let pieces = segment(core, acronyms: acronyms), let first = pieces.first,
              pieces.count >= 2 || spelling(of: core, position: .last, acronyms: acronyms, excluding: core) != nil else { return core.lowercased() }
        return Self.lowercasingFirstWord(first) + pieces.dropFirst().joined()
    }

    private static func capitalisingFirst(_ word: String) -> String { word.prefix(1).uppercased() + word.dropFirst() }

    /// `Account` → `account`, `TICDSSyncChange` → `ticdsSyncChange`, `URL` → `url`.
    static func lowercasingFirstWord(_ word: String) -> String {
        let characters = Array(word)
        let run = characters.prefix { $0.isUppercase }.count
        let lowered = run > 1 && run < characters.count ? run - 1 : max(run, 1)
        return String(characters.prefix(lowered)).lowercased() + String(characters.dropFirst(lowered))
    }

    /// Where a piece stands: plurals end a name or come before a known word; acronyms end a name.
    private enum Position { case inner, beforeKnownWord, last }

    /// The pieces that spell `core` with the fewest unknown letters, then the fewest pieces:
    /// known words (maybe plural) and at most one unknown run of three or more letters. Each
    /// piece comes back spelled for camel case.
    private func segment(_ core: String, acronyms: Bool) -> [String]? {
        let letters = Array(core)
        let count = letters.count
        struct Choice { var pieces: [String]; var unknownLetters: Int; var startsWithKnownWord: Bool }
        func isBetter(_ candidate: Choice, than current: Choice?) -> Bool {
            guard let current else { return true }
            return (candidate.unknownLetters, candidate.pieces.count) < (current.unknownLetters, current.pieces.count)
        }
        // best[position][usedUnknown]: the best spelling of letters[position...].
        var best = Array(repeating: [Choice?](repeating: nil, count: 2), count: count + 1)
        let end = Choice(pieces: [], unknownLetters: 0, startsWithKnownWord: false)
        best[count] = [end, end]
        for start in stride(from: count - 1, through: 0, by: -1) {
            for usedUnknown in 0...1 {
                var choice: Choice?
                for stop in stride(from: min(count, start + longestWord), to: start, by: -1) {
                    guard let rest = best[stop][usedUnknown] else { continue }
                    let position: Position = stop == count ? .last : rest.startsWithKnownWord ? .beforeKnownWord : .inner
                    guard let word = spelling(of: String(letters[start..<stop]), position: position, acronyms: acronyms, excluding: core) else { continue }
                    let candidate = Choice(pieces: [word] + rest.pieces, unknownLetters: rest.unknownLetters, startsWithKnownWord: true)
                    if isBetter(candidate, than: choice) { choice = candidate }
                }
                if usedUnknown == 0 && start + 3 <= count {
                    for stop in stride(from: count, through: start + 3, by: -1) {
                        guard let rest = best[stop][1] else { continue }
                        let chunk = String(letters[start..<stop])
                        let candidate = Choice(pieces: [chunk.prefix(1).uppercased() + chunk.dropFirst().lowercased()] + rest.pieces,
                                               unknownLetters: rest.unknownLetters + chunk.count, startsWithKnownWord: false)
                        if isBetter(candidate, than: choice) { choice = candidate }
                    }
                }
                best[start][usedUnknown] = choice
            }
        }
        return best[0][0]?.pieces
    }

    /// A known word, its plural where one may stand, or a final acronym, spelled for camel case
    /// (`TRANSFERS` → `Transfers`, `ID` → `ID`).
    private func spelling(of chunk: String, position: Position, acronyms: Bool = true, excluding own: String = "") -> String? {
        func capitalised(_ word: String) -> String { word.prefix(1).uppercased() + word.dropFirst() }
        if let word = words[chunk] ?? (chunk == own ? nil : columnNames[chunk]) { return capitalised(word) }
        if acronyms, position == .last, Self.finalAcronyms.contains(chunk) { return acronymSpellings[chunk] ?? chunk }
        guard position != .inner else { return nil }
        func known(_ key: String) -> String? { words[key] ?? (key == own ? nil : columnNames[key]) }
        if chunk.hasSuffix("ES"), let word = known(String(chunk.dropLast(2))) { return capitalised(word) + "es" }
        if chunk.hasSuffix("S"), let word = known(String(chunk.dropLast())) { return capitalised(word) + "s" }
        if chunk.hasSuffix("IES"), let word = known(String(chunk.dropLast(3)) + "Y") {
            return capitalised(String(word.dropLast())) + "ies"
        }
        if acronyms, position == .last, chunk.hasSuffix("S"), Self.finalAcronyms.contains(String(chunk.dropLast())) {
            return (acronymSpellings[String(chunk.dropLast())] ?? String(chunk.dropLast())) + "s"
        }
        return nil
    }
}
