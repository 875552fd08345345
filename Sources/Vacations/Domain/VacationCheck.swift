import Foundation
import ObjectGraph
import SQLiteDB

/// Verifies a vacation's store: SQLite's own integrity check, then ARCHITECTURE.md §3's invariants —
/// every tag's count equals its linked photos, no tag or place without photos, no id, tag or
/// place name twice, no relationship row pointing at nothing — and the search index: there,
/// sound (FTS5's integrity-check) and holding every photo's current text, nothing else.
///
/// ```swift
/// let problems = try VacationCheck.problems(in: coordinator)   // [] when sound
/// ```
package enum VacationCheck {
    /// The problems of the coordinator's store, SQLite's first.
    ///
    /// SQLite's integrity check reads every page and every index entry and takes about as long
    /// as all the other checks together: it runs meanwhile on a read-only connection of its
    /// own, on another thread. Each part reads one snapshot; a write that another process
    /// commits between the two starts is seen by one part only, as it would be by two checks
    /// run one after the other.
    package static func problems(in coordinator: StoreCoordinator) throws -> [String] {
        let integrity = IntegrityCheckRun(path: coordinator.url.path)
        let invariants: [String]
        do {
            invariants = try coordinator.withConnection { connection in
                try mapped(connection) { try invariantProblems(on: connection, model: coordinator.model) }
            }
        } catch {
            _ = try? integrity.problems()  // its answer no longer matters, but it must finish first
            throw error
        }
        return try integrity.problems() + invariants
    }

    /// How much of the store the check reads through a memory map (SQLite caps it at its
    /// own limit, 2 GB in Debian's build): every check reads the whole store, and through the
    /// page cache each page is a `pread` copied from the kernel, a third of the time of
    /// `PRAGMA integrity_check` on a large store.
    static let mappedBytes: Int64 = 1 << 31

    /// The same checks on a connection to a vacation store (for read-only use), one after the other.
    package static func problems(on connection: Connection, model: ObjectModel = VacationModel.model) throws -> [String] {
        try mapped(connection) { try integrityProblems(on: connection) + invariantProblems(on: connection, model: model) }
    }

    /// Runs `body` with `connection` reading through a memory map.
    static func mapped<T>(_ connection: Connection, _ body: () throws -> T) throws -> T {
        let previousMap = try connection.scalar("PRAGMA mmap_size")?.integerValue ?? 0
        try connection.execute("PRAGMA mmap_size = \(mappedBytes)")
        // Setting the map's size back only changes how later reads are made.
        defer { try? connection.execute("PRAGMA mmap_size = \(previousMap)") }
        return try body()
    }

    static func integrityProblems(on connection: Connection) throws -> [String] {
        let integrity = try connection.integrityCheck()
        return integrity == ["ok"] ? [] : integrity.map { "SQLite integrity check: \($0)" }
    }

    private static func invariantProblems(on connection: Connection, model: ObjectModel) throws -> [String] {
        var problems: [String] = []
        guard let photo = model.entity(named: "Photo"), let tag = model.entity(named: "Tag"),
              let place = model.entity(named: "Place"),
              case .joinTable(let links, let photoColumn, let tagColumn)? = photo.relationship(named: "tags")?.storage,
              case .foreignKey(let placeColumn, _)? = photo.relationship(named: "place")?.storage,
              let unique = photo.attribute(named: "unique")?.column,
              let tagName = tag.attribute(named: "name")?.column, let tagCount = tag.attribute(named: "count")?.column,
              let placeName = place.attribute(named: "name")?.column else {
            return problems + ["the store is not a vacation: its model lacks Photo, Tag or Place"]
        }
        let photos = photo.table, tags = tag.table, places = place.table
        let queries: [(String, (Statement) -> String)] = [
            ("SELECT t.\(tagName), t.\(tagCount), (SELECT count(*) FROM \(links) j WHERE j.\(tagColumn) = t.Z_PK) AS linked "
             + "FROM \(tags) t WHERE coalesce(t.\(tagCount), -1) != (SELECT count(*) FROM \(links) j WHERE j.\(tagColumn) = t.Z_PK) ORDER BY 1",
             { "tag '\($0.string(at: 0) ?? "")' has count \($0.isNull(at: 1) ? "NULL" : String($0.int64(at: 1))) but \($0.int64(at: 2)) linked photos" }),
            ("SELECT t.\(tagName) FROM \(tags) t WHERE NOT EXISTS (SELECT 1 FROM \(links) j WHERE j.\(tagColumn) = t.Z_PK) ORDER BY 1",
             { "tag '\($0.string(at: 0) ?? "")' has no photos" }),
            ("SELECT p.\(placeName) FROM \(places) p WHERE NOT EXISTS (SELECT 1 FROM \(photos) f WHERE f.\(placeColumn) = p.Z_PK) ORDER BY 1",
             { "place '\($0.string(at: 0) ?? "")' has no photos" }),
            ("SELECT \(unique), count(*) FROM \(photos) GROUP BY \(unique) HAVING count(*) > 1 ORDER BY 1",
             { "photo id \($0.string(at: 0) ?? "NULL") appears \($0.int64(at: 1)) times" }),
            ("SELECT \(tagName), count(*) FROM \(tags) GROUP BY \(tagName) HAVING count(*) > 1 ORDER BY 1",
             { "tag '\($0.string(at: 0) ?? "")' appears \($0.int64(at: 1)) times" }),
            ("SELECT \(placeName), count(*) FROM \(places) GROUP BY \(placeName) HAVING count(*) > 1 ORDER BY 1",
             { "place '\($0.string(at: 0) ?? "")' appears \($0.int64(at: 1)) times" }),
            ("SELECT count(*) FROM \(photos) WHERE \(unique) IS NULL OR \(unique) = '' HAVING count(*) > 0",
             { "\($0.int64(at: 0)) photos have no id" }),
        ]
        for (sql, describe) in queries {
            problems += try connection.rows(sql) { describe($0) }
        }
        // Links to nothing: each key the join table names is looked up once (a photo has five
        // links or so), not once per link; only a store that has such links lists them, link by link.
        let danglingLinks = try connection.scalar(
            "SELECT EXISTS (SELECT 1 FROM (SELECT DISTINCT \(photoColumn) AS k FROM \(links)) WHERE NOT EXISTS "
            + "(SELECT 1 FROM \(photos) f WHERE f.Z_PK = k)) OR EXISTS (SELECT 1 FROM (SELECT DISTINCT \(tagColumn) AS k FROM \(links)) "
            + "WHERE NOT EXISTS (SELECT 1 FROM \(tags) t WHERE t.Z_PK = k))")?.integerValue == 1
        if danglingLinks {
            problems += try connection.rows(
                "SELECT j.\(photoColumn), j.\(tagColumn) FROM \(links) j WHERE NOT EXISTS (SELECT 1 FROM \(photos) f WHERE f.Z_PK = j.\(photoColumn)) "
                + "OR NOT EXISTS (SELECT 1 FROM \(tags) t WHERE t.Z_PK = j.\(tagColumn)) ORDER BY 1, 2") {
                "a tag link joins photo key \($0.int64(at: 0)) and tag key \($0.int64(at: 1)), one of which does not exist"
            }
        }
        problems += try connection.rows(
            "SELECT f.\(unique), f.\(placeColumn) FROM \(photos) f WHERE f.\(placeColumn) IS NOT NULL "
            + "AND NOT EXISTS (SELECT 1 FROM \(places) p WHERE p.Z_PK = f.\(placeColumn)) ORDER BY 1") {
            "photo \($0.string(at: 0) ?? "") points to place key \($0.int64(at: 1)), which does not exist"
        }
        return problems + (try searchIndexProblems(on: connection, model: model, photos: photos, unique: unique))
    }

    /// The search index's problems (`SearchIndexCheck`), naming photos by id.
    private static func searchIndexProblems(on connection: Connection, model: ObjectModel, photos: String,
                                            unique: String) throws -> [String] {
        func counted(_ count: Int) -> String { count == 1 ? "1 photo" : "\(count) photos" }
        func ids(_ keys: [Int64]) throws -> String {
            let shown = try keys.prefix(10).map { key in
                try connection.scalar("SELECT \(unique) FROM \(photos) WHERE Z_PK = ?", [.integer(key)])?.textValue ?? "key \(key)"
            }
            return shown.joined(separator: ", ") + (keys.count > 10 ? ", …" : "")
        }
        return try SearchIndexCheck.problems(on: connection, model: model).map { problem in
            switch problem.kind {
            case .missing: return "the search index is missing"
            case .triggers(let names): return "the search index lacks its triggers \(names.joined(separator: ", "))"
            case .damaged(let detail): return "the search index is damaged: \(detail)"
            case .unindexed(let keys):
                return "\(counted(keys.count)) \(keys.count == 1 ? "is" : "are") not in the search index: \(try ids(keys))"
            case .orphaned(let keys):
                return "the search index holds \(counted(keys.count)) that the vacation does not have (keys "
                    + keys.prefix(10).map(String.init).joined(separator: ", ") + (keys.count > 10 ? ", …)" : ")")
            case .stale(let keys):
                return "\(counted(keys.count)) \(keys.count == 1 ? "has" : "have") stale text in the search index: \(try ids(keys))"
            }
        }
    }
}

/// `PRAGMA integrity_check` on a read-only connection of its own, on a thread of its own.
private final class IntegrityCheckRun: @unchecked Sendable {
    // Written once by the thread before it signals; read after the wait. The lock keeps the
    // sanitizers and the compiler sure of it.
    private let lock = NSLock()
    private var result: Result<[String], any Error>?
    private let finished = DispatchSemaphore(value: 0)

    init(path: String) {
        Thread.detachNewThread { [self] in
            let outcome = Result<[String], any Error> {
                let connection = try Connection(path: path, configuration: .init(
                    readOnly: true, create: false, journalMode: nil, busyTimeout: 10, synchronous: nil))
                return try VacationCheck.mapped(connection) { try VacationCheck.integrityProblems(on: connection) }
            }
            lock.lock()
            result = outcome
            lock.unlock()
            finished.signal()
        }
    }

    /// Waits for the check; its problems, or why it could not run.
    func problems() throws -> [String] {
        finished.wait()
        finished.signal()  // a second call waits for nothing
        lock.lock()
        defer { lock.unlock() }
        return try result?.get() ?? []
    }
}
