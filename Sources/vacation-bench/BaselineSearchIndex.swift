import Foundation
import ObjectGraph
import Vacations

/// The baseline's search index writes: the framework keeps `FTS_ZPHOTO_SEARCH` with triggers;
/// the baseline's store has the same table without them, and the baseline writes each photo's
/// row by hand from what it has in memory — one insert per new photo, a delete and an insert
/// per photo whose text changed, a delete per photo removed. The text is the triggers' text:
/// title, description, owner, the place's name, the tags' names in tag key order.
final class BaselineSearchIndex {
    static let table = "FTS_ZPHOTO_SEARCH"
    private let insertRow: RawStatement
    private let deleteRow: RawStatement

    init(database: RawDatabase) throws {
        insertRow = try database.prepare(
            "INSERT INTO \(Self.table) (rowid, title, subtitle, owner, place, tags) VALUES (?, ?, ?, ?, ?, ?)")
        deleteRow = try database.prepare("DELETE FROM \(Self.table) WHERE rowid = ?")
    }

    /// Writes photo `key`'s row; `tags` are (key, name) pairs in any order.
    func insert(key: Int64, _ draft: PhotoDraft, place: String?, tags: [(key: Int64, name: String)]) throws {
        insertRow.bind(key, 0)
        insertRow.bind(draft.title, 1)
        insertRow.bind(draft.subtitle, 2)
        insertRow.bind(draft.owner, 3)
        insertRow.bind(place, 4)
        insertRow.bind(tags.isEmpty ? nil : tags.sorted { $0.key < $1.key }.map(\.name).joined(separator: " "), 5)
        try insertRow.run()
    }

    func delete(key: Int64) throws {
        deleteRow.bind(key, 0)
        try deleteRow.run()
    }

    /// Makes a store for the baseline: the framework's tables, the search index without the
    /// triggers that would write it behind the baseline's back.
    static func makeStore(at path: String) throws {
        // Vacations keep persistent history: the baseline writes the same rows (`BaselineHistory`).
        _ = try StoreCoordinator(url: URL(fileURLWithPath: path), model: VacationModel.model, tracksHistory: true)
        let database = try RawDatabase(path: path)
        var names: [String] = []
        do {
            let triggers = try database.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '\(table)_%'")
            while try triggers.step() { names.append(triggers.string(0) ?? "") }
        }
        for name in names { try database.execute("DROP TRIGGER \(name)") }
    }
}
