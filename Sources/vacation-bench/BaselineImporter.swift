import CSQLite
import Foundation
import Vacations

/// What an import did, counted the way `vacation import` counts it.
struct ImportCounts: Equatable, CustomStringConvertible {
    var added = 0
    var updated = 0
    var unchanged = 0

    var description: String { "\(added) added, \(updated) updated, \(unchanged) unchanged" }
}

/// The baseline import: the records `FlickrFeedReader` reads, turned into drafts by the same
/// `DraftRules`, written with hand-written SQL and prepared statements into the tables the
/// framework made, in one transaction; tags and places uniqued in memory dictionaries.
///
/// It keeps the same rules as `VacationEditor.visit`: find or create each photo by id, set what
/// differs, link tags and place with counts following the links, move a place's first-visited
/// date earlier. In a store that starts empty no photo is looked up: the unique index on
/// `ZUNIQUE` catches a repeated id, which then takes the update path.
final class BaselineImporter {
    private let database: RawDatabase
    private let now: Date
    private let insertPhoto: RawStatement
    private let findPhoto: RawStatement
    private let updatePhoto: RawStatement
    private let photoTags: RawStatement
    private let insertLink: RawStatement
    private let deleteLink: RawStatement
    private let searchIndex: BaselineSearchIndex

    private struct TagState {
        var key: Int64
        var count: Int64
        var isNew: Bool
        var isDirty: Bool
    }

    private struct PlaceState {
        var key: Int64
        var placeID: String?
        var firstVisited: Date?
        var isNew: Bool
        var isDirty: Bool
    }

    private var tags: [String: TagState] = [:]
    private var places: [String: PlaceState] = [:]
    private var emptiedPlaces: Set<Int64> = []
    private var nextKeys: [Int64: Int64] = [:]
    private var storeHadPhotos = false
    /// The history rows the framework writes too (nil when the store keeps no history).
    private var history: BaselineHistory?
    private static let photoUpdateColumns = BaselineHistory.columns(entity: "Photo", properties: [
        "place", "dateTaken", "dateUploaded", "latitude", "longitude", "imageURL", "media", "owner", "subtitle", "thumbnailURL", "title"])
    private static let tagUpdateColumns = BaselineHistory.columns(entity: "Tag", properties: ["count", "photos"])
    private static let placeUpdateColumns = BaselineHistory.columns(entity: "Place", properties: ["firstVisited", "placeID", "photos"])

    static let photoColumns = "ZPLACE, ZDATETAKEN, ZDATEUPLOADED, ZLATITUDE, ZLONGITUDE, ZIMAGEURL, ZMEDIA, ZOWNER, ZSUBTITLE, ZTHUMBNAILURL, ZTITLE"

    init(database: RawDatabase, now: Date) throws {
        self.database = database
        self.now = now
        insertPhoto = try database.prepare("""
            INSERT INTO ZPHOTO (Z_PK, Z_ENT, Z_OPT, \(Self.photoColumns), ZVISITED, ZUNIQUE)
            VALUES (?, 2, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        findPhoto = try database.prepare("SELECT Z_PK, \(Self.photoColumns), ZVISITED FROM ZPHOTO WHERE ZUNIQUE = ?")
        updatePhoto = try database.prepare("""
            UPDATE ZPHOTO SET Z_OPT = Z_OPT + 1, ZPLACE = ?, ZDATETAKEN = ?, ZDATEUPLOADED = ?, ZLATITUDE = ?,
            ZLONGITUDE = ?, ZIMAGEURL = ?, ZMEDIA = ?, ZOWNER = ?, ZSUBTITLE = ?, ZTHUMBNAILURL = ?, ZTITLE = ? WHERE Z_PK = ?
            """)
        photoTags = try database.prepare("SELECT Z_4TAGS FROM Z_2TAGS WHERE Z_2PHOTOS = ?")
        insertLink = try database.prepare("INSERT INTO Z_2TAGS (Z_2PHOTOS, Z_4TAGS) VALUES (?, ?)")
        deleteLink = try database.prepare("DELETE FROM Z_2TAGS WHERE Z_2PHOTOS = ? AND Z_4TAGS = ?")
        searchIndex = try BaselineSearchIndex(database: database)
    }

    /// Imports one feed in one transaction.
    static func importFeed(_ url: URL, intoStoreAt path: String, now: Date) throws -> ImportCounts {
        let database = try RawDatabase(path: path)
        let importer = try BaselineImporter(database: database, now: now)
        try database.execute("BEGIN IMMEDIATE TRANSACTION")
        do {
            try importer.start()
            var counts = ImportCounts()
            let rules = DraftRules()
            try FlickrFeedReader.read(contentsOf: url, photo: { photo in
                try importer.visit(rules.draft(from: photo), counts: &counts)
            })
            try importer.finish()
            try database.execute("COMMIT TRANSACTION")
            return counts
        } catch {
            try? database.execute("ROLLBACK TRANSACTION")
            throw error
        }
    }

    /// Loads the tags, places and key counters the store has.
    func start() throws {
        storeHadPhotos = try database.integer("SELECT count(*) FROM (SELECT 1 FROM ZPHOTO LIMIT 1)") > 0
        let keys = try database.prepare("SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY")
        while try keys.step() { nextKeys[keys.int64(0)] = keys.int64(1) }
        history = try BaselineHistory(database: database, keys: &nextKeys)
        let tagRows = try database.prepare("SELECT Z_PK, ZNAME, ZCOUNT FROM ZTAG")
        while try tagRows.step() {
            tags[tagRows.string(1) ?? ""] = TagState(key: tagRows.int64(0), count: tagRows.int64(2), isNew: false, isDirty: false)
        }
        let placeRows = try database.prepare("SELECT Z_PK, ZNAME, ZPLACEID, ZFIRSTVISITED FROM ZPLACE")
        while try placeRows.step() {
            places[placeRows.string(1) ?? ""] = PlaceState(key: placeRows.int64(0), placeID: placeRows.string(2),
                                                           firstVisited: placeRows.date(3), isNew: false, isDirty: false)
        }
    }

    private func newKey(entity: Int64) -> Int64 {
        let key = (nextKeys[entity] ?? 0) + 1
        nextKeys[entity] = key
        return key
    }

    private func tagKey(_ name: String) -> Int64 {
        if let state = tags[name] { return state.key }
        let key = newKey(entity: 4)
        tags[name] = TagState(key: key, count: 0, isNew: true, isDirty: true)
        return key
    }

    /// Moves a tag's count with one dictionary lookup; returns its key.
    private func countTag(_ name: String, by delta: Int64) -> Int64 {
        if let index = tags.index(forKey: name) {
            tags.values[index].count += delta
            tags.values[index].isDirty = true
            return tags.values[index].key
        }
        let key = newKey(entity: 4)
        tags[name] = TagState(key: key, count: delta, isNew: true, isDirty: true)
        return key
    }

    private func placeKey(_ name: String) -> Int64 {
        if let state = places[name] { return state.key }
        let key = newKey(entity: 3)
        places[name] = PlaceState(key: key, placeID: nil, firstVisited: nil, isNew: true, isDirty: true)
        return key
    }

    /// Binds `photoColumns` from parameter `first` on.
    private func bindAttributes(_ draft: PhotoDraft, place: Int64?, to statement: RawStatement, from first: Int32) {
        if let place { statement.bind(place, first) } else { statement.bindNull(first) }
        statement.bind(draft.dateTaken, first + 1)
        statement.bind(draft.dateUploaded, first + 2)
        statement.bind(draft.latitude, first + 3)
        statement.bind(draft.longitude, first + 4)
        statement.bind(draft.imageURL, first + 5)
        statement.bind(draft.media, first + 6)
        statement.bind(draft.owner, first + 7)
        statement.bind(draft.subtitle, first + 8)
        statement.bind(draft.thumbnailURL, first + 9)
        statement.bind(draft.title, first + 10)
    }

    /// Visits one draft: inserts it, or compares it with its row and writes what differs.
    func visit(_ draft: PhotoDraft, counts: inout ImportCounts) throws {
        if !storeHadPhotos {
            do {
                try insert(draft)
                counts.added += 1
                return
            } catch let error as RawSQLiteError where error.code & 0xFF == SQLITE_CONSTRAINT {
                // An id the feed repeats: the row is there, so this draft updates it.
                nextKeys[2] = (nextKeys[2] ?? 1) - 1
            }
        }
        try update(draft, counts: &counts)
    }

    /// Inserts a new photo with its links; the tags' counts and the place follow in memory.
    private func insert(_ draft: PhotoDraft) throws {
        let key = newKey(entity: 2)
        let place = draft.placeName.map(placeKey)
        insertPhoto.bind(key, 0)
        bindAttributes(draft, place: place, to: insertPhoto, from: 1)
        insertPhoto.bind(now, 12)
        insertPhoto.bind(draft.id, 13)
        try insertPhoto.run()
        try history?.record(.insert, entity: 2, key: key)
        var linked: [(key: Int64, name: String)] = []
        for name in draft.tags {
            let tag = countTag(name, by: 1)
            insertLink.bind(key, 0)
            insertLink.bind(tag, 1)
            try insertLink.run()
            linked.append((tag, name))
        }
        try searchIndex.insert(key: key, draft, place: place == nil ? nil : draft.placeName, tags: linked)
        if let name = draft.placeName, place != nil { notePlace(name, moment: draft.dateTaken ?? now, placeID: draft.placeID) }
    }

    private func notePlace(_ name: String, moment: Date, placeID: String?) {
        guard var state = places[name] else { return }
        if state.placeID == nil, let placeID {
            state.placeID = placeID
            state.isDirty = true
        }
        if state.firstVisited.map({ moment < $0 }) ?? true {
            state.firstVisited = moment
            state.isDirty = true
        }
        places[name] = state
    }

    /// The path for a photo the store may have: look it up, compare, write what differs.
    private func update(_ draft: PhotoDraft, counts: inout ImportCounts) throws {
        findPhoto.bind(draft.id, 0)
        guard try findPhoto.step() else {
            findPhoto.reset()
            try insert(draft)
            counts.added += 1
            return
        }
        let key = findPhoto.int64(0)
        let oldPlace = findPhoto.isNull(1) ? nil : findPhoto.int64(1)
        let visited = findPhoto.date(12)
        var changed = findPhoto.date(2) != draft.dateTaken || findPhoto.date(3) != draft.dateUploaded
            || findPhoto.optionalDouble(4) != draft.latitude || findPhoto.optionalDouble(5) != draft.longitude
            || findPhoto.string(6) != draft.imageURL || findPhoto.string(7) != draft.media
            || findPhoto.string(8) != draft.owner || findPhoto.string(9) != draft.subtitle
            || findPhoto.string(10) != draft.thumbnailURL || findPhoto.string(11) != draft.title
        findPhoto.reset()

        let newPlace = draft.placeName.map(placeKey) ?? oldPlace
        if newPlace != oldPlace {
            if let oldPlace { emptiedPlaces.insert(oldPlace) }
            changed = true
        }
        if changed {
            bindAttributes(draft, place: newPlace, to: updatePhoto, from: 0)
            updatePhoto.bind(key, 11)
            try updatePhoto.run()
        }

        var current: Set<Int64> = []
        photoTags.bind(key, 0)
        while try photoTags.step() { current.insert(photoTags.int64(0)) }
        photoTags.reset()
        var wanted: [Int64: String] = [:]
        for name in draft.tags { wanted[tagKey(name)] = name }
        if Set(wanted.keys) != current {
            changed = true
            for (tag, name) in wanted where !current.contains(tag) {
                _ = countTag(name, by: 1)
                insertLink.bind(key, 0)
                insertLink.bind(tag, 1)
                try insertLink.run()
            }
            for tag in current where wanted[tag] == nil {
                if let name = tags.first(where: { $0.value.key == tag })?.key { _ = countTag(name, by: -1) }
                deleteLink.bind(key, 0)
                deleteLink.bind(tag, 1)
                try deleteLink.run()
            }
        }
        let placeName = newPlace == nil ? nil : draft.placeName ?? places.first(where: { $0.value.key == newPlace })?.key
        if let placeName {
            notePlace(placeName, moment: draft.dateTaken ?? visited ?? now, placeID: draft.placeID)
        }
        if changed {
            try searchIndex.delete(key: key)
            try searchIndex.insert(key: key, draft, place: placeName, tags: wanted.map { ($0.key, $0.value) })
        }
        if changed { try history?.record(.update, entity: 2, key: key, columns: Self.photoUpdateColumns) }
        if changed { counts.updated += 1 } else { counts.unchanged += 1 }
    }

    /// Writes the tags and places that changed, drops those left empty, records the keys.
    func finish() throws {
        let insertTag = try database.prepare("INSERT INTO ZTAG (Z_PK, Z_ENT, Z_OPT, ZCOUNT, ZNAME) VALUES (?, 4, 1, ?, ?)")
        let updateTag = try database.prepare("UPDATE ZTAG SET Z_OPT = Z_OPT + 1, ZCOUNT = ? WHERE Z_PK = ?")
        let deleteTag = try database.prepare("DELETE FROM ZTAG WHERE Z_PK = ?")
        for (name, state) in tags where state.isDirty {
            if state.count <= 0 {
                guard !state.isNew else { continue }
                deleteTag.bind(state.key, 0)
                try deleteTag.run()
                try history?.record(.delete, entity: 4, key: state.key)
            } else if state.isNew {
                insertTag.bind(state.key, 0)
                insertTag.bind(state.count, 1)
                insertTag.bind(name, 2)
                try insertTag.run()
                try history?.record(.insert, entity: 4, key: state.key)
            } else {
                updateTag.bind(state.count, 0)
                updateTag.bind(state.key, 1)
                try updateTag.run()
                try history?.record(.update, entity: 4, key: state.key, columns: Self.tagUpdateColumns)
            }
        }
        let insertPlace = try database.prepare(
            "INSERT INTO ZPLACE (Z_PK, Z_ENT, Z_OPT, ZFIRSTVISITED, ZNAME, ZPLACEID) VALUES (?, 3, 1, ?, ?, ?)")
        let updatePlace = try database.prepare(
            "UPDATE ZPLACE SET Z_OPT = Z_OPT + 1, ZFIRSTVISITED = ?, ZPLACEID = ? WHERE Z_PK = ?")
        for (name, state) in places where state.isDirty {
            if state.isNew {
                insertPlace.bind(state.key, 0)
                insertPlace.bind(state.firstVisited, 1)
                insertPlace.bind(name, 2)
                insertPlace.bind(state.placeID, 3)
                try insertPlace.run()
                try history?.record(.insert, entity: 3, key: state.key)
            } else {
                updatePlace.bind(state.firstVisited, 0)
                updatePlace.bind(state.placeID, 1)
                updatePlace.bind(state.key, 2)
                try updatePlace.run()
                try history?.record(.update, entity: 3, key: state.key, columns: Self.placeUpdateColumns)
            }
        }
        if !emptiedPlaces.isEmpty {
            let dropEmpty = try database.prepare(
                "DELETE FROM ZPLACE WHERE Z_PK = ? AND NOT EXISTS (SELECT 1 FROM ZPHOTO WHERE ZPLACE = ?) RETURNING Z_PK")
            for key in emptiedPlaces {
                dropEmpty.bind(key, 0)
                dropEmpty.bind(key, 1)
                while try dropEmpty.step() { try history?.record(.delete, entity: 3, key: key) }
                dropEmpty.reset()
            }
        }
        try history?.finish(keys: &nextKeys)
        let setKey = try database.prepare("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?")
        for (entity, key) in nextKeys {
            setKey.bind(key, 0)
            setKey.bind(entity, 1)
            try setKey.run()
        }
    }
}
