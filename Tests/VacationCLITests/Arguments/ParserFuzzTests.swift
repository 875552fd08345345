import CommandLineKit
import Testing
import TestSupport
import VacationCLI

/// Random command lines: the parser must always answer, with a parse or a usage error.
@Suite("Parser robustness")
struct ParserFuzzTests {
    /// SplitMix64, seeded (TestSupport).
    typealias SeededGenerator = SplitMix64

    static let vocabulary: [String] = {
        var words = VacationCommand.Name.allCases.map(\.rawValue)
        words += ["--library", "--vacation", "--wait", "--json", "--help", "-h", "--version",
                  "--places", "--place", "--exclude-tag", "--feed", "--tag", "--where", "--sort", "--desc",
                  "--limit", "--to", "--keep", "--as", "--force", "--yes",
                  "--", "-", "", " ", "=", "--=", "---", "-5", "-1.5", "0", "12", "abc", "a,b", ",",
                  "--limit=", "--limit=-1", "--json=1", "-hv", "-x", "-é", "東京", "👨‍👩‍👧", "🇯🇵",
                  "Cafe\u{301}", "\u{0}", "\n", "--wait=nan", "--wait=1e309", "imprt", "-\u{301}"]
        return words
    }()

    static func randomWord(_ generator: inout SeededGenerator) -> String {
        if Int.random(in: 0..<8, using: &generator) == 0 {
            // Occasionally an arbitrary string of scalars.
            let length = Int.random(in: 0...6, using: &generator)
            var scalars = String.UnicodeScalarView()
            for _ in 0..<length {
                let value = UInt32.random(in: 0...0x1F_FFF, using: &generator)
                scalars.append(Unicode.Scalar(value) ?? "-")
            }
            return String(scalars)
        }
        return vocabulary.randomElement(using: &generator) ?? ""
    }

    @Test("never crashes and always returns a result or a usage error", arguments: [1, 2, 3, 4])
    func randomArgv(seed: UInt64) {
        var generator = SeededGenerator(state: seed)
        for _ in 0..<2_500 {
            let count = Int.random(in: 0...8, using: &generator)
            let argv = (0..<count).map { _ in Self.randomWord(&generator) }
            switch VacationCommandLine.parse(argv) {
            case .success(.run(let invocation)):
                #expect(invocation.globals.waitSeconds >= 0 && invocation.globals.waitSeconds.isFinite)
            case .success(.help(_, let text)):
                #expect(text.hasPrefix("OVERVIEW: "), "\(argv)")
            case .success(.version(let version)):
                #expect(version == VacationCommands.version)
            case .failure(let error):
                let text = error.description
                #expect(text.hasPrefix("Error: "), "\(argv)")
                #expect(text.hasSuffix("' for more information."), "\(argv)")
                #expect(error.exitCode == 64)
            }
        }
    }
}
