import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport
@testable import Vacations

/// A vacation's store is laid out as Core Data would lay out the vacations model, and a vacation
/// made before that layout is brought to it the first time it is opened for writing.
@Suite("Vacation stores have Core Data's indexes; older vacations get them when opened for writing")
struct VacationStoreLayoutTests {
    /// Every index of a vacation store, as Core Data writes them for this model.
    static let indexes = [
        "CREATE INDEX ZPHOTO_ZDATETAKEN_INDEX ON ZPHOTO (ZDATETAKEN)",
        "CREATE INDEX ZPHOTO_ZPLACE_INDEX ON ZPHOTO (ZPLACE)",
        "CREATE INDEX Z_2TAGS_Z_4TAGS_INDEX ON Z_2TAGS (Z_4TAGS, Z_2PHOTOS)",
        "CREATE UNIQUE INDEX Z_Album_UNIQUE_name ON ZALBUM (ZNAME COLLATE BINARY ASC)",
        "CREATE UNIQUE INDEX Z_Photo_UNIQUE_unique ON ZPHOTO (ZUNIQUE COLLATE BINARY ASC)",
        "CREATE UNIQUE INDEX Z_Place_UNIQUE_name ON ZPLACE (ZNAME COLLATE BINARY ASC)",
        "CREATE UNIQUE INDEX Z_Tag_UNIQUE_name ON ZTAG (ZNAME COLLATE BINARY ASC)",
    ]

    /// How this framework wrote them before: names in capitals, no collation.
    static let previousIndexes = [
        "DROP INDEX Z_Photo_UNIQUE_unique", "DROP INDEX Z_Place_UNIQUE_name", "DROP INDEX Z_Tag_UNIQUE_name",
        "CREATE UNIQUE INDEX Z_PHOTO_UNIQUE_UNIQUE ON ZPHOTO (ZUNIQUE)",
        "CREATE UNIQUE INDEX Z_PLACE_UNIQUE_NAME ON ZPLACE (ZNAME)",
        "CREATE UNIQUE INDEX Z_TAG_UNIQUE_NAME ON ZTAG (ZNAME)",
    ]

    private func indexSQL(_ url: URL) throws -> [String] {
        let connection = try Connection(path: url.path, configuration: .init(readOnly: true, journalMode: nil, synchronous: nil))
        return try connection.rows("SELECT sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name") {
            $0.string(at: 0) ?? ""
        }
    }

    private func snapshot(_ url: URL) throws -> [[SQLiteValue]] {
        let connection = try Connection(path: url.path, configuration: .init(readOnly: true, journalMode: nil, synchronous: nil))
        var rows: [[SQLiteValue]] = []
        for sql in ["SELECT Z_PK, Z_ENT, Z_OPT, ZUNIQUE, ZTITLE, ZPLACE FROM ZPHOTO ORDER BY Z_PK",
                    "SELECT Z_PK, ZNAME, ZCOUNT FROM ZTAG ORDER BY Z_PK", "SELECT * FROM Z_2TAGS ORDER BY 1, 2",
                    "SELECT Z_UUID, Z_PLIST FROM Z_METADATA", "SELECT * FROM Z_PRIMARYKEY ORDER BY Z_ENT"] {
            try connection.prepare(sql).forEachRow { row in rows.append((0..<row.columnCount).map { row.value(at: $0) }) }
        }
        return rows
    }

    @Test("a new vacation store has exactly Core Data's indexes for the vacations model")
    func newStore() throws {
        let store = try VacationStore()
        #expect(try indexSQL(store.directory.path("persistentStore")) == Self.indexes)
    }

    @Test("a vacation with the previous index names reads as it is, and is brought to Core Data's layout when opened for writing")
    func previousLayout() throws {
        let store = try VacationStore()
        let url = store.directory.path("persistentStore")
        let report = store.importFeeds([SampleFeeds.url("lisbon-porto.xml")])
        #expect(report.added > 0)
        try store.coordinator.withConnection { connection in
            for sql in Self.previousIndexes { try connection.execute(sql) }
        }
        let before = try snapshot(url)
        let previous = try indexSQL(url)
        #expect(previous.contains("CREATE UNIQUE INDEX Z_PHOTO_UNIQUE_UNIQUE ON ZPHOTO (ZUNIQUE)"))

        // Reading needs no migration: the store is left exactly as it is.
        let reader = try StoreCoordinator(url: url, model: VacationModel.model, readOnly: true, journalMode: nil)
        #expect(try ObjectContext(coordinator: reader).count(for: FetchRequest<Photo>()) == report.added)
        #expect(try indexSQL(url) == previous)

        // Writing brings the indexes to Core Data's; rows, keys and metadata stay.
        let writer = try StoreCoordinator(url: url, model: VacationModel.model)
        #expect(try indexSQL(url) == Self.indexes)
        #expect(try snapshot(url) == before)
        // The uniqueness constraint still holds under its new index.
        let context = ObjectContext(coordinator: writer)
        let existing = try #require(try context.fetch(FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("unique")])).first)
        let duplicate = Photo(context: context)
        duplicate.unique = existing.unique
        #expect(throws: (any Error).self) { try context.save() }
    }
}
