import Foundation
import ObjectGraph

/// Turns Core Data's capitalised column names back into property names, as well as a store
/// without its model allows.
///
/// Words come from the store's entity names, whole and in parts (`InvestmentSecurityId` gives
/// itself, `Investment` and `Security`; words shorter than three letters are not used). A column name without its `Z` and
/// trailing digits is split into known words — the last one maybe plural (`S`, `ES`, or `IES` for a
/// word ending in `Y`) — plus at most one unknown run of three or more letters, with as few
/// unknown letters as possible, then as few pieces. Two or more pieces, or one known word, give
/// lower camel case (the first word's leading capitals lowered); anything else is lowercased.
/// Trailing digits are kept. The result always capitalises back to the column's name.
///
/// ```swift
/// let naming = PropertyNaming(entityNames: ["Account", "RecurrenceRule"])
/// naming.propertyName(forColumnBase: "TRANSFERACCOUNT")   // "transferAccount"
/// naming.propertyName(forColumnBase: "DATEYMD")           // "dateymd"
/// ```
struct PropertyNaming {
    /// Known words by their capitalised form, spelled as in the entity name.
    private let words: [String: String]
    private let longestWord: Int

    init(entityNames: [String]) {
        var words: [String: String] = [:]
        for name in entityNames {
            for word in [name] + Self.splitWords(name) where word.count >= 3 && word.allSatisfy(\.isASCII) {
                let key = word.uppercased()
                if words[key] == nil { words[key] = word }
            }
        }
        self.words = words
        longestWord = (words.keys.map(\.count).max() ?? 0) + 3
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
    func propertyName(forColumnBase base: String) -> String {
        let digits = String(base.reversed().prefix { $0.isASCII && $0.isNumber }.reversed())
        let core = String(base.dropLast(digits.count))
        guard !core.isEmpty, core.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
            // Not a plain ASCII name: keep it as it is, which capitalises back unchanged.
            return base
        }
        guard let pieces = segment(core), let first = pieces.first,
              pieces.count >= 2 || spelling(of: core, pluralAllowed: true) != nil else { return core.lowercased() + digits }
        return Self.lowercasingFirstWord(first) + pieces.dropFirst().joined() + digits
    }

    /// `Account` → `account`, `TICDSSyncChange` → `ticdsSyncChange`, `URL` → `url`.
    static func lowercasingFirstWord(_ word: String) -> String {
        let characters = Array(word)
        let run = characters.prefix { $0.isUppercase }.count
        let lowered = run > 1 && run < characters.count ? run - 1 : max(run, 1)
        return String(characters.prefix(lowered)).lowercased() + String(characters.dropFirst(lowered))
    }

    /// The pieces that spell `core` with the fewest unknown letters, then the fewest pieces:
    /// known words (maybe plural) and at most one unknown run of three or more letters. Each
    /// piece comes back spelled for camel case.
    private func segment(_ core: String) -> [String]? {
        let letters = Array(core)
        let count = letters.count
        struct Choice { var pieces: [String]; var unknownLetters: Int }
        func isBetter(_ candidate: Choice, than current: Choice?) -> Bool {
            guard let current else { return true }
            return (candidate.unknownLetters, candidate.pieces.count) < (current.unknownLetters, current.pieces.count)
        }
        // best[position][usedUnknown]: the best spelling of letters[position...].
        var best = Array(repeating: [Choice?](repeating: nil, count: 2), count: count + 1)
        best[count] = [Choice(pieces: [], unknownLetters: 0), Choice(pieces: [], unknownLetters: 0)]
        for start in stride(from: count - 1, through: 0, by: -1) {
            for usedUnknown in 0...1 {
                var choice: Choice?
                for end in stride(from: min(count, start + longestWord), to: start, by: -1) {
                    guard let word = spelling(of: String(letters[start..<end]), pluralAllowed: end == count), let rest = best[end][usedUnknown] else { continue }
                    let candidate = Choice(pieces: [word] + rest.pieces, unknownLetters: rest.unknownLetters)
                    if isBetter(candidate, than: choice) { choice = candidate }
                }
                if usedUnknown == 0 && start + 3 <= count {
                    for end in stride(from: count, through: start + 3, by: -1) {
                        guard let rest = best[end][1] else { continue }
                        let chunk = String(letters[start..<end])
                        let candidate = Choice(pieces: [chunk.prefix(1).uppercased() + chunk.dropFirst().lowercased()] + rest.pieces,
                                               unknownLetters: rest.unknownLetters + chunk.count)
                        if isBetter(candidate, than: choice) { choice = candidate }
                    }
                }
                best[start][usedUnknown] = choice
            }
        }
        return best[0][0]?.pieces
    }

    /// A known word, or at the end of a name its plural, spelled for camel case (`TRANSFERS` → `Transfers`).
    private func spelling(of chunk: String, pluralAllowed: Bool) -> String? {
        func capitalised(_ word: String) -> String { word.prefix(1).uppercased() + word.dropFirst() }
        if let word = words[chunk] { return capitalised(word) }
        guard pluralAllowed else { return nil }
        if chunk.hasSuffix("ES"), let word = words[String(chunk.dropLast(2))] { return capitalised(word) + "es" }
        if chunk.hasSuffix("S"), let word = words[String(chunk.dropLast())] { return capitalised(word) + "s" }
        if chunk.hasSuffix("IES"), let word = words[String(chunk.dropLast(3)) + "Y"] {
            return capitalised(String(word.dropLast())) + "ies"
        }
        return nil
    }
}
