import Foundation
import Testing
import TestSupport

/// Hostile input through the real binary: SQL where text goes, names that climb out of the
/// library, symbolic links, control characters, enormous values. Everything is refused or
/// stored literally; nothing is executed; nothing is written outside the library.
///
/// Serialized: each test waits for processes on its thread, and tasks share only as many
/// threads as there are cores; one at a time leaves the others to the rest of the suite.
@Suite("Hostile input, through the binary", .serialized)
struct HostileInputTests {
    private let directory: TemporaryDirectory
    private let vacation: VacationRunner

    init() throws {
        directory = try TemporaryDirectory(prefix: "hostile")
        vacation = VacationRunner(library: directory.path("library"), wait: 10)
    }

    /// A JSON feed of the given photo objects.
    private func feed(_ name: String, _ photos: [[String: Any]]) throws -> String {
        let url = directory.path(name)
        try JSONSerialization.data(withJSONObject: ["photos": ["photo": photos], "stat": "ok"]).write(to: url)
        return url.path
    }

    private static var evilPhotos: [[String: Any]] { [
        ["id": "1", "title": "Robert'); DROP TABLE ZPHOTO;--", "description": "a\u{0}b",
         "tags": "x');drop robert\"-- %s%n", "ownername": "%s%n%x", "derived_place": "'; DELETE FROM ZPLACE; --"],
        ["id": "2", "title": "\" OR 1=1 --", "tags": "sea t\u{0}ag", "derived_place": "Lisbon"],
        ["id": "3", "title": "plain", "tags": "sea", "derived_place": "Lisbon"],
    ] }

    /// Every file outside the library, with its size and contents' hash, to prove nothing changed.
    private func outsideSnapshot() throws -> [String: Int] {
        var files: [String: Int] = [:]
        let root = directory.url.resolvingSymlinksInPath().path
        guard let walker = FileManager.default.enumerator(atPath: root) else { return files }
        for case let relative as String in walker where !relative.hasPrefix("library") {
            let path = root + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { files[relative] = -1; continue }
            files[relative] = isDirectory.boolValue ? 0 : (FileManager.default.contents(atPath: path).map { $0.hashValue } ?? -2)
        }
        return files
    }

    @Test("SQL in predicates, --tag, --place and --sort is refused or matched literally, never run")
    func sqlInQueries() throws {
        #expect(try vacation.run(["import", feed("evil.json", Self.evilPhotos)]).status == 0)
        let cases: [(String, Int32, [String]?)] = [
            ("title == 'x'); DROP TABLE ZPHOTO; --", 64, nil),
            ("title == \"Robert'); DROP TABLE ZPHOTO;--\"", 0, ["1"]),
            ("title == '\" OR 1=1 --'", 0, ["2"]),
            ("title == '' OR 1 == 1", 0, ["1", "2", "3"]),
            ("ZTITLE == 'x'", 64, nil),
            ("title; DROP TABLE ZPHOTO == 1", 64, nil),
            ("%K == 'x'", 64, nil),
            ("title == %@", 64, nil),
            ("Z_PK > 0", 64, nil),
            ("SUBQUERY(tags, $t, $t.name == \"x');drop\").@count > 0", 0, ["1"]),
            ("ANY tags.name == 't\\u0000ag'", 0, ["2"]),
            ("title LIKE \"*'*\"", 0, ["1"]),
            ("place.name BEGINSWITH \"'; DELETE\"", 0, ["1"]),
            ("owner == '%s%n%x'", 0, ["1"]),
        ]
        for (predicate, status, ids) in cases {
            let result = try vacation.run(["photos", "--where", predicate, "--sort", "id", "--json"])
            #expect(result.status == status, "\(predicate): \(result.errors)")
            if let ids {
                let photos = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]]
                #expect(photos?.compactMap { $0["id"] as? String } == ids, "\(predicate)")
            }
        }
        #expect(try vacation.photos("My Vacation").keys.sorted() == ["1", "2", "3"])
        let byTag = try vacation.run(["photos", "--tag", "x');drop", "--json"])
        #expect(byTag.output.contains("\"id\": \"1\""))
        #expect(try vacation.run(["photos", "--tag", "x' OR '1'='1", "--json"]).output == "[]\n")
        #expect(try vacation.run(["photos", "--place", "' OR 1=1 --", "--json"]).output == "[]\n")
        #expect(try vacation.run(["photos", "--place", "'; DELETE FROM ZPLACE; --", "--json"]).output.contains("\"id\": \"1\""))
        #expect(try vacation.run(["photos", "--sort", "title; DROP TABLE ZPHOTO"]).status == 64)
        #expect(try vacation.run(["show", "1 OR 1=1"]).status == 66)
        #expect(try vacation.run(["unvisit", "1); DELETE FROM ZPHOTO; --"]).status == 66)
        #expect(try vacation.checkProblems("My Vacation") == nil)
        #expect(try vacation.photos("My Vacation").count == 3)
        #expect(try vacation.tags("My Vacation") == ["x');drop": 1, "robert\"--": 1, "%s%n": 1, "sea": 2, "t\u{0}ag": 1])
    }

    @Test("titles, descriptions, tags, owners and places are stored exactly as the feed gives them, NUL and quotes too")
    func storedLiterally() throws {
        #expect(try vacation.run(["import", feed("evil.json", Self.evilPhotos)]).status == 0)
        let shown = try vacation.json(["show", "1"]) as? [String: Any]
        #expect(shown?["title"] as? String == "Robert'); DROP TABLE ZPHOTO;--")
        #expect(shown?["subtitle"] as? String == "a\u{0}b")
        #expect(shown?["owner"] as? String == "%s%n%x")
        #expect(shown?["place"] as? String == "'; DELETE FROM ZPLACE; --")
        #expect((shown?["tags"] as? [String])?.sorted() == ["%s%n", "robert\"--", "x');drop"])
        #expect(try vacation.places("My Vacation") == ["'; DELETE FROM ZPLACE; --": 1, "Lisbon": 2])
    }

    @Test("control characters from a feed never reach the terminal: errors and warnings stay one clean line")
    func controlCharacters() throws {
        let failure = directory.path("fail.json")
        try Data(#"{"stat":"fail","code":1,"message":"bad\u001b]0;pwned\u0007\u001b[2J\nsecond line"}"#.utf8).write(to: failure)
        let failed = try vacation.run(["import", failure.path])
        #expect(failed.status == 65)
        #expect(!failed.errors.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        #expect(failed.errors.split(separator: "\n").count == 1, "\(failed.errors)")
        #expect(failed.errors.hasPrefix("Error: "))

        let skipped = try vacation.run(["import", feed("skip.json", [["id": "x\u{1B}[2J"], ["id": "5", "title": "t\u{1B}[31mred",
                                                                            "tags": "\u{1B}[2Jclear", "derived_place": "P\u{1B}[1m"]])])
        #expect(skipped.status == 0)
        #expect(skipped.errors.hasPrefix("Warning: ") && !skipped.errors.contains("\u{1B}"), "\(skipped.errors)")
        for command in [["photos"], ["tags"], ["places"], ["show", "5"], ["list"], ["info"]] {
            let result = try vacation.run(command)
            #expect(result.status == 0)
            #expect(!result.output.contains("\u{1B}"), "\(command) printed an escape")
        }
        #expect(try (vacation.json(["show", "5"]) as? [String: Any])?["title"] as? String == "t\u{1B}[31mred")
    }

    @Test("a bad UTF-8 sequence across the 64 KB read boundary, from a file or a pipe, refuses the feed (it crashed)")
    func badSequenceAcrossReads() throws {
        let head = Array(#"{"photos":{"photo":[{"id":"1","title":""#.utf8)
        let bytes = head + Array(repeating: UInt8(ascii: "a"), count: 65_535 - head.count) + [0xE5, 0x41] + Array(#""}]},"stat":"ok"}"#.utf8)
        let url = directory.path("straddle.json")
        try Data(bytes).write(to: url)
        let fromFile = try vacation.run(["import", url.path])
        #expect(fromFile.status == 65, "\(fromFile.errors)")
        #expect(fromFile.errors == "Error: \(url.path): invalid UTF-8 at byte offset 65535: bytes 0x41 0x22 0x7D 0x5D\n")
        #expect(try vacation.run(["import", "-"], input: Data(bytes)).status == 65)
        #expect(try vacation.photos("My Vacation").isEmpty)
    }

    @Test("vacation names that climb out of the library are refused; names with SQL are kept as typed")
    func names() throws {
        let sqlName = "Robert'); DROP TABLE Z_PRIMARYKEY;--"
        #expect(try vacation.run(["create", sqlName]).status == 0)
        #expect(try vacation.run(["--vacation", sqlName, "import", feed("evil.json", Self.evilPhotos)]).status == 0)
        #expect(try vacation.checkProblems(sqlName) == nil)
        let listed = try (vacation.json(["list"]) as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(listed.contains(sqlName))
        #expect(try vacation.run(["create", String(repeating: "é", count: 100)]).status == 0)   // 200 bytes

        let before = try outsideSnapshot()
        let refused = ["../outside", "..", ".", ".hidden", "a/b", "/tmp/x", "x/../../y", String(repeating: "a", count: 201), ""]
        for name in refused {
            #expect(try vacation.run(["create", name]).status == 64, "create \(name)")
            #expect(try vacation.run(["--vacation", name, "import", directory.path("evil.json").path]).status == 64, "import into \(name)")
            #expect(try vacation.run(["rename", sqlName, name]).status == 64, "rename to \(name)")
            #expect(try vacation.run(["backup", name]).status == 64, "backup \(name)")
        }
        #expect(try vacation.run(["backup", sqlName]).status == 0)
        let backup = try #require(try vacation.backups(sqlName).first)
        #expect(try vacation.run(["restore", backup.path, "--as", "../restored"]).status == 64)
        #expect(try vacation.run(["restore", "../../etc"]).status == 66)
        #expect(try outsideSnapshot() == before)
        #expect(try vacation.checkProblems(sqlName) == nil)
    }

    @Test("symbolic links anywhere in a vacation or its backups are refused, never followed; nothing outside changes")
    func symbolicLinks() throws {
        let feedPath = try feed("evil.json", Self.evilPhotos)
        #expect(try vacation.run(["--vacation", "Trip", "import", feedPath]).status == 0)
        let library = directory.path("library")
        let outside = directory.path("outside")
        let trip = library.appendingPathComponent("Trip.vacation")
        let manager = FileManager.default
        // Each case makes one link (to a copy placed outside), then tries to read, write and back up.
        let cases: [(String, (URL) throws -> Void)] = [
            ("the bundle", { target in
                try manager.copyItem(at: trip, to: target)
                try manager.createSymbolicLink(at: library.appendingPathComponent("Linked.vacation"), withDestinationURL: target)
            }),
            ("StoreContent", { target in try self.replaceWithLink(trip.appendingPathComponent("StoreContent"), copyingTo: target) }),
            ("the store file", { target in
                try self.replaceWithLink(trip.appendingPathComponent("StoreContent/persistentStore"), copyingTo: target)
            }),
            ("the WAL", { target in
                try Data("precious".utf8).write(to: target)
                try manager.createSymbolicLink(at: trip.appendingPathComponent("StoreContent/persistentStore-wal"), withDestinationURL: target)
            }),
            ("the shared-memory file", { target in
                try Data("precious".utf8).write(to: target)
                try manager.createSymbolicLink(at: trip.appendingPathComponent("StoreContent/persistentStore-shm"), withDestinationURL: target)
            }),
            ("the rollback journal", { target in
                try Data("precious".utf8).write(to: target)
                try manager.createSymbolicLink(at: trip.appendingPathComponent("StoreContent/persistentStore-journal"), withDestinationURL: target)
            }),
            ("the metadata", { target in
                try self.replaceWithLink(trip.appendingPathComponent("DocumentMetadata.plist"), copyingTo: target)
            }),
            ("the Backups folder", { target in
                try manager.createDirectory(at: target, withIntermediateDirectories: true)
                try manager.createSymbolicLink(at: library.appendingPathComponent("Backups"), withDestinationURL: target)
            }),
            ("the vacation's backups folder", { target in
                try manager.createDirectory(at: target, withIntermediateDirectories: true)
                try manager.createDirectory(at: library.appendingPathComponent("Backups"), withIntermediateDirectories: true)
                try manager.createSymbolicLink(at: library.appendingPathComponent("Backups/Trip"), withDestinationURL: target)
            }),
        ]
        try manager.createDirectory(at: outside, withIntermediateDirectories: true)
        let pristine = directory.path("pristine.vacation")
        try manager.copyItem(at: trip, to: pristine)
        for (index, (what, makeLink)) in cases.enumerated() {
            try makeLink(outside.appendingPathComponent("target\(index)"))
            let before = try outsideSnapshot()
            let name = what == "the bundle" ? "Linked" : "Trip"
            // A link among the backups refuses backups only; the vacation itself may be used.
            let backupsOnly = what.contains("backups") || what.contains("Backups")
            for command in [["--vacation", name, "import", feedPath], ["--vacation", name, "unvisit", "1"], ["backup", name],
                            ["--vacation", name, "toggle", "3", "--feed", feedPath]] {
                let result = try vacation.run(command)
                if !backupsOnly || command[0] == "backup" {
                    #expect(result.status != 0, "\(what): \(command) succeeded")
                }
                #expect(sanitizerReport(in: result.errors) == nil)
            }
            _ = try vacation.run(["--vacation", name, "photos"])
            _ = try vacation.run(["backups", name])
            #expect(try outsideSnapshot() == before, "\(what): something outside the library changed")
            // Put the vacation back as it was for the next case.
            try? manager.removeItem(at: library.appendingPathComponent("Linked.vacation"))
            try? manager.removeItem(at: library.appendingPathComponent("Backups"))
            try manager.removeItem(at: trip)
            try manager.copyItem(at: pristine, to: trip)
        }
        #expect(try vacation.checkProblems("Trip") == nil)
    }

    private func replaceWithLink(_ item: URL, copyingTo target: URL) throws {
        try FileManager.default.copyItem(at: item, to: target)
        try FileManager.default.removeItem(at: item)
        try FileManager.default.createSymbolicLink(at: item, withDestinationURL: target)
    }

    @Test("enormous values: a 4 MB title, 20,000 tags on one photo and a 1 MB tag are stored; a 9 MB title refuses its feed whole")
    func enormousValues() throws {
        let title = String(repeating: "t", count: 4 << 20)
        let tags = (0..<20_000).map { "tag\($0)" }.joined(separator: " ") + " " + String(repeating: "x", count: 1 << 20)
        let imported = try vacation.run(["import", feed("big.json", [["id": "1", "title": title, "tags": tags], ["id": "2", "title": "small"]])])
        #expect(imported.status == 0, "\(imported.errors)")
        let shown = try vacation.json(["show", "1"]) as? [String: Any]
        #expect((shown?["title"] as? String)?.utf8.count == 4 << 20)
        #expect((shown?["tags"] as? [String])?.count == 20_001)
        #expect(try vacation.checkProblems("My Vacation") == nil)

        let tooBig = try vacation.run(["import", feed("huge.json", [["id": "3", "title": "ok"], ["id": "4", "title": String(repeating: "h", count: 9 << 20)]])])
        #expect(tooBig.status == 65)
        #expect(tooBig.errors.utf8.count < 1_000)
        #expect(try vacation.photos("My Vacation").keys.sorted() == ["1", "2"])
    }

    @Test("limits: an absurd --wait, thousands of ORs, deep NOTs, a backtracking MATCHES get clean answers, quickly")
    func limits() throws {
        #expect(try ProductProcess.run("vacation", ["--library", vacation.library.path, "--wait", "1e300", "list"]).status == 0)
        let titles = (0..<20).map { ["id": String(100 + $0), "title": String(repeating: "a", count: 44) + "!"] }
        #expect(try vacation.run(["import", feed("a.json", titles)]).status == 0)
        // Deeper than SQLite's expression and parser limits, more values than it binds, and
        // patterns that backtrack without end: usage errors (64) or answers (0), never a crash,
        // a hang or a page of SQL.
        let predicates: [(String, Int32)] = [
            ((0..<3_000).map { "title == 'x\($0)'" }.joined(separator: " OR "), 64),
            (String(repeating: "NOT ", count: 190) + "title == nil", 64),
            ("unique IN {" + Array(repeating: "1", count: 40_000).joined(separator: ",") + "}", 0),
            ("title MATCHES '(a|a?)+b'", 64),
            ("title MATCHES '(.*a){20}'", 64),
        ]
        for (predicate, status) in predicates {
            let started = Date()
            let result = try vacation.run(["photos", "--where", predicate])
            #expect(result.status == status, "\(predicate.prefix(40)): \(result.status) \(result.errors.prefix(300))")
            #expect(result.errors.utf8.count < 2_000, "\(predicate.prefix(40)): an error of \(result.errors.utf8.count) bytes")
            #expect(Date().timeIntervalSince(started) < 30, "\(predicate.prefix(40)) took \(Date().timeIntervalSince(started)) s")
        }
        #expect(try vacation.run(["photos", "--where", "title MATCHES 'a+!'", "--json"]).output.contains("\"id\": \"119\""))
        #expect(try vacation.run(["photos", "--limit", "99999999999999999999"]).status == 64)
        let unvisited = try vacation.run(["unvisit"] + (0..<40_000).map { String(1_000_000 + $0) })
        #expect(unvisited.status == 66)
        #expect(unvisited.errors.hasPrefix("Error: No photo 1000000, 1000001, ") && unvisited.errors.utf8.count < 300, "\(unvisited.errors.prefix(300))")
        #expect(try vacation.photos("My Vacation").count == 20)
    }
}
