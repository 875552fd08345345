import Foundation
import SQLiteDB
import Testing
import TestSupport

@Suite("The crash test's history check finds history and data that disagree")
struct HistoryConsistencyTests {
    @Test("a sound vacation passes; a row without history, history without a row, or an orphan change is found")
    func findsDisagreement() throws {
        let directory = try TemporaryDirectory(prefix: "history-check")
        let runner = VacationRunner(library: directory.url.appendingPathComponent("library"), wait: 30)
        let feed = try TestFeed(in: directory.url, name: "feed", photos: 20, firstID: 4_000_000, json: false)
        #expect(try runner.run(["--vacation", "Check", "import", feed.url.path]).status == 0)
        #expect(try runner.run(["--vacation", "Check", "unvisit", feed.ids[0]]).status == 0)
        let store = runner.library.appendingPathComponent("Check.vacation/StoreContent/persistentStore").path
        #expect(try HistoryConsistency.problem(inStoreAt: store) == nil)
        let pristine = try Data(contentsOf: URL(fileURLWithPath: store))

        let breakages: [(sql: String, problem: String)] = [
            ("DELETE FROM ACHANGE WHERE Z_PK = (SELECT max(Z_PK) FROM ACHANGE WHERE ZCHANGETYPE = 0 AND ZENTITY = 2)", "has no history"),
            ("DELETE FROM ZPHOTO WHERE Z_PK = (SELECT max(Z_PK) FROM ZPHOTO)", "but it does not"),
            ("DELETE FROM ATRANSACTION WHERE Z_PK = 1", "belong to no transaction"),
            ("UPDATE Z_PRIMARYKEY SET Z_MAX = 0 WHERE Z_ENT = 16002", "above its Z_MAX"),
        ]
        for breakage in breakages {
            try pristine.write(to: URL(fileURLWithPath: store))
            let connection = try Connection(path: store, configuration: .init(journalMode: nil))
            try connection.execute(breakage.sql)
            let problem = try HistoryConsistency.problem(inStoreAt: store)
            #expect(problem?.contains(breakage.problem) == true, "\(breakage.sql): \(problem ?? "none")")
        }
    }
}
