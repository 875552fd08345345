import Foundation
import Testing
import TestSupport

/// The real `vacation` binary against the fake Flickr: exit codes, streams, and the key kept
/// out of everything the process writes.
@Suite("vacation fetch, end to end")
struct FetchBinaryTests {
    typealias Answer = FakeHTTPServer.Answer

    @Test("a fetch with thumbnails through the binary; the key from the environment or the option, never in its output")
    func fetchAndFailures() async throws {
        let directory = try TemporaryDirectory(prefix: "fetch-e2e")
        let library = directory.path("library").path
        let flickr = try FakeFlickr()
        defer { flickr.stop() }
        let records = FlickrResponses.withThumbnails(Array(FlickrResponses.searchRecords.prefix(30)), base: flickr.server.baseURL)
        flickr.serve("flickr.photos.search", pages: FlickrResponses.photoPages(records, perPage: 20))
        let environment = ["FLICKR_API_BASE": flickr.base, "FLICKR_API_KEY": FakeFlickr.key, "VACATION_FETCH_RETRY_BASE_MS": "1",
                           "VACATION_FETCH_TIMEOUT_MS": "2000"]
        func vacation(_ arguments: [String], _ extra: [String: String] = [:]) async throws -> ProductProcess.Result {
            let variables = environment.merging(extra) { $1 }
            let result = try await onOwnThread { try ProductProcess.run("vacation", ["--library", library] + arguments, environment: variables) }
            #expect(!result.output.contains(FakeFlickr.key), "\(arguments): \(result.output)")
            #expect(!result.errors.contains(FakeFlickr.key), "\(arguments): \(result.errors)")
            return result
        }

        let fetched = try await vacation(["fetch", "--search", "zagreb", "--pages", "2", "--per-page", "20", "--thumbnails", "--vacation", "Zagreb"])
        #expect(fetched.status == 0, "\(fetched.errors)")
        #expect(fetched.errors == "")
        #expect(fetched.output == """
            Fetched 2 pages of flickr.photos.search (30 photos) into "Zagreb": 30 added, 0 updated, 0 unchanged, 0 skipped
            Thumbnails: 30 downloaded, 0 failed

            """)
        let id = try #require(records.first?.firstMatch(of: /"id":"(\d+)"/).map { String($0.1) })
        let shown = try await vacation(["--vacation", "Zagreb", "show", id, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(shown.output.utf8)) as? [String: Any]
        let file = try #require(object?["thumbnailFile"] as? String)
        #expect(file.hasSuffix("/Zagreb.vacation/AdditionalContent/Thumbnails/\(id).jpg"))
        #expect(FileManager.default.contents(atPath: file) == FakeFlickr.jpeg(id))

        // Failures of every kind, the key given both ways: 65 for Flickr's, 69 for the service's.
        let failures: [(Answer, Int32)] = [
            (.json(FlickrResponses.invalidKey), 65), (.json(FlickrResponses.photosetNotFound), 65),
            (.json(#"{"stat":"fail","code":7,"message":"key SECRETKEY123 refused"}"#), 65),
            (.json("{\"photos\":"), 65), (.respond(status: 503), 69), (.respond(status: 429, headers: ["Retry-After": "600"]), 69),
            (.truncated(body: Data("{\"photos\":{".utf8), declaredLength: 900), 69), (.reset, 69),
            (.respond(status: 404, body: Data("SECRETKEY123".utf8)), 69),
        ]
        let before = try await vacation(["--vacation", "Zagreb", "photos", "--json"]).output
        for (answer, status) in failures {
            flickr.failAll(with: answer)
            // The key as an option (the environment's empty), then from the environment with --json.
            let result = try await vacation(["fetch", "--search", "x", "--vacation", "Zagreb", "--api-key", FakeFlickr.key], ["FLICKR_API_KEY": ""])
            #expect(result.status == status, "\(answer): \(result.errors)")
            #expect(result.output == "")
            #expect(result.errors.hasSuffix(status == 65 ? "Nothing was changed.\n" : "Nothing was changed. Try again later.\n"))
            let json = try await vacation(["fetch", "--photoset", "12", "--json", "--vacation", "Other"])
            #expect(json.status == status)
            #expect(json.output == "")
        }
        #expect(try await vacation(["--vacation", "Zagreb", "photos", "--json"]).output == before)
        #expect(try await vacation(["list", "--json"]).output.contains("\"Other\"") == false)
        #expect(flickr.restRequests.allSatisfy { $0.query["api_key"] == FakeFlickr.key })

        let noKey = try await vacation(["fetch", "--recent"], ["FLICKR_API_KEY": ""])
        #expect(noKey.status == 64)
    }
}
