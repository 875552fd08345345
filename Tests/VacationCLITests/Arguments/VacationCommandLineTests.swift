import CommandLineKit
import Testing
import VacationCLI

@Suite("The vacation command line")
struct VacationCommandLineTests {
    func invocation(_ arguments: [String]) -> VacationCommandLine.Invocation? {
        if case .success(.run(let invocation)) = VacationCommandLine.parse(arguments) { return invocation }
        return nil
    }

    func command(_ arguments: [String]) -> VacationCommand? {
        invocation(arguments)?.command
    }

    @Test("parses every command of the contract into its typed case", arguments: [
        (["list"], VacationCommand.list),
        (["create", "Rome 2024"], .create(name: "Rome 2024")),
        (["rename", "Rome", "Roma"], .rename(from: "Rome", to: "Roma")),
        (["delete", "Rome", "--yes"], .delete(name: "Rome")),
        (["default"], .setDefault(name: nil)),
        (["default", "Rome"], .setDefault(name: "Rome")),
        (["info"], .info(name: nil)),
        (["info", "Rome"], .info(name: "Rome")),
        (["import", "a.xml"], .importFeeds(.init(feeds: ["a.xml"]))),
        (["import", "a.xml", "-", "b.json", "--places", "top.xml", "--place", "Rome",
          "--exclude-tag", "LANDSCAPE", "--exclude-tag=sky"],
         .importFeeds(.init(feeds: ["a.xml", "-", "b.json"], placesFile: "top.xml", place: "Rome",
                            excludedTags: ["LANDSCAPE", "sky"]))),
        (["visit", "1", "2", "--feed", "f.xml"], .visit(ids: ["1", "2"], feed: "f.xml")),
        (["visit", "--feed=-", "1"], .visit(ids: ["1"], feed: "-")),
        (["unvisit", "1", "2", "3"], .unvisit(ids: ["1", "2", "3"])),
        (["toggle", "42", "--feed", "f.xml"], .toggle(id: "42", feed: "f.xml")),
        (["photos"], .photos(.init())),
        (["photos", "--tag", "beach", "--place", "Nice", "--where", "title CONTAINS[c] 'x'",
          "--sort", "dateTaken, title", "--desc", "--limit", "5"],
         .photos(.init(tag: "beach", place: "Nice", predicate: "title CONTAINS[c] 'x'",
                       sortKeys: ["dateTaken", "title"], descending: true, limit: 5))),
        (["photos", "--limit", "0"], .photos(.init(limit: 0))),
        (["show", "123"], .show(id: "123")),
        (["tags"], .tags),
        (["places"], .places),
        (["check"], .check(name: nil)),
        (["check", "Rome"], .check(name: "Rome")),
        (["backup"], .backup(name: nil, destination: nil, keep: nil)),
        (["backup", "Rome", "--to", "/b", "--keep", "3"], .backup(name: "Rome", destination: "/b", keep: 3)),
        (["backups"], .backups(name: nil)),
        (["backups", "Rome"], .backups(name: "Rome")),
        (["restore", "Rome 2024-05-01"], .restore(backup: "Rome 2024-05-01", newName: nil, force: false)),
        (["restore", "/b/x.vacation", "--as", "Copy", "--force"], .restore(backup: "/b/x.vacation", newName: "Copy", force: true)),
    ] as [([String], VacationCommand)])
    func everyCommand(arguments: [String], expected: VacationCommand) {
        #expect(command(arguments) == expected)
    }

    @Test("names each typed command after its word")
    func names() {
        #expect(VacationCommand.importFeeds(.init(feeds: [])).name == .import)
        #expect(VacationCommand.setDefault(name: nil).name == .default)
        let table = Set(VacationCommands.root.subcommands.map(\.name))
        #expect(table == Set(VacationCommand.Name.allCases.map(\.rawValue)))
    }

    @Test("has defaults for the global options")
    func defaultGlobals() throws {
        let globals = try #require(invocation(["tags"])).globals
        #expect(globals == VacationCommandLine.GlobalOptions())
        #expect(globals.waitSeconds == 10)
        #expect(globals.library == nil && globals.vacation == nil && !globals.json)
    }

    @Test("accepts the global options before the command")
    func globalsBefore() throws {
        let parsed = try #require(invocation([
            "--library", "/tmp/lib", "--vacation=Rome", "--wait", "2.5", "--json", "photos", "--limit", "3",
        ]))
        #expect(parsed.globals == .init(library: "/tmp/lib", vacation: "Rome", waitSeconds: 2.5, json: true))
        #expect(parsed.command == .photos(.init(limit: 3)))
    }

    @Test("accepts the global options after the command, between its arguments")
    func globalsAfter() throws {
        let parsed = try #require(invocation([
            "import", "a.xml", "--library=/l", "b.xml", "--vacation", "東京 🗼", "--wait", "0", "--json",
        ]))
        #expect(parsed.globals == .init(library: "/l", vacation: "東京 🗼", waitSeconds: 0, json: true))
        #expect(parsed.command == .importFeeds(.init(feeds: ["a.xml", "b.xml"])))
    }

    @Test("accepts --json on commands that do not list it")
    func jsonAnywhere() {
        #expect(invocation(["create", "x", "--json"])?.globals.json == true)
        #expect(invocation(["--json", "restore", "b"])?.globals.json == true)
    }

    @Test("keeps the empty string and unicode names as given")
    func oddNames() {
        #expect(command(["create", ""]) == .create(name: ""))
        #expect(command(["create", "Cafe\u{301}"]) == .create(name: "Cafe\u{301}"))
        #expect(command(["rename", "--", "-old", "--new"]) == .rename(from: "-old", to: "--new"))
    }

    @Test("keeps the bound arguments for later options")
    func rawArguments() throws {
        let parsed = try #require(invocation(["photos", "--desc"]))
        #expect(parsed.arguments.flag("--desc"))
        #expect(parsed.arguments.commandNames == ["vacation", "photos"])
    }

    @Test("marks which commands print JSON: all but help")
    func jsonCommands() {
        let printing = Set(VacationCommand.Name.allCases.filter(\.printsJSON))
        #expect(printing == Set(VacationCommand.Name.allCases).subtracting([.help]))
    }
}
