import Foundation

/// The fields of a Flickr photo record that the readers keep, whatever the format.
enum PhotoField: UInt8, Sendable {
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
    /// `_content`: the text of a JSON object that stands for an XML element.
    case content
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
    static let photo = KeyTable<PhotoField>([
        ("id", .id), ("owner", .owner), ("ownername", .ownerName), ("secret", .secret),
        ("server", .server), ("title", .title), ("description", .description),
        ("datetaken", .dateTaken), ("dateupload", .dateUploaded), ("dateuploaded", .dateUploaded),
        ("latitude", .latitude), ("longitude", .longitude), ("accuracy", .accuracy),
        ("tags", .tags), ("media", .media), ("place_id", .placeID), ("woeid", .woeid),
        ("derived_place", .derivedPlace),
        ("url_l", .urlL), ("url_c", .urlC), ("url_z", .urlZ), ("url_m", .urlM), ("url_o", .urlO),
        ("url_b", .urlB), ("url_sq", .urlSq), ("url_q", .urlQ), ("url_t", .urlT), ("url_s", .urlS),
        ("dates", .dates), ("location", .location),
    ])
    /// getInfo's `owner`.
    static let owner = KeyTable<PhotoField>([("nsid", .owner), ("username", .ownerName)])
    /// getInfo's `dates`.
    static let dates = KeyTable<PhotoField>([("taken", .dateTaken), ("posted", .datePosted)])
    /// getInfo's `location`.
    static let location = KeyTable<PhotoField>([
        ("latitude", .latitude), ("longitude", .longitude), ("accuracy", .accuracy),
        ("place_id", .placeID), ("woeid", .woeid),
        ("locality", .locality), ("region", .region), ("country", .country),
    ])
    /// getInfo's `tags` (`tag`) and each tag object (`_content`); any `{"_content": …}` object.
    static let container = KeyTable<PhotoField>([("tag", .tag), ("_content", .content)])
    /// A top-places entry.
    static let place = KeyTable<PhotoField>([("place_id", .placeID), ("woeid", .woeid), ("_content", .content)])
}

/// Collects one photo record's fields as they stream past, then builds the photo.
struct PhotoRecord {
    var rawID: String?
    var title: String?
    var description: String?
    var owner: String?
    var ownerName: String?
    var secret: String?
    var server: String?
    var dateTaken: Date?
    var dateUploaded: Date?
    var datePosted: Date?
    var latitude: Double?
    var longitude: Double?
    var accuracy: Int?
    var media: String?
    var tags: [String] = []
    var placeID: String?
    var woeid: String?
    var derivedPlace: String?
    var locality: String?
    var region: String?
    var country: String?
    var imageURL: String?
    var imageRank = Int.max
    var thumbnailURL: String?
    var thumbnailRank = Int.max

    /// Stores a field's text. Values that do not parse (a date, a latitude) stay `nil`:
    /// the record is still good, it just lacks that field.
    mutating func set(_ field: PhotoField, _ bytes: UnsafeRawBufferPointer) {
        switch field {
        case .id: rawID = string(bytes)
        case .owner: owner = nonEmpty(bytes)
        case .ownerName: ownerName = nonEmpty(bytes)
        case .secret: secret = nonEmpty(bytes)
        case .server: server = nonEmpty(bytes)
        case .title: title = nonEmpty(bytes)
        case .description: description = nonEmpty(bytes)
        case .dateTaken: dateTaken = FlickrDates.takenDate(bytes)
        case .dateUploaded: dateUploaded = FlickrDates.unixDate(bytes)
        case .datePosted: datePosted = FlickrDates.unixDate(bytes)
        case .latitude: latitude = FlickrDates.double(bytes)
        case .longitude: longitude = FlickrDates.double(bytes)
        // Through `Double` because some feeds write "16.0"; bounded so `Int(_:)` cannot trap.
        case .accuracy: accuracy = FlickrDates.double(bytes).flatMap { $0.magnitude < 1e9 ? Int($0) : nil }
        case .tags: appendTagTokens(bytes)
        case .tag: if let tag = nonEmpty(bytes) { tags.append(tag) }
        case .media: media = nonEmpty(bytes)
        case .placeID: placeID = nonEmpty(bytes)
        case .woeid: woeid = nonEmpty(bytes)
        case .derivedPlace: derivedPlace = nonEmpty(bytes)
        case .locality: locality = nonEmpty(bytes)
        case .region: region = nonEmpty(bytes)
        case .country: country = nonEmpty(bytes)
        case .urlL, .urlC, .urlZ, .urlM, .urlO, .urlB:
            let rank = Int(field.rawValue - PhotoField.urlL.rawValue)
            if rank < imageRank, let url = nonEmpty(bytes) { imageURL = url; imageRank = rank }
        case .urlSq, .urlQ, .urlT, .urlS:
            let rank = Int(field.rawValue - PhotoField.urlSq.rawValue)
            if rank < thumbnailRank, let url = nonEmpty(bytes) { thumbnailURL = url; thumbnailRank = rank }
        case .dates, .location, .content:
            break
        }
    }

    /// The `tags` extra is one string of space-separated tokens.
    private mutating func appendTagTokens(_ bytes: UnsafeRawBufferPointer) {
        var index = 0
        while index < bytes.count {
            while index < bytes.count, FlickrNames.isASCIIWhitespace(bytes[index]) { index += 1 }
            let tokenStart = index
            while index < bytes.count, !FlickrNames.isASCIIWhitespace(bytes[index]) { index += 1 }
            if index > tokenStart {
                tags.append(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[tokenStart..<index]), as: UTF8.self))
            }
        }
    }

    enum Outcome {
        case photo(FlickrPhoto)
        case problem(FeedProblem)
    }

    /// The finished photo, or why the record cannot be used.
    func finish() -> Outcome {
        guard let rawID else { return .problem(FeedProblem(id: nil, reason: "the record has no id")) }
        guard let id = FlickrNames.canonicalID(rawID) else {
            return .problem(FeedProblem(id: rawID, reason: "the id is not a decimal number"))
        }
        var photo = FlickrPhoto(id: id, title: title, description: description, owner: owner,
                                ownerName: ownerName, dateTaken: dateTaken,
                                dateUploaded: dateUploaded ?? datePosted,
                                imageURL: imageURL, thumbnailURL: thumbnailURL, media: media, tags: tags,
                                placeID: placeID, woeid: woeid, derivedPlace: derivedPlace)
        if let latitude, let longitude, (-90...90).contains(latitude), (-180...180).contains(longitude),
           !(latitude == 0 && longitude == 0 && (accuracy ?? 0) == 0) {
            photo.latitude = latitude
            photo.longitude = longitude
        }
        if let server, let secret {
            let base = "https://live.staticflickr.com/\(server)/\(id)_\(secret)"
            if photo.imageURL == nil { photo.imageURL = base + "_b.jpg" }
            if photo.thumbnailURL == nil { photo.thumbnailURL = base + "_s.jpg" }
        }
        if photo.derivedPlace == nil {
            let parts = [locality, region, country].compactMap { $0.flatMap(FlickrNames.placeName) }
            if !parts.isEmpty { photo.derivedPlace = parts.joined(separator: ", ") }
        }
        return .photo(photo)
    }
}

/// Collects one top-places entry.
struct PlaceRecord {
    var placeID: String?
    var woeid: String?
    var name: String?

    mutating func set(_ field: PhotoField, _ bytes: UnsafeRawBufferPointer) {
        switch field {
        case .placeID: placeID = nonEmpty(bytes)
        case .woeid: woeid = nonEmpty(bytes)
        case .content: name = string(bytes)
        default: break
        }
    }

    enum Outcome {
        case place(FlickrPlace)
        case problem(FeedProblem)
    }

    func finish() -> Outcome {
        guard let name, FlickrNames.placeName(name) != nil else {
            return .problem(FeedProblem(id: placeID ?? woeid, reason: "the place has no name"))
        }
        guard placeID != nil || woeid != nil else {
            return .problem(FeedProblem(id: nil, reason: "the place \"\(name)\" has no place_id or woeid"))
        }
        return .place(FlickrPlace(placeID: placeID, woeid: woeid, name: name))
    }
}

@inline(__always)
func string(_ bytes: UnsafeRawBufferPointer) -> String {
    String(decoding: bytes, as: UTF8.self)
}

@inline(__always)
func nonEmpty(_ bytes: UnsafeRawBufferPointer) -> String? {
    bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
}

/// Flickr's date and number formats, parsed from bytes.
enum FlickrDates {
    /// `datetaken`: "YYYY-MM-DD HH:MM:SS" (or just the date), a wall-clock time read as UTC.
    /// Flickr writes "0000-00-00 00:00:00" for unknown dates: that is `nil`.
    static func takenDate(_ bytes: UnsafeRawBufferPointer) -> Date? {
        guard bytes.count == 10 || bytes.count == 16 || bytes.count == 19 else { return nil }
        func number(_ from: Int, _ count: Int) -> Int? {
            var value = 0
            for index in from..<(from + count) {
                let digit = Int(bytes[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              year > 0, (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var hour = 0, minute = 0, second = 0
        if bytes.count >= 16 {
            guard bytes[10] == UInt8(ascii: " ") || bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"),
                  let parsedHour = number(11, 2), let parsedMinute = number(14, 2),
                  parsedHour < 24, parsedMinute < 60 else { return nil }
            hour = parsedHour
            minute = parsedMinute
            if bytes.count == 19 {
                guard bytes[16] == UInt8(ascii: ":"), let parsedSecond = number(17, 2), parsedSecond < 61 else { return nil }
                second = parsedSecond
            }
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// `dateupload`: seconds since 1970 as decimal digits (a string or a JSON number).
    static func unixDate(_ bytes: UnsafeRawBufferPointer) -> Date? {
        guard !bytes.isEmpty, bytes.count <= 15 else { return nil }
        var value = 0
        for byte in bytes {
            let digit = Int(byte) - 48
            guard (0...9).contains(digit) else { return nil }
            value = value * 10 + digit
        }
        return Date(timeIntervalSince1970: TimeInterval(value))
    }

    static func double(_ bytes: UnsafeRawBufferPointer) -> Double? {
        guard !bytes.isEmpty, bytes.count < 64, let value = Double(string(bytes)), value.isFinite else { return nil }
        return value
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
