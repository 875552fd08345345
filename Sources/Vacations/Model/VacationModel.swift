import Foundation
import ObjectGraph

/// A photo of a vacation: one Flickr photo, found by its id (`unique`).
public final class Photo: ManagedObject {
    /// The Flickr id: a canonical decimal string, unique in a vacation.
    @Attribute(unique: true) public var unique: String = ""
    /// The photo's title as Flickr gives it; nil when the feed did not carry one.
    @Attribute(searchable: true) public var title: String?
    /// The photo's description.
    @Attribute(searchable: true) package var subtitle: String?
    @Attribute package var imageURL: String?
    @Attribute package var thumbnailURL: String?
    /// The photographer's name, or Flickr user id when the feed gives no name.
    @Attribute(searchable: true) package var owner: String?
    @Attribute(indexed: true) package var dateTaken: Date?
    @Attribute package var dateUploaded: Date?
    /// Latitude in degrees; nil when the photo has no usable location.
    @Attribute public var latitude: Double?
    @Attribute package var longitude: Double?
    /// `photo` or `video`.
    @Attribute package var media: String?
    /// When the photo was first visited (added to the vacation).
    @Attribute package var visited: Date?
    /// Its place's name and its tags' names are searched with the photo (`vacation search`).
    @Relationship(inverse: "photos", searchable: "name") public var place: Place?
    /// The photo's tags, each shared by every photo that carries it.
    @Relationship(inverse: "photos", searchable: "name") public var tags: Set<Tag>

    /// Its properties in declaration order, so that no command reads them by reflection
    /// (`VacationModelTests` holds the list to what reflection reads).
    override public class var declaredPropertyNames: [String]? {
        ["unique", "title", "subtitle", "imageURL", "thumbnailURL", "owner", "dateTaken", "dateUploaded",
         "latitude", "longitude", "media", "visited", "place", "tags"]
    }

    /// What to show for the photo: its title, else its description's first line, else "Unknown".
    package var displayTitle: String { Photo.displayTitle(title: title, subtitle: subtitle) }

    static func displayTitle(title: String?, subtitle: String?) -> String {
        if let title, !isBlank(title) { return title }
        if let line = subtitle?.split(whereSeparator: \.isNewline).first.map(trimmingSpaces), !line.isEmpty {
            return line
        }
        return "Unknown"
    }

    /// `text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty`. In ASCII text that set is
    /// tab, the four line and page breaks and space (U+0009–U+000D, U+0020), read byte by byte:
    /// Foundation's character sets cost about 20,000 instructions a call, and their first use
    /// in a process a quarter of a million.
    static func isBlank(_ text: String) -> Bool {
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else { return text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
        return text.utf8.allSatisfy { $0 == 0x20 || (0x09...0x0D).contains($0) }
    }

    /// `line.trimmingCharacters(in: .whitespaces)`: in ASCII text, tabs and spaces at either end.
    static func trimmingSpaces(_ line: Substring) -> String {
        guard line.utf8.allSatisfy({ $0 < 0x80 }) else { return line.trimmingCharacters(in: .whitespaces) }
        let bytes = line.utf8
        guard let first = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }),
              let last = bytes.lastIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { return "" }
        return String(line[first...last])
    }

    /// Tag names, sorted. Read from the members as a list in key order (`objects(forKey:)`), not
    /// through the set of objects the `tags` property makes and hashes: a listed photo's tags
    /// were half of its JSON's making (`photos --limit 50`: 9,000 instructions a photo).
    package var tagNames: [String] {
        // `objects(forKey:)` throws only for a key the entity lacks, and "tags" is the model's
        // own: should it ever fail, the `tags` property gives the same names, never none.
        guard let members = try? objects(forKey: "tags") else { return tags.map(\.name).sorted() }
        var names: [String] = []
        names.reserveCapacity(members.count)
        for member in members { if let tag = member as? Tag { names.append(tag.name) } }
        return names.sorted()
    }
}

/// A tag: its name (case-folded, unique) and how many photos carry it.
public final class Tag: ManagedObject {
    /// The tag as searched and shown: case-folded, unique in a vacation.
    @Attribute(unique: true) public var name: String = ""
    /// Equals the number of photos linked to the tag after every save.
    @Attribute public var count: Int64 = 0
    /// The photos that carry the tag.
    @Relationship(inverse: "tags") public var photos: Set<Photo>

    /// Its properties in declaration order (see `Photo`).
    override public class var declaredPropertyNames: [String]? { ["name", "count", "photos"] }
}

/// A place: its name (unique; trimmed, inner whitespace collapsed) and its photos.
public final class Place: ManagedObject {
    /// The place's name, unique in a vacation: trimmed, inner whitespace collapsed.
    @Attribute(unique: true) public var name: String = ""
    /// Flickr's place id, when a feed gave one.
    @Attribute package var placeID: String?
    /// The earliest moment of the vacation at this place: the earliest date taken (or visit
    /// time) of its photos. Places in itinerary order sort by it.
    @Attribute package var firstVisited: Date?
    /// The photos taken at the place.
    @Relationship(inverse: "place") public var photos: Set<Photo>

    /// Its properties in declaration order (see `Photo`).
    override public class var declaredPropertyNames: [String]? { ["name", "placeID", "firstVisited", "photos"] }
}

/// A smart album: a saved predicate over photos, by a unique name. Its photos are whatever
/// matches the predicate now (`vacation photos --album NAME`).
package final class Album: ManagedObject {
    /// As typed (NFC), unique in a vacation.
    @Attribute(unique: true) package var name: String = ""
    /// A predicate of the format language against Photo (`ANY tags.name == 'sea'`).
    @Attribute package var predicate: String = ""
    @Attribute package var created: Date?

    /// Its properties in declaration order (see `Photo`).
    override package class var declaredPropertyNames: [String]? { ["name", "predicate", "created"] }
}

/// The vacations model: Album, Photo, Place and Tag, in Core Data's layout.
///
/// Version 2 added `Album`. Core Data numbers entities alphabetically, so Album became entity 1
/// and Photo, Place and Tag 2, 3 and 4 (the photos' tags moved from `Z_1TAGS` to `Z_2TAGS`): a
/// vacation of version 1 is migrated when first opened, as Core Data's lightweight migration
/// would migrate it (`MigrationPlanner`).
package enum VacationModel {
    /// Recorded in document metadata; bump when the model changes.
    package static let version = "2"

    package static let model: ObjectModel = {
        do {
            return try ObjectModel(Album.self, Photo.self, Place.self, Tag.self, versionIdentifier: version)
        } catch {
            // The model is declared in this file; an error here is a programming error caught by the tests.
            preconditionFailure("the vacations model is invalid: \(error)")
        }
    }()
}
