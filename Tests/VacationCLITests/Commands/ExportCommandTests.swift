import CommandLineKit
import Foundation
import Testing
import TestSupport
@testable import VacationCLI
@testable import Vacations

@MainActor
@Suite("vacation trips and export: results, bad input, nothing changed")
struct ExportCommandTests {
    /// The README's vacation, with its trips as the sample feeds make them.
    static let sampleTrips = """
        TRIP  FROM              TO                PHOTOS  PLACES
           1  2023-04-01 10:15  2023-04-04 14:05       9  Lisbon, Lisbon, Portugal; Sintra, Lisbon, Portugal
           2  2023-04-06 18:44  2023-04-08 21:02       7  Porto, Porto, Portugal
           3  2023-08-10 09:41  2023-08-13 23:59       8  Reykjavík, Capital Region, Iceland; Southern Region, Iceland
           4  2023-11-03 07:12  2023-11-06 18:30      10  Kyoto, Kyoto Prefecture, Japan
           5  2024-03-15 06:48  2024-03-17 16:33       8  New York, NY, United States

        """

    private func sample() throws -> CLIRunner {
        let cli = try CLIRunner()
        #expect(try cli.run(SampleFiles.importAll).code == 0)
        return cli
    }

    @Test("trips on the sample data: a table for people, and JSON with ISO dates, counts and places in first-visit order")
    func tripsOfTheSample() throws {
        let cli = try sample()
        let text = try cli.run("trips")
        #expect(text.code == 0)
        #expect(text.output == Self.sampleTrips)
        let json = try cli.run("trips", "--json").array
        #expect(json.map { $0["start"] as? String } == ["2023-04-01T10:15:00Z", "2023-04-06T18:44:10Z", "2023-08-10T09:41:27Z",
                                                        "2023-11-03T07:12:44Z", "2024-03-15T06:48:21Z"])
        #expect(json.map { $0["end"] as? String } == ["2023-04-04T14:05:49Z", "2023-04-08T21:02:00Z", "2023-08-13T23:59:59Z",
                                                      "2023-11-06T18:30:12Z", "2024-03-17T16:33:42Z"])
        #expect(json.map { $0["photos"] as? Int } == [9, 7, 8, 10, 8])
        #expect(json.map { $0["places"] as? [String] } == [
            ["Lisbon, Lisbon, Portugal", "Sintra, Lisbon, Portugal"], ["Porto, Porto, Portugal"],
            ["Reykjavík, Capital Region, Iceland", "Southern Region, Iceland"], ["Kyoto, Kyoto Prefecture, Japan"],
            ["New York, NY, United States"],
        ])
        #expect(json.allSatisfy { Set($0.keys) == ["start", "end", "photos", "places"] })
        // The whole vacation is one trip when no gap is long enough; every photo its own trip when any gap is.
        #expect(try cli.run("trips", "--gap", "1e6", "--json").array.map { $0["photos"] as? Int } == [42])
        #expect(try cli.run("trips", "--gap", "1e-9", "--json").array.count == 42)
        // The longest gap inside trip 1 is just under 48 hours; `--gap 24` splits it.
        #expect(try cli.run("trips", "--gap", "24", "--json").array.count > 5)
        #expect(try CLIRunner().run("trips", "--json").output == "[]\n")
    }

    @Test("--gap must be a positive, finite number: anything else is a usage error (64) with nothing on stdout")
    func badGap() throws {
        let cli = try CLIRunner()
        for bad in ["0", "-1", "-0", "abc", "nan", "inf", "1e999", "", "48h", "0x10"] {
            let result = try cli.run("trips", "--gap", bad)
            #expect(result.code == 64, "\(bad)")
            #expect(result.output == "", "\(bad)")
            #expect(result.errors.hasPrefix("Error: "), "\(bad)")
        }
        #expect(try cli.run("trips", "--gap", "0.5").code == 0)
    }

    @Test("an export goes to stdout, or to --to FILE with the same bytes and a summary (text or JSON)")
    func toFile() throws {
        let cli = try sample()
        for format in ["geojson", "kml", "gpx", "csv"] {
            let standardOutput = try cli.run("export", format)
            #expect(standardOutput.code == 0 && standardOutput.errors == "")
            let file = cli.directory.path("sample.\(format)")
            let written = try cli.run("export", format, "--to", file.path, "--json")
            #expect(written.code == 0)
            #expect(try String(contentsOf: file, encoding: .utf8) == standardOutput.output)
            let summary = written.object
            #expect(summary["path"] as? String == file.path)
            #expect(summary["photos"] as? Int == (format == "csv" ? 42 : 42 - (summary["leftOut"] as? Int ?? 0)))
            #expect(summary["format"] as? String == format)
        }
        let text = try cli.run("export", "gpx", "--to", cli.directory.path("again.gpx").path)
        #expect(text.output.hasPrefix("Exported "))
        #expect(text.output.contains(cli.directory.path("again.gpx").path))
        // Replacing a file that exists.
        let replaced = cli.directory.path("sample.csv")
        #expect(try cli.run("export", "csv", "--to", replaced.path, "--where", "unique == '52814563021'").code == 0)
        #expect(try String(contentsOf: replaced, encoding: .utf8).components(separatedBy: "\r\n").count == 3)
    }

    @Test("bad input: invalid predicate 64, unknown vacation 66, unknown format or html without --to 64; nothing created")
    func badInput() throws {
        let cli = try sample()
        let folder = cli.directory.path("out")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("x.csv").path
        let cases: [([String], Int32)] = [
            (["export", "csv", "--to", file, "--where", "title =="], 64),
            (["export", "csv", "--to", file, "--where", "nosuchkey == 1"], 64),
            (["export", "geojson", "--where", "title CONTAINS"], 64),
            (["export", "html", "--to", folder.appendingPathComponent("album").path, "--where", "place.nosuch == 'x'"], 64),
            (["--vacation", "Nowhere", "export", "kml", "--to", file], 66),
            (["--vacation", "Nowhere", "export", "html", "--to", folder.appendingPathComponent("album").path], 66),
            (["--vacation", "Nowhere", "trips"], 66),
            (["export", "pdf", "--to", file], 64),
            (["export"], 64),
            (["export", "html"], 64),
            (["export", "csv", "--to", ""], 64),
        ]
        for (arguments, code) in cases {
            let result = try cli.run(arguments)
            #expect(result.code == code, "\(arguments)")
            #expect(result.output == "", "\(arguments)")
            #expect(result.errors.hasPrefix("Error: "), "\(arguments): \(result.errors)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [], "\(arguments)")
        }
    }

    @Test("an unwritable destination fails (1) and leaves nothing behind; a failed album leaves the old one whole")
    func unwritable() throws {
        let cli = try sample()
        let folder = cli.directory.path("out")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("a folder"), withIntermediateDirectories: true)
        try Data("keep me".utf8).write(to: folder.appendingPathComponent("a file"))
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("not an album"), withIntermediateDirectories: true)
        try Data("keep me".utf8).write(to: folder.appendingPathComponent("not an album/notes.txt"))
        let before = try Self.listing(folder)
        let cases: [[String]] = [
            ["export", "csv", "--to", folder.appendingPathComponent("missing/x.csv").path],
            ["export", "gpx", "--to", folder.appendingPathComponent("a folder").path],
            ["export", "kml", "--to", folder.appendingPathComponent("a file/x.kml").path],
            ["export", "html", "--to", folder.appendingPathComponent("a file").path],
            ["export", "html", "--to", folder.appendingPathComponent("missing/album").path],
            ["export", "html", "--to", folder.appendingPathComponent("not an album").path],
        ]
        for arguments in cases {
            let result = try cli.run(arguments)
            #expect(result.code == 1, "\(arguments)")
            #expect(result.output == "", "\(arguments)")
            #expect(result.errors.hasPrefix("Error: Cannot write"), "\(arguments): \(result.errors)")
            #expect(try Self.listing(folder) == before, "\(arguments)")
        }
    }

    @Test("export html makes the folder, replaces an album it made (and an empty folder), and reports what it wrote")
    func albumFolder() throws {
        let cli = try sample()
        let album = cli.directory.path("album")
        let first = try cli.run("export", "html", "--to", album.path, "--json")
        #expect(first.code == 0)
        #expect(first.object["photos"] as? Int == 42)
        #expect(first.object["trips"] as? Int == 5)
        #expect(first.object["places"] as? Int == 7)
        #expect(first.object["localThumbnails"] as? Int == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: album.path).sorted() == [".vacation-album", "index.html"])
        let second = try cli.run("export", "html", "--to", album.path, "--where", "place.name BEGINSWITH 'Kyoto'", "--json")
        #expect(second.code == 0)
        #expect(second.object["photos"] as? Int == 10)
        let html = try String(contentsOf: album.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(html.components(separatedBy: "<li class=\"photo\"").count - 1 == 10)
        let empty = cli.directory.path("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        #expect(try cli.run("export", "html", "--to", empty.path).code == 0)
        // No staging folder is left beside the albums.
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.directory.url.path).filter { $0.hasPrefix(".") } == [])
    }

    @Test("no export or trips run changes anything in the vacation")
    func readOnly() throws {
        let cli = try sample()
        let bundle = URL(fileURLWithPath: cli.library)
        let before = try Self.contents(bundle)
        let out = cli.directory.path("exports")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        for arguments in [["trips"], ["trips", "--json", "--gap", "1"], ["export", "geojson"], ["export", "kml", "--where", "latitude > 40"],
                          ["export", "gpx", "--to", out.appendingPathComponent("a.gpx").path], ["export", "csv"],
                          ["export", "html", "--to", out.appendingPathComponent("album").path],
                          ["export", "csv", "--where", "title =="]] {
            _ = try cli.run(arguments)
        }
        #expect(try Self.contents(bundle) == before)
        #expect(try cli.run("check").code == 0)
    }

    @Test("export dates are the CLI's JSON dates, to the second, for any date")
    func datesAgree() {
        var generator = SplitMix64(seed: 8)
        print("ExportCommandTests.datesAgree seed 8")
        for _ in 0..<1_000 {
            let date = Date(timeIntervalSinceReferenceDate: Double(Int64(generator.next() % 40_000_000_000)) - 30_000_000_000 + 0.7)
            #expect(ExportText.iso8601(date) == JSONValue.formatDate(date))
        }
    }

    @Test("help describes trips and export")
    func help() throws {
        let cli = try CLIRunner()
        let trips = try cli.run("help", "trips")
        #expect(trips.code == 0 && trips.output.contains("--gap <hours>") && trips.output.contains("(default: 48)"))
        let export = try cli.run("export", "--help")
        #expect(export.code == 0 && export.output.contains("<format>") && export.output.contains("--where <predicate>"))
    }

    /// Every path below `folder` (hidden ones included), with each file's size.
    static func listing(_ folder: URL) throws -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        var entries: [String] = []
        while let relative = enumerator?.nextObject() as? String {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(relative).path)
            entries.append("\(relative) \(attributes[.size] as? Int ?? -1)")
        }
        return entries.sorted()
    }

    /// Every file below `folder` with its bytes.
    static func contents(_ folder: URL) throws -> [String: Data] {
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        var files: [String: Data] = [:]
        while let relative = enumerator?.nextObject() as? String {
            var isFolder: ObjCBool = false
            let path = folder.appendingPathComponent(relative).path
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue {
                files[relative] = FileManager.default.contents(atPath: path)
            }
        }
        return files
    }
}
