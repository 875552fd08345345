import Foundation

/// A photo as a feed describes it, with ARCHITECTURE.md §3's rules applied: tags normalised, the place
/// name chosen. What visiting writes.
///
/// Absent is unknown, not empty: the fields in ``unknown`` are ones the feed did not carry, and
/// visiting leaves a photo's value for them as it is; every other field is set to the draft's
/// value, `nil` (or no tags) included. A value the draft holds for an unknown field is a stand-in
/// (the owner's user id for a name, an image URL built from `server` and `secret`): it fills the
/// field of a photo that has none, a new photo's among them, and replaces nothing. A draft made by
/// hand knows every field unless it says otherwise.
///
/// ```swift
/// // A bare people.getPublicPhotos record: a title and an owner id, nothing else.
/// let draft = DraftRules().draft(from: FlickrPhoto(id: "1", title: "Sunset", owner: "12037949@N04"))
/// draft.unknown == .all.subtracting(.title)   // true
/// ```
package struct PhotoDraft: Sendable, Equatable {
    package var id: String
    package var title: String?
    package var subtitle: String?
    package var imageURL: String?
    package var thumbnailURL: String?
    package var owner: String?
    package var dateTaken: Date?
    package var dateUploaded: Date?
    package var latitude: Double?
    package var longitude: Double?
    package var media: String?
    /// Normalised tag names: folded, no machine tags, no duplicates, no excluded ones.
    package var tags: [String]
    package var placeName: String?
    package var placeID: String?
    /// Fields the feed did not carry: visiting keeps the photo's value (see the type's summary).
    package var unknown: PhotoFields

    package init(id: String, title: String? = nil, subtitle: String? = nil, imageURL: String? = nil,
                thumbnailURL: String? = nil, owner: String? = nil, dateTaken: Date? = nil, dateUploaded: Date? = nil,
                latitude: Double? = nil, longitude: Double? = nil, media: String? = nil, tags: [String] = [],
                placeName: String? = nil, placeID: String? = nil, unknown: PhotoFields = []) {
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
        self.unknown = unknown
    }

    /// This draft, then `later` (of the same photo): what visiting both in turn leaves, as one
    /// draft. `later` wins for the fields it knows; a stand-in of either fills what neither knows.
    package func followed(by later: PhotoDraft) -> PhotoDraft {
        var merged = later
        merged.unknown = unknown.intersection(later.unknown)
        // A field `later` does not know keeps this draft's value, or else takes `later`'s stand-in
        // (which fills a field left empty, whether this draft knew it or not).
        func settle<Value>(_ field: PhotoFields, _ earlier: Value?, _ latest: inout Value?) {
            if later.unknown.contains(field) { latest = earlier ?? latest }
        }
        settle(.title, title, &merged.title)
        settle(.subtitle, subtitle, &merged.subtitle)
        settle(.imageURL, imageURL, &merged.imageURL)
        settle(.thumbnailURL, thumbnailURL, &merged.thumbnailURL)
        settle(.owner, owner, &merged.owner)
        settle(.dateTaken, dateTaken, &merged.dateTaken)
        settle(.dateUploaded, dateUploaded, &merged.dateUploaded)
        settle(.coordinates, latitude, &merged.latitude)
        settle(.coordinates, longitude, &merged.longitude)
        settle(.media, media, &merged.media)
        if later.unknown.contains(.tags), !tags.isEmpty { merged.tags = tags }
        if later.placeName == nil {
            merged.placeName = placeName
            merged.placeID = placeID
        }
        return merged
    }
}

/// Turns feed records into drafts: ARCHITECTURE.md §3's tag and place rules.
package struct DraftRules: Sendable {
    /// Tags to drop, compared after folding case.
    package var excludedTags: [String]
    /// Place names by Flickr place id and by WOEID, from a top-places list.
    var placeNames: [String: String]
    /// The place for photos that name none, for the whole feed.
    package var defaultPlace: String?

    package init(excludedTags: [String] = [], placeNames: [String: String] = [:], defaultPlace: String? = nil) {
        self.excludedTags = excludedTags
        self.placeNames = placeNames
        self.defaultPlace = defaultPlace
    }

    /// Learns place names from a top-places list entry (by place id and by WOEID).
    package mutating func learn(_ place: FlickrPlace) {
        guard let name = FlickrNames.placeName(place.name) else { return }
        if let placeID = place.placeID { placeNames["place:" + placeID] = name }
        if let woeid = place.woeid { placeNames["woeid:" + woeid] = name }
    }

    /// The draft of a feed's photo: what the record carries is known (empty values included),
    /// the rest ``PhotoDraft/unknown``. An owner's user id without a name, and URLs built from
    /// `server` and `secret`, are stand-ins.
    package func draft(from photo: FlickrPhoto) -> PhotoDraft {
        // Known: what the record has a value for (built URLs aside), and what it carries empty.
        var known = photo.emptied
        if photo.title != nil { known.insert(.title) }
        if photo.description != nil { known.insert(.subtitle) }
        if photo.ownerName != nil { known.insert(.owner) }
        if photo.dateTaken != nil { known.insert(.dateTaken) }
        if photo.dateUploaded != nil { known.insert(.dateUploaded) }
        if photo.latitude != nil && photo.longitude != nil { known.insert(.coordinates) }
        if photo.imageURL != nil && !photo.derived.contains(.imageURL) { known.insert(.imageURL) }
        if photo.thumbnailURL != nil && !photo.derived.contains(.thumbnailURL) { known.insert(.thumbnailURL) }
        if photo.media != nil { known.insert(.media) }
        if !photo.tags.isEmpty { known.insert(.tags) }
        let tags = FlickrNames.tags(photo.tags, excluding: excludedTags).map(FlickrNames.composed)
        var place = photo.derivedPlace.flatMap(FlickrNames.placeName)
        if place == nil, let id = photo.placeID { place = placeNames["place:" + id] }
        if place == nil, let woeid = photo.woeid { place = placeNames["woeid:" + woeid] }
        if place == nil { place = defaultPlace.flatMap(FlickrNames.placeName) }
        return PhotoDraft(
            id: photo.id, title: photo.title, subtitle: photo.description, imageURL: photo.imageURL,
            thumbnailURL: photo.thumbnailURL, owner: photo.ownerName ?? photo.owner, dateTaken: photo.dateTaken,
            dateUploaded: photo.dateUploaded, latitude: photo.latitude, longitude: photo.longitude, media: photo.media,
            tags: uniqueInOrder(tags), placeName: place.map(FlickrNames.composed), placeID: photo.placeID,
            unknown: PhotoFields.all.subtracting(known))
    }

    private func uniqueInOrder(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }
}
