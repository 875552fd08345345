import Foundation

/// What `vacation fetch` asks Flickr for (README.md, "Straight from Flickr"): a photo list, or the top places.
///
/// Each maps to a method of Flickr's REST API with its documented parameters:
/// `flickr.photos.search` (`text`, `tags`, `place_id`, `user_id`), `flickr.photosets.getPhotos`
/// (`photoset_id`, with `user_id` for the set's owner when given), `flickr.photos.getRecent`,
/// `flickr.interestingness.getList` and `flickr.places.getTopPlacesList` (`place_type_id`).
package enum FlickrQuery: Sendable, Equatable {
    case search(text: String)
    /// Photos with any of these tags (Flickr's default `tag_mode`).
    case tags([String])
    case place(id: String)
    case photoset(id: String, owner: String?)
    case user(id: String)
    case recent
    case interesting
    case topPlaces(placeType: Int)

    /// The top places a vacation asks for: localities (`place_type_id` 7), as the CS193p app did.
    package static let localityPlaceType = 7

    /// The REST method.
    package var method: String {
        switch self {
        case .search, .tags, .place, .user: "flickr.photos.search"
        case .photoset: "flickr.photosets.getPhotos"
        case .recent: "flickr.photos.getRecent"
        case .interesting: "flickr.interestingness.getList"
        case .topPlaces: "flickr.places.getTopPlacesList"
        }
    }

    /// The method's own parameters, before the ones every request carries.
    var parameters: [(String, String)] {
        switch self {
        case .search(let text): [("text", text)]
        case .tags(let tags): [("tags", tags.joined(separator: ","))]
        case .place(let id): [("place_id", id)]
        case .user(let id): [("user_id", id)]
        case .photoset(let id, let owner): [("photoset_id", id)] + (owner.map { [("user_id", $0)] } ?? [])
        case .recent, .interesting: []
        case .topPlaces(let placeType): [("place_type_id", String(placeType))]
        }
    }

    /// Whether the answer is a paged photo list (the top places come in one list of 100).
    var isPhotoList: Bool {
        if case .topPlaces = self { return false }
        return true
    }
}

/// One request to Flickr's REST API: the endpoint, the query and the page size; it makes the
/// URL of each page, and the same URL with the key hidden for anything printed.
///
/// ```swift
/// let request = FlickrRequest(endpoint: try FlickrRequest.endpoint(from: nil), query: .search(text: "lisbon"))
/// request.url(page: 2, apiKey: key)          // …?method=flickr.photos.search&api_key=…&page=2…
/// request.redactedURL(page: 2)                // …api_key=REDACTED…
/// ```
package struct FlickrRequest: Sendable, Equatable {
    /// Flickr's own endpoint, used unless `$FLICKR_API_BASE` names another.
    static let defaultEndpoint = "https://api.flickr.com/services/rest/"
    /// The extras the importer reads (ARCHITECTURE.md §3): every field a photo keeps.
    package static let extras = "description,date_upload,date_taken,owner_name,geo,tags,machine_tags,media,url_sq,url_l"
    package static let defaultPerPage = 250
    /// Flickr's largest page.
    package static let perPageRange = 1...500
    /// What stands for the key in anything shown.
    package static let redactedKey = "REDACTED"

    package var endpoint: URL
    package var query: FlickrQuery
    package var perPage: Int

    package init(endpoint: URL, query: FlickrQuery, perPage: Int = defaultPerPage) {
        self.endpoint = endpoint
        self.query = query
        self.perPage = perPage
    }

    /// The endpoint from `$FLICKR_API_BASE` (`nil` or empty: Flickr's own).
    /// - Throws: ``FetchError`` (usage) when it is not an http or https URL with a host.
    package static func endpoint(from text: String?) throws(FetchError) -> URL {
        let text = text.flatMap { $0.isEmpty ? nil : $0 } ?? defaultEndpoint
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty, url.fragment == nil else {
            throw FetchError(.usage, "FLICKR_API_BASE is not an http or https URL: \(text)")
        }
        return url
    }

    /// The URL of page `page` (1-based), with the key.
    package func url(page: Int, apiKey: String) -> URL {
        url(page: page, keyText: apiKey)
    }

    /// The URL of page `page` as it may be shown: the key is `REDACTED`.
    func redactedURL(page: Int) -> String {
        url(page: page, keyText: Self.redactedKey).absoluteString
    }

    private func url(page: Int, keyText: String) -> URL {
        var parameters = [("method", query.method), ("api_key", keyText)] + query.parameters
        if query.isPhotoList {
            parameters += [("extras", Self.extras), ("per_page", String(perPage)), ("page", String(page))]
        }
        parameters += [("format", "json"), ("nojsoncallback", "1")]
        let encoded = parameters.map { Self.percentEncoded($0.0) + "=" + Self.percentEncoded($0.1) }.joined(separator: "&")
        let base = endpoint.absoluteString
        let separator = base.contains("?") ? (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&") : "?"
        // Every byte outside the unreserved set is percent-encoded, so this always parses.
        return URL(string: base + separator + encoded) ?? endpoint
    }

    /// RFC 3986's unreserved characters stay; every other byte of the UTF-8 is `%XX`. (Foundation's
    /// query encoding leaves `+`, `&` and `=` alone, which Flickr would read as a space or a new
    /// parameter.)
    static func percentEncoded(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF")
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"):
                result.append(Character(Unicode.Scalar(byte)))
            default:
                result.append("%")
                result.append(hex[Int(byte >> 4)])
                result.append(hex[Int(byte & 0x0F)])
            }
        }
        return result
    }
}
