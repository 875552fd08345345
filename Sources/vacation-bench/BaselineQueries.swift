import CSQLite
import Foundation

/// A photo as the baseline reads it: a plain struct, with its place's name when asked for.
struct PhotoRow {
    var key: Int64
    var version: Int64
    var dateTaken: Date?
    var dateUploaded: Date?
    var latitude: Double?
    var longitude: Double?
    var visited: Date?
    var imageURL: String?
    var media: String?
    var owner: String?
    var subtitle: String?
    var thumbnailURL: String?
    var title: String?
    var unique: String?
    var placeName: String?

    /// Every attribute of `ZPHOTO`, in the order `init(_:)` reads them.
    static let columns = "p.Z_PK, p.Z_OPT, p.ZDATETAKEN, p.ZDATEUPLOADED, p.ZLATITUDE, p.ZLONGITUDE, p.ZVISITED, "
        + "p.ZIMAGEURL, p.ZMEDIA, p.ZOWNER, p.ZSUBTITLE, p.ZTHUMBNAILURL, p.ZTITLE, p.ZUNIQUE"

    /// Reads the current row; the place name, when selected, follows the photo's columns.
    init(_ statement: RawStatement, withPlace: Bool) {
        key = statement.int64(0)
        version = statement.int64(1)
        dateTaken = statement.date(2)
        dateUploaded = statement.date(3)
        latitude = statement.optionalDouble(4)
        longitude = statement.optionalDouble(5)
        visited = statement.date(6)
        imageURL = statement.string(7)
        media = statement.string(8)
        owner = statement.string(9)
        subtitle = statement.string(10)
        thumbnailURL = statement.string(11)
        title = statement.string(12)
        unique = statement.string(13)
        placeName = withPlace ? statement.string(14) : nil
    }
}

/// The baseline's reads: one SELECT each, joins where a place name is needed, rows into structs.
/// Statements are prepared once per connection and kept, as the framework keeps its own in its
/// connection's statement cache.
final class BaselineReader {
    let database: RawDatabase
    private var statements: [String: RawStatement] = [:]

    static let withPlace = "SELECT \(PhotoRow.columns), pl.ZNAME FROM ZPHOTO p LEFT JOIN ZPLACE pl ON pl.Z_PK = p.ZPLACE"

    init(database: RawDatabase) {
        self.database = database
    }

    private func rows(_ sql: String, withPlace: Bool, bind: (RawStatement) -> Void = { _ in }) throws -> [PhotoRow] {
        let statement: RawStatement
        if let cached = statements[sql] {
            statement = cached
        } else {
            statement = try database.prepare(sql)
            statements[sql] = statement
        }
        defer { statement.reset() }
        bind(statement)
        var rows: [PhotoRow] = []
        while try statement.step() { rows.append(PhotoRow(statement, withPlace: withPlace)) }
        return rows
    }

    /// Every photo sorted by title, with its place's name.
    func fetchAll() throws -> [PhotoRow] {
        try rows(Self.withPlace + " ORDER BY p.ZTITLE", withPlace: true)
    }

    /// Photos carrying the tag `tag`, in key order.
    func photos(taggedWith tag: String) throws -> [PhotoRow] {
        try rows("SELECT \(PhotoRow.columns) FROM ZPHOTO p WHERE p.Z_PK IN "
                 + "(SELECT j.Z_2PHOTOS FROM Z_2TAGS j JOIN ZTAG t ON t.Z_PK = j.Z_4TAGS WHERE t.ZNAME = ?) ORDER BY p.Z_PK",
                 withPlace: false) { $0.bind(tag, 0) }
    }

    /// Photos whose place's name begins with `prefix` (case-sensitive: a range on the name's index).
    func photos(placePrefix prefix: String) throws -> [PhotoRow] {
        var upper = Array(prefix.utf8)
        upper[upper.count - 1] += 1
        return try rows("SELECT \(PhotoRow.columns) FROM ZPHOTO p JOIN ZPLACE pl ON pl.Z_PK = p.ZPLACE "
                        + "WHERE pl.ZNAME >= ? AND pl.ZNAME < ? ORDER BY p.Z_PK", withPlace: false) { statement in
            statement.bind(prefix, 0)
            statement.bind(String(decoding: upper, as: UTF8.self), 1)
        }
    }

    /// Every photo in sections by place name, by date taken within a section.
    func sections() throws -> [(name: String, rows: [PhotoRow])] {
        var sections: [(name: String, rows: [PhotoRow])] = []
        for row in try rows(Self.withPlace + " ORDER BY pl.ZNAME, p.ZDATETAKEN", withPlace: true) {
            let name = row.placeName ?? ""
            if sections.last?.name == name {
                sections[sections.count - 1].rows.append(row)
            } else {
                sections.append((name, [row]))
            }
        }
        return sections
    }

    /// Opens the store and reads the 50 photos taken first, with their places.
    static func firstPage(storeAt path: String) throws -> [PhotoRow] {
        try BaselineReader(database: try RawDatabase(path: path, readOnly: true))
            .rows(withPlace + " ORDER BY p.ZDATETAKEN LIMIT 50", withPlace: true)
    }
}

enum BaselineQueries {
    /// Copies the store with the online backup API and checks the copy, as a backup does.
    static func backup(storeAt path: String, to copyPath: String) throws {
        let source = try RawDatabase(path: path, readOnly: true)
        var copyHandle: OpaquePointer?
        guard sqlite3_open_v2(copyPath, &copyHandle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK,
              let copyHandle else {
            throw RawSQLiteError(code: SQLITE_CANTOPEN, message: "cannot create \(copyPath)")
        }
        defer { sqlite3_close_v2(copyHandle) }
        guard let backup = sqlite3_backup_init(copyHandle, "main", source.handle, "main") else {
            throw RawSQLiteError(code: sqlite3_errcode(copyHandle), message: "backup_init")
        }
        let code = sqlite3_backup_step(backup, -1)
        sqlite3_backup_finish(backup)
        guard code == SQLITE_DONE else { throw RawSQLiteError(code: code, message: "backup_step") }
        guard sqlite3_exec(copyHandle, "PRAGMA journal_mode = DELETE", nil, nil, nil) == SQLITE_OK else {
            throw RawSQLiteError(code: sqlite3_errcode(copyHandle), message: "journal_mode")
        }
        // As `vacation backup` checks its copy (issue 22): whole, the source's page count.
        guard pageCount(copyHandle) == pageCount(source.handle), pageCount(copyHandle) > 0 else {
            throw RawSQLiteError(code: SQLITE_CORRUPT, message: "the copy is not the store's size")
        }
    }

    private static func pageCount(_ handle: OpaquePointer) -> Int64 {
        var statement: OpaquePointer?
        sqlite3_prepare_v2(handle, "PRAGMA page_count", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        return sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : -1
    }
}
