import CommandLineKit
import Foundation
import SQLiteDB
import Testing
import TestSupport
@testable import VacationCLI

@MainActor
@Suite("vacation list, create, rename, delete, default, info, check, visit, unvisit, toggle")
struct LibraryCommandTests {
    @Test("the default vacation exists from the first command on")
    func defaultExists() throws {
        let cli = try CLIRunner()
        let list = try cli.run("list", "--json")
        #expect(list.code == 0)
        #expect(list.array.map { $0["name"] as? String } == ["My Vacation"])
        #expect(list.array.first?["isDefault"] as? Bool == true)
        #expect(list.array.first?["photos"] as? Int == 0)
        #expect(FileManager.default.fileExists(atPath: cli.library + "/My Vacation.vacation/StoreContent/persistentStore"))
        #expect(FileManager.default.fileExists(atPath: cli.library + "/My Vacation.vacation/DocumentMetadata.plist"))
    }

    @Test("create makes a vacation, refuses an existing name (1) and invalid names (64)")
    func create() throws {
        let cli = try CLIRunner()
        #expect(try cli.run("create", "Café Trip").output == "Created vacation \"Café Trip\".\n")
        let again = try cli.run("create", "Cafe\u{301} Trip")
        #expect(again.code == 1)
        #expect(again.errors == "Error: A vacation \"Café Trip\" already exists\n")
        for name in ["", ".hidden", "a/b", "../escape", String(repeating: "é", count: 101), "nul\u{0}byte"] {
            let refused = try cli.run("create", name)
            #expect(refused.code == 64, "\(name.debugDescription)")
            #expect(refused.errors.hasPrefix("Error: Invalid vacation name"), "\(name.debugDescription)")
        }
        #expect(try cli.run("list", "--json").array.map { $0["name"] as? String } == ["Café Trip", "My Vacation"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.directory.url.path).sorted() == ["library"])
    }

    @Test("a named vacation that does not exist is 66 except for import, visit, toggle, create and restore --as")
    func missingVacation() throws {
        let cli = try CLIRunner()
        for arguments in [["info", "Nowhere"], ["check", "Nowhere"], ["--vacation", "Nowhere", "photos"], ["--vacation", "Nowhere", "tags"],
                          ["--vacation", "Nowhere", "places"], ["--vacation", "Nowhere", "show", "1"], ["backups", "Nowhere"],
                          ["backup", "Nowhere"], ["rename", "Nowhere", "Else"], ["delete", "Nowhere", "--yes"], ["default", "Nowhere"],
                          ["--vacation", "Nowhere", "unvisit", "1"]] {
            let result = try cli.run(arguments)
            #expect(result.code == 66, "\(arguments)")
            #expect(result.errors.hasPrefix("Error: No such vacation \"Nowhere\"\n"), "\(arguments)")
        }
        let imported = try cli.run("--vacation", "Nowhere", "import", SampleFiles.sample("kyoto.json"))
        #expect(imported.code == 0)
        #expect(try cli.run("--vacation", "Nowhere", "photos", "--json").array.count == 10)
    }

    @Test("rename moves a vacation and the default with it; delete needs --yes")
    func renameAndDelete() throws {
        let cli = try CLIRunner()
        _ = try cli.run("import", SampleFiles.sample("kyoto.json"))
        #expect(try cli.run("create", "Iceland").code == 0)
        #expect(try cli.run("rename", "My Vacation", "Iceland").code == 1)
        #expect(try cli.run("rename", "My Vacation", "Japan").code == 0)
        #expect(try cli.run("default").output == "Japan\n")
        #expect(try cli.run("photos", "--json").array.count == 10)
        let refused = try cli.run("delete", "Iceland")
        #expect(refused.code == 64)
        #expect(try cli.run("delete", "Iceland", "--yes").code == 0)
        #expect(try cli.run("list", "--json").array.map { $0["name"] as? String } == ["Japan"])
    }

    @Test("default sets and shows the default vacation, which commands then use")
    func defaultVacation() throws {
        let cli = try CLIRunner()
        _ = try cli.run("create", "Kyoto")
        #expect(try cli.run("default", "Kyoto", "--json").object["default"] as? String == "Kyoto")
        _ = try cli.run("import", SampleFiles.sample("kyoto.json"))
        let list = try cli.run("list", "--json").array
        #expect(list.first { $0["name"] as? String == "Kyoto" }?["photos"] as? Int == 10)
        #expect(list.first { $0["name"] as? String == "Kyoto" }?["isDefault"] as? Bool == true)
        #expect(list.first { $0["name"] as? String == "My Vacation" }?["isDefault"] as? Bool == false)
    }

    @Test("info gives counts, size, path and model version")
    func info() throws {
        let cli = try CLIRunner()
        _ = try cli.run("import", SampleFiles.sample("iceland.jsonp"))
        let info = try cli.run("info", "--json").object
        #expect(info["name"] as? String == "My Vacation")
        #expect(info["photos"] as? Int == 8)
        #expect((info["tags"] as? Int ?? 0) > 0)
        #expect(info["modelVersion"] as? String == "2")
        #expect((info["bytes"] as? Int ?? 0) > 0)
        #expect((info["path"] as? String)?.hasSuffix("/My Vacation.vacation") == true)
    }

    @Test("check passes a sound vacation and fails (1) one whose counts were tampered with, listing each problem")
    func check() throws {
        let cli = try CLIRunner()
        _ = try cli.run("import", SampleFiles.sample("kyoto.json"))
        let sound = try cli.run("check", "--json")
        #expect(sound.code == 0)
        #expect(sound.object["ok"] as? Bool == true)
        #expect(sound.object["problems"] as? [String] == [])
        let store = cli.library + "/My Vacation.vacation/StoreContent/persistentStore"
        let connection = try Connection(path: store)
        try connection.execute("UPDATE ZTAG SET ZCOUNT = 99 WHERE ZNAME = 'kyoto'")
        let broken = try cli.run("check", "--json")
        #expect(broken.code == 1)
        #expect(broken.object["problems"] as? [String] == ["tag 'kyoto' has count 99 but 10 linked photos"])
        let text = try cli.run("check")
        #expect(text.output == "Vacation \"My Vacation\" has 1 problem:\n  tag 'kyoto' has count 99 but 10 linked photos\n")
    }

    @Test("visit, unvisit and toggle change exactly the photos named, and refuse unknown ids changing nothing")
    func visiting() throws {
        let cli = try CLIRunner()
        let feed = SampleFiles.sample("kyoto.json")
        let visit = try cli.run("visit", "53318277912", "053319655840", "--feed", feed, "--json")
        #expect(visit.code == 0)
        #expect((visit.object["photos"] as? [[String: Any]])?.map { $0["outcome"] as? String } == ["added", "added"])
        let unknown = try cli.run("visit", "53318277912", "42", "--feed", feed)
        #expect(unknown.code == 66)
        #expect(unknown.errors == "Error: No photo 42 in the feed \(feed)\nNothing was changed.\n")
        #expect(try cli.run("photos", "--json").array.count == 2)
        #expect(try cli.run("unvisit", "53318277912", "7").code == 66)
        #expect(try cli.run("unvisit", "53318277912").code == 0)
        #expect(try cli.run("photos", "--json").array.map { $0["id"] as? String } == ["53319655840"])
        #expect(try cli.run("toggle", "53319655840", "--feed", feed, "--json").object["outcome"] as? String == "unvisited")
        #expect(try cli.run("toggle", "53319655840", "--feed", feed).output == "53319655840: visited\n")
        #expect(try cli.run("check").code == 0)
        let tags = try cli.run("tags", "--json").array
        #expect(tags.allSatisfy { $0["count"] as? Int == 1 })
    }

    @Test("usage errors are 64 with swift-argument-parser's message and usage")
    func usage() throws {
        let cli = try CLIRunner()
        let result = try cli.run("restore", "x", "--fo")
        #expect(result.code == 64)
        #expect(result.errors.hasPrefix("Error: Unknown option '--fo'. Did you mean '--force'?\n"))
        #expect(result.output == "")
        #expect(try cli.run("--wait", "soon", "list").code == 64)
        let help = try cli.run("help", "import")
        #expect(help.code == 0)
        #expect(help.output.hasPrefix("OVERVIEW: "))
    }

    @Test("a damaged vacation is reported by list, not allowed to hide the others; commands on it fail with 1")
    func damaged() throws {
        let cli = try CLIRunner()
        _ = try cli.run("create", "Broken")
        try Data(repeating: 0x55, count: 4096).write(to: URL(fileURLWithPath: cli.library + "/Broken.vacation/StoreContent/persistentStore"))
        let list = try cli.run("list", "--json")
        #expect(list.code == 0)
        #expect(list.array.map { $0["name"] as? String } == ["Broken", "My Vacation"])
        #expect(list.array.first?["photos"] is NSNull)
        #expect(list.array.first?["damaged"] as? String == "Vacation \"Broken\" is damaged: the store is not a valid SQLite database (file is not a database)")
        #expect(list.errors == "Warning: Vacation \"Broken\" is damaged: the store is not a valid SQLite database (file is not a database)\n")
        // `check` reports the damage as its finding, on stdout (and as JSON with --json).
        let check = try cli.run("check", "Broken")
        #expect(check.code == 1)
        #expect(check.output == """
            Vacation "Broken" has 1 problem:
              The vacation cannot be opened: the store is not a valid SQLite database (file is not a database)

            """)
        #expect(check.errors == "")
        let checkJSON = try cli.run("check", "Broken", "--json")
        #expect(checkJSON.code == 1)
        #expect(checkJSON.object["ok"] as? Bool == false)
        #expect(checkJSON.object["problems"] as? [String]
                == ["The vacation cannot be opened: the store is not a valid SQLite database (file is not a database)"])
        let photos = try cli.run("photos", "--vacation", "Broken")
        #expect(photos.code == 1)
        #expect(photos.errors.hasPrefix("Error: Vacation \"Broken\" is damaged"))
    }

    @Test("an invalid --vacation is a usage error for every command; an empty --library too")
    func invalidGlobalNames() throws {
        let cli = try CLIRunner()
        for arguments in [["--vacation", ".hidden", "list"], ["--vacation", "a/b", "create", "Rome"], ["--vacation", "", "default"]] {
            let result = try cli.run(arguments)
            #expect(result.code == 64, "\(arguments)")
            #expect(result.errors.hasPrefix("Error: Invalid vacation name"), "\(arguments)")
            #expect(result.output == "", "\(arguments)")
        }
        // An empty --library is not the default library.
        let empty = try cli.run(["--library", "", "list"], library: false, variables: ["HOME": cli.directory.path("home").path])
        #expect(empty.code == 64)
        #expect(empty.errors.hasPrefix("Error: --library needs a folder, not an empty value\n"))
        #expect(!FileManager.default.fileExists(atPath: cli.directory.path("home").path))
        #expect(try cli.run("list", "--json").array.map { $0["name"] as? String } == ["My Vacation"])
    }
}
