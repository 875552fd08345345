import CLibXML2
import CSQLite
import Foundation
import Vacations

/// The floor for an import (`limit`): the feed read by libxml2's reader (XML) or the project's
/// JSON tokenizer alone, and the same rows inserted with the best settings SQLite offers for a
/// bulk load in WAL mode, in one process, in one transaction.
///
/// It reads only what the generated feed holds (the `url_l` and `url_sq` extras, `ownername`,
/// `derived_place`, …) and binds each attribute's bytes straight from the reader's buffer to the
/// prepared insert, with no record, draft or string in between, but it keeps every rule that
/// shapes a row (dates parsed as UTC, tags split, machine tags dropped, case folded and
/// de-duplicated, place names trimmed, places' first visits): the bench compares its store with
/// the others' value for value, so a floor that skipped work would fail, not flatter. It writes
/// each photo's search index row by hand, as the baseline does (`BaselineSearchIndex`), from
/// the same bytes it binds to the photo's row.
/// It expects an empty store (the import figures start from one).
final class LimitImporter {
    /// How the connection is tuned for the load.
    struct Settings: CustomStringConvertible {
        /// `PRAGMA cache_size = -N` (KiB); nil keeps SQLite's default (2 MB).
        var cacheKibibytes: Int?
        /// `PRAGMA mmap_size`; nil keeps the default (off).
        var mmapBytes: Int?
        /// `PRAGMA temp_store = MEMORY`.
        var memoryTempStore = false

        var description: String {
            "cache_size \(cacheKibibytes.map { "\($0 / 1024) MiB" } ?? "default"), mmap_size \(mmapBytes.map { "\($0 >> 20) MiB" } ?? "off"), "
                + "temp_store \(memoryTempStore ? "MEMORY" : "default")"
        }

        init(cacheKibibytes: Int?, mmapBytes: Int?, memoryTempStore: Bool) {
            self.cacheKibibytes = cacheKibibytes
            self.mmapBytes = mmapBytes
            self.memoryTempStore = memoryTempStore
        }

        /// `cache=MIB,mmap=MIB,temp=memory`, any of them; what is left out keeps SQLite's default.
        init(parsing text: String) throws {
            for item in text.split(separator: ",") {
                let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { throw BenchOptions.UsageError(description: "--limit-settings: '\(item)' is not NAME=VALUE") }
                switch (parts[0], Int(parts[1])) {
                case ("cache", let mebibytes?) where mebibytes > 0: cacheKibibytes = mebibytes * 1024
                case ("mmap", let mebibytes?) where mebibytes >= 0: mmapBytes = mebibytes << 20
                case ("temp", _) where parts[1] == "memory": memoryTempStore = true
                default: throw BenchOptions.UsageError(description: "--limit-settings: unknown setting '\(item)'")
                }
            }
        }

        /// What measurement chose (README.md, "Performance"): a page cache that holds the pages
        /// the load touches (the store grows by about 520 bytes a photo), nothing else.
        static func best(forFeedBytes bytes: Int) -> Settings {
            Settings(cacheKibibytes: max(2_048, bytes / 1024), mmapBytes: nil, memoryTempStore: false)
        }
    }

    /// `PhotoRow.columns`' order for the insert: parameter numbers (1-based) of each value.
    private enum Parameter {
        static let key: Int32 = 1, place: Int32 = 2, dateTaken: Int32 = 3, dateUploaded: Int32 = 4
        static let latitude: Int32 = 5, longitude: Int32 = 6, imageURL: Int32 = 7, media: Int32 = 8
        static let owner: Int32 = 9, subtitle: Int32 = 10, thumbnailURL: Int32 = 11, title: Int32 = 12
        static let visited: Int32 = 13, unique: Int32 = 14
    }

    /// The search index row's parameters (1-based).
    private enum SearchParameter {
        static let key: Int32 = 1, title: Int32 = 2, owner: Int32 = 4, place: Int32 = 5, tags: Int32 = 6
    }

    private struct TagState {
        var key: Int64
        var count: Int64
    }

    private struct PlaceState {
        var key: Int64
        var firstVisited: Double
    }

    private let database: RawDatabase
    private let insertPhoto: RawStatement
    private let insertLink: RawStatement
    private let insertSearchRow: RawStatement
    /// The history rows the framework writes too (nil when the store keeps none).
    private var history: BaselineHistory?
    private var historyKeys: [Int64: Int64] = [:]
    private let now: Double
    private var tags: [String: TagState] = [:]
    /// Tag names by key - 1, for the search index's text (names in key order).
    private var tagNames: [String] = []
    private var places: [String: PlaceState] = [:]
    private var photos: Int64 = 0
    // Per photo, while its fields arrive.
    private var tagBytes: [UInt8] = []
    private var placeBytes: [UInt8] = []
    private var latitude: Double?
    private var longitude: Double?
    private var dateTaken: Double?
    private var hasOwnerName = false
    private var photoTags: [Int64] = []

    private init(database: RawDatabase, now: Date) throws {
        self.database = database
        self.now = now.timeIntervalSinceReferenceDate
        insertPhoto = try database.prepare("""
            INSERT INTO ZPHOTO (Z_PK, Z_ENT, Z_OPT, \(BaselineImporter.photoColumns), ZVISITED, ZUNIQUE)
            VALUES (?, 2, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        insertLink = try database.prepare("INSERT INTO Z_2TAGS (Z_2PHOTOS, Z_4TAGS) VALUES (?, ?)")
        insertSearchRow = try database.prepare(
            "INSERT INTO \(BaselineSearchIndex.table) (rowid, title, subtitle, owner, place, tags) VALUES (?, ?, ?, ?, ?, ?)")
        tagBytes.reserveCapacity(256)
        placeBytes.reserveCapacity(256)
        let keys = try database.prepare("SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY")
        while try keys.step() { historyKeys[keys.int64(0)] = keys.int64(1) }
        history = try BaselineHistory(database: database, keys: &historyKeys)
    }

    /// Imports the feed at `url` (XML or JSON, by its first byte) into the empty store at `path`;
    /// returns the photos added.
    static func importFeed(_ url: URL, intoStoreAt path: String, now: Date, settings: Settings) throws -> Int {
        let database = try RawDatabase(path: path)
        if let kibibytes = settings.cacheKibibytes { try database.execute("PRAGMA cache_size = -\(kibibytes)") }
        if let bytes = settings.mmapBytes { try database.execute("PRAGMA mmap_size = \(bytes)") }
        if settings.memoryTempStore { try database.execute("PRAGMA temp_store = MEMORY") }
        let importer = try LimitImporter(database: database, now: now)
        try database.execute("BEGIN IMMEDIATE TRANSACTION")
        do {
            guard try database.integer("SELECT count(*) FROM (SELECT 1 FROM ZPHOTO LIMIT 1)") == 0 else {
                throw BenchError("the limit import needs an empty store")
            }
            if try isXML(url) { try importer.readXML(url) } else { try importer.readJSON(url) }
            try importer.finish()
            try database.execute("COMMIT TRANSACTION")
        } catch {
            try? database.execute("ROLLBACK TRANSACTION")
            throw error
        }
        return Int(importer.photos)
    }

    private static func isXML(_ url: URL) throws -> Bool {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        return try handle.read(upToCount: 1)?.first == UInt8(ascii: "<")
    }

    // MARK: One photo

    private func beginPhoto() {
        photos += 1
        sqlite3_clear_bindings(insertPhoto.handle)
        sqlite3_clear_bindings(insertSearchRow.handle)
        sqlite3_bind_int64(insertPhoto.handle, Parameter.key, photos)
        sqlite3_bind_int64(insertSearchRow.handle, SearchParameter.key, photos)
        sqlite3_bind_double(insertPhoto.handle, Parameter.visited, now)
        tagBytes.removeAll(keepingCapacity: true)
        placeBytes.removeAll(keepingCapacity: true)
        latitude = nil
        longitude = nil
        dateTaken = nil
        hasOwnerName = false
    }

    private func bindText(_ parameter: Int32, _ bytes: UnsafeRawBufferPointer, to statement: RawStatement? = nil) {
        let handle = (statement ?? insertPhoto).handle
        if let base = bytes.baseAddress {
            sqlite3_bind_text(handle, parameter, base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), transientDestructor)
        } else {
            sqlite3_bind_text(handle, parameter, "", 0, transientDestructor)
        }
    }

    /// One field of the photo being read, by its Flickr name.
    private func take(_ name: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) {
        switch name.count {
        case 2 where equals(name, "id"): bindText(Parameter.unique, value)
        case 4 where equals(name, "tags"): tagBytes.append(contentsOf: value)
        case 5 where equals(name, "title"):
            bindText(Parameter.title, value)
            bindText(SearchParameter.title, value, to: insertSearchRow)
        case 5 where equals(name, "owner"):
            if !hasOwnerName {
                bindText(Parameter.owner, value)
                bindText(SearchParameter.owner, value, to: insertSearchRow)
            }
        case 5 where equals(name, "media"): bindText(Parameter.media, value)
        case 5 where equals(name, "url_l"): bindText(Parameter.imageURL, value)
        case 6 where equals(name, "url_sq"): bindText(Parameter.thumbnailURL, value)
        case 8 where equals(name, "latitude"): latitude = Self.number(value)
        case 9 where equals(name, "longitude"): longitude = Self.number(value)
        case 9 where equals(name, "datetaken"): dateTaken = Self.takenDate(value)
        case 9 where equals(name, "ownername"):
            hasOwnerName = true
            bindText(Parameter.owner, value)
            bindText(SearchParameter.owner, value, to: insertSearchRow)
        case 10 where equals(name, "dateupload"):
            if let seconds = Self.number(value) {
                sqlite3_bind_double(insertPhoto.handle, Parameter.dateUploaded, seconds - Date.timeIntervalBetween1970AndReferenceDate)
            }
        case 13 where equals(name, "derived_place"): placeBytes.append(contentsOf: value)
        default: break
        }
    }

    private func equals(_ bytes: UnsafeRawBufferPointer, _ literal: StaticString) -> Bool {
        guard let base = bytes.baseAddress else { return literal.utf8CodeUnitCount == 0 }
        return memcmp(base, literal.utf8Start, literal.utf8CodeUnitCount) == 0
    }

    /// Writes the photo whose fields were taken, with its links; counts its tags and place.
    private func endPhoto() throws {
        if let dateTaken { sqlite3_bind_double(insertPhoto.handle, Parameter.dateTaken, dateTaken) }
        if let latitude, let longitude, (-90...90).contains(latitude), (-180...180).contains(longitude),
           latitude != 0 || longitude != 0 {
            sqlite3_bind_double(insertPhoto.handle, Parameter.latitude, latitude)
            sqlite3_bind_double(insertPhoto.handle, Parameter.longitude, longitude)
        }
        if let name = Self.placeName(placeBytes) {
            let moment = dateTaken ?? now
            let key: Int64
            if let index = places.index(forKey: name) {
                key = places.values[index].key
                places.values[index].firstVisited = min(places.values[index].firstVisited, moment)
            } else {
                key = Int64(places.count + 1)
                places[name] = PlaceState(key: key, firstVisited: moment)
            }
            sqlite3_bind_int64(insertPhoto.handle, Parameter.place, key)
            insertSearchRow.bind(name, SearchParameter.place - 1)
        }
        try insertPhoto.run()
        try history?.record(.insert, entity: 2, key: photos)
        photoTags.removeAll(keepingCapacity: true)
        forEachTag { name in
            let key: Int64
            if let index = tags.index(forKey: name) {
                key = tags.values[index].key
                guard !photoTags.contains(key) else { return }
                tags.values[index].count += 1
            } else {
                key = Int64(tags.count + 1)
                tags[name] = TagState(key: key, count: 1)
                tagNames.append(name)
            }
            photoTags.append(key)
        }
        for tag in photoTags {
            sqlite3_bind_int64(insertLink.handle, 1, photos)
            sqlite3_bind_int64(insertLink.handle, 2, tag)
            try insertLink.run()
        }
        if !photoTags.isEmpty {
            photoTags.sort()
            insertSearchRow.bind(photoTags.map { tagNames[Int($0) - 1] }.joined(separator: " "), SearchParameter.tags - 1)
        }
        try insertSearchRow.run()
    }

    /// The photo's tags: split on whitespace, machine tags (with `:`) dropped, case folded.
    private func forEachTag(_ body: (String) -> Void) {
        var start = 0
        tagBytes.append(0x20)
        for index in tagBytes.indices where Self.isWhitespace(tagBytes[index]) {
            defer { start = index + 1 }
            guard index > start else { continue }
            let token = tagBytes[start..<index]
            if token.contains(UInt8(ascii: ":")) { continue }
            if token.allSatisfy({ $0 < 0x80 }) {
                body(String(decoding: token.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self))
            } else {
                body(String(decoding: token, as: UTF8.self).lowercased())
            }
        }
    }

    /// ASCII whitespace, as Flickr's names are split: tab, line feed, vertical tab, form feed,
    /// carriage return, space.
    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    /// Trimmed, inner runs of whitespace as one space; nil when nothing is left.
    private static func placeName(_ bytes: [UInt8]) -> String? {
        guard !bytes.isEmpty else { return nil }
        var name: [UInt8] = []
        name.reserveCapacity(bytes.count)
        var pendingSpace = false
        for byte in bytes {
            if Self.isWhitespace(byte) {
                pendingSpace = !name.isEmpty
            } else {
                if pendingSpace { name.append(0x20) }
                pendingSpace = false
                name.append(byte)
            }
        }
        return name.isEmpty ? nil : String(decoding: name, as: UTF8.self)
    }

    private static func number(_ bytes: UnsafeRawBufferPointer) -> Double? {
        guard !bytes.isEmpty, bytes.count < 64 else { return nil }
        var buffer = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        return withUnsafeMutableBytes(of: &buffer) { text in
            text.copyMemory(from: bytes)
            guard let start = text.baseAddress?.assumingMemoryBound(to: CChar.self) else { return nil }
            var end: UnsafeMutablePointer<CChar>?
            let value = strtod(start, &end)
            return end == start + bytes.count ? value : nil
        }
    }

    /// `YYYY-MM-DD HH:MM:SS` in UTC, as seconds since 2001.
    private static func takenDate(_ bytes: UnsafeRawBufferPointer) -> Double? {
        guard bytes.count == 19 else { return nil }
        func digits(_ from: Int, _ count: Int) -> Int {
            var value = 0
            for index in from..<(from + count) { value = value * 10 + Int(bytes[index]) - 48 }
            return value
        }
        var year = digits(0, 4)
        let month = digits(5, 2), day = digits(8, 2)
        // Days from the civil date (Howard Hinnant's algorithm).
        year -= month <= 2 ? 1 : 0
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = days * 86_400 + digits(11, 2) * 3_600 + digits(14, 2) * 60 + digits(17, 2)
        return Double(seconds) - Date.timeIntervalBetween1970AndReferenceDate
    }

    /// The tags, places and key counters, once every photo is in.
    private func finish() throws {
        let insertTag = try database.prepare("INSERT INTO ZTAG (Z_PK, Z_ENT, Z_OPT, ZCOUNT, ZNAME) VALUES (?, 4, 1, ?, ?)")
        for (name, state) in tags {
            insertTag.bind(state.key, 0)
            insertTag.bind(state.count, 1)
            insertTag.bind(name, 2)
            try insertTag.run()
            try history?.record(.insert, entity: 4, key: state.key)
        }
        let insertPlace = try database.prepare("INSERT INTO ZPLACE (Z_PK, Z_ENT, Z_OPT, ZFIRSTVISITED, ZNAME) VALUES (?, 3, 1, ?, ?)")
        for (name, state) in places {
            insertPlace.bind(state.key, 0)
            insertPlace.bind(state.firstVisited, 1)
            insertPlace.bind(name, 2)
            try insertPlace.run()
            try history?.record(.insert, entity: 3, key: state.key)
        }
        try history?.finish(keys: &historyKeys)
        let setKey = try database.prepare("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?")
        historyKeys[2] = photos
        historyKeys[3] = Int64(places.count)
        historyKeys[4] = Int64(tags.count)
        for (entity, key) in historyKeys {
            setKey.bind(key, 0)
            setKey.bind(Int64(entity), 1)
            try setKey.run()
        }
    }

    // MARK: Readers

    /// Every `<photo>` element's attributes, through libxml2's streaming reader.
    private func readXML(_ url: URL) throws {
        if let failure = vacations_libxml2_load() { throw BenchError(String(cString: failure)) }
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOWARNING.rawValue | XML_PARSE_COMPACT.rawValue)
        guard let reader = xmlReaderForFile(url.path, nil, options) else { throw BenchError("libxml2 cannot read \(url.path)") }
        defer { xmlFreeTextReader(reader) }
        while true {
            let status = xmlTextReaderRead(reader)
            if status == 0 { break }
            guard status == 1 else { throw BenchError("libxml2 failed on \(url.path)") }
            guard xmlTextReaderNodeType(reader) == 1, let name = xmlTextReaderConstLocalName(reader),
                  strcmp(name, "photo") == 0 else { continue }
            beginPhoto()
            while xmlTextReaderMoveToNextAttribute(reader) == 1 {
                guard let attribute = xmlTextReaderConstLocalName(reader), let value = xmlTextReaderConstValue(reader) else { continue }
                take(UnsafeRawBufferPointer(start: attribute, count: strlen(attribute)),
                     UnsafeRawBufferPointer(start: value, count: strlen(value)))
            }
            xmlTextReaderMoveToElement(reader)
            try endPhoto()
        }
    }

    /// Every object of `photos.photo`, through the project's JSON tokenizer.
    private func readJSON(_ url: URL) throws {
        var tokenizer = JSONTokenizer(input: try FeedInput(contentsOf: url), format: .json)
        var depth = 0
        var inPhotos = false
        var key: [UInt8] = []
        while true {
            let token = try tokenizer.next()
            switch token {
            case .beginObject, .beginArray:
                depth += 1
                if token == .beginObject && inPhotos && depth == 4 { beginPhoto() }
            case .endObject, .endArray:
                if token == .endObject && inPhotos && depth == 4 { try endPhoto() }
                if token == .endArray && inPhotos && depth == 3 { inPhotos = false }
                depth -= 1
                if depth == 0 { return }
            case .key:
                key = tokenizer.text
                if depth == 2 && tokenizer.textEquals("photo") { inPhotos = true }
            case .string, .number:
                if inPhotos && depth == 4 {
                    key.withUnsafeBytes { name in tokenizer.text.withUnsafeBytes { value in take(name, value) } }
                }
            case .literalTrue, .literalFalse, .null:
                break
            }
        }
    }
}

/// `SQLITE_TRANSIENT`: SQLite copies the bytes before the bind returns.
let transientDestructor = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
