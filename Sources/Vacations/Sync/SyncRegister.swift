import Foundation

/// One register of a synced vacation: a field of a photo, a place or an album, named by its
/// natural key (a photo's Flickr id, a place's or an album's name), never by a row key.
///
/// Every value is text or nil, in one canonical spelling per value (`SyncValues`), so that two
/// devices holding the same value hold the same text.
package struct SyncRegisterKey: Hashable, Sendable, Comparable {
    package var entity: SyncEntity
    package var key: String
    package var field: String

    package init(_ entity: SyncEntity, _ key: String, _ field: String) {
        self.entity = entity
        self.key = key
        self.field = field
    }

    package static func < (left: Self, right: Self) -> Bool {
        (left.entity.rawValue, left.key, left.field) < (right.entity.rawValue, right.key, right.field)
    }
}

/// What a register names.
package enum SyncEntity: String, Sendable, CaseIterable {
    case photo, place, album
}

/// The fields each entity syncs.
package enum SyncFields {
    /// Whether the photo is in the vacation ("true"/"false"): visit and unvisit write it.
    package static let present = "present"
    /// A photo's tag names, sorted, joined by single spaces ("" for none): the whole set is one
    /// register, so concurrent re-tagging of one photo settles to one device's set.
    package static let tags = "tags"
    /// A photo's place name, or nil for none.
    package static let place = "place"
    package static let photoText = ["title", "subtitle", "imageURL", "thumbnailURL", "owner", "media"]
    package static let photoDates = ["dateTaken", "dateUploaded", "visited"]
    package static let photoNumbers = ["latitude", "longitude"]
    package static let photo: Set<String> = Set([present, tags, place] + photoText + photoDates + photoNumbers)
    /// A place's Flickr place id (its existence follows its photos).
    package static let placeID = "placeID"
    package static let placeFields: Set<String> = [placeID]
    /// An album's predicate and creation date, and whether it exists.
    package static let predicate = "predicate"
    package static let created = "created"
    package static let album: Set<String> = [present, predicate, created]

    package static func fields(of entity: SyncEntity) -> Set<String> {
        switch entity {
        case .photo: photo
        case .place: placeFields
        case .album: album
        }
    }
}

/// A logical clock: a Lamport counter, then the device that wrote. Every device orders two
/// writes of one register alike, whatever order they arrived in.
package struct SyncClock: Comparable, Hashable, Sendable {
    package var counter: Int64
    package var device: String

    package init(counter: Int64, device: String) {
        self.counter = counter
        self.device = device
    }

    package static func < (left: Self, right: Self) -> Bool {
        (left.counter, left.device) < (right.counter, right.device)
    }
}

/// A register write: the unit a change file carries.
package struct SyncWrite: Hashable, Sendable {
    package var register: SyncRegisterKey
    package var value: String?
    package var clock: SyncClock

    package init(_ register: SyncRegisterKey, value: String?, clock: SyncClock) {
        self.register = register
        self.value = value
        self.clock = clock
    }

    /// Whether this write wins over `other` of the same register: the later clock; for one clock
    /// written twice with different values (only a forged file does that), the greater value, so
    /// that every device still settles alike.
    package func wins(over other: SyncWrite) -> Bool {
        if clock != other.clock { return other.clock < clock }
        return (value ?? "") > (other.value ?? "") || (other.value == nil && value != nil)
    }
}

/// The canonical text of values.
package enum SyncValues {
    package static let yes = "true"
    package static let no = "false"

    /// A number as Swift spells it shortest, which reads back to the same `Double`.
    package static func text(_ number: Double?) -> String? {
        number.map { $0 == 0 ? "0.0" : String($0) }
    }

    package static func text(_ date: Date?) -> String? {
        text(date?.timeIntervalSinceReferenceDate)
    }

    package static func number(_ text: String?) -> Double? {
        text.flatMap(Double.init)
    }

    package static func date(_ text: String?) -> Date? {
        number(text).map(Date.init(timeIntervalSinceReferenceDate:))
    }

    /// Tag names as one register value.
    package static func text(tags: some Sequence<String>) -> String {
        tags.sorted().joined(separator: " ")
    }

    package static func tags(_ text: String?) -> [String] {
        (text ?? "").split(separator: " ").map(String.init)
    }

    /// Whether `text` is a number's canonical text: finite, and spelled as `text(_:)` spells it.
    package static func isCanonicalNumber(_ text: String) -> Bool {
        guard let number = Double(text), number.isFinite else { return false }
        return SyncValues.text(number) == text
    }
}
