import CommandLineKit
import Foundation
import SQLiteDB
import Testing
import TestSupport
@testable import VacationCLI

/// `list` keeps each vacation's counts in `<library>/.list-counts` and reuses them only while
/// the store's files are exactly as they were counted.
@MainActor
@Suite("list: counts kept between listings, and counted again after any write")
struct ListCountCacheTests {
    private func photoCounts(_ cli: CLIRunner) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try cli.run("list", "--json").array {
            if let name = row["name"] as? String { counts[name] = row["photos"] as? Int }
        }
        return counts
    }

    private func cacheFile(_ cli: CLIRunner) -> URL { URL(fileURLWithPath: cli.library).appendingPathComponent(".list-counts") }

    /// The cache file with every kept photo count replaced by `count`.
    private func forge(_ cli: CLIRunner, photos count: Int) throws {
        var text = try String(contentsOf: cacheFile(cli), encoding: .utf8)
        text = text.replacingOccurrences(of: #""Photo":\d+"#, with: "\"Photo\":\(count)", options: .regularExpression)
        try text.write(to: cacheFile(cli), atomically: true, encoding: .utf8)
    }

    @Test("a vacation whose files did not change is not opened again; any write, by a command or by plain SQL, is counted")
    func reuseAndInvalidation() throws {
        let cli = try CLIRunner()
        _ = try cli.run("--vacation", "Kyoto", "import", SampleFiles.sample("kyoto.json"))
        _ = try cli.run("--vacation", "Iceland", "import", SampleFiles.sample("iceland.jsonp"))
        #expect(try photoCounts(cli) == ["Kyoto": 10, "Iceland": 8, "My Vacation": 0])
        // Files changed within the last two seconds are not kept: a write in the same tick of
        // the file system's clock could go unseen.
        #expect(!FileManager.default.fileExists(atPath: cacheFile(cli).path))
        Thread.sleep(forTimeInterval: 2.2)
        #expect(try photoCounts(cli) == ["Kyoto": 10, "Iceland": 8, "My Vacation": 0])
        #expect(FileManager.default.fileExists(atPath: cacheFile(cli).path))
        // Kept counts are used as they are: a forged cache shows through while nothing is written…
        try forge(cli, photos: 77)
        #expect(try photoCounts(cli) == ["Kyoto": 77, "Iceland": 77, "My Vacation": 77])
        // …and not once a store is written: by a command,
        _ = try cli.run("--vacation", "Kyoto", "unvisit", "53318277912")
        #expect(try photoCounts(cli)["Kyoto"] == 9)
        // by plain SQL on the store (its WAL grows, or its file changes),
        let store = cli.library + "/Iceland.vacation/StoreContent/persistentStore"
        try Connection(path: store).execute("UPDATE ZPHOTO SET ZTITLE = 'x' WHERE Z_PK = (SELECT min(Z_PK) FROM ZPHOTO)")
        try Connection(path: store).execute("DELETE FROM Z_2TAGS WHERE Z_2PHOTOS = (SELECT min(Z_PK) FROM ZPHOTO)")
        try Connection(path: store).execute("DELETE FROM ZPHOTO WHERE Z_PK = (SELECT min(Z_PK) FROM ZPHOTO)")
        #expect(try photoCounts(cli)["Iceland"] == 7)
        // or by replacing the bundle's store with another file.
        Thread.sleep(forTimeInterval: 2.2)
        _ = try photoCounts(cli)
        try forge(cli, photos: 55)
        let kyoto = cli.library + "/Kyoto.vacation/StoreContent/persistentStore"
        let copy = cli.library + "/copy"
        try FileManager.default.copyItem(atPath: kyoto, toPath: copy)
        try FileManager.default.removeItem(atPath: kyoto)
        try FileManager.default.moveItem(atPath: copy, toPath: kyoto)
        let counts = try photoCounts(cli)
        #expect(counts["Kyoto"] == 9)
        #expect(counts["Iceland"] == 55)
    }

    @Test("a cache file that is not ours, or unreadable, is ignored and replaced")
    func damagedCache() throws {
        let cli = try CLIRunner()
        _ = try cli.run("--vacation", "Kyoto", "import", SampleFiles.sample("kyoto.json"))
        for content in ["", "not json", "{\"entries\": 5}", "{\"entries\": {\"Kyoto.vacation\": {\"counts\": {}}}}"] {
            try content.write(to: cacheFile(cli), atomically: true, encoding: .utf8)
            #expect(try photoCounts(cli) == ["Kyoto": 10, "My Vacation": 0], "\(content)")
        }
    }
}
