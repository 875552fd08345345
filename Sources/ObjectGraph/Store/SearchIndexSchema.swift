import Foundation
import Locking
import SQLiteDB

/// The SQL of a search index: its FTS5 table, the triggers that keep it in step with the rows
/// it indexes, and the statement that fills it from them.
///
/// The triggers use only SQLite's built-in functions and tokenizer, so any program that writes
/// the store — the `sqlite3` shell included — keeps the index right:
///
/// - a row inserted, updated (a searchable column, a to-one key) or deleted rewrites its own
///   index row;
/// - a join-table row inserted, updated or deleted rewrites the index row of the object whose
///   key it holds, but only once that object's row exists: a writer that inserts an object's
///   join rows before its row makes one index write per object, by the object's own insert
///   trigger, which finds its links already there (`BatchInsert` does better still: see
///   `SearchIndexSuspension`);
/// - a destination row inserted, renamed, re-keyed or deleted rewrites the index rows of the
///   objects that point at it (a renamed place, a deleted tag).
///
/// A to-many's text is its destinations' values in key order, space-separated, so that the same
/// rows always give the same text (the check compares it).
struct SearchIndexSchema {
    let index: SearchIndex

    /// The table's name as SQL writes it: like the model's own tables, a plain identifier (it is
    /// made of one), so that `sqlite_master` and the `sqlite3` shell show it plainly.
    var quotedName: String { index.name }

    /// `CREATE VIRTUAL TABLE … USING fts5(…)`, exactly as `sqlite_master` keeps it.
    var createTableSQL: String {
        let columns = index.columns.map { quoteIdentifier($0.name) }.joined(separator: ", ")
        return "CREATE VIRTUAL TABLE \(quotedName) USING fts5(\(columns), tokenize = '\(SearchIndex.tokenizer)')"
    }

    /// The text of `column` for the row of `index.table` that `row` names (`NEW`, `t`).
    func expression(_ column: SearchIndex.Column, row: String) -> String {
        switch column.source {
        case .attribute(let name):
            return "\(row).\(name)"
        case .toOne(let key, let table, let name):
            return "(SELECT d.\(name) FROM \(table) d WHERE d.Z_PK = \(row).\(key))"
        case .toMany(let joinTable, let own, let other, let table, let name):
            // In the order of the join table's primary key (own, other), which the lookup by
            // `own` walks: the destinations in key order. (SQLite 3.40 has no ORDER BY inside an
            // aggregate; a sub-select with one costs an ephemeral table per row.)
            return "(SELECT group_concat(d.\(name), ' ') FROM \(joinTable) j JOIN \(table) d "
                + "ON d.Z_PK = j.\(other) WHERE j.\(own) = \(row).Z_PK)"
        }
    }

    /// Every column's text for `row`, comma-separated, in column order.
    func expressions(row: String) -> String {
        index.columns.map { expression($0, row: row) }.joined(separator: ", ")
    }

    var columnList: String {
        (["rowid"] + index.columns.map { quoteIdentifier($0.name) }).joined(separator: ", ")
    }

    /// Fills the index from every row of its table (on a new or emptied index).
    var fillSQL: String {
        "INSERT INTO \(quotedName) (\(columnList)) SELECT t.Z_PK, \(expressions(row: "t")) FROM \(index.table) t"
    }

    /// Trigger name → `CREATE TRIGGER` statement, exactly as `sqlite_master` keeps it.
    ///
    /// Made once per index and process: every open compares them with the store's, and
    /// building their text again cost about a tenth of opening a store.
    var triggers: [(name: String, sql: String)] {
        if let made = Self.madeTriggers.withLock({ $0[index] }) { return made }
        let made = makeTriggers()
        Self.madeTriggers.withLock { $0[index] = made }
        return made
    }

    private static let madeTriggers = Locked<[SearchIndex: [(name: String, sql: String)]]>([:])

    private func makeTriggers() -> [(name: String, sql: String)] {
        let table = index.table
        // The pieces every trigger repeats, made once (building them per trigger was most of
        // the cost of the text).
        let columns = columnList
        let newValues = expressions(row: "NEW")
        let rowValues = expressions(row: "t")
        /// Rewrites the index rows of the table's rows matching `condition` (on alias `t`).
        func refresh(where condition: String) -> String {
            "DELETE FROM \(quotedName) WHERE rowid IN (SELECT t.Z_PK FROM \(table) t WHERE \(condition)); "
                + "INSERT OR REPLACE INTO \(quotedName) (\(columns)) SELECT t.Z_PK, \(rowValues) "
                + "FROM \(table) t WHERE \(condition);"
        }
        /// Rewrites the index row of the object with key `key` (gone when the object is).
        func refresh(key: String) -> String {
            "DELETE FROM \(quotedName) WHERE rowid = \(key); "
                + "INSERT OR REPLACE INTO \(quotedName) (\(columns)) SELECT t.Z_PK, \(rowValues) "
                + "FROM \(table) t WHERE t.Z_PK = \(key);"
        }
        var result: [(String, String)] = []
        func trigger(_ suffix: String, _ event: String, on target: String, when condition: String? = nil, _ body: String) {
            let name = index.name + "_" + suffix
            let when = condition.map { " WHEN \($0)" } ?? ""
            result.append((name, "CREATE TRIGGER \(name) AFTER \(event) ON \(target)\(when) BEGIN \(body) END"))
        }
        trigger("INSERT", "INSERT", on: table,
                "INSERT OR REPLACE INTO \(quotedName) (\(columns)) VALUES (NEW.Z_PK, \(newValues));")
        var watched = ["Z_PK"]
        for column in index.columns {
            switch column.source {
            case .attribute(let name): watched.append(name)
            case .toOne(let key, _, _): watched.append(key)
            case .toMany: break
            }
        }
        let changed = watched.map { "OLD.\($0) IS NOT NEW.\($0)" }.joined(separator: " OR ")
        trigger("UPDATE", "UPDATE OF \(watched.joined(separator: ", "))", on: table, when: changed,
                "DELETE FROM \(quotedName) WHERE rowid = OLD.Z_PK; "
                    + "INSERT OR REPLACE INTO \(quotedName) (\(columns)) VALUES (NEW.Z_PK, \(newValues));")
        trigger("DELETE", "DELETE", on: table, "DELETE FROM \(quotedName) WHERE rowid = OLD.Z_PK;")
        for column in index.columns {
            let prefix = column.name.uppercased()
            let exists = { (key: String) in "EXISTS (SELECT 1 FROM \(table) WHERE Z_PK = \(key))" }
            switch column.source {
            case .attribute:
                continue
            case .toOne(let key, let destination, let name):
                let pointing = { (value: String) in "EXISTS (SELECT 1 FROM \(table) WHERE \(key) = \(value))" }
                trigger(prefix + "_TARGET_INSERT", "INSERT", on: destination, when: pointing("NEW.Z_PK"),
                        refresh(where: "t.\(key) = NEW.Z_PK"))
                trigger(prefix + "_TARGET_UPDATE", "UPDATE OF Z_PK, \(name)", on: destination,
                        when: "OLD.Z_PK IS NOT NEW.Z_PK OR OLD.\(name) IS NOT NEW.\(name)",
                        refresh(where: "t.\(key) IN (OLD.Z_PK, NEW.Z_PK)"))
                trigger(prefix + "_TARGET_DELETE", "DELETE", on: destination, when: pointing("OLD.Z_PK"),
                        refresh(where: "t.\(key) = OLD.Z_PK"))
            case .toMany(let joinTable, let own, let other, let destination, let name):
                trigger(prefix + "_LINK_INSERT", "INSERT", on: joinTable, when: exists("NEW.\(own)"), refresh(key: "NEW.\(own)"))
                trigger(prefix + "_LINK_UPDATE", "UPDATE", on: joinTable, refresh(key: "OLD.\(own)") + " " + refresh(key: "NEW.\(own)"))
                trigger(prefix + "_LINK_DELETE", "DELETE", on: joinTable, when: exists("OLD.\(own)"), refresh(key: "OLD.\(own)"))
                let linked = { (value: String) in "t.Z_PK IN (SELECT j.\(own) FROM \(joinTable) j WHERE j.\(other) = \(value))" }
                let anyLinked = { (value: String) in "EXISTS (SELECT 1 FROM \(joinTable) j WHERE j.\(other) = \(value))" }
                trigger(prefix + "_TARGET_INSERT", "INSERT", on: destination, when: anyLinked("NEW.Z_PK"),
                        refresh(where: linked("NEW.Z_PK")))
                trigger(prefix + "_TARGET_UPDATE", "UPDATE OF Z_PK, \(name)", on: destination,
                        when: "OLD.Z_PK IS NOT NEW.Z_PK OR OLD.\(name) IS NOT NEW.\(name)",
                        refresh(where: linked("OLD.Z_PK") + " OR " + linked("NEW.Z_PK")))
                trigger(prefix + "_TARGET_DELETE", "DELETE", on: destination, when: anyLinked("OLD.Z_PK"),
                        refresh(where: linked("OLD.Z_PK")))
            }
        }
        return result
    }

    /// Everything that makes the index on an empty store: its table and its triggers.
    var creationStatements: [String] {
        [createTableSQL] + triggers.map(\.sql)
    }

    /// Makes the index anew on a store that has rows: table, content, triggers.
    var rebuildStatements: [String] {
        ["DROP TABLE IF EXISTS \(quotedName)", createTableSQL, fillSQL] + triggers.map(\.sql)
    }
}

/// A writer keeping a search index itself for a run of new rows: inside its transaction it
/// drops the index's triggers, writes the rows and their links, indexes them all with one
/// `INSERT … SELECT`, and makes the triggers again. No other connection ever sees the store
/// without them (and a rollback brings them back).
///
/// Why: FTS5 (SQLite 3.40) flushes its pending terms to a new segment at every statement
/// savepoint, and every statement on a table with triggers opens one (with a statement journal
/// of the pages it touches). Kept by the triggers row by row, a batch of photos made one segment
/// per photo, and merging them cost more than the rest of the import (ARCHITECTURE.md §6).
struct SearchIndexSuspension {
    let schema: SearchIndexSchema

    /// Drops the triggers of `entity`'s index, when its table has one.
    static func begin(for entity: Entity, in store: SQLiteStore) throws -> SearchIndexSuspension? {
        guard let index = store.model.searchIndex(for: entity) else { return nil }
        let schema = SearchIndexSchema(index: index)
        for trigger in schema.triggers { try store.connection.execute("DROP TRIGGER IF EXISTS \(trigger.name)") }
        return SearchIndexSuspension(schema: schema)
    }

    /// Indexes `insert`'s rows (written with keys from `firstKey` while the triggers were away),
    /// then makes the triggers again.
    ///
    /// From the values in hand when it can (`indexFromValues`): one prepared insert per row,
    /// each destination's text read once for the whole batch. Reading the rows back instead,
    /// with their places' and tags' text joined in for each (`fill`), cost about half as much
    /// again as the index's own writes (a 20,000-photo import: 1.95 G instructions against the
    /// baseline's 1.28 G, which writes the index from its own values).
    func end(indexing insert: BatchInsert, firstKey: Int64, in store: SQLiteStore) throws {
        let keys = firstKey..<(firstKey + Int64(insert.rows.count))
        if !keys.isEmpty, try !indexFromValues(insert, firstKey: firstKey, in: store) {
            try fill(keys, in: store)
        }
        for trigger in schema.triggers { try store.connection.execute(trigger.sql) }
    }

    /// Indexes the rows with keys in `keys` from the table, as the triggers would; replaces
    /// any index row already there.
    private func fill(_ keys: Range<Int64>, in store: SQLiteStore) throws {
        let sql = "INSERT OR REPLACE INTO \(schema.quotedName) (\(schema.columnList)) SELECT t.Z_PK, \(schema.expressions(row: "t")) "
            + "FROM \(schema.index.table) t WHERE t.Z_PK >= ? AND t.Z_PK < ?"
        try store.connection.execute(sql, [.integer(keys.lowerBound), .integer(keys.upperBound)])
    }

    /// Where a column's text comes from in a batch row.
    private enum RowSource {
        /// Nothing of the batch's entity: NULL, as the table's column is for its rows.
        case none
        /// The attribute in this slot (a searchable attribute is a string: text or NULL).
        case value(slot: Int)
        /// The text of the to-one's target (`names[lookup]`).
        case toOne(slot: Int, lookup: Int)
        /// The texts of the to-many's targets in key order, space-separated.
        case toMany(slot: Int, lookup: Int)
    }

    /// A destination column's text by key, each read once.
    private final class NameLookup {
        let statement: Statement
        var names: [Int64: SQLiteValue] = [:]

        init(statement: Statement) { self.statement = statement }

        /// The text of row `key` (NULL when there is none), or nil when it is not text: its
        /// text as SQL would make it is left to SQL.
        func name(_ key: Int64) throws -> SQLiteValue? {
            let value: SQLiteValue
            if let known = names[key] {
                value = known
            } else {
                // Reset after every use (and by `step` on an error): ready to bind.
                statement.bind(key, at: 0)
                value = try statement.step() ? statement.value(at: 0) : .null
                statement.reset()
                names[key] = value
            }
            switch value {
            case .text, .null: return value
            default: return nil
            }
        }
    }

    /// Writes the batch's index rows from its values, as the triggers' SQL would make them:
    /// attributes as they are; a to-one's target's text, or NULL; a to-many's targets' texts in
    /// key order, space-separated, NULLs left out (`group_concat`), NULL when none is left.
    /// False, having written nothing it would not write again, when the SQL is left to say:
    /// a destination in the indexed table itself (a target could be one of the batch's rows),
    /// or a destination's text that is not text (a number's or a blob's text is SQLite's to make).
    private func indexFromValues(_ insert: BatchInsert, firstKey: Int64, in store: SQLiteStore) throws -> Bool {
        let entity = insert.entity
        let index = schema.index
        var lookups: [NameLookup] = []
        /// A new lookup of `table`'s `column` by key; its place in `lookups`.
        func lookUp(_ column: String, in table: String) throws -> Int {
            lookups.append(NameLookup(statement: try store.connection.cachedStatement("SELECT \(column) FROM \(table) WHERE Z_PK = ?")))
            return lookups.count - 1
        }
        var sources: [RowSource] = []
        sources.reserveCapacity(index.columns.count)
        for column in index.columns {
            switch column.source {
            case .attribute(let name):
                let attribute = entity.attributes.first { $0.column == name }
                sources.append(attribute.map { .value(slot: $0.slot) } ?? .none)
            case .toOne(let key, let table, let name):
                guard table != index.table else { return false }
                let relationship = entity.relationships.first { relationship in
                    if !relationship.isToMany, case .foreignKey(key, _) = relationship.storage { return true }
                    return false
                }
                guard let relationship else { sources.append(.none); continue }
                sources.append(.toOne(slot: relationship.slot, lookup: try lookUp(name, in: table)))
            case .toMany(let joinTable, let own, let other, let table, let name):
                guard table != index.table else { return false }
                let storage = RelationshipStorage.joinTable(table: joinTable, sourceColumn: own, destinationColumn: other)
                guard let relationship = entity.relationships.first(where: { $0.isToMany && $0.storage == storage }) else {
                    sources.append(.none)
                    continue
                }
                sources.append(.toMany(slot: relationship.slot, lookup: try lookUp(name, in: table)))
            }
        }
        // The keys are new, so the index has no rows for them, unless something wrote it
        // without the store (its content table says; if that cannot be read, assume so): then
        // each row replaces what is there.
        let replacing: Bool
        do {
            let highest = try store.connection.scalar("SELECT max(id) FROM \(schema.quotedName)_content")?.integerValue
            replacing = highest.map { $0 >= firstKey } ?? false
        } catch {
            replacing = true
        }
        let placeholders = Array(repeating: "?", count: index.columns.count + 1).joined(separator: ", ")
        let statement = try store.connection.cachedStatement(
            "INSERT\(replacing ? " OR REPLACE" : "") INTO \(schema.quotedName) (\(schema.columnList)) VALUES (\(placeholders))")
        var keys: [Int64] = []
        // A to-many's texts, joined with spaces as UTF-8 bytes and bound as they are: the
        // generic `joined(separator:)` cost about 2,900 instructions a photo.
        var joined: [UInt8] = []
        for (position, row) in insert.rows.enumerated() {
            statement.bind(firstKey + Int64(position), at: 0)
            for (column, source) in sources.enumerated() {
                let value: SQLiteValue
                switch source {
                case .none:
                    value = .null
                case .value(let slot):
                    value = row.values[slot]
                case .toOne(let slot, let lookup):
                    guard let target = row.toOne[slot] else { value = .null; break }
                    guard let name = try lookups[lookup].name(target.primaryKey) else { return false }
                    value = name
                case .toMany(let slot, let lookup):
                    keys.removeAll(keepingCapacity: true)
                    for target in row.toMany[slot] { keys.append(target.primaryKey) }
                    keys.sort()
                    joined.removeAll(keepingCapacity: true)
                    var count = 0
                    for key in keys {
                        switch try lookups[lookup].name(key) {
                        case .text(var text)?:
                            // The triggers' group_concat(…, ' '): texts in key order, NULLs left out,
                            // an empty text kept (between two spaces).
                            if count > 0 { joined.append(UInt8(ascii: " ")) }
                            text.withUTF8 { joined.append(contentsOf: $0) }
                            count += 1
                        case .null?: break
                        default: return false
                        }
                    }
                    if count == 0 {
                        statement.bindNull(at: column + 1)
                    } else {
                        statement.bindText(utf8: joined, at: column + 1)
                    }
                    continue
                }
                statement.bind(value, at: column + 1)
            }
            try statement.run()
        }
        return true
    }
}

/// What a store needs done to its search indexes: statements to run before the rest of a
/// migration (dropping the triggers, which would stop SQLite from renaming or dropping what
/// they name) and after it (making or remaking indexes).
struct SearchIndexPlan {
    var before: [String] = []
    var after: [String] = []
    var isEmpty: Bool { before.isEmpty && after.isEmpty }

    /// Compares the store's search objects with the model's.
    ///
    /// When the rest of the migration changes the store (`migrating`), every search index is
    /// remade after it and every search object of ours — the model's, and any an older model
    /// left — is dropped before it. Otherwise each index the model asks for is remade only
    /// when its table or one of its triggers is missing or differs (someone dropped it, or an
    /// older version made it), since a write may then have gone unindexed; search objects the
    /// model does not ask for are left alone, so that a tool opening a store with a model
    /// inferred from it (which declares nothing searchable) changes nothing.
    static func make(connection: Connection, model: ObjectModel, migrating: Bool) throws -> SearchIndexPlan {
        let objects = try connection.rows("SELECT type, name, sql FROM sqlite_master WHERE type IN ('table', 'trigger')") {
            (type: $0.string(at: 0) ?? "", name: $0.string(at: 1) ?? "", sql: $0.string(at: 2) ?? "")
        }
        var plan = SearchIndexPlan()
        if migrating {
            for object in objects where object.type == "trigger" && isOurTrigger(object.name) {
                plan.before.append("DROP TRIGGER IF EXISTS \(quoteIdentifier(object.name))")
            }
            for object in objects where object.type == "table" && isOurIndexTable(object.name, sql: object.sql) {
                plan.before.append("DROP TABLE IF EXISTS \(quoteIdentifier(object.name))")
            }
            for index in model.searchIndexes { plan.after += SearchIndexSchema(index: index).rebuildStatements }
            return plan
        }
        for index in model.searchIndexes {
            let schema = SearchIndexSchema(index: index)
            let table = objects.first { $0.type == "table" && $0.name == index.name }
            let existing = objects.filter { $0.type == "trigger" && $0.name.hasPrefix(index.name + "_") }
            let expected = schema.triggers
            let triggersMatch = existing.count == expected.count
                && expected.allSatisfy { trigger in existing.contains { $0.name == trigger.name && $0.sql == trigger.sql } }
            if table?.sql == schema.createTableSQL && triggersMatch { continue }
            plan.after += existing.map { "DROP TRIGGER IF EXISTS \(quoteIdentifier($0.name))" }
            plan.after += schema.rebuildStatements
        }
        return plan
    }

    /// `FTS_<…>_SEARCH_<…>`: a trigger of one of our search indexes.
    static func isOurTrigger(_ name: String) -> Bool {
        name.hasPrefix(SearchIndex.namePrefix) && name.contains(SearchIndex.nameSuffix + "_")
    }

    /// `FTS_<…>_SEARCH`, an FTS5 table: one of our search indexes.
    static func isOurIndexTable(_ name: String, sql: String) -> Bool {
        name.hasPrefix(SearchIndex.namePrefix) && name.hasSuffix(SearchIndex.nameSuffix)
            && sql.hasPrefix("CREATE VIRTUAL TABLE") && sql.lowercased().contains("using fts5(")
    }
}
