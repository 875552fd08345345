import Foundation

/// Collects one photo record's fields as they stream past, then builds the photo.
///
/// It also notes which keys the record had, whatever their value, so that the photo tells a
/// field the response does not carry (unknown) from one it carries empty (ARCHITECTURE.md §3), and which
/// containers it had, so that a single `<photo>` can be told to be getInfo's or another kind.
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
    /// Keys the record had with a value of any kind (bit `FeedKey.rawValue`).
    private var present: UInt64 = 0
    /// Keys whose value was empty, or Flickr's way of writing "none" (a date of zeros).
    private var empty: UInt64 = 0
    /// Keys the record had as a container: a child element (XML), an object (JSON).
    private var containers: UInt64 = 0

    private static func bit(_ key: FeedKey) -> UInt64 { 1 << UInt64(key.rawValue) }
    private func had(_ key: FeedKey) -> Bool { present & Self.bit(key) != 0 }
    private func hadEmpty(_ key: FeedKey) -> Bool { empty & Self.bit(key) != 0 }
    private func hadContainer(_ key: FeedKey) -> Bool { containers & Self.bit(key) != 0 }

    /// Notes a container the record holds, such as getInfo's `<tags>` (which says the photo's
    /// tags even when it has none) or `<owner>`, whatever is in it.
    mutating func noteContainer(_ key: FeedKey) {
        containers |= Self.bit(key)
    }

    /// Stores a field's text. Values that do not parse (a date, a latitude) stay `nil`:
    /// the record is still good, it just lacks that field.
    mutating func set(_ field: FeedKey, _ bytes: UnsafeRawBufferPointer) {
        present |= Self.bit(field)
        if bytes.isEmpty { empty |= Self.bit(field) }
        switch field {
        case .id: rawID = string(bytes)
        case .owner: owner = nonEmpty(bytes)
        case .ownerName: ownerName = nonEmpty(bytes)
        case .secret: secret = nonEmpty(bytes)
        case .server: server = nonEmpty(bytes)
        case .title: title = nonEmpty(bytes)
        case .description: description = nonEmpty(bytes)
        case .dateTaken:
            dateTaken = FlickrDates.takenDate(bytes)
            if dateTaken == nil, FlickrDates.isZeroDate(bytes) { empty |= Self.bit(field) }
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
            let rank = Int(field.rawValue - FeedKey.urlL.rawValue)
            if rank < imageRank, let url = nonEmpty(bytes) { imageURL = url; imageRank = rank }
        case .urlSq, .urlQ, .urlT, .urlS:
            let rank = Int(field.rawValue - FeedKey.urlSq.rawValue)
            if rank < thumbnailRank, let url = nonEmpty(bytes) { thumbnailURL = url; thumbnailRank = rank }
        case .dates, .location, .visibility, .exif, .person, .content, .photoCount:
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
        if let latitude, let longitude, (-90...90).contains(latitude), (-180...180).contains(longitude) {
            // Flickr's 0,0 with accuracy 0 is its way of writing "no location", never a point.
            if latitude == 0 && longitude == 0 && (accuracy ?? 0) == 0 {
                photo.emptied.insert(.coordinates)
            } else {
                photo.latitude = latitude
                photo.longitude = longitude
            }
        } else if hadEmpty(.latitude) && hadEmpty(.longitude) {
            photo.emptied.insert(.coordinates)
        }
        // Strings are `nil` after a key only when it was empty (`nonEmpty`); a date also when it
        // does not parse, which counts as not carried unless it was empty or all zeros.
        if title == nil && had(.title) { photo.emptied.insert(.title) }
        if description == nil && had(.description) { photo.emptied.insert(.subtitle) }
        if media == nil && had(.media) { photo.emptied.insert(.media) }
        if dateTaken == nil && hadEmpty(.dateTaken) { photo.emptied.insert(.dateTaken) }
        if photo.dateUploaded == nil && (hadEmpty(.dateUploaded) || hadEmpty(.datePosted)) { photo.emptied.insert(.dateUploaded) }
        if tags.isEmpty && (had(.tags) || had(.tag) || hadContainer(.tags)) { photo.emptied.insert(.tags) }
        if let server, let secret {
            let base = "https://live.staticflickr.com/\(server)/\(id)_\(secret)"
            if photo.imageURL == nil {
                photo.imageURL = base + "_b.jpg"
                photo.derived.insert(.imageURL)
            }
            if photo.thumbnailURL == nil {
                photo.thumbnailURL = base + "_s.jpg"
                photo.derived.insert(.thumbnailURL)
            }
        }
        if photo.derivedPlace == nil {
            let parts = [locality, region, country].compactMap { $0.flatMap(FlickrNames.placeName) }
            if !parts.isEmpty { photo.derivedPlace = parts.joined(separator: ", ") }
        }
        return .photo(photo)
    }

    // MARK: What kind of single photo

    /// Whether the record has `photos.getInfo`'s structure: an `<owner>`, `<title>`,
    /// `<description>`, `<dates>` or `<visibility>` element (objects in JSON). Other responses
    /// that hold one `<photo>` have none of them.
    var hasInfoStructure: Bool {
        containers & Self.infoContainers != 0
    }

    private static let infoContainers: UInt64 = [FeedKey.owner, .title, .description, .dates, .visibility]
        .reduce(0) { $0 | bit($1) }

    /// What a single `<photo>` without getInfo's structure is, for the error that refuses it.
    var otherKind: String {
        if hadContainer(.location) { return UnclaimedResponses.geoLocation }
        if hadContainer(.exif) { return UnclaimedResponses.exif }
        if hadContainer(.person) { return UnclaimedResponses.favorites }
        if hadContainer(.tags) { return UnclaimedResponses.photoTags }
        return UnclaimedResponses.photoWithoutInfo
    }
}

/// Collects one top-places entry.
struct PlaceRecord {
    var placeID: String?
    var woeid: String?
    var name: String?
    var photoCount: Int?

    mutating func set(_ field: FeedKey, _ bytes: UnsafeRawBufferPointer) {
        switch field {
        case .placeID: placeID = nonEmpty(bytes)
        case .woeid: woeid = nonEmpty(bytes)
        case .content: name = string(bytes)
        case .photoCount: photoCount = Int(string(bytes).trimmingCharacters(in: .whitespaces))
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
        return .place(FlickrPlace(placeID: placeID, woeid: woeid, name: name, photoCount: photoCount))
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
