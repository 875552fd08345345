import Foundation

/// The fields of a Flickr photo record that the readers keep, whatever the format.
enum FeedKey: UInt8, Sendable {
    case id, owner, ownerName, secret, server, title, description
    case dateTaken, dateUploaded, datePosted
    case latitude, longitude, accuracy
    case tags, tag, media, placeID, woeid, derivedPlace
    case locality, region, country
    // Size-suffixed URLs, in the order of preference for the image, then the thumbnail.
    case urlL, urlC, urlZ, urlM, urlO, urlB
    case urlSq, urlQ, urlT, urlS
    // Containers in getInfo records (objects in JSON, child elements in XML).
    case dates, location
    /// Containers that only tell what kind of response a single `<photo>` is: getInfo's
    /// `visibility`, getExif's `exif`, getFavorites' `person`.
    case visibility, exif, person
    /// `_content`: the text of a JSON object that stands for an XML element.
    case content
    /// A top-places entry's `photo_count`.
    case photoCount
}

/// Maps field names to keys by their bytes, so no `String` is built for the dozens of
/// names in each record that are thrown away.
struct KeyTable<Key: Sendable>: Sendable {
    private struct Entry: Sendable {
        var name: [UInt8]
        var key: Key
    }

    /// Entries grouped by the length of their name.
    private let entriesByLength: [[Entry]]

    init(_ pairs: [(String, Key)]) {
        let longest = pairs.map { $0.0.utf8.count }.max() ?? 0
        var table = [[Entry]](repeating: [], count: longest + 1)
        for (name, key) in pairs {
            table[name.utf8.count].append(Entry(name: Array(name.utf8), key: key))
        }
        entriesByLength = table
    }

    func lookup(_ bytes: UnsafeRawBufferPointer) -> Key? {
        guard bytes.count < entriesByLength.count, let base = bytes.baseAddress else { return nil }
        for entry in entriesByLength[bytes.count] {
            let equal = entry.name.withUnsafeBytes { name in
                name.baseAddress.map { memcmp(base, $0, bytes.count) == 0 } ?? false
            }
            if equal { return entry.key }
        }
        return nil
    }
}

enum FlickrKeys {
    /// Attributes of `<photo>` and keys of a JSON photo object.
    static let photo = KeyTable<FeedKey>([
        ("id", .id), ("owner", .owner), ("ownername", .ownerName), ("secret", .secret),
        ("server", .server), ("title", .title), ("description", .description),
        ("datetaken", .dateTaken), ("dateupload", .dateUploaded), ("dateuploaded", .dateUploaded),
        ("latitude", .latitude), ("longitude", .longitude), ("accuracy", .accuracy),
        ("tags", .tags), ("media", .media), ("place_id", .placeID), ("woeid", .woeid),
        ("derived_place", .derivedPlace),
        ("url_l", .urlL), ("url_c", .urlC), ("url_z", .urlZ), ("url_m", .urlM), ("url_o", .urlO),
        ("url_b", .urlB), ("url_sq", .urlSq), ("url_q", .urlQ), ("url_t", .urlT), ("url_s", .urlS),
        ("dates", .dates), ("location", .location),
        ("visibility", .visibility), ("exif", .exif), ("person", .person),
    ])
    /// getInfo's `owner`.
    static let owner = KeyTable<FeedKey>([("nsid", .owner), ("username", .ownerName)])
    /// getInfo's `dates`.
    static let dates = KeyTable<FeedKey>([("taken", .dateTaken), ("posted", .datePosted)])
    /// getInfo's `location`.
    static let location = KeyTable<FeedKey>([
        ("latitude", .latitude), ("longitude", .longitude), ("accuracy", .accuracy),
        ("place_id", .placeID), ("woeid", .woeid),
        ("locality", .locality), ("region", .region), ("country", .country),
    ])
    /// getInfo's `tags` (`tag`) and each tag object (`_content`); any `{"_content": …}` object.
    static let container = KeyTable<FeedKey>([("tag", .tag), ("_content", .content)])
    /// A top-places entry.
    static let place = KeyTable<FeedKey>([
        ("place_id", .placeID), ("woeid", .woeid), ("_content", .content), ("photo_count", .photoCount),
    ])
}
