import Foundation
import ObjectGraph

/// A photo of a vacation: one Flickr photo, found by its id (`unique`).
public final class Photo: ManagedObject {
    /// The Flickr id: a canonical decimal string, unique in a vacation.
    @Attribute(unique: true) public var unique: String = ""
    @Attribute(searchable: true) public var title: String?
    /// The photo's description.
    @Attribute(searchable: true) public var subtitle: String?
    @Attribute public var imageURL: String?
    @Attribute public var thumbnailURL: String?
    /// The photographer's name, or Flickr user id when the feed gives no name.
    @Attribute(searchable: true) public var owner: String?
    @Attribute(indexed: true) public var dateTaken: Date?
    @Attribute public var dateUploaded: Date?
    @Attribute public var latitude: Double?
    @Attribute public var longitude: Double?
    /// `photo` or `video`.
    @Attribute public var media: String?
    /// When the photo was first visited (added to the vacation).
    @Attribute public var visited: Date?
    /// Its place's name and its tags' names are searched with the photo (`vacation search`).
    @Relationship(inverse: "photos", searchable: "name") public var place: Place?
    @Relationship(inverse: "photos", searchable: "name") public var tags: Set<Tag>

    /// What to show for the photo: its title, else its description's first line, else "Unknown".
    public var displayTitle: String { Photo.displayTitle(title: title, subtitle: subtitle) }

    static func displayTitle(title: String?, subtitle: String?) -> String {
        if let title, !title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return title }
        if let line = subtitle?.split(whereSeparator: \.isNewline).first?.trimmingCharacters(in: .whitespaces), !line.isEmpty {
            return line
        }
        return "Unknown"
    }

    /// Tag names, sorted.
    public var tagNames: [String] { tags.map(\.name).sorted() }
}

/// A tag: its name (case-folded, unique) and how many photos carry it.
public final class Tag: ManagedObject {
    @Attribute(unique: true) public var name: String = ""
    /// Equals the number of photos linked to the tag after every save.
    @Attribute public var count: Int64 = 0
    @Relationship(inverse: "tags") public var photos: Set<Photo>
}

/// A place: its name (unique; trimmed, inner whitespace collapsed) and its photos.
public final class Place: ManagedObject {
    @Attribute(unique: true) public var name: String = ""
    /// Flickr's place id, when a feed gave one.
    @Attribute public var placeID: String?
    /// The earliest moment of the vacation at this place: the earliest date taken (or visit
    /// time) of its photos. Places in itinerary order sort by it.
    @Attribute public var firstVisited: Date?
    @Relationship(inverse: "place") public var photos: Set<Photo>
}

/// A smart album: a saved predicate over photos, by a unique name. Its photos are whatever
/// matches the predicate now (`vacation photos --album NAME`).
public final class Album: ManagedObject {
    /// As typed (NFC), unique in a vacation.
    @Attribute(unique: true) public var name: String = ""
    /// A predicate of the format language against Photo (`ANY tags.name == 'sea'`).
    @Attribute public var predicate: String = ""
    @Attribute public var created: Date?
}

/// The vacations model: Album, Photo, Place and Tag, in Core Data's layout.
///
/// Version 2 added `Album`. Core Data numbers entities alphabetically, so Album became entity 1
/// and Photo, Place and Tag 2, 3 and 4 (the photos' tags moved from `Z_1TAGS` to `Z_2TAGS`): a
/// vacation of version 1 is migrated when first opened, as Core Data's lightweight migration
/// would migrate it (`MigrationPlanner`).
public enum VacationModel {
    /// Recorded in document metadata; bump when the model changes.
    public static let version = "2"

    public static let model: ObjectModel = {
        do {
            return try ObjectModel(Album.self, Photo.self, Place.self, Tag.self, versionIdentifier: version)
        } catch {
            // The model is declared in this file; an error here is a programming error caught by the tests.
            preconditionFailure("the vacations model is invalid: \(error)")
        }
    }()
}
