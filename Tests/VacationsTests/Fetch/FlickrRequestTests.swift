import Foundation
import Testing
@testable import Vacations

@Suite("Flickr requests: methods, parameters, encoding, the key hidden")
struct FlickrRequestTests {
    static let endpoint = URL(fileURLWithPath: "/").deletingLastPathComponent()

    /// The query of a URL as name-value pairs in order, percent-decoded.
    static func pairs(_ url: URL) -> [(String, String)] {
        (URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQueryItems ?? []).map {
            ($0.name.removingPercentEncoding ?? $0.name, ($0.value ?? "").removingPercentEncoding ?? "")
        }
    }

    @Test("each query asks for its method with Flickr's documented parameters", arguments: [
        (FlickrQuery.search(text: "a"), "flickr.photos.search", [("text", "a")]),
        (.tags(["beach", "sunset"]), "flickr.photos.search", [("tags", "beach,sunset")]),
        (.place(id: "00j4IylZV7scWik"), "flickr.photos.search", [("place_id", "00j4IylZV7scWik")]),
        (.user(id: "67131352@N04"), "flickr.photos.search", [("user_id", "67131352@N04")]),
        (.photoset(id: "721", owner: nil), "flickr.photosets.getPhotos", [("photoset_id", "721")]),
        (.photoset(id: "721", owner: "1@N01"), "flickr.photosets.getPhotos", [("photoset_id", "721"), ("user_id", "1@N01")]),
        (.recent, "flickr.photos.getRecent", []),
        (.interesting, "flickr.interestingness.getList", []),
    ] as [(FlickrQuery, String, [(String, String)])])
    func photoLists(_ query: FlickrQuery, method: String, parameters: [(String, String)]) throws {
        let endpoint = try FlickrRequest.endpoint(from: nil)
        #expect(endpoint.absoluteString == "https://api.flickr.com/services/rest/")
        let request = FlickrRequest(endpoint: endpoint, query: query, perPage: 77)
        let url = request.url(page: 3, apiKey: "K3Y")
        #expect(url.absoluteString.hasPrefix("https://api.flickr.com/services/rest/?method=\(method)&api_key=K3Y&"))
        let expected = [("method", method), ("api_key", "K3Y")] + parameters + [
            ("extras", "description,date_upload,date_taken,owner_name,geo,tags,machine_tags,media,url_sq,url_l"),
            ("per_page", "77"), ("page", "3"), ("format", "json"), ("nojsoncallback", "1"),
        ]
        #expect(Self.pairs(url).map { "\($0.0)=\($0.1)" } == expected.map { "\($0.0)=\($0.1)" })
        #expect(request.redactedURL(page: 3) == url.absoluteString.replacingOccurrences(of: "api_key=K3Y", with: "api_key=REDACTED"))
    }

    @Test("the top places: place_type_id, no paging and no extras")
    func topPlaces() throws {
        let request = FlickrRequest(endpoint: try FlickrRequest.endpoint(from: "http://127.0.0.1:8080/rest"),
                                    query: .topPlaces(placeType: 7))
        #expect(request.url(page: 1, apiKey: "k").absoluteString
                == "http://127.0.0.1:8080/rest?method=flickr.places.getTopPlacesList&api_key=k&place_type_id=7&format=json&nojsoncallback=1")
    }

    @Test("every byte outside the unreserved set is percent-encoded, so +, & and = reach Flickr as typed")
    func encoding() throws {
        let texts = ["a+b", "x&y=z", "café Ærø", "100% #1 ?", "日本 旅行", "tab\there", "a/b\\c", "\"quoted\"", "~-._"]
        for text in texts {
            let url = FlickrRequest(endpoint: try FlickrRequest.endpoint(from: "https://example.org/rest/"), query: .search(text: text))
                .url(page: 1, apiKey: "a+b&c")
            let query = url.query ?? ""
            #expect(!query.contains(" ") && !query.contains("+"))
            #expect(Self.pairs(url).first { $0.0 == "text" }?.1 == text)
            #expect(Self.pairs(url).first { $0.0 == "api_key" }?.1 == "a+b&c")
        }
        #expect(FlickrRequest.percentEncoded("é+ ~") == "%C3%A9%2B%20~")
    }

    @Test("an endpoint with a query of its own keeps it")
    func endpointQuery() throws {
        let request = FlickrRequest(endpoint: try FlickrRequest.endpoint(from: "http://h/rest?proxy=1"), query: .recent, perPage: 1)
        #expect(request.url(page: 1, apiKey: "k").absoluteString.hasPrefix("http://h/rest?proxy=1&method=flickr.photos.getRecent&"))
    }

    @Test("FLICKR_API_BASE must be an http or https URL with a host", arguments: ["ftp://h/", "h/rest", "file:///etc", "http://", "https://h/#x", "::"])
    func badEndpoints(_ text: String) {
        #expect(throws: FetchError(.usage, "FLICKR_API_BASE is not an http or https URL: \(text)")) { try FlickrRequest.endpoint(from: text) }
    }

    @Test("an empty FLICKR_API_BASE means Flickr's own")
    func emptyEndpoint() throws {
        #expect(try FlickrRequest.endpoint(from: "").absoluteString == FlickrRequest.defaultEndpoint)
    }
}
