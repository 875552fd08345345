import Testing
import CommandLineKit
import VacationCLI

@Suite("Did you mean")
struct CommandSuggestionTests {
    static let commands = VacationCommand.Name.allCases.map(\.rawValue)

    @Test("measures edit distance with transpositions counted once", arguments: [
        ("", "", 0), ("a", "", 1), ("", "abc", 3), ("kitten", "sitting", 3), ("bar", "baz", 1),
        ("improt", "import", 1), ("ca", "ac", 1), ("--fo", "--force", 3), ("東京", "京東", 1),
        ("flaw", "lawn", 2), ("abc", "abc", 0),
    ])
    func distance(source: String, target: String, expected: Int) {
        #expect(CommandSuggestion.editDistance(source, target) == expected)
        #expect(CommandSuggestion.editDistance(target, source) == expected)
    }

    @Test("suggests the closest command for a typo", arguments: [
        ("imprt", "import"), ("improt", "import"), ("lst", "list"), ("ls", "list"), ("tgas", "tags"),
        ("place", "places"), ("backpu", "backup"), ("restor", "restore"), ("unvist", "unvisit"),
        ("photo", "photos"), ("chek", "check"), ("defualt", "default"),
    ])
    func suggestsCommand(typed: String, expected: String) {
        #expect(CommandSuggestion.closest(to: typed, in: Self.commands) == expected)
    }

    @Test("suggests nothing for a word that is not close", arguments: ["xyz", "frobnicate", "q", "", "sync", "zz"])
    func suggestsNothing(typed: String) {
        #expect(CommandSuggestion.closest(to: typed, in: Self.commands) == nil)
    }

    @Test("suggests options by prefix and by typo, never by rewriting the whole word")
    func options() {
        let restore = ["--as", "--force", "--help", "--version", "--library"]
        #expect(CommandSuggestion.closest(to: "--fo", in: restore) == "--force")
        #expect(CommandSuggestion.closest(to: "--froce", in: restore) == "--force")
        #expect(CommandSuggestion.closest(to: "--ax", in: restore) == "--as")
        #expect(CommandSuggestion.closest(to: "--zz", in: restore) == nil)
        #expect(CommandSuggestion.closest(to: "--", in: restore) == nil)
        #expect(CommandSuggestion.closest(to: "-library", in: restore) == "--library")
        #expect(CommandSuggestion.closest(to: "--exclude-tags", in: ["--exclude-tag", "--place"]) == "--exclude-tag")
    }

    @Test("prefers the nearer of two close candidates, then the one typed as a prefix")
    func ranking() {
        #expect(CommandSuggestion.closest(to: "--plac", in: ["--places", "--place"]) == "--place")
        #expect(CommandSuggestion.closest(to: "tag", in: ["tab", "tags"]) == "tags")
    }
}
