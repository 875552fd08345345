import Foundation
import SQLiteDB
import TestSupport
import Testing

/// `vacation-bench` at a tiny size, in the debug build: nothing is timed here, but every figure
/// runs, the framework and the baseline must leave stores with the same content (the bench
/// checks it and fails otherwise), and the output keeps its documented shape.
@Suite("vacation-bench, run small")
struct BenchTests {
    private func lines(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            return try #require(object as? [String: Any], "not a JSON object: \(line)")
        }
    }

    /// Whether `ratio` is `ours / baseline` as printed: all three are rounded to three decimals,
    /// and the ratio was computed from the values before rounding.
    private func consistent(_ ratio: Double, _ ours: Double, _ baseline: Double) -> Bool {
        let half = 0.0005
        guard baseline > half else { return false }
        let low = (ours - half) / (baseline + half) - half
        let high = (ours + half) / (baseline - half) + half
        return low <= ratio && ratio <= high
    }

    @Test("every figure runs, both sides do the same work, and --json gives one line per figure")
    func everyFigure() throws {
        let result = try ProductProcess.run("vacation-bench", ["--photos", "120", "--runs", "1", "--json"])
        #expect(result.status == 0, "\(result.errors)")
        let figures = try lines(result.output)
        #expect(figures.map { $0["figure"] as? String } == [
            "import-xml", "import-json", "reimport", "fetch-all", "fetch-predicate", "frc-initial", "toggle",
            "open-first-page", "backup", "search", "import-history",
        ])
        for figure in figures {
            #expect(figure["photos"] as? Int == 120)
            let ratio = try #require(figure["ratio"] as? Double, "\(figure)")
            if ["toggle", "search"].contains(figure["figure"] as? String) {
                let p50 = try #require(figure["p50_ms"] as? Double)
                let baseline = try #require(figure["baseline_p50_ms"] as? Double)
                #expect(figure["p99_ms"] as? Double ?? -1 >= p50)
                #expect(consistent(ratio, p50, baseline), "\(figure)")
            } else {
                let ours = try #require(figure["ms"] as? Double, "\(figure)")
                let baseline = try #require(figure["baseline_ms"] as? Double, "\(figure)")
                #expect(ours > 0 && baseline > 0)
                #expect(consistent(ratio, ours, baseline), "\(figure)")
            }
        }
    }

    @Test("after a warm-up round, the sides take turns going first, and only measured rounds count")
    func alternation() throws {
        let result = try ProductProcess.run("vacation-bench", ["--photos", "60", "--runs", "3", "--only", "import-xml,backup", "--json"])
        #expect(result.status == 0, "\(result.errors)")
        for (figure, sides) in [("import-xml", ["ours", "baseline", "limit"]), ("backup", ["ours", "baseline"])] {
            let prefix = "vacation-bench: \(figure) round "
            let turns = result.errors.split(separator: "\n").filter { $0.hasPrefix(prefix) }.map { line in
                String(line.split(separator: "(").last?.split(separator: ")").first?.split(separator: " ").last ?? "")
            }
            var expected: [String] = []
            for round in 0...3 { expected += Array(sides[(round % sides.count)...] + sides[..<(round % sides.count)]) }
            #expect(turns == expected, "\(figure)")
        }
        for figure in try lines(result.output) {
            #expect(figure["runs"] as? Int == 3, "\(figure)")
        }
        let limit = try #require(try lines(result.output).first)
        let limitMilliseconds = try #require(limit["limit_ms"] as? Double)
        let limitRatio = try #require(limit["limit_ratio"] as? Double)
        #expect(consistent(limitRatio, try #require(limit["ms"] as? Double), limitMilliseconds))
    }

    @Test("stores are the same when every value of every row is, Z_OPT and the index's layout aside")
    func sameContent() throws {
        let run = try ProductProcess.run("vacation-bench", ["--photos", "60", "--runs", "1", "--only", "import-xml", "--keep"])
        #expect(run.status == 0, "\(run.errors)")
        let line = try #require(run.errors.split(separator: "\n").first { $0.hasSuffix(" (kept)") })
        let workspace = URL(fileURLWithPath: String(line.dropFirst("vacation-bench: working in ".count).dropLast(" (kept)".count)))
        defer { try? FileManager.default.removeItem(at: workspace) }
        let ours = workspace.appendingPathComponent("library/import-xml 1.vacation/StoreContent/persistentStore").path
        let baseline = workspace.appendingPathComponent("import-xml-baseline-1.sqlite").path
        let limit = workspace.appendingPathComponent("import-xml-limit-1.sqlite").path
        for other in [baseline, limit] {
            let same = try ProductProcess.run("vacation-bench", ["--compare-stores", ours, other])
            #expect(same.status == 0 && same.output == "same content\n", "\(same.errors)")
        }
        let copy = workspace.appendingPathComponent("changed.sqlite").path
        // Each change, made to a copy of the baseline's store, and the table the comparison names (nil: still the same).
        let changes: [(sql: String, differs: String?)] = [
            ("UPDATE ZPHOTO SET Z_OPT = Z_OPT + 5", nil),
            ("UPDATE Z_METADATA SET Z_UUID = 'another'", nil),
            ("INSERT INTO FTS_ZPHOTO_SEARCH (FTS_ZPHOTO_SEARCH) VALUES ('rebuild')", nil),
            ("INSERT INTO FTS_ZPHOTO_SEARCH (FTS_ZPHOTO_SEARCH) VALUES ('optimize')", nil),
            ("UPDATE ZPHOTO SET ZTITLE = ZTITLE || ' ' WHERE Z_PK = 7", "ZPHOTO"),
            ("UPDATE ZPHOTO SET ZLATITUDE = ZLATITUDE + 1e-12 WHERE Z_PK = 3", "ZPHOTO"),
            ("UPDATE ZPHOTO SET ZTITLE = CAST(ZTITLE AS BLOB) WHERE Z_PK = 4", "ZPHOTO"),
            ("UPDATE ZPHOTO SET ZTITLE = (SELECT ZTITLE FROM ZPHOTO WHERE Z_PK = 2) WHERE Z_PK = 1", "ZPHOTO"),
            ("UPDATE ZTAG SET ZCOUNT = ZCOUNT + 1 WHERE Z_PK = 1", "ZTAG"),
            ("UPDATE ZPLACE SET ZNAME = lower(ZNAME) WHERE Z_PK = 2", "ZPLACE"),
            ("DELETE FROM Z_2TAGS WHERE Z_2PHOTOS = 1 AND Z_4TAGS = (SELECT min(Z_4TAGS) FROM Z_2TAGS WHERE Z_2PHOTOS = 1)", "Z_2TAGS"),
            ("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + 1 WHERE Z_ENT = 2", "Z_PRIMARYKEY"),
            ("UPDATE FTS_ZPHOTO_SEARCH SET tags = tags || ' extra' WHERE rowid = 5", "FTS_ZPHOTO_SEARCH"),
            ("CREATE INDEX ZPHOTO_EXTRA ON ZPHOTO (ZMEDIA)", "the schemas"),
        ]
        try expectComparisons(changes, ours: ours, changedCopiesOf: baseline, at: copy)
    }

    @Test("the toggle figure's stores agree on the operation log and the history it covers, and any change to them shows")
    func toggleLog() throws {
        let run = try ProductProcess.run("vacation-bench", ["--photos", "60", "--runs", "1", "--only", "toggle", "--keep"])
        #expect(run.status == 0, "\(run.errors)")
        let line = try #require(run.errors.split(separator: "\n").first { $0.hasSuffix(" (kept)") })
        let workspace = URL(fileURLWithPath: String(line.dropFirst("vacation-bench: working in ".count).dropLast(" (kept)".count)))
        defer { try? FileManager.default.removeItem(at: workspace) }
        let ours = workspace.appendingPathComponent("library/import-xml 0.vacation/StoreContent/persistentStore").path
        let baseline = workspace.appendingPathComponent("import-xml-baseline-0.sqlite").path
        // 59 photos unvisited and visited again, after a warm-up pair: one operation each, one
        // history transaction each, on both sides.
        for store in [ours, baseline] {
            let connection = try Connection(path: store)
            #expect(try connection.scalar("SELECT count(*) FROM UNDO_OPERATION")?.integerValue == 120)
            #expect(try connection.scalar("SELECT count(DISTINCT OPERATION) FROM UNDO_ROW")?.integerValue == 120)
            #expect(try connection.scalar("SELECT count(*) FROM ATRANSACTION WHERE Z_PK >= (SELECT min(FIRST_TRANSACTION) FROM UNDO_OPERATION)")?
                .integerValue == 120)
            #expect(try connection.scalar("SELECT count(*) FROM UNDO_OPERATION WHERE AUTHOR = 'vacation toggle' AND DELETED LIKE '%\"Photo\":1%'")?
                .integerValue == 60)
        }
        let same = try ProductProcess.run("vacation-bench", ["--compare-stores", ours, baseline])
        #expect(same.status == 0 && same.output == "same content\n", "\(same.errors)")
        let copy = workspace.appendingPathComponent("changed.sqlite").path
        let changes: [(sql: String, differs: String?)] = [
            ("UPDATE UNDO_OPERATION SET SESSION = 'another'", nil),
            ("UPDATE UNDO_ROW SET SEQUENCE = SEQUENCE + 1000", nil),
            ("UPDATE ATRANSACTION SET ZTIMESTAMP = 0", nil),
            ("UPDATE UNDO_OPERATION SET UPDATED = '{\"Tag\":99}' WHERE ID = 3", "UNDO_OPERATION"),
            ("UPDATE UNDO_OPERATION SET DATE = DATE + 1 WHERE ID = 3", "UNDO_OPERATION"),
            ("UPDATE UNDO_OPERATION SET LAST_TRANSACTION = LAST_TRANSACTION + 1 WHERE ID = 3", "UNDO_OPERATION"),
            ("DELETE FROM UNDO_ROW WHERE OPERATION = 3 AND SEQUENCE = 0", "UNDO_ROW"),
            ("UPDATE UNDO_ROW SET OLD_VALUES = X'00' || OLD_VALUES WHERE KIND = 2 AND TABLE_NAME = 'ZPHOTO' AND OPERATION = 3", "UNDO_ROW"),
            ("UPDATE UNDO_ROW SET FIRST_KEY = FIRST_KEY - 1 WHERE KIND = 0 AND TABLE_NAME = 'ZPHOTO' AND OPERATION = 2", "UNDO_ROW"),
            ("DELETE FROM ACHANGE WHERE Z_PK = (SELECT max(Z_PK) FROM ACHANGE)", "ACHANGE (logged)"),
            ("UPDATE ACHANGE SET ZCOLUMNS = X'00' WHERE Z_PK = (SELECT max(Z_PK) FROM ACHANGE WHERE ZCHANGETYPE = 1)", "ACHANGE (logged)"),
            ("UPDATE ATRANSACTION SET ZCONTEXTNAMETS = NULL WHERE Z_PK = (SELECT max(Z_PK) FROM ATRANSACTION)", "ATRANSACTION (logged)"),
            ("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + 1 WHERE Z_ENT = 16002", "Z_PRIMARYKEY (history)"),
            ("DROP TABLE UNDO_ROW", "the schemas"),
        ]
        try expectComparisons(changes, ours: ours, changedCopiesOf: baseline, at: copy)
    }

    /// Makes each change to a fresh copy of `baseline` at `copy` and expects `--compare-stores`
    /// against `ours` to name the change's table, or for nil to find the same content.
    private func expectComparisons(_ changes: [(sql: String, differs: String?)], ours: String,
                                   changedCopiesOf baseline: String, at copy: String) throws {
        for change in changes {
            // A copy the last change left, or none yet: either way it is made anew.
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: copy + suffix) }
            try FileManager.default.copyItem(atPath: baseline, toPath: copy)
            do {
                let connection = try Connection(path: copy)
                try connection.execute(change.sql)
            }
            let compared = try ProductProcess.run("vacation-bench", ["--compare-stores", ours, copy])
            if let table = change.differs {
                #expect(compared.status == 1, "\(change.sql)")
                #expect(compared.errors.hasPrefix("Error: compare-stores: the stores differ from the other's in "), "\(change.sql)")
                #expect(compared.errors.contains(table), "\(change.sql): \(compared.errors)")
            } else {
                #expect(compared.status == 0, "\(change.sql): \(compared.errors)")
            }
        }
    }

    @Test("--scale runs each command as a process beside the sqlite3 shell, both answer the same number of rows, and a toggle leaves both stores alike")
    func scale() throws {
        let result = try ProductProcess.run("vacation-bench", ["--scale", "--scale-photos", "120", "--runs", "1", "--json"])
        #expect(result.status == 0, "\(result.errors)")
        let figures = try lines(result.output)
        #expect(figures.map { $0["figure"] as? String } == [
            "scale photos --limit 50", "scale photos --tag T --limit 50", "scale show ID", "scale tags", "scale places",
            "scale search WORD", "scale list (100 vacations)", "scale check", "scale backup", "scale toggle ID",
        ])
        for figure in figures {
            #expect(figure["photos"] as? Int == 120)
            #expect((figure["ms"] as? Double ?? 0) > 0, "\(figure)")
            #expect(figure["runs"] as? Int == 1)
            if figure["figure"] as? String == "scale list (100 vacations)" {
                #expect(figure["baseline_ms"] is NSNull, "\(figure)")
            } else {
                #expect((figure["baseline_ms"] as? Double ?? 0) > 0, "\(figure)")
            }
        }
    }

    @Test("--memory measures both sides' peak resident memory in child processes")
    func memory() throws {
        let result = try ProductProcess.run("vacation-bench", ["--memory", "--memory-photos", "150", "--json"])
        #expect(result.status == 0, "\(result.errors)")
        let figures = try lines(result.output)
        #expect(figures.count == 1)
        let figure = try #require(figures.first)
        #expect(figure["figure"] as? String == "memory")
        #expect(figure["photos"] as? Int == 150)
        // A Swift program with Foundation loaded takes a few megabytes at least.
        #expect((figure["peak_rss_mb"] as? Double ?? 0) > 2)
        #expect((figure["baseline_peak_rss_mb"] as? Double ?? 0) > 2)
    }

    @Test("bad options are a usage error (64) with the usage text; --only names figures")
    func usage() throws {
        for arguments in [["--photos", "0"], ["--only", "import-xml,teleport"], ["--frobnicate"], ["--limit-settings", "cache=0"],
                          ["--limit-settings", "cache=64,turbo=1"], ["--limit-settings", "cache"], ["--limit-settings"]] {
            let result = try ProductProcess.run("vacation-bench", arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.errors.hasPrefix("Error: "), "\(arguments)")
            #expect(result.errors.contains("USAGE: vacation-bench"))
            #expect(result.output.isEmpty)
        }
        let help = try ProductProcess.run("vacation-bench", ["--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("--only FIGURE"))
    }
}
