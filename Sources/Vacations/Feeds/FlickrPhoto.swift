import Foundation

/// One photo (or video) as a Flickr feed describes it, before any domain rule is applied.
///
/// The reader fills what the record has and leaves the rest `nil`. A `nil` field is one the
/// record does not carry (unknown), unless ``emptied`` names it: then the record carries it
/// empty (`title=""`, `<description />`, `tags=""`, Flickr's 0,0 with accuracy 0 for "no
/// location"). Values that do not parse (a latitude of "north") count as not carried. Tags are
/// the raw tokens: ``FlickrNames/tags(_:excluding:)`` turns them into tag names.
///
/// ```swift
/// try FlickrFeedReader.read(contentsOf: url, photo: { photo in
///     print(photo.id, photo.title ?? "Unknown")
/// })
/// ```
package struct FlickrPhoto: Sendable, Equatable {
    /// The Flickr id as a canonical decimal string: digits only, no leading zeros.
    package var id: String
    package var title: String?
    /// The description (`description` extra, or getInfo's `description._content`).
    package var description: String?
    /// The owner's NSID, such as `67131352@N04`.
    package var owner: String?
    package var ownerName: String?
    /// When the photo was taken; Flickr gives a wall-clock time, read here as UTC.
    package var dateTaken: Date?
    package var dateUploaded: Date?
    /// `nil` when the record has no usable geo data; ``emptied`` says when it says "none"
    /// (Flickr writes 0,0 with accuracy 0 for that), never a point at 0,0.
    package var latitude: Double?
    package var longitude: Double?
    package var imageURL: String?
    package var thumbnailURL: String?
    /// `photo` or `video`.
    package var media: String?
    /// Raw tag tokens in feed order, machine tags included.
    package var tags: [String]
    package var placeID: String?
    package var woeid: String?
    /// `derived_place`, or for a getInfo photo its location as "locality, region, country".
    var derivedPlace: String?
    /// Fields the record carries with an empty value: their `nil` means "none", not "unknown".
    package var emptied: PhotoFields
    /// Fields whose value the reader made from others rather than read: the image and thumbnail
    /// URLs built from `server` and `secret` when no `url_*` extra gives them. Such a value fills
    /// a field a photo lacks and replaces none.
    package var derived: PhotoFields

    package init(
        id: String, title: String? = nil, description: String? = nil, owner: String? = nil,
        ownerName: String? = nil, dateTaken: Date? = nil, dateUploaded: Date? = nil,
        latitude: Double? = nil, longitude: Double? = nil, imageURL: String? = nil,
        thumbnailURL: String? = nil, media: String? = nil, tags: [String] = [],
        placeID: String? = nil, woeid: String? = nil, derivedPlace: String? = nil,
        emptied: PhotoFields = [], derived: PhotoFields = []
    ) {
        self.id = id
        self.title = title
        self.description = description
        self.owner = owner
        self.ownerName = ownerName
        self.dateTaken = dateTaken
        self.dateUploaded = dateUploaded
        self.latitude = latitude
        self.longitude = longitude
        self.imageURL = imageURL
        self.thumbnailURL = thumbnailURL
        self.media = media
        self.tags = tags
        self.placeID = placeID
        self.woeid = woeid
        self.derivedPlace = derivedPlace
        self.emptied = emptied
        self.derived = derived
    }
}

/// One entry of a top-places list (`flickr.places.getTopPlacesList`).
package struct FlickrPlace: Sendable, Equatable {
    package var placeID: String?
    package var woeid: String?
    /// The place's name as the feed gives it, such as "New York, US, United States".
    package var name: String
    /// The photos Flickr counts for the place (`photo_count`), when the list says.
    package var photoCount: Int?

    package init(placeID: String?, woeid: String?, name: String, photoCount: Int? = nil) {
        self.placeID = placeID
        self.woeid = woeid
        self.name = name
        self.photoCount = photoCount
    }
}

/// A record that was skipped because it could not be used; the rest of the feed was read.
package struct FeedProblem: Sendable, Equatable, CustomStringConvertible {
    /// The record's id as the feed wrote it, when it had one.
    package var id: String?
    package var reason: String

    package init(id: String?, reason: String) {
        self.id = id
        self.reason = reason
    }

    package var description: String {
        if let id { return "record \(id): \(reason)" }
        return "record without id: \(reason)"
    }
}

/// How a feed is written; found from its first bytes, never from the file name.
package enum FeedFormat: String, Sendable, Equatable, CustomStringConvertible {
    /// Flickr REST XML (`<rsp stat="ok">`).
    case xml
    /// `format=json&nojsoncallback=1`.
    case json
    /// `format=json`: JSON wrapped in a callback, `jsonFlickrApi({...})`.
    case jsonp

    package var description: String {
        switch self {
        case .xml: return "XML"
        case .json: return "JSON"
        case .jsonp: return "JSONP"
        }
    }
}

/// What a feed holds.
package enum FeedContent: String, Sendable, Equatable {
    /// A photo list: search, getRecent, interestingness, favorites, photoset.
    case photos
    /// One `flickr.photos.getInfo` photo.
    case singlePhoto
    /// A top-places list.
    case places
}

/// What ``FlickrFeedReader`` found in a feed that it read to the end.
package struct FeedSummary: Sendable, Equatable {
    package var format: FeedFormat
    package var content: FeedContent
    /// Photos handed to the `photo` callback.
    package var photoCount: Int
    /// Places handed to the `place` callback.
    package var placeCount: Int
    /// Records that were skipped, in document order.
    package var problems: [FeedProblem]
    /// Where this page stands in a paged photo list, when the list says (`nil` otherwise).
    package var paging: FeedPaging?

    package init(format: FeedFormat, content: FeedContent, photoCount: Int = 0, placeCount: Int = 0,
                problems: [FeedProblem] = [], paging: FeedPaging? = nil) {
        self.format = format
        self.content = content
        self.photoCount = photoCount
        self.placeCount = placeCount
        self.problems = problems
        self.paging = paging
    }
}

/// A photo list's paging, as Flickr writes it on the list (`page`, `pages`, `perpage` or
/// `per_page`, `total`), numbers or strings alike; a value that is not a whole number is `nil`.
/// `vacation fetch` reads `pages` to know when to stop.
package struct FeedPaging: Sendable, Equatable {
    package var page: Int?
    package var pages: Int?
    package var perPage: Int?
    package var total: Int?

    package init(page: Int? = nil, pages: Int? = nil, perPage: Int? = nil, total: Int? = nil) {
        self.page = page
        self.pages = pages
        self.perPage = perPage
        self.total = total
    }

    /// Takes one member (JSON) or attribute (XML) of the list; other names are ignored.
    mutating func set(_ name: String, _ value: String) {
        let number = Int(value.trimmingCharacters(in: .whitespaces))
        switch name {
        case "page": page = number
        case "pages": pages = number
        case "perpage", "per_page": perPage = perPage ?? number
        case "total": total = number
        default: break
        }
    }
}
