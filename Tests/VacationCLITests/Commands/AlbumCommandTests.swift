import CommandLineKit
import Foundation
import Testing
import TestSupport
@testable import VacationCLI

@MainActor
@Suite("vacation album create | list | delete, photos/trips/export --album")
struct AlbumCommandTests {
    private func sample() throws -> CLIRunner {
        let cli = try CLIRunner()
        #expect(try cli.run(SampleFiles.importAll).code == 0)
        return cli
    }

    private func ids(_ result: CLIRunner.Result) -> [String] {
        result.array.compactMap { $0["id"] as? String }
    }

    /// What a failed command must leave as it was: the albums and the photos.
    private func state(_ cli: CLIRunner) throws -> [String] {
        [try cli.run("album", "list", "--json").output, try cli.run("photos", "--json").output, try cli.run("tags", "--json").output]
    }

    @Test("create, list (live counts), delete: text and JSON, exactly")
    func lifecycle() throws {
        let cli = try sample()
        let created = try cli.run("album", "create", "Sea", "--where", "ANY tags.name == 'sea'")
        #expect(created.code == 0)
        #expect(created.output == "Created the album \"Sea\" (1 photo now)\n")
        #expect(created.errors == "")
        let json = try cli.run("album", "create", "Kyoto", "--where", "place.name BEGINSWITH 'Kyoto'", "--json")
        #expect(json.code == 0)
        #expect(json.output == """
            {
              "vacation": "My Vacation",
              "name": "Kyoto",
              "where": "place.name BEGINSWITH 'Kyoto'",
              "photos": 10
            }

            """)
        #expect(try cli.run("album", "create", "Empty", "--where", "FALSEPREDICATE").code == 0)
        let list = try cli.run("album", "list")
        #expect(list.output == """
            ALBUM  PHOTOS  WHERE
            Empty       0  FALSEPREDICATE
            Kyoto      10  place.name BEGINSWITH 'Kyoto'
            Sea         1  ANY tags.name == 'sea'

            """)
        #expect(try cli.run("album", "list", "--json").output == """
            [
              {
                "name": "Empty",
                "where": "FALSEPREDICATE",
                "photos": 0
              },
              {
                "name": "Kyoto",
                "where": "place.name BEGINSWITH 'Kyoto'",
                "photos": 10
              },
              {
                "name": "Sea",
                "where": "ANY tags.name == 'sea'",
                "photos": 1
              }
            ]

            """)
        // Counts are live: the album keeps its predicate, not its photos.
        #expect(try cli.run("unvisit", "53318277912", "53319659377").code == 0)
        #expect(try cli.run("album", "list", "--json").array.map { $0["photos"] as? Int } == [0, 8, 1])
        let deleted = try cli.run("album", "delete", "Empty")
        #expect(deleted.code == 0 && deleted.output == "Deleted the album \"Empty\"\n")
        #expect(try cli.run("album", "delete", "Sea", "--json").object["deleted"] as? String == "Sea")
        #expect(try cli.run("album", "list", "--json").array.map { $0["name"] as? String } == ["Kyoto"])
        #expect(try CLIRunner().run("album", "list", "--json").output == "[]\n")
        #expect(try CLIRunner().run("album", "list").output == "")
        #expect(try cli.run("check").code == 0)
    }

    @Test("photos --album lists the album's photos, and with --tag, --place and --where only those matching all")
    func photosOfAnAlbum() throws {
        let cli = try sample()
        #expect(try cli.run("album", "create", "Portugal", "--where", "place.name ENDSWITH 'Portugal'").code == 0)
        let all = ids(try cli.run("photos", "--album", "Portugal", "--json"))
        #expect(all.count == 15)
        #expect(all == ids(try cli.run("photos", "--where", "place.name ENDSWITH 'Portugal'", "--json")))
        #expect(ids(try cli.run("photos", "--album", "Portugal", "--tag", "belém", "--json")) == ["52814563021", "52814571233"])
        #expect(ids(try cli.run("photos", "--album", "Portugal", "--place", "Porto", "--json")).count == 6)
        #expect(ids(try cli.run("photos", "--album", "Portugal", "--where", "title BEGINSWITH 'Torre'", "--json")) == ["52814563021", "52821780652"])
        #expect(ids(try cli.run("photos", "--album", "Portugal", "--tag", "kyoto", "--json")) == [])
        #expect(ids(try cli.run("photos", "--album", "Portugal", "--sort", "id", "--limit", "2", "--json")) == Array(all.sorted().prefix(2)))
        let trips = try cli.run("trips", "--album", "Portugal", "--json").array
        #expect(trips.map { $0["photos"] as? Int } == [9, 6])
        let csv = try cli.run("export", "csv", "--album", "Portugal")
        #expect(csv.output.split(separator: "\r\n").count == 16)
        let both = try cli.run("export", "csv", "--album", "Portugal", "--where", "ANY tags.name == 'belém'")
        #expect(both.output.split(separator: "\r\n").dropFirst().map { String($0.prefix(11)) } == ["52814563021", "52814571233"])
    }

    @Test("bad input: invalid predicate 64, existing name 1, empty or unusable name 64, unknown album 66; nothing changes")
    func badInput() throws {
        let cli = try sample()
        #expect(try cli.run("album", "create", "Sea", "--where", "ANY tags.name == 'sea'").code == 0)
        let before = try state(cli)
        let cases: [([String], Int32, String)] = [
            (["album", "create", "Bad", "--where", "title =="], 64,
             "Error: invalid predicate: Unexpected end of format at position 8: expected an expression\n"),
            (["album", "create", "Bad", "--where", "nosuch == 1"], 64,
             "Error: invalid predicate: Photo has no attribute or relationship named 'nosuch' (key path 'nosuch')\n"),
            (["album", "create", "Bad", "--where", "title == $NAME"], 64,
             "Error: invalid predicate: the predicate's variable $NAME has no value; substitute it first\n"),
            (["album", "create", "Sea", "--where", "TRUEPREDICATE"], 1,
             "Error: An album \"Sea\" already exists in the vacation \"My Vacation\"\nNothing was changed. Delete it first, or choose another name.\n"),
            (["album", "create", "", "--where", "TRUEPREDICATE"], 64, "Error: Invalid album name \"\": a name cannot be empty\n"),
            (["album", "create", "  ", "--where", "TRUEPREDICATE"], 64, "Error: Invalid album name \"  \": a name cannot be empty\n"),
            (["album", "create", "a\nb", "--where", "TRUEPREDICATE"], 64, "Error: Invalid album name \"a b\": a name cannot hold control characters\n"),
            (["album", "create", String(repeating: "é", count: 101), "--where", "TRUEPREDICATE"], 64,
             "Error: Invalid album name \"\(String(repeating: "é", count: 101))\": a name can be at most 200 bytes long\n"),
            (["album", "delete", "Nope"], 66,
             "Error: No album \"Nope\" in the vacation \"My Vacation\"\nRun 'vacation album list' to see the albums.\n"),
            (["album", "delete", "sea"], 66,
             "Error: No album \"sea\" in the vacation \"My Vacation\"\nRun 'vacation album list' to see the albums.\n"),
            (["photos", "--album", "Nope"], 66,
             "Error: No album \"Nope\" in the vacation \"My Vacation\"\nRun 'vacation album list' to see the albums.\n"),
            (["trips", "--album", "Nope"], 66,
             "Error: No album \"Nope\" in the vacation \"My Vacation\"\nRun 'vacation album list' to see the albums.\n"),
            (["export", "gpx", "--album", "Nope"], 66,
             "Error: No album \"Nope\" in the vacation \"My Vacation\"\nRun 'vacation album list' to see the albums.\n"),
            (["--vacation", "Nowhere", "album", "list"], 66,
             "Error: No such vacation \"Nowhere\"\nRun 'vacation list' to see your vacations.\n"),
            (["--vacation", "Nowhere", "album", "create", "X", "--where", "TRUEPREDICATE"], 66,
             "Error: No such vacation \"Nowhere\"\nRun 'vacation list' to see your vacations.\n"),
        ]
        for (arguments, code, message) in cases {
            let result = try cli.run(arguments)
            #expect(result.code == code, "\(arguments)")
            #expect(result.output == "", "\(arguments)")
            #expect(result.errors == message, "\(arguments)")
            #expect(try state(cli) == before, "\(arguments)")
        }
        // Usage errors the parser finds: no --where, no name, an unknown subcommand.
        for arguments in [["album", "create", "X"], ["album", "create"], ["album", "delete"], ["album", "rename", "X"]] {
            let result = try cli.run(arguments)
            #expect(result.code == 64, "\(arguments)")
            #expect(result.output == "", "\(arguments)")
            #expect(result.errors.hasPrefix("Error: "), "\(arguments)")
        }
        #expect(try state(cli) == before)
        #expect(try cli.run("list", "--json").array.map { $0["name"] as? String } == ["My Vacation"])
    }

    @Test("names are kept as typed in NFC; backups and restores carry the albums")
    func namesAndBackups() throws {
        let cli = try sample()
        #expect(try cli.run("album", "create", "Cafe\u{301}s", "--where", "title CONTAINS[cd] 'cafe'").code == 0)
        #expect(try cli.run("album", "list", "--json").array.map { $0["name"] as? String } == ["Cafés"])
        #expect(try cli.run("album", "create", "Cafés", "--where", "TRUEPREDICATE").code == 1)
        #expect(try cli.run("photos", "--album", "Cafe\u{301}s").code == 0)
        let backup = try cli.run("backup", "--json")
        let name = try #require(backup.object["name"] as? String)
        #expect(try cli.run("album", "delete", "Cafés").code == 0)
        #expect(try cli.run("restore", name, "--as", "Restored").code == 0)
        #expect(try cli.run("--vacation", "Restored", "album", "list", "--json").array.map { $0["name"] as? String } == ["Cafés"])
        #expect(try cli.run("album", "list", "--json").output == "[]\n")
        #expect(try cli.run("check", "Restored").code == 0)
    }

    @Test("help lists search and album; album alone shows its subcommands")
    func help() throws {
        let cli = try CLIRunner()
        let album = try cli.run("album")
        #expect(album.code == 0)
        #expect(album.output.contains("USAGE: vacation album <subcommand>"))
        #expect(album.output.contains("  create                  Save a predicate as a smart album."))
        let create = try cli.run("album", "create", "--help")
        #expect(create.output.contains("USAGE: vacation album create <name> --where <predicate> [--json]"))
        #expect(try cli.run("search", "--help").output.contains("USAGE: vacation search <text> ... [--limit <n>] [--json]"))
        #expect(try cli.run("photos", "--help").output.contains("--album <name>"))
    }
}
