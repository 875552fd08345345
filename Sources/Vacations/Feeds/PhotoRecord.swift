import Foundation

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
