import ObjectGraphTestModels
import Foundation
@testable import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

@Suite("Persistent history: Core Data's tables, written with every commit, read and deleted by token")
struct HistoryTests {
    static let changeSQL = "CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, "
        + "ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB )"
    static let transactionSQL = "CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, "
        + "ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, "
        + "ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )"

    private func historySchema(_ store: TestStore) throws -> [[SQLiteValue]] {
        try store.rows("SELECT type, name, sql FROM sqlite_master WHERE tbl_name IN ('ACHANGE', 'ATRANSACTION', 'ATRANSACTIONSTRING') ORDER BY name")
    }

    @Test("a store that tracks history has Core Data's three tables, eight indexes and key rows 16001–16003")
    func schema() throws {
        let store = try TestStore(tracksHistory: true)
        let sql = try store.rows("SELECT sql FROM sqlite_master WHERE tbl_name IN ('ACHANGE', 'ATRANSACTION', 'ATRANSACTIONSTRING') ORDER BY name")
            .map { $0[0] }
        #expect(sql == [
            .text(Self.changeSQL), .text("CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)"),
            .text(Self.transactionSQL),
            .text("CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )"),
            .text("CREATE INDEX ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS)"),
            .text("CREATE INDEX ATRANSACTION_ZBUNDLEIDTS_INDEX ON ATRANSACTION (ZBUNDLEIDTS)"),
            .text("CREATE INDEX ATRANSACTION_ZCONTEXTNAMETS_INDEX ON ATRANSACTION (ZCONTEXTNAMETS)"),
            .text("CREATE INDEX ATRANSACTION_ZPROCESSIDTS_INDEX ON ATRANSACTION (ZPROCESSIDTS)"),
            .text("CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)"),
            .text("CREATE INDEX Z_TRANSACTION_TransactionAuthorIndex ON ATRANSACTION (ZAUTHOR COLLATE BINARY ASC)"),
            .text("CREATE INDEX Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC)"),
        ])
        #expect(try store.rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT") == [
            [.integer(16001), .text("CHANGE"), .integer(0), .integer(0)],
            [.integer(16002), .text("TRANSACTION"), .integer(0), .integer(0)],
            [.integer(16003), .text("TRANSACTIONSTRING"), .integer(0), .integer(0)],
        ])
        #expect(store.coordinator.tracksHistory)
        #expect(try store.coordinator.currentHistoryToken() == nil)
    }

    @Test("a store without the option has no history; opened with it later, it gets the tables, and keeps them when opened without")
    func turningOn() throws {
        let directory = try TemporaryDirectory()
        let url = directory.path("store.sqlite")
        do {
            let plain = try StoreCoordinator(url: url, model: TestModels.travel)
            #expect(!plain.tracksHistory)
            #expect(try plain.withConnection { try $0.tableExists("ACHANGE") } == false)
            #expect(throws: StoreError.self) { try plain.fetchHistory() }
            let context = ObjectContext(coordinator: plain)
            Tag(context: context).name = "before"
            try context.save()
        }
        do {
            let tracked = try StoreCoordinator(url: url, model: TestModels.travel, tracksHistory: true)
            #expect(tracked.tracksHistory)
            #expect(try tracked.fetchHistory().isEmpty)
            let context = ObjectContext(coordinator: tracked)
            Tag(context: context).name = "after"
            try context.save()
            #expect(try tracked.fetchHistory().count == 1)
        }
        let again = try StoreCoordinator(url: url, model: TestModels.travel)
        #expect(again.tracksHistory)
        let context = ObjectContext(coordinator: again)
        Tag(context: context).name = "later"
        try context.save()
        let transactions = try again.fetchHistory()
        #expect(transactions.count == 2)
        #expect(transactions.map { $0.changes.map(\.changeType) } == [[.insert], [.insert]])
    }

    @Test("a save writes one transaction: its author, context name and process interned, a change per object, the changed properties' bits")
    func saveWritesHistory() throws {
        let store = try TestStore(tracksHistory: true)
        let context = store.context()
        context.name = "editor"
        context.transactionAuthor = "importer"
        let place = Place(context: context)
        place.name = "Lisbon"
        let photo = Photo(context: context)
        photo.unique = "1"
        photo.place = place
        try context.save()
        photo.title = "Tram"
        photo.latitude = 38.7
        try context.save()
        context.delete(photo)
        try context.save()

        let transactions = try store.coordinator.fetchHistory()
        #expect(transactions.count == 3)
        #expect(transactions.map(\.author) == ["importer", "importer", "importer"])
        #expect(transactions.map(\.contextName) == ["editor", "editor", "editor"])
        #expect(transactions.map(\.processName) == Array(repeating: ProcessInfo.processInfo.processName, count: 3))
        #expect(transactions[0].changes.map(\.changeType) == [.insert, .insert])
        #expect(Set(transactions[0].changes.map(\.objectID)) == [photo.objectID, place.objectID])
        #expect(transactions[1].changes.count == 1)
        #expect(transactions[1].changes.first?.updatedProperties == ["title", "latitude"])
        // The place lost its photo: both sides of the deleted link are recorded as Core Data does.
        #expect(Set(transactions[2].changes.map(\.changeType)) == [.delete, .update])
        #expect(transactions[2].changes.first { $0.changeType == .update }?.updatedProperties == ["photos"])
        #expect(transactions.map(\.token.transactionNumber) == [1, 2, 3])
        #expect(try store.coordinator.currentHistoryToken() == transactions[2].token)

        // Photo: attributes dateTaken, latitude, title, unique (bits 0–3), to-one place (4),
        // to-manys notes, tags (5, 6): title and latitude are 0b0110_0000.
        #expect(try store.rows("SELECT hex(ZCOLUMNS) FROM ACHANGE WHERE ZCHANGETYPE = 1 AND ZTRANSACTIONID = 2") == [[.text("60")]])
        #expect(try store.rows("SELECT ZNAME FROM ATRANSACTIONSTRING ORDER BY Z_PK").map { $0[0] }
                == [.text("importer"), .text(ProcessInfo.processInfo.processName), .text("editor")])
        #expect(try store.rows("SELECT count(*) FROM ATRANSACTION WHERE ZAUTHORTS = 1 AND ZCONTEXTNAMETS = 3 AND ZPROCESSIDTS = 2 "
                               + "AND ZBUNDLEIDTS = 2 AND Z_ENT = 16002 AND Z_OPT IS NULL AND ZAUTHOR IS NULL") == [[.integer(3)]])
        #expect(try store.rows("SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT")
                == [[.integer(16001), .integer(5)], [.integer(16002), .integer(3)], [.integer(16003), .integer(3)]])
        let stamp = try #require(transactions.first?.timestamp)
        #expect(abs(stamp.timeIntervalSinceNow) < 60)
    }

    @Test("a save that fails, and a transaction of several saves that rolls back, leave no history")
    func failuresLeaveNoHistory() throws {
        let store = try TestStore(tracksHistory: true)
        // Observing other processes makes the store remember its own transactions: a rolled-back
        // one must be forgotten (another process may be given its key).
        store.coordinator.startObservingOtherProcesses(interval: .seconds(3600))
        defer { store.coordinator.stopObservingOtherProcesses() }
        let context = store.context()
        Tag(context: context).name = "sea"
        try context.save()
        let duplicate = store.context()
        Tag(context: duplicate).name = "sea"
        #expect(throws: UniqueConstraintError.self) { try duplicate.save() }
        struct Stop: Error {}
        let inside = store.context()
        #expect(throws: Stop.self) {
            try store.coordinator.performTransaction {
                Tag(context: inside).name = "sun"
                try inside.save()
                throw Stop()
            }
        }
        #expect(try store.coordinator.fetchHistory().count == 1)
        #expect(try store.rows("SELECT count(*) FROM ACHANGE") == [[.integer(1)]])
        // The next transaction takes the next key: nothing of the rolled-back one is left.
        let after = store.context()
        Tag(context: after).name = "sun"
        try after.save()
        #expect(try store.coordinator.fetchHistory().map(\.token.transactionNumber) == [1, 2])
        #expect(store.coordinator.withStore { $0.history?.written } == [1, 2])
        store.coordinator.stopObservingOtherProcesses()
        #expect(store.coordinator.withStore { $0.history?.written } == [])
    }

    @Test("batch insert, update and delete each write one transaction naming every row they changed")
    func batchHistory() throws {
        let store = try TestStore(tracksHistory: true)
        store.coordinator.transactionAuthor = "batch"
        let context = store.context()
        let tag = Tag(context: context)
        tag.name = "sea"
        try context.save()
        var insert = try BatchInsert(entityName: "Photo", in: store.coordinator.model)
        let unique = try insert.attribute("unique"), tags = try insert.toMany("tags")
        for number in 1...5 {
            var row = insert.newRow()
            row.set(unique, String(number))
            row[tags] = [tag.objectID]
            insert.append(row)
        }
        let inserted = try store.coordinator.execute(insert)
        let updated = try store.coordinator.execute(BatchUpdate(entityName: "Photo", predicate: try ObjectPredicate(format: "unique IN {'1', '2'}"),
                                                                values: ["title": .text("t")]))
        let deleted = try store.coordinator.execute(BatchDelete(entityName: "Photo", predicate: try ObjectPredicate(format: "unique == '5'")))
        // The coordinator's author is every write's that names none: the context's save too.
        let all = try store.coordinator.fetchHistory(author: "batch")
        #expect(all.count == 4)
        let transactions = Array(all.dropFirst())
        #expect(transactions[0].changeSet.inserted == Set(inserted.objectIDs))
        #expect(transactions[0].changeSet.updated == [tag.objectID])
        #expect(transactions[0].changeSet.changedKeys == [tag.objectID: ["photos"]])
        #expect(transactions[1].changeSet.updated == updated.updated)
        #expect(transactions[1].changeSet.changedKeys == updated.changedKeys)
        #expect(transactions[2].changeSet.deleted == deleted.deleted)
        #expect(transactions.allSatisfy { $0.contextName == nil })
        #expect(try store.coordinator.fetchHistory(author: "nobody").isEmpty)
    }

    @Test("fetching after a token, by author and by entity; deleting before a token")
    func fetchingAndDeleting() throws {
        let store = try TestStore(tracksHistory: true)
        for (index, author) in ["a", "b", "a", "c"].enumerated() {
            let context = store.context()
            context.transactionAuthor = author
            if index % 2 == 0 { Tag(context: context).name = "tag\(index)" } else { Place(context: context).name = "place\(index)" }
            try context.save()
        }
        let all = try store.coordinator.fetchHistory()
        #expect(all.map(\.token.transactionNumber) == [1, 2, 3, 4])
        #expect(try store.coordinator.fetchHistory(after: all[1].token).map(\.token) == [all[2].token, all[3].token])
        #expect(try store.coordinator.fetchHistory(author: "a").map(\.token) == [all[0].token, all[2].token])
        #expect(try store.coordinator.fetchHistory(entityNames: ["Place"]).map(\.token) == [all[1].token, all[3].token])
        #expect(try store.coordinator.fetchHistory(after: all[1].token, author: "a", entityNames: ["Tag"]).map(\.token) == [all[2].token])
        #expect(throws: StoreError.self) { try store.coordinator.fetchHistory(entityNames: ["Nothing"]) }
        let foreign = HistoryToken(transactionNumber: 1, storeUUID: "another")
        #expect(throws: StoreError.self) { try store.coordinator.fetchHistory(after: foreign) }
        #expect(throws: StoreError.self) { try store.coordinator.deleteHistory(before: foreign) }

        #expect(try store.coordinator.deleteHistory(before: all[2].token) == 2)
        #expect(try store.coordinator.fetchHistory().map(\.token) == [all[2].token, all[3].token])
        #expect(try store.rows("SELECT DISTINCT ZTRANSACTIONID FROM ACHANGE ORDER BY 1") == [[.integer(3)], [.integer(4)]])
        // Keys are never handed out twice, even after the rows are gone.
        let context = store.context()
        Tag(context: context).name = "new"
        try context.save()
        #expect(try store.coordinator.currentHistoryToken()?.transactionNumber == 5)
    }

    @Test("tokens compare by transaction, survive JSON and their text form; bad text is refused")
    func tokens() throws {
        let token = HistoryToken(transactionNumber: 42, storeUUID: "5F1C-UUID")
        #expect(token.description == "42:5F1C-UUID")
        #expect(HistoryToken("42:5F1C-UUID") == token)
        for bad in ["", "42", "x:uuid", "-1:uuid", "42:", ":uuid"] { #expect(HistoryToken(bad) == nil, "\(bad)") }
        let data = try JSONEncoder().encode(token)
        #expect(try JSONDecoder().decode(HistoryToken.self, from: data) == token)
        let tokens = (0..<20).map { HistoryToken(transactionNumber: Int64(($0 * 7) % 20), storeUUID: "s") }
        #expect(tokens.sorted().map(\.transactionNumber) == Array(0..<20))
    }

    @Test("attributes preserved after deletion go to tombstone columns, in name order, read back by name")
    func tombstones() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(name: "Item", attributes: [
                AttributeDescription(name: "uuid", type: .string, preservesValueInHistoryOnDeletion: true),
                AttributeDescription(name: "kind", type: .integer32, defaultValue: .integer(0), preservesValueInHistoryOnDeletion: true),
                AttributeDescription(name: "note", type: .string),
            ]),
            EntityDescription(name: "Other", attributes: [
                AttributeDescription(name: "code", type: .string, preservesValueInHistoryOnDeletion: true),
            ]),
        ])
        let store = try TestStore(model: model, tracksHistory: true)
        #expect(try store.sql { try HistorySchema.storedTombstoneCount(on: $0) } == 2)
        let context = store.context()
        var items: [ManagedObject] = []
        for index in 0..<3 {
            let item = try context.insertObject(entityName: "Item")
            try item.setValue("u\(index)", forKey: "uuid")
            try item.setValue(Int32(index), forKey: "kind")
            try item.setValue("n", forKey: "note")
            items.append(item)
        }
        let other = try context.insertObject(entityName: "Other")
        try other.setValue("c", forKey: "code")
        try context.save()
        context.delete(items[0])
        context.delete(other)
        try context.save()
        try store.coordinator.execute(BatchDelete(entityName: "Item", predicate: try ObjectPredicate(format: "kind == 2")))
        let transactions = try store.coordinator.fetchHistory()
        #expect(transactions.count == 3)
        let deletes = transactions.dropFirst().flatMap(\.changes).filter { $0.changeType == .delete }
        #expect(deletes.map(\.tombstone) == [
            ["kind": .integer(0), "uuid": .text("u0")], ["code": .text("c")], ["kind": .integer(2), "uuid": .text("u2")],
        ])
        #expect(try store.rows("SELECT ZTOMBSTONE0, ZTOMBSTONE1 FROM ACHANGE WHERE ZCHANGETYPE = 2 ORDER BY Z_PK") == [
            [.integer(0), .text("u0")], [.text("c"), .null], [.integer(2), .text("u2")],
        ])
    }
}
