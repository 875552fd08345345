import CSQLite
import Foundation
import Vacations

/// The baseline toggle: one transaction per toggle, prepared statements, lookups through the
/// indexes. Visiting inserts the photo, finds or creates its tags and place and moves counts;
/// unvisiting drops counts (a tag goes at zero), deletes links and photo, and deletes the
/// place with its last photo or recomputes its first-visited date — `VacationEditor`'s rules.
///
/// Beside the data it writes what `vacation toggle` writes (`BaselineOperationLog`): the
/// transaction's persistent history and one operation of the operation log, with the old
/// values of every row it updates or deletes. Those come from the lookups it makes anyway
/// (every column of the photo, its tags and its place), read before the row changes. Like the
/// framework, it writes a row for every object whose relationships changed: a place or tag
/// that gains or loses a photo is updated (`Z_OPT`) even when no other value of it changes.
final class BaselineToggler {
    private let database: RawDatabase
    private let now: Date
    private let log: BaselineOperationLog
    private let findPhoto, photoTags, decrementTag, deleteTag, deleteLinks, deletePhoto: RawStatement
    private let placeSummary, findPlaceByKey, deletePlace, setFirstVisited: RawStatement
    private let insertPhoto, nextKeys, findTag, incrementTag, insertTag, insertLink, findPlace, insertPlace, updatePlace: RawStatement
    private let searchIndex: BaselineSearchIndex
    /// Where columns are in the `SELECT *` rows (the tag rows of `photoTags` start at 1).
    private let photoPlaceColumn, tagCountColumn, placeFirstVisitedColumn, placeIDColumn: Int32
    private static let tagColumns = BaselineHistory.columns(entity: "Tag", properties: ["count", "photos"])
    /// A place's update columns: gaining or losing a photo, and the values that moved with it.
    private static func placeColumns(firstVisited: Bool, placeID: Bool) -> [UInt8] {
        BaselineHistory.columns(entity: "Place", properties: Set(["photos"] + (firstVisited ? ["firstVisited"] : [])
                                                               + (placeID ? ["placeID"] : [])))
    }
    private let placeColumnsByChange: [[UInt8]]

    init(database: RawDatabase, now: Date) throws {
        self.database = database
        self.now = now
        log = try BaselineOperationLog(database: database, author: "vacation toggle", contextName: "toggle", now: now)
        findPhoto = try database.prepare("SELECT * FROM ZPHOTO WHERE ZUNIQUE = ?")
        insertPhoto = try database.prepare("""
            INSERT INTO ZPHOTO (Z_PK, Z_ENT, Z_OPT, \(BaselineImporter.photoColumns), ZVISITED, ZUNIQUE)
            VALUES (?, 2, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        photoTags = try database.prepare(
            "SELECT Z_2TAGS.rowid, ZTAG.* FROM Z_2TAGS JOIN ZTAG ON ZTAG.Z_PK = Z_2TAGS.Z_4TAGS WHERE Z_2TAGS.Z_2PHOTOS = ?")
        decrementTag = try database.prepare("UPDATE ZTAG SET ZCOUNT = ZCOUNT - 1, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?")
        deleteTag = try database.prepare("DELETE FROM ZTAG WHERE Z_PK = ?")
        deleteLinks = try database.prepare("DELETE FROM Z_2TAGS WHERE Z_2PHOTOS = ?")
        deletePhoto = try database.prepare("DELETE FROM ZPHOTO WHERE Z_PK = ?")
        placeSummary = try database.prepare("SELECT count(*), min(coalesce(ZDATETAKEN, ZVISITED)) FROM ZPHOTO WHERE ZPLACE = ?")
        findPlaceByKey = try database.prepare("SELECT * FROM ZPLACE WHERE Z_PK = ?")
        deletePlace = try database.prepare("DELETE FROM ZPLACE WHERE Z_PK = ?")
        setFirstVisited = try database.prepare("UPDATE ZPLACE SET ZFIRSTVISITED = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?")
        nextKeys = try database.prepare("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + ? WHERE Z_ENT = ? RETURNING Z_MAX")
        findTag = try database.prepare("SELECT * FROM ZTAG WHERE ZNAME = ?")
        incrementTag = try database.prepare("UPDATE ZTAG SET ZCOUNT = ZCOUNT + 1, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?")
        insertTag = try database.prepare("INSERT INTO ZTAG (Z_PK, Z_ENT, Z_OPT, ZCOUNT, ZNAME) VALUES (?, 4, 1, 1, ?)")
        insertLink = try database.prepare("INSERT INTO Z_2TAGS (Z_2PHOTOS, Z_4TAGS) VALUES (?, ?)")
        findPlace = try database.prepare("SELECT * FROM ZPLACE WHERE ZNAME = ?")
        insertPlace = try database.prepare(
            "INSERT INTO ZPLACE (Z_PK, Z_ENT, Z_OPT, ZFIRSTVISITED, ZNAME, ZPLACEID) VALUES (?, 3, 1, ?, ?, ?)")
        updatePlace = try database.prepare("UPDATE ZPLACE SET ZFIRSTVISITED = ?, ZPLACEID = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?")
        searchIndex = try BaselineSearchIndex(database: database)
        photoPlaceColumn = try Self.column("ZPLACE", of: findPhoto)
        tagCountColumn = try Self.column("ZCOUNT", of: findTag)
        placeFirstVisitedColumn = try Self.column("ZFIRSTVISITED", of: findPlace)
        placeIDColumn = try Self.column("ZPLACEID", of: findPlace)
        placeColumnsByChange = [false, true].flatMap { first in [false, true].map { id in Self.placeColumns(firstVisited: first, placeID: id) } }
    }

    private static func column(_ name: String, of statement: RawStatement) throws -> Int32 {
        for column in 0..<statement.columnCount where sqlite3_column_name(statement.handle, column).map({ String(cString: $0) }) == name {
            return column
        }
        throw BenchError("toggle: the baseline's store has no column \(name)")
    }

    /// Visits the draft's photo when the store lacks it, unvisits it otherwise; one transaction.
    @discardableResult
    func toggle(_ draft: PhotoDraft) throws -> VacationEditor.ToggleOutcome {
        try database.execute("BEGIN IMMEDIATE TRANSACTION")
        do {
            findPhoto.bind(draft.id, 0)
            let found = try findPhoto.step()
            if found {
                let key = try unvisit(photo: findPhoto)
                try log.finish()
                try searchIndex.delete(key: key)
            } else {
                findPhoto.reset()
                let visited = try visit(draft)
                try log.finish()
                try searchIndex.insert(key: visited.key, draft, place: visited.place, tags: visited.tags)
            }
            try database.execute("COMMIT TRANSACTION")
            return found ? .unvisited : .visited
        } catch {
            findPhoto.reset()
            try? database.execute("ROLLBACK TRANSACTION")
            throw error
        }
    }

    /// Unvisits the photo whose row `photo` holds (and resets it); returns its key. Its search
    /// index row is left to the caller, to delete last: the index keeps what a transaction
    /// writes in memory until the commit, unless a later statement of the transaction opens a
    /// statement journal (one with `RETURNING`, say), which makes it write that out first.
    private func unvisit(photo: RawStatement) throws -> Int64 {
        let key = photo.int64(0)
        let place: Int64? = photo.isNull(photoPlaceColumn) ? nil : photo.int64(photoPlaceColumn)
        let photoValues = BaselineOperationLog.encode(photo)
        photo.reset()
        // The photo's tags, each row read whole before it changes; a tag of one photo goes.
        var links: [(rowid: Int64, tag: Int64, goes: Bool)] = []
        photoTags.bind(key, 0)
        while try photoTags.step() {
            let link = (rowid: photoTags.int64(0), tag: photoTags.int64(1), goes: photoTags.int64(1 + tagCountColumn) <= 1)
            links.append(link)
            if link.goes {
                log.deleted("ZTAG", key: link.tag, entity: 4, row: photoTags, first: 1)
            } else {
                log.updated("ZTAG", key: link.tag, entity: 4, columns: Self.tagColumns, row: photoTags, first: 1)
            }
        }
        photoTags.reset()
        for link in links {
            let statement = link.goes ? deleteTag : decrementTag
            statement.bind(link.tag, 0)
            try statement.run()
        }
        log.deleted("ZPHOTO", key: key, entity: 2, values: photoValues)
        deletePhoto.bind(key, 0)
        try deletePhoto.run()
        for link in links {
            log.deleted("Z_2TAGS", key: link.rowid, entity: nil, values: BaselineOperationLog.encode(integers: [key, link.tag]))
        }
        deleteLinks.bind(key, 0)
        try deleteLinks.run()
        guard let place else { return key }
        placeSummary.bind(place, 0)
        _ = try placeSummary.step()
        let remaining = placeSummary.int64(0)
        let first = placeSummary.optionalDouble(1)
        placeSummary.reset()
        findPlaceByKey.bind(place, 0)
        defer { findPlaceByKey.reset() }
        guard try findPlaceByKey.step() else { throw BenchError("toggle: the baseline's photo names a place it lacks") }
        if remaining == 0 {
            log.deleted("ZPLACE", key: place, entity: 3, row: findPlaceByKey)
            deletePlace.bind(place, 0)
            try deletePlace.run()
            return key
        } else {
            let changed = findPlaceByKey.optionalDouble(placeFirstVisitedColumn) != first
            log.updated("ZPLACE", key: place, entity: 3, columns: placeColumnsByChange[changed ? 2 : 0], row: findPlaceByKey)
            setFirstVisited.bind(first, 0)
            setFirstVisited.bind(place, 1)
            try setFirstVisited.run()
            return key
        }
    }

    /// Raises `entity`'s `Z_MAX` by `count`; returns the first of the keys handed out.
    private func newKeys(_ count: Int, entity: Int64) throws -> Int64 {
        nextKeys.bind(Int64(count), 0)
        nextKeys.bind(entity, 1)
        defer { nextKeys.reset() }
        guard try nextKeys.step() else { throw BenchError("toggle: the baseline's store lacks key counter \(entity)") }
        return nextKeys.int64(0) - Int64(count) + 1
    }

    /// Visits the draft's photo; returns what its search index row holds, for the caller to
    /// write last (see `unvisit`).
    private func visit(_ draft: PhotoDraft) throws -> (key: Int64, place: String?, tags: [(key: Int64, name: String)]) {
        let moment = draft.dateTaken ?? now
        // Tags by name: a known one is read whole before its count moves.
        var known: [Int64] = []
        var tagKeys: [Int64?] = []
        var newNames: [String] = []
        for name in draft.tags {
            findTag.bind(name, 0)
            if try findTag.step() {
                let tag = findTag.int64(0)
                log.updated("ZTAG", key: tag, entity: 4, columns: Self.tagColumns, row: findTag)
                known.append(tag)
                tagKeys.append(tag)
            } else {
                newNames.append(name)
                tagKeys.append(nil)
            }
            findTag.reset()
        }
        var place: Int64?
        if let name = draft.placeName {
            findPlace.bind(name, 0)
            if try findPlace.step() {
                let existing = findPlace.int64(0)
                let first = findPlace.optionalDouble(placeFirstVisitedColumn)
                let placeID = findPlace.string(placeIDColumn)
                let movesFirst = first.map { moment.timeIntervalSinceReferenceDate < $0 } ?? true
                let setsID = placeID == nil && draft.placeID != nil
                // Gaining a photo updates the place (as the framework writes it) even when its
                // values stay.
                log.updated("ZPLACE", key: existing, entity: 3, columns: placeColumnsByChange[(movesFirst ? 2 : 0) + (setsID ? 1 : 0)],
                            row: findPlace)
                findPlace.reset()
                updatePlace.bind(movesFirst ? moment.timeIntervalSinceReferenceDate : first, 0)
                updatePlace.bind(placeID ?? draft.placeID, 1)
                updatePlace.bind(existing, 2)
                try updatePlace.run()
                place = existing
            } else {
                findPlace.reset()
                let created = try newKeys(1, entity: 3)
                insertPlace.bind(created, 0)
                insertPlace.bind(moment, 1)
                insertPlace.bind(name, 2)
                insertPlace.bind(draft.placeID, 3)
                try insertPlace.run()
                log.inserted("ZPLACE", key: created, entity: 3)
                place = created
            }
        }
        let key = try newKeys(1, entity: 2)
        insertPhoto.bind(key, 0)
        if let place { insertPhoto.bind(place, 1) } else { insertPhoto.bindNull(1) }
        insertPhoto.bind(draft.dateTaken, 2)
        insertPhoto.bind(draft.dateUploaded, 3)
        insertPhoto.bind(draft.latitude, 4)
        insertPhoto.bind(draft.longitude, 5)
        insertPhoto.bind(draft.imageURL, 6)
        insertPhoto.bind(draft.media, 7)
        insertPhoto.bind(draft.owner, 8)
        insertPhoto.bind(draft.subtitle, 9)
        insertPhoto.bind(draft.thumbnailURL, 10)
        insertPhoto.bind(draft.title, 11)
        insertPhoto.bind(now, 12)
        insertPhoto.bind(draft.id, 13)
        try insertPhoto.run()
        log.inserted("ZPHOTO", key: key, entity: 2)
        var nextTag = newNames.isEmpty ? 0 : try newKeys(newNames.count, entity: 4)
        var newIndex = 0
        for index in tagKeys.indices where tagKeys[index] == nil {
            insertTag.bind(nextTag, 0)
            insertTag.bind(newNames[newIndex], 1)
            try insertTag.run()
            log.inserted("ZTAG", key: nextTag, entity: 4)
            tagKeys[index] = nextTag
            nextTag += 1
            newIndex += 1
        }
        for tag in known {
            incrementTag.bind(tag, 0)
            try incrementTag.run()
        }
        var linked: [(key: Int64, name: String)] = []
        for (name, tag) in zip(draft.tags, tagKeys) {
            guard let tag else { continue }
            insertLink.bind(key, 0)
            insertLink.bind(tag, 1)
            try insertLink.run()
            log.inserted("Z_2TAGS", key: sqlite3_last_insert_rowid(database.handle), entity: nil)
            linked.append((tag, name))
        }
        return (key, place == nil ? nil : draft.placeName, linked)
    }
}
