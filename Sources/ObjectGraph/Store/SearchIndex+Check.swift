import Foundation
import SQLiteDB

/// Something wrong with a store's search index.
public struct SearchIndexProblem: Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, with the names or keys concerned.
    public enum Kind: Sendable, Equatable {
        /// The index's table is not in the store.
        case missing
        /// Triggers that keep the index are missing or differ from the model's (their names).
        case triggers([String])
        /// FTS5's own `integrity-check` failed: the index does not match its stored text.
        case damaged(String)
        /// Rows of the table that have no index row (their primary keys, ascending).
        case unindexed([Int64])
        /// Index rows that belong to no row of the table (their row ids, ascending).
        case orphaned([Int64])
        /// Rows whose index text is not their current text (their primary keys, ascending).
        case stale([Int64])
    }

    /// The index (`FTS_ZPHOTO_SEARCH`).
    public let index: String
    /// The table it indexes (`ZPHOTO`).
    public let table: String
    /// What is wrong.
    public let kind: Kind

    /// One line naming the index or table and what is wrong (at most ten keys).
    public var description: String {
        func keys(_ keys: [Int64]) -> String {
            keys.prefix(10).map(String.init).joined(separator: ", ") + (keys.count > 10 ? ", …" : "")
        }
        switch kind {
        case .missing: return "the search index \(index) is missing"
        case .triggers(let names): return "the search index \(index) lacks its triggers \(names.joined(separator: ", "))"
        case .damaged(let detail): return "the search index \(index) is damaged: \(detail)"
        case .unindexed(let rows): return "\(rows.count) rows of \(table) are not in the search index (keys \(keys(rows)))"
        case .orphaned(let rows): return "the search index holds \(rows.count) rows that \(table) does not (keys \(keys(rows)))"
        case .stale(let rows): return "\(rows.count) rows of \(table) have stale text in the search index (keys \(keys(rows)))"
        }
    }
}

/// Verifies a store's search indexes: each is there with its triggers, FTS5's `integrity-check`
/// passes (the index matches the text it stores), and the text it stores is every row's
/// current text, for every row and nothing else.
///
/// ```swift
/// let problems = try SearchIndexCheck.problems(on: connection, model: model)   // [] when sound
/// ```
public enum SearchIndexCheck {
    /// - Throws: `SQLiteError` when the store cannot be read.
    public static func problems(on connection: Connection, model: ObjectModel) throws -> [SearchIndexProblem] {
        var problems: [SearchIndexProblem] = []
        for index in model.searchIndexes {
            let schema = SearchIndexSchema(index: index)
            func problem(_ kind: SearchIndexProblem.Kind) { problems.append(SearchIndexProblem(index: index.name, table: index.table, kind: kind)) }
            guard try connection.tableExists(index.name) else {
                problem(.missing)
                continue
            }
            let stored = Dictionary(try connection.rows("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'") {
                ($0.string(at: 0) ?? "", $0.string(at: 1) ?? "")
            }, uniquingKeysWith: { first, _ in first })
            let lacking = schema.triggers.filter { stored[$0.name] != $0.sql }.map(\.name)
            if !lacking.isEmpty { problem(.triggers(lacking)) }
            if let failure = try integrityFailure(of: index, on: connection) { problem(.damaged(failure)) }
            let name = schema.quotedName
            // Rows without an index row and rows whose index text is not their text, in one
            // pass over the table (each row's text is computed once, its index row read once).
            let differs = index.columns.map { "f.\(quoteIdentifier($0.name)) IS NOT \(schema.expression($0, row: "t"))" }
                .joined(separator: " OR ")
            let mismatched = try connection.rows("SELECT t.Z_PK, f.rowid IS NULL FROM \(index.table) t LEFT JOIN \(name) f "
                                                 + "ON f.rowid = t.Z_PK WHERE f.rowid IS NULL OR \(differs) ORDER BY 1") {
                (key: $0.int64(at: 0), unindexed: $0.int64(at: 1) == 1)
            }
            let unindexed = mismatched.filter(\.unindexed).map(\.key)
            if !unindexed.isEmpty { problem(.unindexed(unindexed)) }
            let orphaned = try keys("SELECT f.rowid FROM \(name) f WHERE NOT EXISTS "
                                    + "(SELECT 1 FROM \(index.table) t WHERE t.Z_PK = f.rowid) ORDER BY 1", on: connection)
            if !orphaned.isEmpty { problem(.orphaned(orphaned)) }
            let stale = mismatched.filter { !$0.unindexed }.map(\.key)
            if !stale.isEmpty { problem(.stale(stale)) }
        }
        return problems
    }

    private static func keys(_ sql: String, on connection: Connection) throws -> [Int64] {
        try connection.rows(sql) { $0.int64(at: 0) }
    }

    /// FTS5's `integrity-check` is an INSERT, so it needs a writable connection: a reader's
    /// (`query_only`) is let write for the moment it runs, inside a savepoint rolled back after.
    /// A file SQLite could only open read-only cannot run it; the other checks still do.
    private static func integrityFailure(of index: SearchIndex, on connection: Connection) throws -> String? {
        let wasQueryOnly = try connection.scalar("PRAGMA query_only")?.integerValue == 1
        if wasQueryOnly { try connection.execute("PRAGMA query_only = OFF") }
        defer { if wasQueryOnly { try? connection.execute("PRAGMA query_only = ON") } }
        do {
            try connection.execute("SAVEPOINT search_index_check")
            defer {
                try? connection.execute("ROLLBACK TO SAVEPOINT search_index_check")
                try? connection.execute("RELEASE SAVEPOINT search_index_check")
            }
            try connection.execute("INSERT INTO \(index.name) (\(index.name), rank) VALUES ('integrity-check', 1)")
            return nil
        } catch let error as SQLiteError where error.resultCode == 8 {
            // SQLITE_READONLY: the file cannot be written at all (read-only media, permissions).
            return nil
        } catch let error as SQLiteError where error.resultCode == 11 {
            // SQLITE_CORRUPT (and SQLITE_CORRUPT_VTAB): what the command reports a mismatch with.
            return error.message
        }
    }
}

extension StoreCoordinator {
    /// The problems of the store's search indexes (see `SearchIndexCheck`).
    public func searchIndexProblems() throws -> [SearchIndexProblem] {
        try withConnection { try SearchIndexCheck.problems(on: $0, model: model) }
    }
}
