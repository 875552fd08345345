import Foundation

/// A photo as a feed describes it, with DESIGN §4's rules applied: tags normalised, the place
/// name chosen. What visiting writes.
public struct PhotoDraft: Sendable, Equatable {
    public var id: String
    public var title: String?
    public var subtitle: String?
    public var imageURL: String?
    public var thumbnailURL: String?
    public var owner: String?
    public var dateTaken: Date?
    public var dateUploaded: Date?
    public var latitude: Double?
    public var longitude: Double?
    public var media: String?
    /// Normalised tag names: folded, no machine tags, no duplicates, no excluded ones.
    public var tags: [String]
    public var placeName: String?
    public var placeID: String?

    public init(id: String, title: String? = nil, subtitle: String? = nil, imageURL: String? = nil,
                thumbnailURL: String? = nil, owner: String? = nil, dateTaken: Date? = nil, dateUploaded: Date? = nil,
                latitude: Double? = nil, longitude: Double? = nil, media: String? = nil, tags: [String] = [],
                placeName: String? = nil, placeID: String? = nil) {
        self.id = id
        self.title = title
        self.subtitle = subtitle
        self.imageURL = imageURL
        self.thumbnailURL = thumbnailURL
        self.owner = owner
        self.dateTaken = dateTaken
        self.dateUploaded = dateUploaded
        self.latitude = latitude
        self.longitude = longitude
        self.media = media
        self.tags = tags
        self.placeName = placeName
        self.placeID = placeID
    }
}

/// Turns feed records into drafts: DESIGN §4's tag and place rules.
public struct DraftRules: Sendable {
    /// Tags to drop, compared after folding case.
    public var excludedTags: [String]
    /// Place names by Flickr place id and by WOEID, from a top-places list.
    public var placeNames: [String: String]
    /// The place for photos that name none, for the whole feed.
    public var defaultPlace: String?

    public init(excludedTags: [String] = [], placeNames: [String: String] = [:], defaultPlace: String? = nil) {
        self.excludedTags = excludedTags
        self.placeNames = placeNames
        self.defaultPlace = defaultPlace
    }

    /// Learns place names from a top-places list entry (by place id and by WOEID).
    public mutating func learn(_ place: FlickrPlace) {
        guard let name = FlickrNames.placeName(place.name) else { return }
        if let placeID = place.placeID { placeNames["place:" + placeID] = name }
        if let woeid = place.woeid { placeNames["woeid:" + woeid] = name }
    }

    public func draft(from photo: FlickrPhoto) -> PhotoDraft {
        let tags = FlickrNames.tags(photo.tags, excluding: excludedTags).map(FlickrNames.composed)
        var place = photo.derivedPlace.flatMap(FlickrNames.placeName)
        if place == nil, let id = photo.placeID { place = placeNames["place:" + id] }
        if place == nil, let woeid = photo.woeid { place = placeNames["woeid:" + woeid] }
        if place == nil { place = defaultPlace.flatMap(FlickrNames.placeName) }
        return PhotoDraft(
            id: photo.id, title: photo.title, subtitle: photo.description, imageURL: photo.imageURL,
            thumbnailURL: photo.thumbnailURL, owner: photo.ownerName ?? photo.owner, dateTaken: photo.dateTaken,
            dateUploaded: photo.dateUploaded, latitude: photo.latitude, longitude: photo.longitude, media: photo.media,
            tags: uniqueInOrder(tags), placeName: place.map(FlickrNames.composed), placeID: photo.placeID)
    }

    private func uniqueInOrder(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }
}
