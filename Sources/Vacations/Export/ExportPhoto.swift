import Foundation

/// A place on Earth in degrees (WGS 84, as Flickr gives it).
struct Coordinate: Sendable, Equatable {
    var latitude: Double
    var longitude: Double

    init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// The coordinate of a photo's stored latitude and longitude, or nil when they say nothing:
    /// either missing, not finite, out of range, or both zero. Flickr writes 0,0 (with accuracy
    /// 0) for "no location"; the importer stores that as none, but a store written by another
    /// tool may hold it, and exports never put a photo at 0,0 for "unknown" (README.md, "Trips and exports").
    init?(latitude: Double?, longitude: Double?) {
        guard let latitude, let longitude, latitude.isFinite, longitude.isFinite,
              (-90...90).contains(latitude), (-180...180).contains(longitude),
              !(latitude == 0 && longitude == 0) else { return nil }
        self.init(latitude: latitude, longitude: longitude)
    }
}

/// One photo as exports see it: the fields they write, read straight from the store.
struct ExportPhoto: Sendable, Equatable {
    /// The row's primary key, which a selection is made of.
    var key: Int64
    /// The Flickr id.
    var id: String
    /// The title as the CLI shows it (`photos --json`): the title, else the description's
    /// first line, else "Unknown".
    var title: String
    var place: String?
    /// Tag names, sorted as `photos --json` sorts them.
    var tags: [String]
    var dateTaken: Date?
    /// Latitude and longitude as stored (see `coordinate` for what exports use).
    var latitude: Double?
    var longitude: Double?
    var imageURL: String?
    var thumbnailURL: String?

    init(key: Int64, id: String, title: String, place: String? = nil, tags: [String] = [], dateTaken: Date? = nil,
                latitude: Double? = nil, longitude: Double? = nil, imageURL: String? = nil, thumbnailURL: String? = nil) {
        self.key = key
        self.id = id
        self.title = title
        self.place = place
        self.tags = tags
        self.dateTaken = dateTaken
        self.latitude = latitude
        self.longitude = longitude
        self.imageURL = imageURL
        self.thumbnailURL = thumbnailURL
    }

    /// Where the photo was taken, or nil when unknown (0,0 included).
    var coordinate: Coordinate? { Coordinate(latitude: latitude, longitude: longitude) }
}

/// URLs that an export may make a browser or a map program *load* or *follow*: absolute
/// `http` or `https` URLs without spaces or controls. Anything else (`javascript:`, a relative
/// path, text with markup) is still written as data where a format has a text field for it,
/// but never as a link or an image source.
enum WebLink {
    static func loadable(_ text: String?) -> String? {
        guard let text, text.utf8.count <= 4_096 else { return nil }
        let lowered = text.prefix(8).lowercased()
        let schemeLength = lowered.hasPrefix("https://") ? 8 : lowered.hasPrefix("http://") ? 7 : 0
        guard schemeLength > 0 else { return nil }
        // A host, then the rest: the host ends at the first '/', '?' or '#'.
        let afterScheme = text.utf8.dropFirst(schemeLength)
        let host = afterScheme.prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        guard !host.isEmpty, !host.contains(UInt8(ascii: "@")) else { return nil }
        for byte in text.utf8 where byte < 0x80 {
            // Controls, spaces and the characters a URL never holds unescaped.
            if byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
                || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "`") || byte == UInt8(ascii: "^") || byte == UInt8(ascii: "{")
                || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "|") { return nil }
        }
        if text.utf8.contains(where: { $0 >= 0x80 }),
           text.unicodeScalars.contains(where: { !$0.isASCII && ($0.properties.isWhitespace || $0.properties.generalCategory == .control
               || $0.properties.generalCategory == .format) }) {
            return nil
        }
        return text
    }
}
