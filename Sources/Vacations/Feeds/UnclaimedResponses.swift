/// What a Flickr response that the importer does not take holds, for the error that refuses it
/// (``FeedError/Kind-swift.enum/unclaimed``): "a flickr.places.find response (places matching a
/// search)".
///
/// The importer takes photo lists, single `photos.getInfo` photos and top-places lists
/// (ARCHITECTURE.md §3). Other responses may look like them — `photos.geo.getLocation` is a `<photo>` too,
/// `places.find` is a `<places>` list — and are told apart by what Flickr documents of each.
enum UnclaimedResponses {
    // A single <photo> without getInfo's structure.
    static let geoLocation = "a flickr.photos.geo.getLocation response (a photo's location)"
    static let exif = "a flickr.photos.getExif response (a photo's EXIF data)"
    static let favorites = "a flickr.photos.getFavorites response (who marked a photo as a favourite)"
    static let photoTags = "a flickr.tags.getListPhoto response (a photo's tags)"
    static let photoWithoutInfo = "a <photo> without photos.getInfo's owner, title, description or dates"

    // A <places> list that is not a top-places list.
    static let placesFind = "a flickr.places.find response (places matching a search)"
    static let placesFindByLatLon = "a flickr.places.findByLatLon response (the place at a point)"
    static let placesForBoundingBox = "a flickr.places.placesForBoundingBox response (the places in an area)"
    static let placesWithoutDay = "a list of places without getTopPlacesList's date_start and date_stop "
        + "(such as flickr.places.placesForUser or flickr.places.getChildrenWithPhotosPublic)"

    // A <photoset> or <gallery> without photos.
    static let photosetInfo = "a flickr.photosets.getInfo response (an album's details, without its photos)"
    static let galleryInfo = "a flickr.galleries.getInfo response (a gallery's details, without its photos)"

    /// A photo list's paging attributes: `photosets.getPhotos` has them, `photosets.getInfo` not.
    static let pagingNames: Set<String> = ["page", "pages", "perpage", "per_page", "total"]

    /// Why a `<places>` list with these attributes (members in JSON) is not a top-places list,
    /// or `nil` when it is one. `flickr.places.getTopPlacesList` documents `total`, `date_start`
    /// and `date_stop` (the day it covers); `places.find` has `query`, `findByLatLon` the point
    /// asked about, `placesForBoundingBox` a `bbox`, and the lists of places with a user's,
    /// contacts', tags' or a parent place's photos only `total`.
    static func topPlacesRefusal(_ names: Set<String>) -> String? {
        if names.contains("query") { return placesFind }
        if names.contains("bbox") { return placesForBoundingBox }
        if names.contains("latitude") || names.contains("longitude") || names.contains("accuracy") {
            return placesFindByLatLon
        }
        if names.contains("date_start") || names.contains("date_stop") { return nil }
        return placesWithoutDay
    }

    /// Responses known by the element (XML) or member (JSON) that holds their content.
    private static let byContainer: [String: String] = [
        "person": "a flickr.people.getInfo response (a person's profile)",
        "user": "a flickr.people.findByUsername or flickr.test.login response (a user's id)",
        "people": "a flickr.photos.people.getList response (the people in a photo)",
        "sizes": "a flickr.photos.getSizes response (a photo's sizes)",
        "photosets": "a flickr.photosets.getList response (a list of albums)",
        "galleries": "a flickr.galleries.getList response (a list of galleries)",
        "collections": "a flickr.collections.getTree response (a list of collections)",
        "groups": "a flickr.groups.search or flickr.people.getGroups response (a list of groups)",
        "group": "a flickr.groups.getInfo response (a group's details)",
        "contacts": "a flickr.contacts.getList response (a list of contacts)",
        "place": "a flickr.places.getInfo response (a place's details)",
        "location": "a flickr.places.resolvePlaceId or resolvePlaceURL response (a place's details)",
        "place_types": "a flickr.places.getPlaceTypes response (the kinds of place)",
        "shapes": "a flickr.places.getShapeHistory response (a place's outlines)",
        "comments": "a flickr.photos.comments.getList response (a photo's comments)",
        "photocounts": "a flickr.photos.getCounts response (photo counts by date)",
        "perms": "a flickr.photos.getPerms or flickr.photos.geo.getPerms response (a photo's permissions)",
        "licenses": "a flickr.photos.licenses.getInfo response (the licences)",
        "prevphoto": "a flickr.photos.getContext response (a photo's neighbours)",
        "nextphoto": "a flickr.photos.getContext response (a photo's neighbours)",
        "set": "a flickr.photos.getAllContexts response (the albums and groups of a photo)",
        "pool": "a flickr.photos.getAllContexts response (the albums and groups of a photo)",
        "hottags": "a flickr.tags.getHotList response (a list of tags)",
        "who": "a flickr.tags.getListUser response (a person's tags)",
        "tags": "a flickr.tags.getRelated response (a list of tags)",
        "method": "a flickr.reflection.getMethodInfo or flickr.test.echo response (an API method)",
        "methods": "a flickr.reflection.getMethods response (the API's methods)",
        "items": "a flickr.activity response (recent activity)",
        "blogs": "a flickr.blogs.getList response (a list of blogs)",
        "brands": "a flickr.cameras.getBrands response (camera makers)",
        "cameras": "a flickr.cameras.getBrandModels response (cameras)",
        "suggestions": "a flickr.photos.suggestions.getList response (location suggestions)",
        "stats": "a flickr.stats response (statistics)",
    ]

    /// The response whose content sits in `name` (an element in XML, a member in JSON).
    static func named(_ name: String, format: FeedFormat) -> String {
        if let known = byContainer[name] { return known }
        let quoted = format == .xml ? "<\(name)>" : "\"\(name)\""
        return "a Flickr response of another kind (\(quoted))"
    }
}
