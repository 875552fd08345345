import CommandLineKit
import Foundation
import SQLiteDB
import Testing
import TestSupport
@testable import VacationCLI

@MainActor
@Suite("vacation undo and vacation log: operations reverted exactly, listed exactly")
struct UndoCommandTests {
    /// Every table of a vacation's store, row by row with rowids, as text: the model's tables,
    /// join tables, metadata, `Z_PRIMARYKEY` without `Z_MAX` (undo never hands keys out twice),
    /// and the search index read through its FTS5 table (not its shadow tables, whose layout is
    /// FTS5's business). The operation log's own tables are left out, and so is the persistent
    /// history (`A…` tables and their `Z_PRIMARYKEY` rows): an undo adds its own history, and
    /// the undone operation's stays.
    static func storeContent(_ cli: CLIRunner, vacation: String = "My Vacation") throws -> [String: [String]] {
        let path = cli.directory.path("library", "\(vacation).vacation", "StoreContent", "persistentStore").path
        let connection = try Connection(path: path, configuration: .init(readOnly: true, create: false, journalMode: nil))
        let tables = try connection.rows("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name") {
            ($0.value(at: 0).textValue ?? "", $0.value(at: 1).textValue ?? "")
        }
        let virtual = tables.filter { $0.1.hasPrefix("CREATE VIRTUAL TABLE") }.map(\.0)
        var content: [String: [String]] = [:]
        for (name, _) in tables where !name.hasPrefix("UNDO_") && !name.hasPrefix("sqlite_") && !name.hasPrefix("A")
            && !virtual.contains(where: { name.hasPrefix($0 + "_") }) {
            let query = name == "Z_PRIMARYKEY" ? "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT < 16000"
                : "SELECT rowid, * FROM \"\(name)\""
            content[name] = try connection.rows(query) { row in
                (0..<row.columnCount).map { "\(row.value(at: $0))" }.joined(separator: "|")
            }.sorted()
        }
        return content
    }

    @Test("undo of each command restores every table; a second undo reverts the one before (random, seeded)")
    func randomCommands() throws {
        let seed = ProcessInfo.processInfo.environment["UNDO_CLI_SEED"].flatMap { UInt64($0) }
            ?? UInt64(Date().timeIntervalSince1970) & 0xFFFF_FFFF
        print("UndoCommandTests.randomCommands seed \(seed) (UNDO_CLI_SEED replays it)")
        var generator = SplitMix64(seed: seed)
        let cli = try CLIRunner()
        let feeds = ["lisbon-porto.xml", "kyoto.json", "iceland.jsonp", "new-york.xml"].map(SampleFiles.sample)
        // The state before each operation not undone yet, newest last.
        var before: [[String: [String]]] = []
        #expect(try cli.run("undo").code == 1, "seed \(seed): a new vacation has nothing to undo")
        for step in 0..<30 {
            let state = try Self.storeContent(cli)
            let ids = try cli.run("photos", "--json").array.compactMap { $0["id"] as? String }
            let arguments: [String]
            switch Int.random(in: 0..<7, using: &generator) {
            case 0, 1:
                var files = feeds.filter { _ in Bool.random(using: &generator) }
                if files.isEmpty { files = [feeds[step % feeds.count]] }
                let places = Bool.random(using: &generator) ? ["--places", SampleFiles.sample("top-places.xml")] : []
                arguments = ["import"] + files + places
            case 2:
                let generated = FlickrFeedGenerator(photos: Int.random(in: 5...40, using: &generator),
                                                    firstID: 60_000_000_000 + Int64(Int.random(in: 0...60, using: &generator)),
                                                    vocabulary: 30, places: 6, tagsPerPhoto: 3)
                let file = cli.directory.path("generated-\(step).xml")
                try generated.writeXML(to: file)
                arguments = ["import", file.path]
            case 3 where !ids.isEmpty:
                arguments = ["unvisit"] + Array(Set((0..<Int.random(in: 1...4, using: &generator)).compactMap { _ in
                    ids.randomElement(using: &generator)
                })).sorted()
            case 4:
                let feed = feeds.randomElement(using: &generator) ?? feeds[0]
                let feedIDs = Self.feedIDs[feed] ?? []
                arguments = ["toggle", feedIDs.randomElement(using: &generator) ?? "52820311874", "--feed", feed]
            case 5:
                let words = ["sea", "kyoto", "porto", "night", "tram"]
                let word = words.randomElement(using: &generator) ?? "sea"
                arguments = ["album", "create", "Album \(step)", "--where", "ANY tags.name == '\(word)'"]
            default:
                arguments = ["unvisit"] + Array(ids.prefix(Int.random(in: 0...2, using: &generator)))
            }
            let tokens = try cli.run("log", "--json").array.count
            let result = try cli.run(arguments)
            let logged = try cli.run("log", "--json").array.count > tokens
            if logged {
                before.append(state)
                #expect(result.code == 0 || result.code == 1, "seed \(seed): \(arguments) → \(result.code) \(result.errors)")
            } else {
                #expect(try Self.storeContent(cli) == state, "seed \(seed): \(arguments) logged nothing but changed the store")
            }
            // Undo now and then: one, or two in a row.
            for _ in 0..<([0, 0, 1, 1, 2].randomElement(using: &generator) ?? 0) {
                let undo = try cli.run("undo", "--json")
                if let expected = before.popLast() {
                    #expect(undo.code == 0, "seed \(seed): \(undo.errors)")
                    #expect(try Self.storeContent(cli) == expected, "seed \(seed): undo after \(arguments)")
                } else {
                    let unchanged = try Self.storeContent(cli)
                    #expect(undo.code == 1 && undo.errors.hasPrefix("Error: Nothing to undo"), "seed \(seed)")
                    #expect(try Self.storeContent(cli) == unchanged, "seed \(seed)")
                }
            }
        }
        // Everything undone, newest first: the vacation is as it was made.
        while let expected = before.popLast() {
            #expect(try cli.run("undo").code == 0, "seed \(seed)")
            #expect(try Self.storeContent(cli) == expected, "seed \(seed): undoing all")
        }
        #expect(try cli.run("undo").code == 1, "seed \(seed)")
        #expect(try cli.run("check").code == 0, "seed \(seed)")
    }

    @Test("log lists each command once, newest first, with exact counts; --since and --limit; undo --json")
    func logExactly() throws {
        let cli = try CLIRunner()
        #expect(try cli.run("log", "--json").output == "[]\n")
        #expect(try cli.run(SampleFiles.importAll).code == 0)
        #expect(try cli.run("unvisit", "52820311874", "53318277912").code == 0)
        #expect(try cli.run("album", "create", "Sea", "--where", "ANY tags.name == 'sea'").code == 0)
        let log = try cli.run("log", "--json")
        #expect(log.code == 0)
        let entries = log.array
        // Each token is the history token of the operation's last transaction: "<transaction>:<store UUID>".
        let tokens = entries.compactMap { $0["token"] as? String }
        let parsed = tokens.map { token -> (number: Int, uuid: String)? in
            let parts = token.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, let number = Int(parts[0]) else { return nil }
            return (number, parts[1])
        }
        let numbers = parsed.compactMap { $0?.number }
        let uuids = Set(parsed.compactMap { $0?.uuid })
        #expect(tokens.count == 3 && numbers.count == 3 && uuids.count == 1)
        #expect(numbers == numbers.sorted(by: >) && Set(numbers).count == 3)
        let storeUUID = uuids.first ?? ""
        #expect(entries.map { $0["author"] as? String } == ["vacation album", "vacation unvisit", "vacation import"])
        #expect(entries.allSatisfy { $0["date"] as? String == "2023-11-14T22:13:20Z" })
        let summary = try cli.run("info", "--json").object
        let (photos, places, tags) = (summary["photos"] as? Int ?? -1, summary["places"] as? Int ?? -1, summary["tags"] as? Int ?? -1)
        // The import made every photo, place and tag there is, and what the unvisit removed: two
        // photos, and the two tags only they had.
        #expect(entries[1]["deleted"] as? [String: Int] == ["Photo": 2, "Tag": 2])
        #expect(entries[2]["inserted"] as? [String: Int] == ["Photo": photos + 2, "Place": places, "Tag": tags + 2])
        #expect(entries[2]["updated"] as? [String: Int] == [:] && entries[2]["deleted"] as? [String: Int] == [:])
        #expect(entries[0]["inserted"] as? [String: Int] == ["Album": 1])
        guard tokens.count == 3, numbers.count == 3 else { return }
        #expect(try cli.run("log", "--since", tokens[2], "--json").array.map { $0["token"] as? String } == [tokens[0], tokens[1]])
        // A transaction's number alone names it too.
        #expect(try cli.run("log", "--since", "\(numbers[2])", "--json").array.map { $0["token"] as? String } == [tokens[0], tokens[1]])
        #expect(try cli.run("log", "--since", tokens[0], "--json").output == "[]\n")
        #expect(try cli.run("log", "--limit", "1", "--json").array.map { $0["token"] as? String } == [tokens[0]])
        for bad in ["0", "\(numbers[0] + 1)", "abc", "-1", "", "op-1", "\(numbers[0]):\(UUID().uuidString)", ":\(storeUUID)"] {
            let result = try cli.run("log", "--since", bad)
            #expect(result.code == 64, "--since \(bad)")
            #expect(result.errors.hasPrefix("Error: Invalid token '\(bad)'") && !result.errors.dropLast().contains("\n"), "--since \(bad)")
            #expect(result.output == "")
        }
        let undo = try cli.run("undo", "--json")
        #expect(undo.output == """
            {
              "vacation": "My Vacation",
              "undone": {
                "token": "\(tokens[0])",
                "author": "vacation album"
              }
            }

            """)
        let after = try cli.run("log", "--json").array
        #expect(after.count == 4 && Array(after.dropFirst()).map { $0["token"] as? String } == tokens)
        let undoNumber = (after.first?["token"] as? String).flatMap { Int($0.split(separator: ":")[0]) } ?? 0
        #expect(undoNumber == numbers[0] + 1 && (after.first?["token"] as? String)?.hasSuffix(":" + storeUUID) == true)
        #expect(after[0]["author"] as? String == "vacation undo")
        #expect(after[0]["deleted"] as? [String: Int] == ["Album": 1])
        // The undo has a history transaction of its own, by its author: the album it deleted.
        let path = cli.directory.path("library", "My Vacation.vacation", "StoreContent", "persistentStore").path
        let history = try Connection(path: path, configuration: .init(readOnly: true, create: false, journalMode: nil))
        let authors = try history.rows("""
            SELECT s.ZNAME, count(c.Z_PK) FROM ATRANSACTION t JOIN ATRANSACTIONSTRING s ON s.Z_PK = t.ZAUTHORTS
            LEFT JOIN ACHANGE c ON c.ZTRANSACTIONID = t.Z_PK WHERE s.ZNAME = 'vacation undo'
            GROUP BY s.ZNAME ORDER BY s.ZNAME
            """) { "\($0.value(at: 0).textValue ?? "")=\($0.int64(at: 1))" }
        #expect(authors == ["vacation undo=1"])
        #expect(try cli.run("undo").output == "Undid vacation unvisit (\(numbers[1])) in \"My Vacation\"\n")
        #expect(try cli.run("photos", "--json").array.count == photos + 2)
        let text = try cli.run("log").output
        // The table shows each token's transaction number, which --since takes too.
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == "Token  Date              Author            Changes")
        #expect(lines.count == 6 && lines[1].hasPrefix("\(undoNumber + 1)     2023-11-14 22:13  vacation undo     inserted 2 Photo"))
    }

    @Test("nothing to undo: a new vacation, or every operation undone; exit 1, nothing changed; no such vacation: 66")
    func nothingToUndo() throws {
        let cli = try CLIRunner()
        #expect(try cli.run("create", "Empty").code == 0)
        let before = try Self.storeContent(cli, vacation: "Empty")
        let result = try cli.run("undo", "Empty")
        #expect(result.code == 1)
        #expect(result.output == "")
        #expect(result.errors == "Error: Nothing to undo in the vacation \"Empty\"\n'vacation log' lists what changed it.\n")
        #expect(try Self.storeContent(cli, vacation: "Empty") == before)
        #expect(try cli.run("log", "Empty", "--json").output == "[]\n")
        #expect(try cli.run("undo", "Missing").code == 66)
        #expect(try cli.run("log", "Missing").code == 66)
        #expect(try cli.run("visit", "52820311874", "--feed", SampleFiles.sample("lisbon-porto.xml")).code == 0)
        #expect(try cli.run("undo").code == 0)
        #expect(try cli.run("undo").code == 1)
        #expect(try cli.run("photos", "--json").output == "[]\n")
    }

    @Test("undo of an unvisit lists the photos' removed thumbnails to fetch again, and only those")
    func thumbnailsComeBack() throws {
        let cli = try CLIRunner()
        #expect(try cli.run(SampleFiles.importAll).code == 0)
        let folder = cli.directory.path("library", "My Vacation.vacation", "AdditionalContent", "Thumbnails")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for id in ["52820311874", "53318277912", "53104425190"] {
            try Data("jpeg \(id)".utf8).write(to: folder.appendingPathComponent("\(id).jpg"))
        }
        #expect(try cli.run("unvisit", "52820311874", "53318277912").code == 0)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("52820311874.jpg").path))
        #expect(try cli.run("undo").code == 0)
        let list = try String(contentsOf: folder.appendingPathComponent(".to-fetch"), encoding: .utf8)
        #expect(list == "52820311874\n53318277912\n")
        // The thumbnail that stayed is not fetched again.
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("53104425190.jpg").path))
    }

    /// Ids of each sample feed, for toggle.
    static let feedIDs: [String: [String]] = [
        SampleFiles.sample("lisbon-porto.xml"): ["52820311874"],
        SampleFiles.sample("kyoto.json"): ["53318277912"],
        SampleFiles.sample("iceland.jsonp"): ["53104425190"],
        SampleFiles.sample("new-york.xml"): ["53318277912", "53104425190"],
    ]
}
