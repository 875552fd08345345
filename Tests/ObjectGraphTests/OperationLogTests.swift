import ObjectGraphTestModels
import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

@Suite("Operation log: every write recorded in its transaction, reverted exactly")
struct OperationLogTests {
    /// Every model table's rows with rowids, as text (`Z_PRIMARYKEY` without `Z_MAX`).
    static func content(_ store: TestStore) throws -> [String: [String]] {
        let tables = try store.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z%' ORDER BY name")
            .compactMap { $0.first?.textValue }
        var result: [String: [String]] = [:]
        for table in tables {
            let query = table == "Z_PRIMARYKEY" ? "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY" : "SELECT rowid, * FROM \(table)"
            result[table] = try store.rows(query).map { $0.map { "\($0)" }.joined(separator: "|") }.sorted()
        }
        return result
    }

    @Test("saves, a transaction of several saves and batch inserts are operations; undo restores every table")
    func undoRestoresTables() throws {
        let store = try TestStore()
        try store.coordinator.recordOperations(author: "setup")
        let context = store.context()
        let lisbon = Place(context: context)
        lisbon.name = "Lisbon"
        let sea = Tag(context: context)
        sea.name = "sea"
        for index in 0..<5 {
            let photo = Photo(context: context)
            photo.unique = "\(index)"
            photo.place = lisbon
            photo.tags = [sea]
            let note = Note(context: context)
            note.text = "note \(index)"
            note.photo = photo
        }
        try context.save()
        var states = [try Self.content(store)]
        try store.coordinator.beginOperation(author: "edit")
        let photos = try context.fetch(FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("unique")]))
        photos[0].title = "first"
        photos[1].tags = []
        context.delete(photos[2])
        sea.count = 9
        try context.save()
        let porto = Place(context: context)
        porto.name = "Porto"
        photos[3].place = porto
        try context.save()
        states.append(try Self.content(store))
        try store.coordinator.beginOperation(author: "batch")
        try store.coordinator.performTransaction {
            var insert = try BatchInsert(entityName: "Tag", in: store.coordinator.model)
            let name = try insert.attribute("name")
            for index in 0..<1000 {
                var row = insert.newRow()
                row.set(name, "tag \(index)")
                insert.append(row)
            }
            try store.coordinator.execute(insert)
            context.delete(lisbon)
            try context.save()
        }
        let log = try store.coordinator.loggedOperations()
        #expect(log.map(\.author) == ["batch", "edit", "setup"])
        #expect(log[2].inserted == ["Photo": 5, "Note": 5, "Place": 1, "Tag": 1] && log[2].updated == [:] && log[2].deleted == [:])
        #expect(log[1].inserted == ["Place": 1] && log[1].deleted == ["Photo": 1, "Note": 1])
        // Lisbon's row changes too: its version moves on when one of its photos leaves.
        #expect(log[1].updated == ["Photo": 3, "Tag": 1, "Place": 1])
        #expect(log[0].inserted == ["Tag": 1000] && log[0].deleted == ["Place": 1])
        // A thousand inserted tags are one run of keys, not a thousand rows.
        #expect(try store.rows("SELECT count(*) FROM UNDO_ROW WHERE OPERATION = 3 AND KIND = 0") == [[.integer(1)]])
        #expect(try store.coordinator.undoLatestOperation(author: "undo")?.author == "batch")
        #expect(try Self.content(store) == states[1])
        #expect(try store.coordinator.undoLatestOperation(author: "undo")?.author == "edit")
        #expect(try Self.content(store) == states[0])
        #expect(try store.coordinator.undoLatestOperation(author: "undo")?.author == "setup")
        #expect(try Self.content(store).filter { $0.key != "Z_PRIMARYKEY" && $0.key != "Z_METADATA" }.allSatisfy { $0.value.isEmpty })
        #expect(try store.coordinator.undoLatestOperation(author: "undo") == nil)
        let final = try store.coordinator.loggedOperations()
        #expect(final.map(\.author) == ["undo", "undo", "undo", "batch", "edit", "setup"])
        #expect(final[3].undoneBy == final[2].id && final[2].undoes == final[3].id)
        // Keys are not handed out again: the next place gets a new one.
        let again = store.context()
        let kyoto = Place(context: again)
        kyoto.name = "Kyoto"
        try again.save()
        #expect(kyoto.objectID.primaryKey == 3)
    }

    @Test("a save that fails records nothing; a write outside any transaction is refused")
    func failuresRecordNothing() throws {
        let store = try TestStore()
        try store.coordinator.recordOperations(author: "test")
        let context = store.context()
        let place = Place(context: context)
        place.name = "Lisbon"
        try context.save()
        let other = store.context()
        let twin = Place(context: other)
        twin.name = "Lisbon"
        #expect(throws: (any Error).self) { try other.save() }
        #expect(try store.rows("SELECT count(*) FROM UNDO_ROW") == [[.integer(1)]])
        do {
            try store.coordinator.withConnection { try $0.execute("UPDATE ZPLACE SET ZNAME = 'Porto'") }
            Issue.record("a write outside a transaction went through")
        } catch {
            #expect(error as? SQLiteError != nil, "\(error)")
        }
        #expect(try store.rows("SELECT ZNAME FROM ZPLACE") == [[.text("Lisbon")]])
        // Writes in a transaction of the connection's own are recorded.
        try store.coordinator.beginOperation(author: "raw")
        try store.coordinator.withConnection { connection in
            try connection.transaction { try connection.execute("UPDATE ZPLACE SET ZNAME = 'Porto'") }
        }
        #expect(throws: (any Error).self) {
            try store.coordinator.performTransaction { try store.coordinator.undoLatestOperation(author: "undo") }
        }
        #expect(try store.coordinator.undoLatestOperation(author: "undo")?.author == "raw")
        #expect(try store.rows("SELECT ZNAME FROM ZPLACE") == [[.text("Lisbon")]])
    }

    @Test("an operation's token is its last history transaction's; since a token lists the operations after the one holding it")
    func tokensAreHistoryTokens() throws {
        let store = try TestStore(tracksHistory: true)
        try store.coordinator.recordOperations(author: "first")
        let context = store.context()
        for name in ["Lisbon", "Porto"] {
            let place = Place(context: context)
            place.name = name
            try context.save()
        }
        try store.coordinator.beginOperation(author: "second")
        let tag = Tag(context: context)
        tag.name = "sea"
        try context.save()
        let log = try store.coordinator.loggedOperations()
        let history = try store.coordinator.fetchHistory()
        #expect(history.count == 3)
        guard log.count == 2, history.count == 3 else { return }
        // The first operation committed two transactions: its token is the second's.
        #expect(log.map(\.historyToken) == [history[2].token, history[1].token])
        #expect(log.map(\.token) == [history[2].token.description, history[1].token.description])
        #expect(try store.coordinator.loggedOperations(since: log[1].token).map(\.author) == ["second"])
        // Any transaction the operation holds names it, in either form.
        for token in [history[0].token.description, "\(history[0].token.transactionNumber)", "\(history[1].token.transactionNumber)"] {
            #expect(try store.coordinator.loggedOperations(since: token).map(\.author) == ["second"], "\(token)")
        }
        #expect(try store.coordinator.loggedOperations(since: log[0].token).isEmpty)
        let other = HistoryToken(transactionNumber: history[0].token.transactionNumber, storeUUID: "another").description
        for bad in ["4", "0", "op-1", "op-x", "", "x", other] {
            #expect(throws: StoreError.self, "\(bad)") { try store.coordinator.loggedOperations(since: bad) }
        }
        // An undo's token is its own transaction's; the operation it undid keeps its token.
        #expect(try store.coordinator.undoLatestOperation(author: "undo")?.token == log[0].token)
        let after = try store.coordinator.loggedOperations()
        #expect(after.map(\.token) == [try store.coordinator.currentHistoryToken()?.description ?? "", log[0].token, log[1].token])
    }

    @Test("without history an operation's token is op- and its number; a log from before tokens gets their columns")
    func tokensWithoutHistory() throws {
        let store = try TestStore()
        // A log as it was written before operations kept their transactions.
        try store.coordinator.withConnection { connection in
            try connection.execute("""
                CREATE TABLE UNDO_OPERATION (ID INTEGER PRIMARY KEY, AUTHOR TEXT NOT NULL, DATE REAL NOT NULL, \
                SESSION TEXT, INSERTED TEXT NOT NULL DEFAULT '{}', UPDATED TEXT NOT NULL DEFAULT '{}', \
                DELETED TEXT NOT NULL DEFAULT '{}', UNDONE_BY INTEGER, UNDOES INTEGER)
                """)
            try connection.execute("INSERT INTO UNDO_OPERATION (AUTHOR, DATE) VALUES ('old', 0)")
        }
        #expect(try store.coordinator.loggedOperations().map(\.token) == ["op-1"])
        try store.coordinator.recordOperations(author: "new")
        let context = store.context()
        let place = Place(context: context)
        place.name = "Lisbon"
        try context.save()
        let log = try store.coordinator.loggedOperations()
        #expect(log.map(\.token) == ["op-2", "op-1"] && log.allSatisfy { $0.historyToken == nil })
        #expect(try store.coordinator.loggedOperations(since: "op-1").map(\.author) == ["new"])
        #expect(try store.coordinator.loggedOperations(since: "op-2").isEmpty)
        for bad in ["op-3", "1", "op-0"] {
            #expect(throws: StoreError.self, "\(bad)") { try store.coordinator.loggedOperations(since: bad) }
        }
    }

    @Test("a new operation's row goes in whole with its first records; a coordinator of the same session joins it, a new session starts another")
    func operationRowsAndSessions() throws {
        let store = try TestStore(tracksHistory: true)
        try store.coordinator.recordOperations(author: "cli", session: "session one")
        let recorder = SQLTraceRecorder()
        try store.coordinator.withConnection { recorder.attach(to: $0) }
        let context = store.context()
        func operations() throws -> [[SQLiteValue]] {
            try store.rows("SELECT AUTHOR, SESSION, INSERTED, UPDATED, DELETED, FIRST_TRANSACTION, LAST_TRANSACTION FROM UNDO_OPERATION ORDER BY ID")
        }
        func writes(of table: String) -> [String] {
            recorder.statements.filter { $0.hasPrefix("INSERT INTO \(table)") || $0.hasPrefix("UPDATE \(table)") }
        }
        let lisbon = Place(context: context)
        lisbon.name = "Lisbon"
        try context.save()
        // The first flush of an operation inserts its row with the counts: no update after it.
        #expect(writes(of: "UNDO_OPERATION").count == 1 && writes(of: "UNDO_OPERATION").allSatisfy { $0.hasPrefix("INSERT") })
        #expect(try operations() == [[.text("cli"), .text("session one"), .text(#"{"Place":1}"#), .text("{}"), .text("{}"), .integer(1), .integer(1)]])
        recorder.clear()
        lisbon.name = "Lisboa"
        try context.save()
        #expect(writes(of: "UNDO_OPERATION").count == 2 && writes(of: "UNDO_OPERATION").allSatisfy { $0.hasPrefix("UPDATE") })
        // The place was inserted by this operation: updating it adds no update to the counts.
        #expect(try operations() == [[.text("cli"), .text("session one"), .text(#"{"Place":1}"#), .text("{}"), .text("{}"), .integer(1), .integer(2)]])
        // Another coordinator of the same session (a command that opened its store again) joins
        // the latest operation, and its counts add to it.
        let again = try StoreCoordinator(url: store.url, model: store.coordinator.model, tracksHistory: true)
        try again.recordOperations(author: "cli", session: "session one")
        let other = ObjectContext(coordinator: again)
        let sea = Tag(context: other)
        sea.name = "sea"
        try other.save()
        #expect(try operations() == [[.text("cli"), .text("session one"), .text(#"{"Place":1,"Tag":1}"#), .text("{}"), .text("{}"),
                                      .integer(1), .integer(3)]])
        #expect(try store.rows("SELECT OPERATION, SEQUENCE, KIND, TABLE_NAME FROM UNDO_ROW ORDER BY OPERATION, SEQUENCE") == [
            [.integer(1), .integer(0), .integer(0), .text("ZPLACE")], [.integer(1), .integer(1), .integer(1), .text("ZPLACE")],
            [.integer(1), .integer(2), .integer(0), .text("ZTAG")],
        ])
        // `beginOperation` starts a session no operation has: nothing is looked up to join.
        recorder.clear()
        try store.coordinator.beginOperation(author: "edit")
        context.delete(lisbon)
        try context.save()
        #expect(!recorder.statements.contains { $0.contains("FROM UNDO_OPERATION") })
        let log = try operations()
        #expect(log.count == 2 && log.last.map { Array($0[2...]) } == [.text("{}"), .text("{}"), .text(#"{"Place":1}"#), .integer(4), .integer(4)])
        // A coordinator with a session of its own starts an operation of its own.
        try again.recordOperations(author: "cli", session: "session two")
        let kyoto = Place(context: other)
        kyoto.name = "Kyoto"
        try other.save()
        #expect(try operations().map { [$0[0], $0[1], $0[2]] } == [
            [.text("cli"), .text("session one"), .text(#"{"Place":1,"Tag":1}"#)], [.text("edit"), log[1][1], .text("{}")],
            [.text("cli"), .text("session two"), .text(#"{"Place":1}"#)],
        ])
        #expect(try store.coordinator.undoLatestOperation(author: "undo")?.author == "cli")
        #expect(try store.rows("SELECT count(*) FROM ZPLACE") == [[.integer(0)]])
    }
}
