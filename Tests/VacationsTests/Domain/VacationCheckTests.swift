import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport
@testable import Vacations

@Suite("check: every kind of problem, each named, in a fixed order")
struct VacationCheckTests {
    private func kyoto() throws -> (store: VacationStore, photos: [Int64: String], tag: Int64) {
        let store = try VacationStore()
        _ = store.importFeeds([SampleFeeds.url("kyoto.json")])
        let photos = try store.coordinator.withConnection { connection in
            Dictionary(uniqueKeysWithValues: try connection.rows("SELECT Z_PK, ZUNIQUE FROM ZPHOTO") { ($0.int64(at: 0), $0.string(at: 1) ?? "") })
        }
        let tag = try store.count("SELECT Z_PK FROM ZTAG WHERE ZNAME = 'kyoto'")
        return (store, photos, tag)
    }

    @Test("a sound vacation has no problems; links, places and index rows broken by hand are each reported")
    func problems() throws {
        let (store, photos, tag) = try kyoto()
        #expect(try store.problems() == [])
        let keys = photos.keys.sorted()
        try store.coordinator.withConnection { connection in
            try connection.execute("INSERT INTO Z_2TAGS (Z_2PHOTOS, Z_4TAGS) VALUES (9999, \(tag))")
            try connection.execute("INSERT INTO Z_2TAGS (Z_2PHOTOS, Z_4TAGS) VALUES (\(keys[0]), 8888)")
            try connection.execute("UPDATE ZPHOTO SET ZPLACE = 7777 WHERE Z_PK = \(keys[1])")
            try connection.execute("DELETE FROM FTS_ZPHOTO_SEARCH WHERE rowid = \(keys[2])")
            try connection.execute("UPDATE FTS_ZPHOTO_SEARCH SET title = 'retitled' WHERE rowid = \(keys[3])")
        }
        let expected = [
            "tag 'kyoto' has count 10 but 11 linked photos",
            "a tag link joins photo key \(keys[0]) and tag key 8888, one of which does not exist",
            "a tag link joins photo key 9999 and tag key \(tag), one of which does not exist",
            "photo \(photos[keys[1]] ?? "") points to place key 7777, which does not exist",
            "1 photo is not in the search index: \(photos[keys[2]] ?? "")",
            "1 photo has stale text in the search index: \(photos[keys[3]] ?? "")",
        ]
        #expect(try store.problems() == expected)
    }

    @Test("a link to a missing tag alone, or to a missing photo alone, is found")
    func danglingLinks() throws {
        for side in ["photo", "tag"] {
            let (store, photos, tag) = try kyoto()
            let first = try #require(photos.keys.min())
            try store.coordinator.withConnection { connection in
                if side == "photo" {
                    try connection.execute("INSERT INTO Z_2TAGS (Z_2PHOTOS, Z_4TAGS) VALUES (5555, \(tag))")
                    try connection.execute("UPDATE ZTAG SET ZCOUNT = ZCOUNT + 1 WHERE Z_PK = \(tag)")
                } else {
                    try connection.execute("PRAGMA recursive_triggers = OFF")
                    try connection.execute("INSERT INTO Z_2TAGS (Z_2PHOTOS, Z_4TAGS) VALUES (\(first), 6666)")
                }
            }
            let link = side == "photo" ? "photo key 5555 and tag key \(tag)" : "photo key \(first) and tag key 6666"
            #expect(try store.problems() == ["a tag link joins \(link), one of which does not exist"], "\(side)")
        }
    }

    @Test("SQLite's integrity check, run beside the others on a connection of its own, comes first, as when run in turn")
    func integrityFirst() throws {
        let (store, _, tag) = try kyoto()
        let path = store.coordinator.url.path
        // An index whose definition no longer matches its entries: SQLite finds every row missing from it.
        let editor = try Connection(path: path)
        let version = try editor.scalar("PRAGMA schema_version")?.integerValue ?? 0
        try editor.execute("PRAGMA writable_schema = ON")
        try editor.execute("UPDATE sqlite_master SET sql = 'CREATE INDEX ZPHOTO_ZDATETAKEN_INDEX ON ZPHOTO (ZTITLE)' "
                           + "WHERE name = 'ZPHOTO_ZDATETAKEN_INDEX'")
        try editor.execute("PRAGMA schema_version = \(version + 1)")
        try editor.execute("PRAGMA writable_schema = OFF")
        try editor.execute("UPDATE ZTAG SET ZCOUNT = 3 WHERE Z_PK = \(tag)")
        let problems = try store.problems()
        let integrity = problems.filter { $0.hasPrefix("SQLite integrity check: ") }
        #expect(!integrity.isEmpty)
        #expect(integrity.contains { $0.contains("ZPHOTO_ZDATETAKEN_INDEX") })
        #expect(Array(problems.prefix(integrity.count)) == integrity)
        #expect(problems.last == "tag 'kyoto' has count 3 but 10 linked photos")
        let inTurn = try VacationCheck.problems(on: try Connection(path: path, configuration: .init(
            readOnly: true, create: false, journalMode: nil, busyTimeout: 5, synchronous: nil)))
        #expect(inTurn == problems)
    }
}
