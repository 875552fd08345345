import Testing
import CommandLineKit

/// A small table, independent of `vacation`, for the framework's own rules.
enum SampleCommands {
    static let copy = CommandSpec(
        name: "copy",
        abstract: "Copy files.",
        arguments: [
            ArgumentSpec(name: "source", help: "What to copy.", isRepeating: true, allowsStandardInput: true),
            ArgumentSpec(name: "destination", help: "Where to copy it."),
        ],
        options: [
            .flag("--verbose", short: "v", help: "Say more."),
            .flag("--force", short: "f", help: "Overwrite."),
            .option("--level", short: "l", valueName: "n", help: "How hard to try."),
            .option("--exclude", valueName: "pattern", help: "Skip matching files.", isRepeatable: true),
        ])

    static let greet = CommandSpec(
        name: "greet",
        abstract: "Say hello.",
        arguments: [
            ArgumentSpec(name: "greeting", help: "The greeting.", isOptional: true),
            ArgumentSpec(name: "name", help: "Who to greet."),
        ])

    static let root = CommandSpec(
        name: "tool",
        abstract: "A sample tool.",
        version: "1.2.3",
        options: [
            .option("--root", valueName: "dir", help: "The root folder.", isInherited: true),
            .flag("--quiet", short: "q", help: "Say less.", isInherited: true),
            .flag("--local", help: "Only before the subcommand."),
        ],
        subcommands: [copy, greet, CommandSpec.helpCommand()])

    static let parser = CommandLineParser(root: root)

    static func run(_ arguments: [String]) -> ParsedArguments? {
        if case .success(.run(let parsed)) = parser.parse(arguments) { return parsed }
        return nil
    }

    static func error(_ arguments: [String]) -> String? {
        if case .failure(let error) = parser.parse(arguments) { return error.description }
        return nil
    }
}

@Suite("Choosing the command")
struct CommandChoiceTests {
    func chosen(_ arguments: [String]) -> [String] {
        CommandChooser.choose(root: SampleCommands.root, tokens: ArgumentTokenizer.tokenize(arguments)).path.map(\.name)
    }

    @Test("takes the first word that is not an option or an option's value")
    func firstWord() {
        #expect(chosen(["copy", "a", "b"]) == ["tool", "copy"])
        #expect(chosen(["--root", "greet", "copy", "x"]) == ["tool", "copy"])
        #expect(chosen(["--root=greet", "greet", "x"]) == ["tool", "greet"])
        #expect(chosen(["-q", "greet", "x"]) == ["tool", "greet"])
    }

    @Test("stops at -- and at an option it does not know")
    func stops() {
        #expect(chosen(["--", "copy"]) == ["tool"])
        #expect(chosen(["--nope", "copy"]) == ["tool"])
    }

    @Test("records where the subcommand was named")
    func positions() {
        let choice = CommandChooser.choose(
            root: SampleCommands.root, tokens: ArgumentTokenizer.tokenize(["--root", "r", "greet", "x"]))
        #expect(choice.commandTokenPositions == [2])
        #expect(choice.error == nil)
    }

    @Test("reports a word that names no subcommand")
    func unknown() {
        let choice = CommandChooser.choose(root: SampleCommands.root, tokens: ArgumentTokenizer.tokenize(["cpy"]))
        #expect(choice.error?.message == "Unknown command 'cpy'. Did you mean 'copy'?")
    }
}

@Suite("Binding arguments")
struct ArgumentBindingTests {
    @Test("binds positionals, with the repeating one taking what the others leave")
    func positionals() throws {
        let parsed = try #require(SampleCommands.run(["copy", "a", "b", "c", "dest"]))
        #expect(parsed.positionals("source") == ["a", "b", "c"])
        #expect(parsed.positional("destination") == "dest")
        #expect(parsed.commandNames == ["tool", "copy"])
    }

    @Test("gives an optional positional a word only when the required ones have theirs")
    func optionalBeforeRequired() throws {
        let one = try #require(SampleCommands.run(["greet", "Ana"]))
        #expect(one.positional("greeting") == nil)
        #expect(one.positional("name") == "Ana")
        let two = try #require(SampleCommands.run(["greet", "Hi", "Ana"]))
        #expect(two.positional("greeting") == "Hi")
        #expect(two.positional("name") == "Ana")
    }

    @Test("binds flags, valued options in both spellings, and repeated options in order")
    func options() throws {
        let parsed = try #require(SampleCommands.run([
            "copy", "--verbose", "--level", "3", "--exclude=*.tmp", "a", "--exclude", "*.bak", "b",
        ]))
        #expect(parsed.flag("--verbose"))
        #expect(parsed.flag("-v"))
        #expect(!parsed.flag("--force"))
        #expect(parsed.value(of: "--level") == "3")
        #expect(parsed.value(of: "-l") == "3")
        #expect(parsed.values(of: "--exclude") == ["*.tmp", "*.bak"])
        #expect(parsed.positionals("source") == ["a"])
        #expect(parsed.positional("destination") == "b")
    }

    @Test("splits combined short flags, a valued letter last taking the next word")
    func combinedShortFlags() throws {
        let parsed = try #require(SampleCommands.run(["copy", "-vfl", "7", "a", "b"]))
        #expect(parsed.flag("--verbose"))
        #expect(parsed.flag("--force"))
        #expect(parsed.value(of: "--level") == "7")
    }

    @Test("takes a negative number as an option's value")
    func negativeValue() throws {
        let parsed = try #require(SampleCommands.run(["copy", "--level", "-3", "a", "b"]))
        #expect(parsed.value(of: "--level") == "-3")
        #expect(try parsed.integer(of: "--level") == -3)
    }

    @Test("takes - and the empty string as values")
    func dashAndEmpty() throws {
        let parsed = try #require(SampleCommands.run(["copy", "-", "", "--exclude", ""]))
        #expect(parsed.positionals("source") == ["-"])
        #expect(parsed.positional("destination") == "")
        #expect(parsed.values(of: "--exclude") == [""])
    }

    @Test("treats everything after -- as positional")
    func afterTerminator() throws {
        let parsed = try #require(SampleCommands.run(["copy", "--", "--verbose", "-h"]))
        #expect(parsed.positionals("source") == ["--verbose"])
        #expect(parsed.positional("destination") == "-h")
        #expect(!parsed.flag("--verbose"))
    }

    @Test("accepts inherited options before and after the subcommand")
    func inherited() throws {
        let before = try #require(SampleCommands.run(["--root", "/r", "-q", "greet", "Ana"]))
        #expect(before.value(of: "--root") == "/r")
        #expect(before.flag("--quiet"))
        let after = try #require(SampleCommands.run(["greet", "Ana", "--root=/r", "-q"]))
        #expect(after.value(of: "--root") == "/r")
        #expect(after.flag("-q"))
    }

    @Test("accepts a root option that is not inherited only before the subcommand")
    func notInherited() {
        #expect(SampleCommands.run(["--local", "greet", "Ana"])?.flag("--local") == true)
        #expect(SampleCommands.error(["greet", "Ana", "--local"]) == """
            Error: Unknown option '--local'
            Usage: tool greet [<greeting>] <name>
              See 'tool greet --help' for more information.
            """)
    }

    @Test("answers help for the command named so far, over any other mistake")
    func helpWins() {
        let parser = SampleCommands.parser
        #expect(parser.parse(["copy", "--bogus", "-h"]) == .success(.help(path: [SampleCommands.root, SampleCommands.copy])))
        #expect(parser.parse(["cpy", "--help"]) == .success(.help(path: [SampleCommands.root])))
        #expect(parser.parse(["-vh"]) == .success(.help(path: [SampleCommands.root])))
        #expect(parser.parse(["help", "greet"]) == .success(.help(path: [SampleCommands.root, SampleCommands.greet])))
        #expect(parser.parse([]) == .success(.help(path: [SampleCommands.root])))
        #expect(parser.parse(["--quiet"]) == .success(.help(path: [SampleCommands.root])))
    }

    @Test("does not read -h after -- as help")
    func helpAfterTerminator() throws {
        let parsed = try #require(SampleCommands.run(["greet", "--", "-h"]))
        #expect(parsed.positional("name") == "-h")
    }

    @Test("answers --version anywhere before --")
    func version() {
        #expect(SampleCommands.parser.parse(["--version"]) == .success(.version("1.2.3")))
        #expect(SampleCommands.parser.parse(["copy", "--version"]) == .success(.version("1.2.3")))
    }

    @Test("returns integer values and refuses what is not a decimal integer")
    func integers() throws {
        let parsed = try #require(SampleCommands.run(["copy", "a", "b", "--level", "0x10"]))
        #expect(throws: CLIUsageError.self) { try parsed.integer(of: "--level") }
        for text in ["12", "-4", "0"] {
            let ok = try #require(SampleCommands.run(["copy", "a", "b", "--level", text]))
            #expect(try ok.integer(of: "--level") == Int(text))
        }
        for text in ["", " 1", "1 ", "+1", "1.0", "1e3", "٣", "99999999999999999999"] {
            let bad = try #require(SampleCommands.run(["copy", "a", "b", "--level", text]))
            #expect(throws: CLIUsageError.self, "\(text)") { try bad.integer(of: "--level") }
        }
        #expect(try parsed.integer(of: "--nothing") == nil)
    }
}
