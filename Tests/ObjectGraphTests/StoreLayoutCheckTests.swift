import Foundation
import ObjectGraph
import ObjectGraphTestModels
import SQLiteDB
import Testing
import TestSupport

/// The first open of a store in a process skips the migration planner when the store is
/// already in its model's layout (`StoreLayout`). These tests hold the check to the planner:
/// it may say "in the layout" only where the planner plans nothing (and refuses nothing), on
/// every store tried — made, migrated, changed by hand, changed at random — and it does say
/// so for the stores this framework writes.
@Suite("Opening a store in its model's layout without the planner")
struct StoreLayoutCheckTests {
    /// Shapes the planner treats each its own way: an ordered to-many, a reflexive many-to-many,
    /// a to-many without an inverse (a hidden key column), a fetch index, a hierarchy.
    static let shapes: [EntityDescription] = [
        EntityDescription(name: "Node", attributes: [
            AttributeDescription(name: "name", type: .string, isIndexed: true),
            AttributeDescription(name: "weight", type: .double),
        ], relationships: [
            RelationshipDescription(name: "children", destination: "Node", inverse: "parent", isToMany: true, isOrdered: true),
            RelationshipDescription(name: "parent", destination: "Node", inverse: "children"),
            RelationshipDescription(name: "friends", destination: "Node", inverse: "friends", isToMany: true),
            RelationshipDescription(name: "labels", destination: "Label", inverse: nil, isToMany: true),
        ], fetchIndexes: [FetchIndexDescription(name: "byWeight", elements: [.init(property: "weight", isAscending: false)])]),
        EntityDescription(name: "Label", attributes: [AttributeDescription(name: "text", type: .string)]),
        EntityDescription(name: "ColouredLabel", parent: "Label", attributes: [AttributeDescription(name: "colour", type: .integer32)]),
    ]

    /// Every model tried, by name.
    static func models() throws -> [(name: String, model: ObjectModel)] {
        [
            ("search", try ObjectModel(Article.self, Author.self, Keyword.self)),
            ("search, nothing searchable", try ObjectModel(entities: SearchModel.descriptions(searchable: false))),
            ("travel", TestModels.travel),
            ("shapes", try ObjectModel(entities: shapes)),
        ]
    }

    static func verdict(_ url: URL, _ model: ObjectModel) throws -> StoreLayoutVerdict {
        let connection = try Connection(path: url.path, configuration: .init(journalMode: nil))
        return try StoreLayoutVerdict(connection: connection, model: model)
    }

    /// A store of `model` made by this framework, closed, with history and the operation log as asked.
    static func makeStore(at url: URL, model: ObjectModel, history: Bool, operationLog: Bool) throws {
        let coordinator = try StoreCoordinator(url: url, model: model, tracksHistory: history)
        if operationLog {
            try coordinator.withConnection { connection in
                for statement in OperationLogSchema.statements { try connection.execute(statement) }
            }
        }
    }

    static func execute(_ sql: String, on url: URL) throws {
        let connection = try Connection(path: url.path, configuration: .init(journalMode: nil))
        try connection.execute(sql)
    }

    /// Rewrites the store's metadata property list with `change`.
    static func changeMetadata(of url: URL, _ change: (inout [String: Any]) -> Void) throws {
        let connection = try Connection(path: url.path, configuration: .init(journalMode: nil))
        guard let data = try connection.scalar("SELECT Z_PLIST FROM Z_METADATA")?.blobValue,
              var plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any] else {
            Issue.record("no metadata in \(url.path)")
            return
        }
        change(&plist)
        let written = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        try connection.execute("UPDATE Z_METADATA SET Z_PLIST = ?", [.blob(written)])
    }

    /// The check's promise: "in the layout" only where the planner plans nothing and refuses nothing.
    static func expectSound(_ verdict: StoreLayoutVerdict, _ context: String) {
        if verdict.matchesLayout {
            #expect(verdict.plansNothing && verdict.planError == nil, "\(context): \(verdict)")
        }
    }

    @Test("a store this framework made for its model is in the layout, with or without history and the operation log")
    func madeStoresMatch() throws {
        let directory = try TemporaryDirectory(prefix: "layout")
        for (name, model) in try Self.models() {
            for history in [false, true] {
                for operationLog in [false, true] {
                    let url = directory.path("\(name)-\(history)-\(operationLog).sqlite")
                    try Self.makeStore(at: url, model: model, history: history, operationLog: operationLog)
                    let verdict = try Self.verdict(url, model)
                    #expect(verdict == StoreLayoutVerdict(matchesLayout: true, plansNothing: true, planError: nil),
                            "\(name), history \(history), operation log \(operationLog)")
                }
            }
        }
    }

    @Test("a store migrated to a model is in its layout after, not before; a store of another model is not")
    func migratedStoresMatch() throws {
        let directory = try TemporaryDirectory(prefix: "layout")
        let older = try ObjectModel(entities: SearchModel.descriptions(searchable: false))
        let newer = try ObjectModel(Article.self, Author.self, Keyword.self)
        let url = directory.path("migrated.sqlite")
        try Self.makeStore(at: url, model: older, history: true, operationLog: false)
        let before = try Self.verdict(url, newer)
        #expect(before == StoreLayoutVerdict(matchesLayout: false, plansNothing: false, planError: nil))
        _ = try StoreCoordinator(url: url, model: newer)
        #expect(try Self.verdict(url, newer) == StoreLayoutVerdict(matchesLayout: true, plansNothing: true, planError: nil))
        // Every other model against this store: whatever the planner says, the check agrees or declines.
        for (name, model) in try Self.models() {
            let verdict = try Self.verdict(url, model)
            Self.expectSound(verdict, name)
            // Searchability is in neither the version hashes nor the model record, and a model
            // that asks for no search index leaves the store's alone.
            #expect(verdict.matchesLayout == name.hasPrefix("search"), "\(name)")
        }
    }

    @Test("a search index whose triggers were dropped and made again (as a batch insert does) is still in the layout")
    func remadeTriggersMatch() throws {
        let directory = try TemporaryDirectory(prefix: "layout")
        let model = try ObjectModel(Article.self, Author.self, Keyword.self)
        let url = directory.path("store.sqlite")
        try Self.makeStore(at: url, model: model, history: false, operationLog: false)
        let connection = try Connection(path: url.path, configuration: .init(journalMode: nil))
        let triggers = try connection.rows("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY rowid") {
            ($0.string(at: 0) ?? "", $0.string(at: 1) ?? "")
        }
        #expect(triggers.count == 12)
        for (name, sql) in triggers.reversed() { try connection.execute("DROP TRIGGER \(name); \(sql)") }
        #expect(try Self.verdict(url, model) == StoreLayoutVerdict(matchesLayout: true, plansNothing: true, planError: nil))
    }

    /// Changes by hand to a search store with history, and whether the store is still in the layout.
    static let changes: [(sql: String, matches: Bool)] = [
        ("DROP TABLE FTS_ZARTICLE_SEARCH", false),
        ("DROP TRIGGER FTS_ZARTICLE_SEARCH_KEYWORDS_LINK_INSERT", false),
        ("CREATE TRIGGER FTS_ZARTICLE_SEARCH_EXTRA AFTER INSERT ON ZARTICLE BEGIN SELECT 1; END", false),
        ("CREATE TRIGGER APP_AUDIT AFTER INSERT ON ZARTICLE BEGIN SELECT 1; END", true),
        ("DROP INDEX ZARTICLE_ZAUTHOR_INDEX", false),
        ("CREATE INDEX ZARTICLE_ZHEADLINE_INDEX ON ZARTICLE (ZHEADLINE)", false),
        ("CREATE INDEX APP_HEADLINE ON ZARTICLE (ZHEADLINE)", true),
        ("CREATE INDEX ZAPP_ACHANGE ON ACHANGE (ZENTITY)", true),
        ("DROP INDEX Z_Keyword_UNIQUE_word; CREATE UNIQUE INDEX Z_Keyword_UNIQUE_word ON ZKEYWORD (ZWORD)", false),
        ("ALTER TABLE ZARTICLE ADD COLUMN ZSUBTITLE VARCHAR", false),
        ("ALTER TABLE ZAUTHOR RENAME COLUMN ZNAME TO ZFULLNAME", false),
        ("ALTER TABLE ZAUTHOR RENAME TO ZWRITER", false),
        ("CREATE TABLE ZEXTRA (Z_PK INTEGER PRIMARY KEY)", false),
        ("CREATE TABLE Z_9OLDLINKS (Z_9A INTEGER, Z_3B INTEGER)", false),
        ("CREATE TABLE APP_NOTES (ID INTEGER PRIMARY KEY, TEXT)", true),
        ("CREATE VIEW APP_HEADLINES AS SELECT ZHEADLINE FROM ZARTICLE", true),
        ("DROP TABLE ACHANGE", true),
        ("DELETE FROM Z_PRIMARYKEY WHERE Z_ENT = 3", false),
        ("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (4, 'Gone', 0, 7)", false),
        ("UPDATE Z_PRIMARYKEY SET Z_NAME = 'Writer' WHERE Z_NAME = 'Author'", false),
        ("UPDATE Z_PRIMARYKEY SET Z_SUPER = 1 WHERE Z_NAME = 'Keyword'", false),
        ("UPDATE Z_PRIMARYKEY SET Z_MAX = 40 WHERE Z_NAME = 'Keyword'", true),
        ("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16009, 'PRIVATE', 0, 0)", true),
        ("UPDATE Z_METADATA SET Z_UUID = 'ANOTHER'", true),
        ("""
         CREATE TABLE KEYS AS SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY; DROP TABLE Z_PRIMARYKEY;
         CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER);
         INSERT INTO Z_PRIMARYKEY SELECT * FROM KEYS; DROP TABLE KEYS
         """, false),
        ("CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)", false),
        ("UPDATE Z_METADATA SET Z_PLIST = x'00'", false),
    ]

    @Test("after a change by hand, the store is in the layout exactly where expected, and only where the planner plans nothing")
    func changedStores() throws {
        let model = try ObjectModel(Article.self, Author.self, Keyword.self)
        for change in Self.changes {
            let directory = try TemporaryDirectory(prefix: "layout")
            let url = directory.path("store.sqlite")
            try Self.makeStore(at: url, model: model, history: true, operationLog: true)
            try Self.execute(change.sql, on: url)
            // Metadata that is not a property list stops an open before either is asked.
            guard let verdict = try? Self.verdict(url, model) else {
                #expect(!change.matches, "\(change.sql)")
                continue
            }
            #expect(verdict.matchesLayout == change.matches, "\(change.sql): \(verdict)")
            Self.expectSound(verdict, change.sql)
        }
    }

    @Test("a model one of whose search indexes' names begins another's trigger names never skips the planner")
    func clashingSearchNames() throws {
        // `FTS_ZNOTE_SEARCH_` begins the names of Note's triggers and of Note_SEARCH_Draft's: the
        // planner counts both as Note's.
        let model = try ObjectModel(entities: [
            EntityDescription(name: "Note", attributes: [AttributeDescription(name: "text", type: .string, isSearchable: true)]),
            EntityDescription(name: "Note_SEARCH_Draft", attributes: [AttributeDescription(name: "text", type: .string, isSearchable: true)]),
        ])
        let directory = try TemporaryDirectory(prefix: "layout")
        let url = directory.path("store.sqlite")
        try Self.makeStore(at: url, model: model, history: false, operationLog: false)
        let verdict = try Self.verdict(url, model)
        #expect(!verdict.matchesLayout, "\(verdict)")
    }

    /// Changes to the metadata, and whether the store is still in the layout.
    static let metadataChanges: [(name: String, matches: Bool, change: @Sendable (inout [String: Any]) -> Void)] = [
        ("another key", true, { $0["AppSetting"] = "on" }),
        ("no model record (as Apple's Core Data writes it)", false, { $0.removeValue(forKey: "VacationsModel") }),
        ("no version hashes", false, { $0.removeValue(forKey: "NSStoreModelVersionHashes") }),
        ("another version hash", false, { plist in
            var hashes = plist["NSStoreModelVersionHashes"] as? [String: Any] ?? [:]
            hashes["Author"] = Data(repeating: 7, count: 32)
            plist["NSStoreModelVersionHashes"] = hashes
        }),
        ("an extra version hash", false, { plist in
            var hashes = plist["NSStoreModelVersionHashes"] as? [String: Any] ?? [:]
            hashes["Writer"] = Data(repeating: 7, count: 32)
            plist["NSStoreModelVersionHashes"] = hashes
        }),
        ("a property of another type in the record", false, { plist in
            guard var record = plist["VacationsModel"] as? [String: Any],
                  var properties = record["properties"] as? [[String: Any]], !properties.isEmpty else { return }
            properties[0]["kind"] = "binary"
            record["properties"] = properties
            plist["VacationsModel"] = record
        }),
        ("another parent in the record", false, { plist in
            guard var record = plist["VacationsModel"] as? [String: Any],
                  var entities = record["entities"] as? [[String: Any]], !entities.isEmpty else { return }
            entities[entities.count - 1]["parent"] = "Article"
            record["entities"] = entities
            plist["VacationsModel"] = record
        }),
        ("an extra property in the record", false, { plist in
            guard var record = plist["VacationsModel"] as? [String: Any],
                  var properties = record["properties"] as? [[String: Any]] else { return }
            properties.append(["entity": "Author", "name": "born", "kind": "date"])
            record["properties"] = properties
            plist["VacationsModel"] = record
        }),
    ]

    @Test("after a change to the metadata, the store is in the layout exactly where expected, and only where the planner plans nothing")
    func changedMetadata() throws {
        let model = try ObjectModel(Article.self, Author.self, Keyword.self)
        for change in Self.metadataChanges {
            let directory = try TemporaryDirectory(prefix: "layout")
            let url = directory.path("store.sqlite")
            try Self.makeStore(at: url, model: model, history: false, operationLog: false)
            try Self.changeMetadata(of: url, change.change)
            let verdict = try Self.verdict(url, model)
            #expect(verdict.matchesLayout == change.matches, "\(change.name): \(verdict)")
            Self.expectSound(verdict, change.name)
        }
    }

    /// Changes for the random test, each to any of the models' stores (a change that does not
    /// apply to a store fails and is skipped).
    static let randomChanges: [String] = changes.map(\.sql) + [
        "DROP INDEX ZPHOTO_ZPLACE_INDEX", "DROP INDEX Z_Tag_UNIQUE_name", "CREATE INDEX APP_TITLE ON ZPHOTO (ZTITLE)",
        "CREATE INDEX ZPHOTO_ZTITLE_INDEX ON ZPHOTO (ZTITLE)", "ALTER TABLE ZPHOTO ADD COLUMN ZEXTRA INTEGER",
        "ALTER TABLE ZTAG RENAME COLUMN ZCOUNT TO ZTOTAL", "DROP TABLE Z_5TAGS", "DROP TABLE ZNOTE",
        "UPDATE Z_PRIMARYKEY SET Z_ENT = Z_ENT + 100 WHERE Z_ENT = 2", "DELETE FROM Z_PRIMARYKEY WHERE Z_ENT = 1",
        "UPDATE Z_PRIMARYKEY SET Z_NAME = lower(Z_NAME) WHERE Z_ENT = 2", "UPDATE Z_PRIMARYKEY SET Z_SUPER = 0",
        "DROP TABLE Z_1FRIENDS", "DROP INDEX Z_Node_byWeight", "CREATE INDEX Z_Node_byWeight2 ON ZNODE (ZWEIGHT)",
        "ALTER TABLE ZNODE ADD COLUMN Z_FOK_PARENT INTEGER", "ALTER TABLE ZLABEL RENAME TO ZTAGLABEL",
        "DROP INDEX ZLABEL_Z_ENT_INDEX", "DROP TABLE UNDO_ROW", "DROP TABLE ATRANSACTION",
        "CREATE TABLE ZARCHIVED (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER)",
        "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (99, 'Archived', 0, 0)",
        "CREATE TRIGGER APP_TOUCH AFTER UPDATE ON ZTAG BEGIN SELECT 1; END",
        "DROP TRIGGER FTS_ZARTICLE_SEARCH_UPDATE", "DROP TABLE FTS_ZARTICLE_SEARCH_data",
        "DROP TABLE Z_METADATA; CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
        "UPDATE Z_PRIMARYKEY SET Z_NAME = CAST(Z_NAME AS BLOB)", "UPDATE Z_PRIMARYKEY SET Z_ENT = CAST(Z_ENT AS TEXT) WHERE Z_ENT = 1",
    ]

    @Test("after random changes to any model's store, the check never says 'in the layout' where the planner plans something")
    func randomChangesAreSound() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("StoreLayoutCheckTests.randomChangesAreSound seed \(seed)")
        var random = SplitMix64(seed: seed)
        let directory = try TemporaryDirectory(prefix: "layout")
        let models = try Self.models()
        var templates: [URL] = []
        for (index, entry) in models.enumerated() {
            let url = directory.path("template-\(index).sqlite")
            try Self.makeStore(at: url, model: entry.model, history: index % 2 == 0, operationLog: index % 3 == 0)
            templates.append(url)
        }
        var outcomes: [Bool: Int] = [:]
        for round in 0..<160 {
            let storeIndex = Int(random.next() % UInt64(models.count))
            let url = directory.path("round-\(round).sqlite")
            try FileManager.default.copyItem(at: templates[storeIndex], to: url)
            var applied: [String] = []
            for _ in 0..<(1 + Int(random.next() % 3)) {
                let change = Self.randomChanges[Int(random.next() % UInt64(Self.randomChanges.count))]
                // A change that does not apply to this store (no such table) is no change.
                if (try? Self.execute(change, on: url)) != nil { applied.append(change) }
            }
            // Any model may open any store: the check must be sound for all of them.
            let modelIndex = random.next() % 4 == 0 ? Int(random.next() % UInt64(models.count)) : storeIndex
            guard let verdict = try? Self.verdict(url, models[modelIndex].model) else { continue }  // metadata gone: no open gets this far
            Self.expectSound(verdict, "seed \(seed), round \(round), \(models[modelIndex].name) on \(models[storeIndex].name): \(applied)")
            outcomes[verdict.matchesLayout, default: 0] += 1
            try FileManager.default.removeItem(at: url)
        }
        // Both answers came up: the test tried the check, not only one side of it.
        #expect((outcomes[true] ?? 0) > 0 && (outcomes[false] ?? 0) > 0, "\(outcomes)")
    }
}
