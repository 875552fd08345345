import CommandLineKit
import Foundation
import Testing
import TestSupport
@testable import VacationCLI

@MainActor
@Suite("vacation import, photos, show, tags, places")
struct ImportAndQueryCommandTests {
    @Test("import reports added, updated, unchanged and skipped at the top level and per file, as given")
    func importReport() throws {
        let cli = try CLIRunner()
        let result = try cli.run(SampleFiles.importAll + ["--json"])
        #expect(result.code == 0)
        #expect(result.errors == "")
        let report = result.object
        #expect(report["vacation"] as? String == "My Vacation")
        #expect(report["added"] as? Int == 42)
        #expect(report["updated"] as? Int == 2)
        #expect(report["unchanged"] as? Int == 0)
        #expect(report["skipped"] as? Int == 0)
        let files = report["files"] as? [[String: Any]] ?? []
        #expect(files.map { $0["path"] as? String } == ["SampleData/lisbon-porto.xml", "SampleData/kyoto.json",
                                                        "SampleData/iceland.jsonp", "SampleData/new-york.xml"])
        #expect(files.map { $0["added"] as? Int } == [16, 10, 8, 8])
        let again = try cli.run(["import", SampleFiles.sample("kyoto.json"), "--json"])
        // new-york.xml retitled one Kyoto photo; the Kyoto feed puts its title back.
        #expect(again.object["unchanged"] as? Int == 9)
        #expect(again.object["updated"] as? Int == 1)
        #expect(again.object["added"] as? Int == 0)
    }

    @Test("human import output is one line per file and a total")
    func importText() throws {
        let cli = try CLIRunner()
        let result = try cli.run("import", SampleFiles.sample("kyoto.json"), SampleFiles.sample("iceland.jsonp"))
        #expect(result.output == """
            SampleData/kyoto.json: 10 added, 0 updated, 0 unchanged, 0 skipped
            SampleData/iceland.jsonp: 8 added, 0 updated, 0 unchanged, 0 skipped
            Total for "My Vacation": 18 added, 0 updated, 0 unchanged, 0 skipped

            """)
    }

    @Test("places come in itinerary order with their photo counts and first visit")
    func places() throws {
        let cli = try CLIRunner()
        _ = try cli.run(SampleFiles.importAll)
        let places = try cli.run("places", "--json").array
        #expect(places.map { $0["name"] as? String } == [
            "Lisbon, Lisbon, Portugal", "Sintra, Lisbon, Portugal", "Porto, Porto, Portugal",
            "Reykjavík, Capital Region, Iceland", "Southern Region, Iceland", "Kyoto, Kyoto Prefecture, Japan",
            "New York, NY, United States",
        ])
        #expect(places.map { $0["photos"] as? Int } == [7, 2, 6, 5, 3, 10, 7])
        #expect(places.first?["firstVisited"] as? String == "2023-04-01T10:15:00Z")
    }

    @Test("tags are sorted by count, then name, with their counts")
    func tags() throws {
        let cli = try CLIRunner()
        _ = try cli.run("import", SampleFiles.sample("kyoto.json"))
        let tags = try cli.run("tags", "--json").array
        #expect(tags.first?["name"] as? String == "kyoto")
        #expect(tags.first?["count"] as? Int == 10)
        let counts = tags.compactMap { $0["count"] as? Int }
        #expect(counts == counts.sorted(by: >))
        let text = try cli.run("tags").output
        #expect(text.hasPrefix("TAG"))
        #expect(text.contains("kyoto       10") || text.contains("kyoto"))
    }

    @Test("photos filters by tag, place and predicate, sorts and limits")
    func photos() throws {
        let cli = try CLIRunner()
        _ = try cli.run(SampleFiles.importAll)
        let kyoto = try cli.run("photos", "--tag", "KYOTO", "--json").array
        #expect(kyoto.count == 10)
        #expect(try cli.run("photos", "--place", "lisbon", "--json").array.count == 7)
        #expect(try cli.run("photos", "--place", "Lisbon, Lisbon, Portugal", "--json").array.count == 7)
        let videos = try cli.run("photos", "--where", "media == 'video'", "--json").array
        #expect(videos.map { $0["id"] as? String }.count == 2)
        let latest = try cli.run("photos", "--sort", "taken", "--desc", "--limit", "2", "--json").array
        #expect(latest.count == 2)
        let dates = latest.compactMap { $0["dateTaken"] as? String }
        #expect(dates == dates.sorted(by: >))
        let byTitle = try cli.run("photos", "--where", "ANY tags.name == 'tram'", "--sort", "title", "--json").array
        let titles = byTitle.compactMap { $0["title"] as? String }
        #expect(!titles.isEmpty && titles == titles.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        let all = try cli.run("photos", "--json").array
        #expect(all.count == 42)
        let keys = Set(all.first.map { Array($0.keys) } ?? [])
        #expect(keys.isSuperset(of: ["id", "title", "subtitle", "imageURL", "place", "tags", "dateTaken",
                                     "owner", "latitude", "longitude", "visited"]))
    }

    @Test("an invalid predicate or sort key is a usage error that shows where")
    func invalidQueries() throws {
        let cli = try CLIRunner()
        let bad = try cli.run("photos", "--where", "title BEGINS 'x'")
        #expect(bad.code == 64)
        #expect(bad.errors == "Error: invalid predicate: Unexpected 'BEGINS' at position 6: expected a comparison operator\n")
        #expect(bad.output == "")
        let unknownKey = try cli.run("photos", "--where", "colour == 'red'")
        #expect(unknownKey.code == 64)
        #expect(unknownKey.errors.hasPrefix("Error: invalid predicate: "))
        let sort = try cli.run("photos", "--sort", "colour")
        #expect(sort.code == 64)
        #expect(sort.errors.hasPrefix("Error: unknown sort key 'colour'"))
    }

    @Test("show gives one photo object; an unknown id is 66")
    func show() throws {
        let cli = try CLIRunner()
        _ = try cli.run("import", SampleFiles.sample("kyoto.json"))
        let photo = try cli.run("show", "53318277912", "--json")
        #expect(photo.code == 0)
        #expect(photo.object["id"] as? String == "53318277912")
        #expect(photo.object["tags"] as? [String] == ["gold", "kyoto", "temple", "unesco", "金閣寺"])
        #expect(photo.object["place"] is NSNull)
        #expect(photo.output.hasPrefix("{\n  \"id\": \"53318277912\",\n  \"title\": \"金閣寺 Kinkaku-ji ❄️\","))
        let missing = try cli.run("show", "1")
        #expect(missing.code == 66)
        #expect(missing.errors == "Error: No photo 1 in the vacation \"My Vacation\"\n")
        #expect(try cli.run("show", "not-an-id").code == 66)
    }

    @Test("a malformed, truncated or failed feed is 65 and changes nothing; a missing feed is 66")
    func badFeeds() throws {
        let cli = try CLIRunner()
        _ = try cli.run("import", SampleFiles.sample("kyoto.json"))
        let failure = try cli.run("import", SampleFiles.fixture("error_method_not_found.rest.xml"))
        #expect(failure.code == 65)
        #expect(failure.errors.contains("Flickr error 112: Method \"flickr.fakeMethod\" not found"))
        let truncated = try cli.run(["import", "-"], input: "<rsp stat=\"ok\"><photos><photo id=\"1\" title=\"a\"/>")
        #expect(truncated.code == 65)
        let missing = try cli.run("import", "no-such-feed.xml")
        #expect(missing.code == 66)
        #expect(missing.errors == "Error: No such feed: no-such-feed.xml\n")
        #expect(try cli.run("photos", "--json").array.count == 10)
    }

    @Test("a feed on standard input imports like a file")
    func standardInput() throws {
        let cli = try CLIRunner()
        let feed = try String(contentsOf: SampleFiles.root.appendingPathComponent("SampleData/iceland.jsonp"), encoding: .utf8)
        let result = try cli.run(["import", "-", "--json"], input: feed)
        #expect(result.code == 0)
        #expect(result.object["added"] as? Int == 8)
        #expect((result.object["files"] as? [[String: Any]])?.first?["path"] as? String == "-")
    }

    @Test("--place names the place of photos that have none; --exclude-tag drops tags whatever their case")
    func importOptions() throws {
        let cli = try CLIRunner()
        _ = try cli.run("import", SampleFiles.sample("kyoto.json"), "--place", "  Kyoto   Trip ", "--exclude-tag", "KYOTO")
        let places = try cli.run("places", "--json").array
        #expect(places.contains { $0["name"] as? String == "Kyoto Trip" })
        let tags = try cli.run("tags", "--json").array.compactMap { $0["name"] as? String }
        #expect(!tags.contains("kyoto"))
    }

    @Test("a progress bar goes to standard error only when it is a terminal")
    func progress() throws {
        let cli = try CLIRunner()
        let plain = try cli.run("import", SampleFiles.sample("kyoto.json"))
        #expect(plain.errors == "")
        let terminal = try cli.run(["import", SampleFiles.sample("lisbon-porto.xml")], terminal: true)
        #expect(terminal.errors.contains("\r"))
        #expect(terminal.errors.contains("SampleData/lisbon-porto.xml") || terminal.errors.contains("lisbon-porto"))
        #expect(!terminal.output.contains("\r"))
    }

    @Test("an import that fails wholly leaves no new vacation behind; one that half succeeds keeps it")
    func failedImportMakesNothing() throws {
        let cli = try CLIRunner()
        let truncated = cli.directory.path("truncated.xml")
        let sample = try String(contentsOf: SampleFiles.root.appendingPathComponent("SampleData/lisbon-porto.xml"), encoding: .utf8)
        try String(sample.prefix(2_000)).write(to: truncated, atomically: true, encoding: .utf8)
        let failed = try cli.run("--vacation", "Madeira", "import", truncated.path)
        #expect(failed.code == 65)
        #expect(try cli.run("list", "--json").array.map { $0["name"] as? String } == ["My Vacation"])
        let half = try cli.run("--vacation", "Azores", "import", truncated.path, SampleFiles.sample("kyoto.json"))
        #expect(half.code == 65)
        #expect(try cli.run("list", "--json").array.map { $0["name"] as? String } == ["Azores", "My Vacation"])
        #expect(try cli.run("--vacation", "Azores", "photos", "--json").array.count == 10)
    }

    @Test("dates in JSON are whole seconds in UTC, the visit time included")
    func wholeSecondDates() throws {
        var cli = try CLIRunner()
        cli.now = Date(timeIntervalSince1970: 1_700_000_000.75)
        _ = try cli.run("import", SampleFiles.sample("kyoto.json"))
        let photo = try #require(cli.run("photos", "--json", "--limit", "1").array.first)
        #expect(photo["visited"] as? String == "2023-11-14T22:13:20Z")
        #expect((photo["dateTaken"] as? String)?.hasSuffix("Z") == true)
        #expect((photo["dateTaken"] as? String)?.count == 20)
    }

    @Test("output that cannot be written (a full disk) fails the command with 1 and says why")
    func unwritableOutput() throws {
        let cli = try CLIRunner()
        _ = try cli.run("import", SampleFiles.sample("kyoto.json"))
        let descriptor = open("/dev/full", O_WRONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let errors = BufferSink()
        let environment = CLIEnvironment(currentDirectory: SampleFiles.root.path, standardInput: .nullDevice,
                                         output: FileDescriptorSink(descriptor: descriptor), errors: errors)
        let code = VacationCLI.run(["--library", cli.library, "photos", "--json"], environment: environment)
        #expect(code == 1)
        #expect(errors.text == "Error: Cannot write the output: No space left on device\n")
    }

    @Test("--sort id orders ids as numbers: 9 before 10 before 100")
    func sortByIDIsNumeric() throws {
        let cli = try CLIRunner()
        let feed = #"{"photos": {"photo": [{"id": "100", "title": "c"}, {"id": "9", "title": "a"}, {"id": "10", "title": "b"}, "#
            + #"{"id": "1000000000000000000001", "title": "d"}]}, "stat": "ok"}"#
        #expect(try cli.run("import", "-", input: feed).code == 0)
        let ids = try cli.run("photos", "--sort", "id", "--json").array.map { $0["id"] as? String }
        #expect(ids == ["9", "10", "100", "1000000000000000000001"])
        let descending = try cli.run("photos", "--sort", "id", "--desc", "--json").array.map { $0["id"] as? String }
        #expect(descending == ["1000000000000000000001", "100", "10", "9"])
    }
}
