import Foundation
import Vacations

/// The baseline toggle: one transaction per toggle, prepared statements, lookups through the
/// indexes. Visiting inserts the photo, finds or creates its tags and place and moves counts;
/// unvisiting drops counts (a tag goes at zero), deletes links and photo, and deletes the
/// place with its last photo or recomputes its first-visited date — `VacationEditor`'s rules.
final class BaselineToggler {
    private let database: RawDatabase
    private let now: Date
    private let findPhoto, insertPhoto, photoTags, decrementTag, deleteTag, deleteLinks, deletePhoto: RawStatement
    private let placeSummary, deletePlace, setFirstVisited: RawStatement
    private let nextKey, findTag, incrementTag, insertTag, insertLink, findPlace, insertPlace, updatePlace: RawStatement
    private let searchIndex: BaselineSearchIndex

    init(database: RawDatabase, now: Date) throws {
        self.database = database
        self.now = now
        findPhoto = try database.prepare("SELECT Z_PK, ZPLACE FROM ZPHOTO WHERE ZUNIQUE = ?")
        insertPhoto = try database.prepare("""
            INSERT INTO ZPHOTO (Z_PK, Z_ENT, Z_OPT, \(BaselineImporter.photoColumns), ZVISITED, ZUNIQUE)
            VALUES (?, 2, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        photoTags = try database.prepare("SELECT Z_4TAGS FROM Z_2TAGS WHERE Z_2PHOTOS = ?")
        decrementTag = try database.prepare("UPDATE ZTAG SET ZCOUNT = ZCOUNT - 1, Z_OPT = Z_OPT + 1 WHERE Z_PK = ? RETURNING ZCOUNT")
        deleteTag = try database.prepare("DELETE FROM ZTAG WHERE Z_PK = ?")
        deleteLinks = try database.prepare("DELETE FROM Z_2TAGS WHERE Z_2PHOTOS = ?")
        deletePhoto = try database.prepare("DELETE FROM ZPHOTO WHERE Z_PK = ?")
        placeSummary = try database.prepare("SELECT count(*), min(coalesce(ZDATETAKEN, ZVISITED)) FROM ZPHOTO WHERE ZPLACE = ?")
        deletePlace = try database.prepare("DELETE FROM ZPLACE WHERE Z_PK = ?")
        setFirstVisited = try database.prepare("UPDATE ZPLACE SET ZFIRSTVISITED = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?")
        nextKey = try database.prepare("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + 1 WHERE Z_ENT = ? RETURNING Z_MAX")
        findTag = try database.prepare("SELECT Z_PK FROM ZTAG WHERE ZNAME = ?")
        incrementTag = try database.prepare("UPDATE ZTAG SET ZCOUNT = ZCOUNT + 1, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?")
        insertTag = try database.prepare("INSERT INTO ZTAG (Z_PK, Z_ENT, Z_OPT, ZCOUNT, ZNAME) VALUES (?, 4, 1, 1, ?)")
        insertLink = try database.prepare("INSERT INTO Z_2TAGS (Z_2PHOTOS, Z_4TAGS) VALUES (?, ?)")
        findPlace = try database.prepare("SELECT Z_PK, ZFIRSTVISITED, ZPLACEID FROM ZPLACE WHERE ZNAME = ?")
        insertPlace = try database.prepare(
            "INSERT INTO ZPLACE (Z_PK, Z_ENT, Z_OPT, ZFIRSTVISITED, ZNAME, ZPLACEID) VALUES (?, 3, 1, ?, ?, ?)")
        updatePlace = try database.prepare("UPDATE ZPLACE SET ZFIRSTVISITED = ?, ZPLACEID = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?")
        searchIndex = try BaselineSearchIndex(database: database)
    }

    /// Visits the draft's photo when the store lacks it, unvisits it otherwise; one transaction.
    @discardableResult
    func toggle(_ draft: PhotoDraft) throws -> VacationEditor.ToggleOutcome {
        try database.execute("BEGIN IMMEDIATE TRANSACTION")
        do {
            findPhoto.bind(draft.id, 0)
            let found = try findPhoto.step()
            let key = findPhoto.int64(0)
            let place: Int64? = found && !findPhoto.isNull(1) ? findPhoto.int64(1) : nil
            findPhoto.reset()
            if found { try unvisit(key, place: place) } else { try visit(draft) }
            try database.execute("COMMIT TRANSACTION")
            return found ? .unvisited : .visited
        } catch {
            try? database.execute("ROLLBACK TRANSACTION")
            throw error
        }
    }

    private func unvisit(_ key: Int64, place: Int64?) throws {
        var tags: [Int64] = []
        photoTags.bind(key, 0)
        while try photoTags.step() { tags.append(photoTags.int64(0)) }
        photoTags.reset()
        for tag in tags {
            decrementTag.bind(tag, 0)
            let remaining = try decrementTag.step() ? decrementTag.int64(0) : 1
            decrementTag.reset()
            if remaining <= 0 {
                deleteTag.bind(tag, 0)
                try deleteTag.run()
            }
        }
        deleteLinks.bind(key, 0)
        try deleteLinks.run()
        deletePhoto.bind(key, 0)
        try deletePhoto.run()
        try searchIndex.delete(key: key)
        guard let place else { return }
        placeSummary.bind(place, 0)
        _ = try placeSummary.step()
        let remaining = placeSummary.int64(0)
        let first = placeSummary.date(1)
        placeSummary.reset()
        if remaining == 0 {
            deletePlace.bind(place, 0)
            try deletePlace.run()
        } else {
            setFirstVisited.bind(first, 0)
            setFirstVisited.bind(place, 1)
            try setFirstVisited.run()
        }
    }

    private func newKey(entity: Int64) throws -> Int64 {
        nextKey.bind(entity, 0)
        defer { nextKey.reset() }
        _ = try nextKey.step()
        return nextKey.int64(0)
    }

    private func visit(_ draft: PhotoDraft) throws {
        let key = try newKey(entity: 2)
        var place: Int64?
        if let name = draft.placeName {
            let moment = draft.dateTaken ?? now
            findPlace.bind(name, 0)
            if try findPlace.step() {
                let existing = findPlace.int64(0)
                let first = findPlace.date(1)
                let placeID = findPlace.string(2)
                findPlace.reset()
                if first.map({ moment < $0 }) ?? true || (placeID == nil && draft.placeID != nil) {
                    updatePlace.bind(first.map { min($0, moment) } ?? moment, 0)
                    updatePlace.bind(placeID ?? draft.placeID, 1)
                    updatePlace.bind(existing, 2)
                    try updatePlace.run()
                }
                place = existing
            } else {
                findPlace.reset()
                let created = try newKey(entity: 3)
                insertPlace.bind(created, 0)
                insertPlace.bind(moment, 1)
                insertPlace.bind(name, 2)
                insertPlace.bind(draft.placeID, 3)
                try insertPlace.run()
                place = created
            }
        }
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
        var linked: [(key: Int64, name: String)] = []
        for name in draft.tags {
            findTag.bind(name, 0)
            let tag: Int64
            if try findTag.step() {
                tag = findTag.int64(0)
                findTag.reset()
                incrementTag.bind(tag, 0)
                try incrementTag.run()
            } else {
                findTag.reset()
                tag = try newKey(entity: 4)
                insertTag.bind(tag, 0)
                insertTag.bind(name, 1)
                try insertTag.run()
            }
            insertLink.bind(key, 0)
            insertLink.bind(tag, 1)
            try insertLink.run()
            linked.append((tag, name))
        }
        try searchIndex.insert(key: key, draft, place: place == nil ? nil : draft.placeName, tags: linked)
    }
}
