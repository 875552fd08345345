import CommandLineKit
import Testing
import VacationCLI

/// Help in swift-argument-parser's layout, as golden text.
@Suite("Help text")
struct HelpRenderingTests {
    func help(_ arguments: [String]) -> String? {
        if case .success(.help(_, let text)) = VacationCommandLine.parse(arguments) { return text }
        return nil
    }

    static let rootHelp = """
        OVERVIEW: Keep the Flickr photos of your vacations.

        Each vacation is a document in the library folder: --library, else
        $VACATION_LIBRARY, else $XDG_DATA_HOME/vacation, else ~/.local/share/vacation.
        Commands work on the default vacation, "My Vacation", unless --vacation names
        another.

        USAGE: vacation [--library <dir>] [--vacation <name>] [--wait <seconds>] [--json] <subcommand>

        OPTIONS:
          --library <dir>         The folder that holds the vacations.
          --vacation <name>       The vacation to use instead of the default one.
          --wait <seconds>        How long to wait for a vacation that another process
                                  is writing. (default: 10)
          --json                  Print the result as one JSON document.
          --version               Show the version.
          -h, --help              Show help information.

        SUBCOMMANDS:
          list                    List the vacations in the library.
          create                  Create an empty vacation.
          rename                  Rename a vacation.
          delete                  Delete a vacation and its photos.
          default                 Show the default vacation, or set it.
          info                    Summarize a vacation: counts, size, path.
          import                  Import the photos of Flickr feed files.
          visit                   Add photos from a feed to the vacation.
          unvisit                 Remove photos from the vacation.
          toggle                  Visit a photo, or unvisit it if it is already there.
          fetch                   Fetch photos from Flickr's API and import them.
          photos                  List the vacation's photos.
          show                    Show one photo in full.
          tags                    List the tags with the number of photos of each.
          places                  List the places with the number of photos of each.
          check                   Check a vacation's store and its invariants.
          backup                  Back up a vacation.
          backups                 List a vacation's backups.
          restore                 Restore a vacation from a backup.
          search                  Find photos by words in their titles, tags and places.
          album                   Keep smart albums: saved predicates over photos.
          trips                   List the trips: photos by date, split at long gaps.
          export                  Export as GeoJSON, KML, GPX, CSV or an HTML album.
          log                     List the operations that changed a vacation.
          undo                    Revert the latest operation that changed a vacation.
          sync                    Sync a vacation with other libraries through a folder.

          See 'vacation help <subcommand>' for detailed help.
        """

    static let importHelp = """
        OVERVIEW: Import the photos of Flickr feed files.

        A feed is Flickr REST XML, JSON or JSONP. Each file is imported in one
        transaction: a file that cannot be read changes nothing.

        USAGE: vacation import <feed> ... [--places <file>] [--place <name>] [--exclude-tag <tag> ...] [--json]

        ARGUMENTS:
          <feed>                  A feed file, or '-' for standard input.

        OPTIONS:
          --places <file>         A Flickr top-places list that names the photos'
                                  places.
          --place <name>          The place of photos that name none of their own.
          --exclude-tag <tag>     Leave out this tag, whatever its case.
          --json                  Print the result as one JSON document.
          --version               Show the version.
          -h, --help              Show help information.

        """

    static let restoreHelp = """
        OVERVIEW: Restore a vacation from a backup.

        USAGE: vacation restore <backup> [--as <name>] [--force] [--json]

        ARGUMENTS:
          <backup>                A backup's name as 'backups' lists it, or its path.

        OPTIONS:
          --as <name>             Restore under this name instead of the original.
          --force                 Replace a vacation of the same name.
          --json                  Print the result as one JSON document.
          --version               Show the version.
          -h, --help              Show help information.

        """

    @Test("renders the root help with options, subcommands and the help hint")
    func root() {
        #expect(help(["--help"]) == Self.rootHelp)
        #expect(help(["-h"]) == Self.rootHelp)
        #expect(help(["help"]) == Self.rootHelp)
        #expect(help([]) == Self.rootHelp)
        #expect(help(["--library", "/tmp", "--json"]) == Self.rootHelp)
    }

    @Test("renders import's help for help import, import --help and import -h")
    func importCommand() {
        #expect(help(["help", "import"]) == Self.importHelp)
        #expect(help(["import", "--help"]) == Self.importHelp)
        #expect(help(["import", "a.xml", "-h"]) == Self.importHelp)
        #expect(help(["--json", "import", "--bogus", "--help"]) == Self.importHelp)
    }

    @Test("renders restore's help")
    func restore() {
        #expect(help(["restore", "--help"]) == Self.restoreHelp)
        #expect(help(["help", "restore"]) == Self.restoreHelp)
    }

    @Test("names the help topic")
    func topic() {
        #expect(VacationCommandLine.parse(["help", "tags"]) == .success(.help(topic: .tags, text: help(["tags", "-h"]) ?? "")))
        #expect(VacationCommandLine.parse(["-h"]) == .success(.help(topic: nil, text: Self.rootHelp)))
    }

    @Test("has help for every command, with no line over 80 columns but the usage and no trailing spaces")
    func everyCommand() throws {
        for name in VacationCommand.Name.allCases {
            let text = try #require(help([name.rawValue, "--help"]), "\(name)")
            #expect(text.hasPrefix("OVERVIEW: "), "\(name)")
            #expect(text.contains("\nUSAGE: vacation \(name.rawValue)"), "\(name)")
            for line in text.split(separator: "\n") {
                #expect(!line.hasSuffix(" "), "\(name): '\(line)'")
                #expect(line.count <= 80 || line.hasPrefix("USAGE: "), "\(name): '\(line)'")
            }
            // A group (`album`) prints JSON through its subcommands: each one's help says so.
            let subcommands = VacationCommands.root.subcommand(named: name.rawValue)?.subcommands ?? []
            if subcommands.isEmpty {
                #expect(text.contains("--json") == name.printsJSON, "\(name)")
            } else {
                for subcommand in subcommands {
                    let subcommandText = try #require(help([name.rawValue, subcommand.name, "--help"]), "\(name) \(subcommand.name)")
                    #expect(subcommandText.contains("--json") == name.printsJSON, "\(name) \(subcommand.name)")
                }
            }
        }
    }

    @Test("loses no word of help on any screen width")
    func anyWidth() {
        for width in [-1, 0, 1, 10, 26, 27, 39, 40, 41, 60, 200] {
            for path in [[VacationCommands.root], [VacationCommands.root, VacationCommands.root.subcommands[6]]] {
                let text = CommandHelpRenderer.help(for: path, screenWidth: width)
                let words = Set(text.split(whereSeparator: { $0 == " " || $0 == "\n" }))
                for option in path.last?.options ?? [] {
                    for word in option.help.split(separator: " ") {
                        #expect(words.contains(word), "\(width): \(word)")
                    }
                }
            }
        }
    }

    @Test("prints the version")
    func version() {
        #expect(VacationCommandLine.parse(["--version"]) == .success(.version(VacationCommands.version)))
        #expect(VacationCommandLine.parse(["photos", "--version"]) == .success(.version("0.1.0")))
    }
}

/// The layout rules on a table made to reach them.
@Suite("Help layout")
struct HelpLayoutTests {
    static let command = CommandSpec(
        name: "sample",
        abstract: "",
        arguments: [
            ArgumentSpec(name: "an-argument-with-a-long-name", help: "Help on its own line."),
            ArgumentSpec(name: "quiet-one", isOptional: true),
        ],
        options: [
            .option("--exactly-twentyfour", valueName: "x", help: "A label of 24 characters."),
            .option("--twentythree-chars", valueName: "x", help: "A label of 23 fits beside."),
            OptionSpec(longNames: ["--output", "--out"], shortName: "o", valueName: "file",
                       help: "Several names, shorts first.", isRepeatable: true),
            .option("--count", valueName: "n", help: "", defaultValue: "3"),
        ])

    @Test("puts help at column 26, or on the next line when the label reaches it")
    func columns() {
        let text = CommandHelpRenderer.help(for: [Self.command], screenWidth: 80)
        #expect(text == """
            USAGE: sample <an-argument-with-a-long-name> [<quiet-one>] [--exactly-twentyfour <x>] [--twentythree-chars <x>] [--output <file> ...] [--count <n>]

            ARGUMENTS:
              <an-argument-with-a-long-name>
                                      Help on its own line.
              <quiet-one>

            OPTIONS:
              --exactly-twentyfour <x>
                                      A label of 24 characters.
              --twentythree-chars <x> A label of 23 fits beside.
              -o, --output, --out <file>
                                      Several names, shorts first.
              --count <n>             (default: 3)
              -h, --help              Show help information.

            """)
    }

    @Test("wraps help text with a hanging indent, breaking early when a line fills exactly")
    func wrapping() {
        let command = CommandSpec(
            name: "w",
            options: [.flag("--flag", help: "one two three four five six seven eight nine ten eleven twelve")])
        #expect(CommandHelpRenderer.help(for: [command], screenWidth: 50) == """
            USAGE: w [--flag]

            OPTIONS:
              --flag                  one two three four five
                                      six seven eight nine
                                      ten eleven twelve
              -h, --help              Show help information.

            """)
    }

    @Test("wraps like swift-argument-parser: breaks at the last space of a full line")
    func wrapRules() {
        #expect(CommandHelpRenderer.wrap("aaaa bbbb cccc", toWidth: 9) == "aaaa\nbbbb cccc")
        #expect(CommandHelpRenderer.wrap("aaaa bbbb", toWidth: 9) == "aaaa bbbb")
        #expect(CommandHelpRenderer.wrap("abcdefghijkl mn", toWidth: 5) == "abcdefghijkl\nmn")
        #expect(CommandHelpRenderer.wrap("one\n\ntwo", toWidth: 20) == "one\n\ntwo")
        #expect(CommandHelpRenderer.wrap("aa bb", toWidth: 10, indent: 4) == "    aa bb")
        #expect(CommandHelpRenderer.wrap("", toWidth: 10) == "")
        #expect(CommandHelpRenderer.wrap("abc", toWidth: 2, indent: 4) == "abc")
    }

    @Test("folds more than twelve options into [<options>] in the usage line, keeping required ones")
    func manyOptions() {
        var options = (1...13).map { OptionSpec.flag("--f\($0)", help: "") }
        options.append(.option("--must", valueName: "m", help: "", isRequired: true))
        let command = CommandSpec(name: "many", arguments: [ArgumentSpec(name: "x")], options: options)
        #expect(CommandHelpRenderer.usage(for: [command]) == "many [<options>] <x> --must <m>")
    }

    @Test("uses a usage override after the command path")
    func usageOverride() {
        let command = CommandSpec(name: "sub", usageOverride: "<anything> [--goes]")
        #expect(CommandHelpRenderer.usage(for: [CommandSpec(name: "tool"), command]) == "tool sub <anything> [--goes]")
    }
}
