import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

/// Opening a store again with a model that found it needing no migration skips the plan
/// (`SchemaFingerprint`, `ObjectModel.verifiedSchemas`). These tests hold the short way to the
/// long one: every store, changed in any way the plan looks at, opens to exactly what a model
/// that never saw it makes of it.
@Suite("Opening a store again: the schema fingerprint")
struct SchemaFingerprintTests {
    /// A new model object: its own fingerprints, shared with no other test.
    static func freshModel() throws -> ObjectModel { try ObjectModel(Article.self, Author.self, Keyword.self) }

    /// A store with an article, its author and keywords, its search index and history.
    static func makeStore(at url: URL, model: ObjectModel) throws {
        let coordinator = try StoreCoordinator(url: url, model: model, tracksHistory: true)
        try coordinator.withConnection { connection in
            try connection.execute("""
                INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (1, 2, 1, 'Ana Sousa');
                INSERT INTO ZKEYWORD (Z_PK, Z_ENT, Z_OPT, ZWORD) VALUES (1, 3, 1, 'belém'), (2, 3, 1, 'tram');
                INSERT INTO Z_1KEYWORDS (Z_1ARTICLES, Z_3KEYWORDS) VALUES (1, 2), (1, 1);
                INSERT INTO ZARTICLE (Z_PK, Z_ENT, Z_OPT, ZAUTHOR, ZHEADLINE, ZBODY) VALUES (1, 1, 1, 1, 'Torre de Belém', 'A tower.');
                """)
        }
    }

    /// What an open leaves and reads: the schema (every object's SQL), the entity rows, the
    /// metadata and the UUID; or the error's text.
    static func outcome(opening url: URL, model: ObjectModel, readOnly: Bool) -> String {
        do {
            let coordinator = try StoreCoordinator(url: url, model: model, readOnly: readOnly)
            let schema = try coordinator.withConnection { connection in
                try connection.rows("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name") { row in
                    (0..<4).map { "\(row.value(at: $0))" }.joined(separator: " ")
                } + connection.rows("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT") { row in
                    (0..<3).map { "\(row.value(at: $0))" }.joined(separator: " ")
                }
            }
            let history = try coordinator.withConnection { try $0.tableExists("ACHANGE") }
            return (schema + ["history \(history)", "uuid \(coordinator.storeUUID)", canonical(coordinator.metadata)]).joined(separator: "\n")
        } catch {
            return "error: \(error)".replacingOccurrences(of: url.path, with: "STORE")
        }
    }

    /// Property-list values as text, dictionaries by sorted key, data in hexadecimal.
    static func canonical(_ value: any Sendable) -> String {
        switch value {
        case let dictionary as [String: any Sendable]:
            return "{" + dictionary.keys.sorted().map { "\($0)=\(canonical(dictionary[$0] ?? ""))" }.joined(separator: ", ") + "}"
        case let array as [any Sendable]:
            return "[" + array.map(canonical).joined(separator: ", ") + "]"
        case let data as Data:
            return data.map { String(format: "%02x", $0) }.joined()
        default:
            return "\(type(of: value)) \(value)"
        }
    }

    static func withoutUUID(_ outcome: String) -> String {
        outcome.replacingOccurrences(of: #"uuid [^\n]*"#, with: "uuid", options: .regularExpression)
    }

    static func execute(_ sql: String, on url: URL) throws {
        let connection = try Connection(path: url.path)
        try connection.execute(sql)
    }

    @Test("a store opened again with the same model skips the plan and reads what planning reads")
    func reopeningSkipsThePlan() throws {
        let directory = try TemporaryDirectory(prefix: "fingerprint")
        let url = directory.path("store.sqlite")
        let model = try Self.freshModel()
        try Self.makeStore(at: url, model: model)
        #expect(model.verifiedSchemas.count == 0, "a store just made was not planned")
        let first = Self.outcome(opening: url, model: model, readOnly: true)
        #expect(model.verifiedSchemas.count == 1)
        #expect(model.verifiedSchemas.reuses == 0)
        for (round, readOnly) in [true, false, true, false].enumerated() {
            #expect(Self.outcome(opening: url, model: model, readOnly: readOnly) == first)
            #expect(model.verifiedSchemas.reuses == round + 1)
            #expect(Self.outcome(opening: url, model: try Self.freshModel(), readOnly: readOnly) == first)
        }
        #expect(model.verifiedSchemas.count == 1)
        #expect(first.contains("FTS_ZARTICLE_SEARCH_UPDATE"))
        #expect(first.contains("history true"))
    }

    @Test("after any change the plan looks at, the next open is what a model that never saw the store makes of it")
    func changedStoresArePlannedAgain() throws {
        // Each change, and whether the model must plan again (the key counters and the UUID
        // are no part of a plan: the UUID is read with the fingerprint).
        let changes: [(sql: String, plansAgain: Bool)] = [
            ("DROP TABLE FTS_ZARTICLE_SEARCH", true),
            ("DROP TRIGGER FTS_ZARTICLE_SEARCH_KEYWORDS_LINK_INSERT", true),
            ("DROP TRIGGER FTS_ZARTICLE_SEARCH_UPDATE; UPDATE ZARTICLE SET ZHEADLINE = 'Torre' WHERE Z_PK = 1", true),
            ("DROP INDEX ZARTICLE_ZAUTHOR_INDEX", true),
            ("CREATE INDEX APP_HEADLINE ON ZARTICLE (ZHEADLINE)", true),
            ("ALTER TABLE ZARTICLE ADD COLUMN ZSUBTITLE VARCHAR", true),
            ("UPDATE Z_PRIMARYKEY SET Z_NAME = 'Writer' WHERE Z_NAME = 'Author'", true),
            ("UPDATE Z_PRIMARYKEY SET Z_SUPER = 1 WHERE Z_NAME = 'Keyword'", true),
            ("UPDATE Z_PRIMARYKEY SET Z_MAX = 40 WHERE Z_NAME = 'Keyword'", false),
            ("UPDATE Z_METADATA SET Z_PLIST = x'00'", true),
            ("UPDATE Z_METADATA SET Z_UUID = 'ANOTHER'", false),
            ("DELETE FROM Z_METADATA", true),
            ("DROP TABLE Z_PRIMARYKEY", true),
            ("DROP TABLE ACHANGE", true),
            ("DROP TABLE Z_METADATA", true),
        ]
        for change in changes {
            for readOnly in [true, false] {
                let directory = try TemporaryDirectory(prefix: "fingerprint")
                let (seen, unseen) = (directory.path("seen.sqlite"), directory.path("unseen.sqlite"))
                let model = try Self.freshModel()
                try Self.makeStore(at: seen, model: model)
                try Self.makeStore(at: unseen, model: model)
                // The model knows the store as it was: the next open would skip the plan.
                _ = Self.outcome(opening: seen, model: model, readOnly: true)
                let reuses = model.verifiedSchemas.reuses
                _ = Self.outcome(opening: seen, model: model, readOnly: true)
                #expect(model.verifiedSchemas.reuses == reuses + 1)
                try Self.execute(change.sql, on: seen)
                try Self.execute(change.sql, on: unseen)
                let expected = Self.outcome(opening: unseen, model: try Self.freshModel(), readOnly: readOnly)
                let found = Self.outcome(opening: seen, model: model, readOnly: readOnly)
                #expect(Self.withoutUUID(found) == Self.withoutUUID(expected), "\(change.sql), read-only \(readOnly)")
                #expect(model.verifiedSchemas.reuses == reuses + (change.plansAgain ? 1 : 2), "\(change.sql)")
                if change.sql.contains("Z_UUID") { #expect(found.contains("uuid ANOTHER")) }
            }
        }
    }

    @Test("a store an older model wrote migrates even when the model knows the store it became")
    func olderStoresMigrate() throws {
        let directory = try TemporaryDirectory(prefix: "fingerprint")
        let older = try ObjectModel(entities: SearchModel.descriptions(searchable: false))
        let model = try Self.freshModel()
        let (migrated, fresh) = (directory.path("migrated.sqlite"), directory.path("fresh.sqlite"))
        try Self.makeStore(at: migrated, model: older)
        try Self.makeStore(at: fresh, model: older)
        let first = Self.outcome(opening: migrated, model: model, readOnly: false)
        #expect(first.contains("FTS_ZARTICLE_SEARCH_UPDATE"))
        _ = Self.outcome(opening: migrated, model: model, readOnly: true)
        #expect(model.verifiedSchemas.count == 1)
        #expect(Self.outcome(opening: fresh, model: model, readOnly: true)
                == "error: the store needs migrating to this model, but it is open read-only")
        let second = Self.outcome(opening: fresh, model: model, readOnly: false)
        #expect(Self.withoutUUID(second) == Self.withoutUUID(first))
    }
}
