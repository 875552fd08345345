import Foundation
import ObjectGraph

/// Visiting a photo the vacation has, compared from its stored row: what a re-import does for
/// the photos a feed leaves unchanged, without making them objects (README.md, "Performance").
extension VacationEditor {
    /// A stored photo that visiting leaves unchanged: its ID, its moment (date taken, else
    /// visit time) and its place's ID.
    struct UnchangedPhoto {
        let id: ObjectID
        let moment: Date?
        let place: ObjectID?
    }

    /// Photo's properties that a visit compares, by slot in stored rows.
    struct StoredPhotoKeys {
        let unique, title, subtitle, imageURL, thumbnailURL, owner: Int
        let dateTaken, dateUploaded, latitude, longitude, media, visited: Int
        let place: Int

        init(_ stored: StoredObjectLayout) throws {
            unique = try stored.attributeSlot("unique")
            title = try stored.attributeSlot("title")
            subtitle = try stored.attributeSlot("subtitle")
            imageURL = try stored.attributeSlot("imageURL")
            thumbnailURL = try stored.attributeSlot("thumbnailURL")
            owner = try stored.attributeSlot("owner")
            dateTaken = try stored.attributeSlot("dateTaken")
            dateUploaded = try stored.attributeSlot("dateUploaded")
            latitude = try stored.attributeSlot("latitude")
            longitude = try stored.attributeSlot("longitude")
            media = try stored.attributeSlot("media")
            visited = try stored.attributeSlot("visited")
            place = try stored.toOneSlot("place")
        }
    }

    /// Whether visiting `draft` leaves the stored photo `row` exactly as it is — what `apply`,
    /// `tagsUnchanged` and the place's comparison in `visitPhotos` would find, read from the row
    /// and its tags' IDs instead of a loaded object. A tag or place not found by name means a
    /// change (visiting would make it). False sends the photo down the object path, which
    /// decides again.
    static func leavesUnchanged(_ row: borrowing StoredObject, keys: StoredPhotoKeys, draft: UnsafePointer<PhotoDraft>,
                                tags: [String: Tag], places: [String: Place]) -> Bool {
        let unknown = draft.pointee.unknown
        @inline(__always) func keeps<Value: Equatable>(_ field: PhotoFields, _ current: Value?, _ new: Value?) -> Bool {
            // `apply`'s `writes`, negated.
            current == new || (unknown.contains(field) && !(current == nil && new != nil))
        }
        guard keeps(.title, row.string(at: keys.title), draft.pointee.title),
              keeps(.subtitle, row.string(at: keys.subtitle), draft.pointee.subtitle),
              keeps(.imageURL, row.string(at: keys.imageURL), draft.pointee.imageURL),
              keeps(.thumbnailURL, row.string(at: keys.thumbnailURL), draft.pointee.thumbnailURL),
              keeps(.owner, row.string(at: keys.owner), draft.pointee.owner),
              keeps(.dateTaken, row.date(at: keys.dateTaken), draft.pointee.dateTaken),
              keeps(.dateUploaded, row.date(at: keys.dateUploaded), draft.pointee.dateUploaded),
              keeps(.coordinates, row.double(at: keys.latitude), draft.pointee.latitude),
              keeps(.coordinates, row.double(at: keys.longitude), draft.pointee.longitude),
              keeps(.media, row.string(at: keys.media), draft.pointee.media) else { return false }
        if let name = draft.pointee.placeName {
            guard let place = places[name], place.objectID == row.target(at: keys.place) else { return false }
        }
        // As `tagsUnchanged`.
        let current = row.members
        if unknown.contains(.tags) && (!current.isEmpty || draft.pointee.tags.isEmpty) { return true }
        guard draft.pointee.tags.count >= current.count else { return false }
        var wanted: [ObjectID] = []
        wanted.reserveCapacity(draft.pointee.tags.count)
        for name in draft.pointee.tags {
            guard let id = tags[name]?.objectID, current.contains(id) else { return false }
            if !wanted.contains(id) { wanted.append(id) }
        }
        return wanted.count == current.count
    }
}
