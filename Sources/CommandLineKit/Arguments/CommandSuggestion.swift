/// "Did you mean …?" for mistyped options and commands.
package enum CommandSuggestion {
    /// The candidate closest to `typed`, if one is close enough to be a likely typo.
    ///
    /// Close means an edit distance (with transpositions) of at most 2, or at most a third
    /// of the longer word, but never a distance that rewrites the whole word (so `--fo`
    /// does not suggest `--as`); or `typed` being the start of the candidate (`--fo` for
    /// `--force`). The nearest close candidate wins; on a tie, one that `typed` starts,
    /// then the earlier one.
    ///
    ///     CommandSuggestion.closest(to: "imprt", in: ["list", "import"])   // "import"
    package static func closest(to typed: String, in candidates: [String]) -> String? {
        var best: (candidate: String, distance: Int, isPrefix: Bool)?
        for candidate in candidates where candidate != typed {
            let distance = editDistance(typed, candidate)
            let isPrefix = startsCandidate(typed: typed, candidate: candidate)
            guard isPrefix || isClose(typed: typed, candidate: candidate, distance: distance) else { continue }
            if let nearest = best,
               nearest.distance < distance || (nearest.distance == distance && (nearest.isPrefix || !isPrefix)) {
                continue
            }
            best = (candidate, distance, isPrefix)
        }
        return best?.candidate
    }

    static func isClose(typed: String, candidate: String, distance: Int) -> Bool {
        // Dashes match for free, so measure "the whole word" without them.
        let longerStem = max(stem(typed).count, stem(candidate).count)
        guard distance < longerStem else { return false }
        return distance <= 2 || distance * 3 <= max(typed.count, candidate.count)
    }

    /// A prefix counts only with something typed beyond the dashes.
    static func startsCandidate(typed: String, candidate: String) -> Bool {
        !stem(typed).isEmpty && candidate.hasPrefix(typed)
    }

    static func stem(_ word: String) -> Substring {
        word.drop { $0 == "-" }
    }

    /// Damerau-Levenshtein distance (optimal string alignment) over characters.
    ///
    ///     editDistance("improt", "import")   // 1: one transposition
    package static func editDistance(_ source: String, _ target: String) -> Int {
        let a = Array(source)
        let b = Array(target)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        // Three rows suffice: transpositions look two rows back.
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, beforePrevious[j - 2] + 1)
                }
                current[j] = value
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
