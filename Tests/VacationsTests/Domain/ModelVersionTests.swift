import Documents
import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport
@testable import Vacations

/// Model version 2 (the `Album` entity) against a vacation that version 1 wrote
/// (`Fixtures/model-v1`, made by the command of main before the change).
@MainActor
@Suite("Model version 2: vacations of version 1 migrate as Core Data would migrate them")
struct ModelVersionTests {
    /// A library holding a copy of the version-1 vacation, as `Sample`.
    private func libraryWithOldVacation() throws -> (TemporaryDirectory, URL) {
        let directory = try TemporaryDirectory(prefix: "model-v1")
        let library = directory.path("library")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        let fixture = try #require(Bundle.module.resourceURL).appendingPathComponent("Fixtures/model-v1/Sample.vacation")
        try FileManager.default.copyItem(at: fixture, to: library.appendingPathComponent("Sample.vacation"))
        return (directory, library)
    }

    private func store(in library: URL) -> URL {
        library.appendingPathComponent("Sample.vacation/StoreContent/persistentStore")
    }

    /// Everything the vacation holds, by names (not keys): each photo's fields with its place and
    /// tags, each tag with its count, each place with its fields. `links` and `ent` name the
    /// join table and its columns, which the migration renames.
    private func content(_ url: URL, links: String, photoColumn: String, tagColumn: String) throws -> [String] {
        let connection = try Connection(path: url.path, configuration: .init(readOnly: true, create: false, journalMode: nil))
        let photos = try connection.rows("""
            SELECT p.ZUNIQUE, p.ZTITLE, p.ZSUBTITLE, p.ZOWNER, p.ZIMAGEURL, p.ZTHUMBNAILURL, p.ZMEDIA, p.ZDATETAKEN, p.ZDATEUPLOADED,
                   p.ZLATITUDE, p.ZLONGITUDE, p.ZVISITED, pl.ZNAME,
                   (SELECT group_concat(name, ',') FROM (SELECT t.ZNAME AS name FROM \(links) j JOIN ZTAG t ON t.Z_PK = j.\(tagColumn)
                    WHERE j.\(photoColumn) = p.Z_PK ORDER BY t.ZNAME))
            FROM ZPHOTO p LEFT JOIN ZPLACE pl ON pl.Z_PK = p.ZPLACE ORDER BY p.ZUNIQUE
            """) { row in (0..<14).map { "\(row.value(at: $0))" }.joined(separator: "|") }
        let tags = try connection.rows("SELECT ZNAME, ZCOUNT FROM ZTAG ORDER BY ZNAME") { "\($0.string(at: 0) ?? "")=\($0.int64(at: 1))" }
        let places = try connection.rows("SELECT ZNAME, ZPLACEID, ZFIRSTVISITED FROM ZPLACE ORDER BY ZNAME") { row in
            (0..<3).map { "\(row.value(at: $0))" }.joined(separator: "|")
        }
        let versions = try connection.rows("SELECT 'photo', sum(Z_OPT) FROM ZPHOTO UNION ALL SELECT 'tag', sum(Z_OPT) FROM ZTAG") {
            "\($0.string(at: 0) ?? "") \($0.int64(at: 1))"
        }
        return photos + tags + places + versions
    }

    /// The shape of a store: every table's columns, every index's table, uniqueness and
    /// columns, every trigger and virtual table's SQL. (A table SQLite renamed keeps its new
    /// name in quotes in its stored SQL, which is why columns are compared, not CREATE text.)
    private func layout(_ url: URL) throws -> [String] {
        let connection = try Connection(path: url.path, configuration: .init(readOnly: true, create: false, journalMode: nil))
        let objects = try connection.rows("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name") {
            (type: $0.string(at: 0) ?? "", name: $0.string(at: 1) ?? "", table: $0.string(at: 2) ?? "", sql: $0.string(at: 3) ?? "")
        }
        var result: [String] = []
        for object in objects {
            switch object.type {
            case "table" where !object.sql.hasPrefix("CREATE VIRTUAL"):
                let columns = try connection.rows("SELECT name, type, pk FROM pragma_table_info(?)", [.text(object.name)]) {
                    "\($0.string(at: 0) ?? "") \($0.string(at: 1) ?? "") \($0.int64(at: 2))"
                }
                result.append("table \(object.name): " + columns.joined(separator: ", "))
            case "index":
                let columns = try connection.rows("SELECT name FROM pragma_index_info(?)", [.text(object.name)]) { $0.string(at: 0) ?? "" }
                result.append("index \(object.name) on \(object.table) (\(columns.joined(separator: ", "))) \(object.sql.contains("UNIQUE") ? "unique" : "")")
            default:
                result.append("\(object.type) \(object.name): \(object.sql)")
            }
        }
        return result
    }

    @Test("opening a version-1 vacation migrates it: every photo, link, count and place kept, the layout a new store's, check passing")
    func migratesOnOpen() throws {
        let (directory, libraryURL) = try libraryWithOldVacation()
        defer { withExtendedLifetime(directory) {} }
        let url = store(in: libraryURL)
        let before = try content(url, links: "Z_1TAGS", photoColumn: "Z_1PHOTOS", tagColumn: "Z_3TAGS")
        // 42 photos (192 tag links among them), 123 tags (one went when a re-import dropped it: Z_MAX is 124), 7 places.
        #expect(before.count == 42 + 123 + 7 + 2)
        let links = before.prefix(42).map { (line: String) -> Int in
            let tags = line.split(separator: "|", omittingEmptySubsequences: false).last ?? ""
            return tags == "null" ? 0 : tags.split(separator: ",").count
        }
        #expect(links.reduce(0, +) == 192)
        let oldKeys = try Connection(path: url.path, configuration: .init(readOnly: true, create: false, journalMode: nil))
            .rows("SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT") { "\($0.int64(at: 0)) \($0.string(at: 1) ?? "") \($0.int64(at: 2))" }
        #expect(oldKeys == ["1 Photo 42", "2 Place 7", "3 Tag 124"])

        let library = try VacationLibrary(url: libraryURL, configuration: .init(autosaveDelay: nil, handlesStopSignals: false))
        // A reader opens it: the vacation is migrated first, as a writer would, then read.
        let document = try library.open("Sample", access: .read)
        #expect(document.state == .editingDisabled)
        let context = try document.newRootContext()
        #expect(try context.count(Photo.self) == 42)
        #expect(try VacationCheck.problems(in: document.coordinator) == [])
        #expect(try VacationSearch.photos(matching: "belem", in: context).map(\.unique) == ["52814571233", "52814563021"])
        try document.close()

        #expect(try content(url, links: "Z_2TAGS", photoColumn: "Z_2PHOTOS", tagColumn: "Z_4TAGS") == before)
        let keys = try Connection(path: url.path, configuration: .init(readOnly: true, create: false, journalMode: nil))
            .rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT") {
                "\($0.int64(at: 0)) \($0.string(at: 1) ?? "") \($0.int64(at: 2)) \($0.int64(at: 3))"
            }
        // Vacations keep persistent history: the migrated store gets Core Data's history tables too.
        #expect(keys == ["1 Album 0 0", "2 Photo 0 42", "3 Place 0 7", "4 Tag 0 124",
                         "16001 CHANGE 0 0", "16002 TRANSACTION 0 0", "16003 TRANSACTIONSTRING 0 0"])
        let fresh = try TemporaryDirectory(prefix: "model-v2")
        _ = try StoreCoordinator(url: fresh.path("store"), model: VacationModel.model, tracksHistory: true)
        #expect(try layout(url) == (try layout(fresh.path("store"))))
        #expect(try layout(url).contains("table Z_2TAGS: Z_2PHOTOS INTEGER 1, Z_4TAGS INTEGER 2"))
        let plist = try Data(contentsOf: libraryURL.appendingPathComponent("Sample.vacation/DocumentMetadata.plist"))
        let metadata = try PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any]
        #expect(metadata?["modelVersion"] as? String == "2")
        let coordinator = try StoreCoordinator(url: url, model: VacationModel.model, readOnly: true)
        #expect(coordinator.metadata["NSStoreModelVersionIdentifiers"] as? [String] == ["2"])
        #expect((coordinator.metadata["NSStoreModelVersionHashes"] as? [String: Data])?.keys.sorted() == ["Album", "Photo", "Place", "Tag"])
    }

    @Test("after the migration the vacation works as a new one: albums, edits, search and check")
    func worksAfterMigration() throws {
        let (directory, libraryURL) = try libraryWithOldVacation()
        defer { withExtendedLifetime(directory) {} }
        let library = try VacationLibrary(url: libraryURL, configuration: .init(autosaveDelay: nil, handlesStopSignals: false))
        let document = try library.open("Sample", access: .write)
        let context = try document.newRootContext()
        try VacationAlbums.create(name: "Kyoto", predicate: "place.name BEGINSWITH 'Kyoto'", in: context)
        _ = try VacationEditor(context: context).unvisit(["52814563021"])
        try context.save()
        #expect(try VacationAlbums.list(in: context).map { "\($0.name) \($0.photos ?? -1)" } == ["Kyoto 10"])
        #expect(try VacationSearch.photos(matching: "belem", in: context).map(\.unique) == ["52814571233"])
        #expect(try VacationCheck.problems(in: document.coordinator) == [])
        try document.close()
        // The documents layer alone still refuses to read an old store without migrating it.
        let (otherDirectory, otherLibrary) = try libraryWithOldVacation()
        defer { withExtendedLifetime(otherDirectory) {} }
        let documents = try DocumentLibrary(url: otherLibrary, model: VacationModel.model,
                                            documentConfiguration: .init(autosaveDelay: nil, handlesStopSignals: false))
        let refused = #expect(throws: DocumentError.self) { try documents.open(named: "Sample", mode: .readOnly) }
        #expect(refused?.kind == .migrationFailed(detail: "the store needs migrating to this model, but it is open read-only"))
    }
}
