import Foundation
import TestSupport

/// Flickr's REST API as the fetch tests need it, on a ``FakeHTTPServer`` at 127.0.0.1: pages of
/// recorded responses by method, failures scripted by request number (or for every request),
/// the real failure response for a wrong key, and thumbnails under `/thumbs/<id>_s.jpg`.
final class FakeFlickr: @unchecked Sendable {
    static let key = "SECRETKEY123"
    static let restPath = "/services/rest/"

    let server: FakeHTTPServer
    private let state: State

    init() throws {
        let state = State()
        self.state = state
        server = try FakeHTTPServer { request in state.answer(request) }
    }

    /// `$FLICKR_API_BASE`.
    var base: String { server.baseURL + "services/rest/" }

    /// The requests to the REST endpoint, in order.
    var restRequests: [FakeHTTPServer.Request] { server.requests.filter { $0.path == Self.restPath } }
    var thumbnailRequests: [FakeHTTPServer.Request] { server.requests.filter { $0.path.hasPrefix("/thumbs/") } }

    /// Answers `method` with these pages (page N is the Nth body; later pages repeat the last,
    /// as Flickr does).
    func serve(_ method: String, pages: [String]) { state.locked { $0.pages[method] = pages } }
    /// The `ordinal`th REST request (1-based) gets `answer` instead.
    func script(_ ordinal: Int, _ answer: FakeHTTPServer.Answer) { state.locked { $0.script[ordinal] = answer } }
    /// Every REST request not scripted gets `answer`.
    func failAll(with answer: FakeHTTPServer.Answer?) { state.locked { $0.fallback = answer } }
    /// The thumbnail of photo `id` gets `answer` (else a small JPEG).
    func thumbnail(_ id: String, _ answer: FakeHTTPServer.Answer?) { state.locked { $0.thumbnails[id] = answer } }

    func stop() { server.stop() }

    /// The bytes served as photo `id`'s thumbnail: a JPEG by its signature.
    static func jpeg(_ id: String) -> Data {
        Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data("thumbnail of \(id)".utf8) + Data([0xFF, 0xD9])
    }

    private final class State: @unchecked Sendable {
        struct Values {
            var pages: [String: [String]] = [:]
            var script: [Int: FakeHTTPServer.Answer] = [:]
            var fallback: FakeHTTPServer.Answer?
            var thumbnails: [String: FakeHTTPServer.Answer] = [:]
            var restCount = 0
        }

        // Read and written under `lock` only.
        private let lock = NSLock()
        private var values = Values()

        func locked<T>(_ body: (inout Values) -> T) -> T {
            lock.lock()
            defer { lock.unlock() }
            return body(&values)
        }

        func answer(_ request: FakeHTTPServer.Request) -> FakeHTTPServer.Answer {
            if request.path.hasPrefix("/thumbs/") {
                let id = String(request.path.dropFirst("/thumbs/".count).prefix { $0 != "_" })
                return locked { $0.thumbnails[id] } ?? .respond(status: 200, headers: ["Content-Type": "image/jpeg"], body: FakeFlickr.jpeg(id))
            }
            guard request.path == FakeFlickr.restPath else { return .respond(status: 404, body: Data("no such page".utf8)) }
            let (scripted, pages) = locked { values -> (FakeHTTPServer.Answer?, [String]?) in
                values.restCount += 1
                return (values.script[values.restCount] ?? values.fallback, values.pages[request.query["method"] ?? ""])
            }
            if let scripted { return scripted }
            guard request.query["api_key"] == FakeFlickr.key else { return .json(FlickrResponses.invalidKey) }
            guard let pages, let last = pages.last else {
                return .json(#"{"stat":"fail","code":112,"message":"Method \"\#(request.query["method"] ?? "")\" not found"}"#)
            }
            let page = Int(request.query["page"] ?? "1") ?? 1
            return .json(page >= 1 && page <= pages.count ? pages[page - 1] : last)
        }
    }
}

/// Flickr responses for the fetch tests: the real ones in Tests/VacationsTests/Fixtures/flickr,
/// and pages made from their records in Flickr's own shapes.
enum FlickrResponses {
    static func fixture(_ name: String) -> String {
        (try? String(contentsOfFile: SampleFiles.fixture(name), encoding: .utf8)) ?? ""
    }

    /// The real failure response for a bad key (code 100).
    static var invalidKey: String { fixture("error_invalid_api_key.json") }

    /// The 98 photo records of the real `photos.search` response, each as its own text.
    static var searchRecords: [String] { records(in: fixture("search_all_extras.json")) }

    /// The raw text of each object in the first `"photo":[…]` array of a JSON response.
    static func records(in json: String) -> [String] {
        let bytes = Array(json.utf8)
        guard let arrayStart = json.range(of: "\"photo\":[")?.upperBound else { return [] }
        var index = json.utf8.distance(from: json.utf8.startIndex, to: arrayStart)
        var records: [String] = []
        var depth = 0, start = 0, inString = false, escaped = false
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "{") {
                if depth == 0 { start = index }
                depth += 1
            } else if byte == UInt8(ascii: "}") {
                depth -= 1
                if depth == 0 { records.append(String(decoding: bytes[start...index], as: UTF8.self)) }
            } else if byte == UInt8(ascii: "]"), depth == 0 {
                break
            }
            index += 1
        }
        return records
    }

    /// Records whose `url_sq` points at the fake server's `/thumbs/<id>_s.jpg`.
    static func withThumbnails(_ records: [String], base: String) -> [String] {
        records.map { record in
            guard let id = record.firstMatch(of: /"id":"(\d+)"/)?.1,
                  let match = record.firstMatch(of: /"url_sq":"[^"]*"/) else { return record }
            let url = (base + "thumbs/\(id)_s.jpg").replacingOccurrences(of: "/", with: "\\/")
            return record.replacingCharacters(in: match.range, with: "\"url_sq\":\"\(url)\"")
        }
    }

    /// `photos.search`, `getRecent` and `interestingness.getList` pages, as Flickr writes them:
    /// `{"photos":{"page":1, "pages":3, "perpage":40, "total":"98", "photo":[…]}, "stat":"ok"}`.
    static func photoPages(_ records: [String], perPage: Int) -> [String] {
        let pages = max(1, (records.count + perPage - 1) / perPage)
        return (0..<pages).map { index in
            let slice = records.dropFirst(index * perPage).prefix(perPage)
            return #"{"photos":{"page":\#(index + 1), "pages":\#(records.isEmpty ? 0 : pages), "perpage":\#(perPage), "total":"\#(records.count)", "photo":["#
                + slice.joined(separator: ", ") + "]}, \"stat\":\"ok\"}"
        }
    }

    /// `photosets.getPhotos` pages, as Flickr writes them (the paging after the photos).
    static func photosetPages(_ records: [String], perPage: Int, id: String) -> [String] {
        let pages = max(1, (records.count + perPage - 1) / perPage)
        return (0..<pages).map { index in
            let slice = records.dropFirst(index * perPage).prefix(perPage)
            return #"{"photoset":{"id":"\#(id)","primary":"7093101501","owner":"67131352@N04","ownername":"Janko Marohni\u0107","photo":["#
                + slice.joined(separator: ",")
                + #"],"page":\#(index + 1),"per_page":"\#(perPage)","perpage":"\#(perPage)","pages":\#(pages),"title":"Zagreb","total":"\#(records.count)"},"stat":"ok"}"#
        }
    }

    /// A top-places list of localities in Flickr's shape (`places.getTopPlacesList`,
    /// `place_type_id=7`); the first names the place of two of the search's photos.
    static let topPlaces = #"{"places":{"place":[{"place_id":"00j4IylZV7scWik","woeid":"851128","latitude":"45.807","longitude":"15.967","place_url":"\/Croatia\/Grad+Zagreb\/Zagreb","place_type":"locality","place_type_id":"7","timezone":"Europe\/Zagreb","photo_count":"412","_content":"Zagreb, Grad Zagreb, Croatia"},{"place_id":"ZD0b1mlWU7vWbvI","woeid":"742676","latitude":"38.725","longitude":"-9.150","place_url":"\/Portugal\/Lisbon\/Lisbon","place_type":"locality","place_type_id":"7","timezone":"Europe\/Lisbon","photo_count":"1051","_content":"Lisbon, Lisbon, Portugal"}],"date_start":1246320000,"date_stop":1246406399,"total":2},"stat":"ok"}"#

    /// Flickr's answer for a photoset that does not exist.
    static let photosetNotFound = #"{"stat":"fail","code":1,"message":"Photoset not found"}"#
}
