import Foundation
import Testing
import TestSupport
@testable import VacationCLI

/// Retries, throttling, failures and interrupted transfers, each with its exact outcome: the
/// exit code, the message, the number of requests, and nothing partial left behind.
@Suite("fetch: retries, throttling, failures")
struct FetchFailureTests {
    typealias Answer = TestSupport.FakeHTTPServer.Answer

    /// A harness with three pages of 40 search results, and a vacation "Kept" holding the photos
    /// of SampleData/kyoto.json (unless `keeping` is false).
    private func harness(keeping: Bool = true) async throws -> FetchProcessHarness {
        let harness = try FetchProcessHarness()
        harness.flickr.serve("flickr.photos.search", pages: FlickrResponses.photoPages(FlickrResponses.searchRecords, perPage: 40))
        if keeping {
            let kept = try await harness.run("--vacation", "Kept", "import", SampleFiles.sample("kyoto.json"))
            #expect(kept.code == 0)
        }
        return harness
    }

    private func search(_ harness: FetchProcessHarness, vacation: String = "Kept", extra: [String: String] = [:]) async throws -> RunResult {
        try await harness.fetch(["--search", "x", "--pages", "3", "--per-page", "40", "--vacation", vacation], extra: extra)
    }

    static let warning = "Warning: page 1 of flickr.photos.search: "

    @Test("5xx and 429 answers, interrupted transfers and resets are retried; the fetch then succeeds", arguments: [
        Answer.respond(status: 500), .respond(status: 502), .respond(status: 503), .respond(status: 504), .respond(status: 429),
        .truncated(body: Data(#"{"photos":{"page":1"#.utf8), declaredLength: 5000), .reset,
    ] as [Answer])
    func retried(_ answer: Answer) async throws {
        let harness = try await harness()
        defer { harness.flickr.stop() }
        harness.flickr.script(1, answer)
        harness.flickr.script(2, answer)
        let before = try await harness.snapshot("Kept")
        let kept = try await harness.run("--vacation", "Kept", "photos", "--json").array.count
        let result = try await search(harness)
        #expect(result.code == 0, "\(result.errors)")
        #expect(harness.flickr.restRequests.count == 5)
        #expect(harness.flickr.restRequests.map { $0.query["page"] } == ["1", "1", "1", "2", "3"])
        let lines = result.errors.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.hasPrefix(Self.warning) })
        #expect(lines.first?.hasSuffix("; trying again (attempt 2 of 6)") == true)
        #expect(lines.last?.hasSuffix("; trying again (attempt 3 of 6)") == true)
        if case .respond(let status, _, _) = answer {
            #expect(lines.first == "\(Self.warning)HTTP \(status); trying again (attempt 2 of 6)")
        }
        #expect(try await harness.snapshot("Kept") != before)
        #expect(try await harness.run("--vacation", "Kept", "photos", "--json").array.count == 98 + kept)
    }

    @Test("a service that keeps failing: six attempts, exit 69, nothing changed, no vacation made", arguments: [
        (Answer.respond(status: 503), "HTTP 503, 6 attempts"),
        (.respond(status: 429), "HTTP 429, 6 attempts"),
        (.truncated(body: Data("{".utf8), declaredLength: 100), "the transfer was cut short (transfer closed with 99 bytes remaining to read), 6 attempts"),
    ] as [(Answer, String)])
    func givesUp(_ answer: Answer, reason: String) async throws {
        let harness = try await harness()
        defer { harness.flickr.stop() }
        harness.flickr.failAll(with: answer)
        let before = try await harness.snapshot("Kept")
        for vacation in ["Kept", "New"] {
            let start = harness.flickr.restRequests.count
            let result = try await search(harness, vacation: vacation)
            #expect(result.code == 69)
            #expect(result.output == "")
            #expect(harness.flickr.restRequests.count - start == 6)
            let lines = result.errors.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 8)
            #expect(lines[5] == "Error: Cannot fetch page 1 of flickr.photos.search from 127.0.0.1: \(reason)")
            #expect(lines[6] == "Nothing was changed. Try again later.")
        }
        #expect(try await harness.snapshot("Kept") == before)
        #expect(!harness.exists("New"))
    }

    @Test("a failure on a later page leaves nothing of the earlier ones")
    func laterPage() async throws {
        let harness = try await harness()
        defer { harness.flickr.stop() }
        for ordinal in 3...8 { harness.flickr.script(ordinal, .respond(status: 500)) }
        let before = try await harness.snapshot("Kept")
        let result = try await search(harness)
        #expect(result.code == 69)
        #expect(harness.flickr.restRequests.map { $0.query["page"] } == ["1", "2"] + Array(repeating: "3", count: 6))
        #expect(result.errors.contains("Error: Cannot fetch page 3 of flickr.photos.search from 127.0.0.1: HTTP 500, 6 attempts\n"))
        #expect(try await harness.snapshot("Kept") == before)

        harness.flickr.script(9, .json(FlickrResponses.invalidKey))
        let failed = try await search(harness, vacation: "New")
        #expect(failed.code == 65)
        #expect(failed.errors == "Error: page 1 of flickr.photos.search: Flickr error 100: Invalid API Key (Key has invalid format)\nNothing was changed.\n")
        harness.flickr.script(11, .json(FlickrResponses.invalidKey))
        let second = try await search(harness, vacation: "New")
        #expect(second.code == 65)
        #expect(second.errors.hasPrefix("Error: page 2 of flickr.photos.search: Flickr error 100: "))
        #expect(!harness.exists("New"))
        #expect(try await harness.snapshot("Kept") == before)
        #expect(harness.leftovers == [])
    }

    @Test("Flickr's failure responses and answers that are not feeds are 65 at once, without retries", arguments: [
        (Answer.json(FlickrResponses.invalidKey), "page 1 of flickr.photos.search: Flickr error 100: Invalid API Key (Key has invalid format)"),
        (.json(FlickrResponses.photosetNotFound), "page 1 of flickr.photos.search: Flickr error 1: Photoset not found"),
        (.json(FlickrResponses.invalidKey, status: 403), "page 1 of flickr.photos.search: Flickr error 100: Invalid API Key (Key has invalid format)"),
        (.json(#"{"photos":{"page":1,"pages":1,"photo":[{"id":"1"}]}"#), "page 1 of flickr.photos.search: truncated JSON at byte offset 51: the input ends inside an object"),
        (.json("<html><body>Service Unavailable</body></html>"), "page 1 of flickr.photos.search: not a Flickr response at line 1: the root element is <html>, where Flickr sends <rsp>"),
        (.json(FlickrResponses.topPlaces), "page 1 of flickr.photos.search: Flickr answered with a top-places list, not the photo list asked for"),
    ] as [(Answer, String)])
    func badResponses(_ answer: Answer, message: String) async throws {
        let harness = try await harness()
        defer { harness.flickr.stop() }
        harness.flickr.script(1, answer)
        let before = try await harness.snapshot("Kept")
        let result = try await search(harness)
        #expect(result.code == 65)
        #expect(result.output == "")
        #expect(result.errors == "Error: \(message)\nNothing was changed.\n")
        #expect(harness.flickr.restRequests.count == 1)
        #expect(try await harness.snapshot("Kept") == before)
    }

    @Test("an HTTP error that is not Flickr's (a wrong FLICKR_API_BASE) is 69 at once; so is no server at all after the retries")
    func notFlickr() async throws {
        let harness = try await harness(keeping: false)
        defer { harness.flickr.stop() }
        let wrong = try await harness.fetch(["--recent", "--vacation", "New"], extra: ["FLICKR_API_BASE": harness.flickr.server.baseURL + "nothing/"])
        #expect(wrong.code == 69)
        #expect(wrong.errors == "Error: Cannot fetch page 1 of flickr.photos.getRecent: 127.0.0.1 answered HTTP 404\nNothing was changed. Try again later.\n")
        #expect(harness.flickr.server.requests.count == 1)

        let closed = try FakeHTTPServer { _ in .respond(status: 200) }
        let port = closed.port
        closed.stop()
        let nobody = try await harness.fetch(["--recent", "--vacation", "New"], extra: ["FLICKR_API_BASE": "http://127.0.0.1:\(port)/"])
        #expect(nobody.code == 69)
        #expect(nobody.errors.contains("Error: Cannot fetch page 1 of flickr.photos.getRecent from 127.0.0.1: cannot connect ("))
        #expect(nobody.errors.contains("), 6 attempts\nNothing was changed. Try again later.\n"))
        #expect(!harness.exists("New"))
    }

    @Test("429 honours Retry-After in seconds and as an HTTP date; a wait past the limit gives up at once")
    func throttled() async throws {
        let harness = try await harness()
        defer { harness.flickr.stop() }
        harness.flickr.script(1, .respond(status: 429, headers: ["Retry-After": "1"]))
        let clock = ContinuousClock()
        let started = clock.now
        let waited = try await search(harness)
        #expect(waited.code == 0, "\(waited.errors)")
        #expect(clock.now - started >= .seconds(1))
        #expect(waited.errors == "\(Self.warning)HTTP 429; trying again (attempt 2 of 6)\n")

        let past = "Sun, 06 Nov 1994 08:49:37 GMT"
        harness.flickr.script(5, .respond(status: 503, headers: ["Retry-After": past]))
        #expect(try await search(harness).code == 0)
        #expect(harness.flickr.restRequests.count == 8)

        harness.flickr.script(9, .respond(status: 429, headers: ["Retry-After": "120"]))
        let tooLong = try await search(harness)
        #expect(tooLong.code == 69)
        #expect(tooLong.errors == """
            Error: Cannot fetch page 1 of flickr.photos.search from 127.0.0.1: HTTP 429, and the server asks to wait 120 s \
            (Retry-After), past the 60 s a request may take; 1 attempt
            Nothing was changed. Try again later.

            """)
        #expect(harness.flickr.restRequests.count == 9)
    }

    @Test("a slow answer times out and is retried; a server that stays slow is given up within the limit")
    func slow() async throws {
        let harness = try await harness()
        defer { harness.flickr.stop() }
        let knobs = ["VACATION_FETCH_TIMEOUT_MS": "300"]
        harness.flickr.script(1, .delayed(seconds: 1.5, .json(FlickrResponses.invalidKey)))
        let once = try await search(harness, extra: knobs)
        #expect(once.code == 0, "\(once.errors)")
        #expect(once.errors == "\(Self.warning)no answer within 0.3 s; trying again (attempt 2 of 6)\n")
        #expect(harness.flickr.restRequests.count == 4)

        // Each answer would take 10 s: a client that waited for one would take that long at least.
        harness.flickr.failAll(with: .delayed(seconds: 10, .json(FlickrResponses.invalidKey)))
        let clock = ContinuousClock()
        let started = clock.now
        let given = try await search(harness, vacation: "New", extra: knobs.merging(["VACATION_FETCH_GIVE_UP_MS": "1000"]) { $1 })
        let elapsed = clock.now - started
        #expect(given.code == 69)
        #expect(elapsed < .seconds(5), "the limit is 1 s; the process's own start and a loaded machine take the rest")
        let attempts = harness.flickr.restRequests.count - 4
        #expect((2...4).contains(attempts), "\(attempts) attempts in \(elapsed)")
        #expect(given.errors.contains("Error: Cannot fetch page 1 of flickr.photos.search from 127.0.0.1: no answer within "))
        #expect(!harness.exists("New"))
    }

    @Test("bad settings are usage errors before any request", arguments: [
        (["FLICKR_API_BASE": "ftp://127.0.0.1/"], "Error: FLICKR_API_BASE is not an http or https URL: ftp://127.0.0.1/\n"),
        (["FLICKR_API_BASE": "not a url"], "Error: FLICKR_API_BASE is not an http or https URL: not a url\n"),
        (["VACATION_FETCH_TIMEOUT_MS": "0"], "Error: VACATION_FETCH_TIMEOUT_MS is not a whole number of milliseconds from 1 to 3600000: 0\n"),
        (["VACATION_FETCH_RETRY_BASE_MS": "-5"], "Error: VACATION_FETCH_RETRY_BASE_MS is not a whole number of milliseconds from 0 to 3600000: -5\n"),
    ] as [([String: String], String)])
    func badSettings(_ variables: [String: String], message: String) async throws {
        let harness = try await harness(keeping: false)
        defer { harness.flickr.stop() }
        let result = try await harness.fetch(["--recent"], extra: variables)
        #expect(result.code == 64)
        #expect(result.errors == message)
        #expect(harness.flickr.server.requests.isEmpty)
    }

    @Test("the key never appears in any output, whatever fails")
    func keyNeverShown() async throws {
        let harness = try await harness(keeping: false)
        defer { harness.flickr.stop() }
        let answers: [Answer] = [
            .json(FlickrResponses.invalidKey), .json(#"{"stat":"fail","code":99,"message":"Bad key SECRETKEY123 and api_key=SECRETKEY123"}"#),
            .respond(status: 503), .respond(status: 429, headers: ["Retry-After": "999"]), .truncated(body: Data("{".utf8), declaredLength: 9),
            .reset, .json("SECRETKEY123 not json"), .respond(status: 404, body: Data("no SECRETKEY123 here".utf8)),
            .json(#"{"photos":{"page":1,"pages":1,"photo":[{"id":"SECRETKEY123"},{"title":"x"}]},"stat":"ok"}"#),
        ]
        for answer in answers {
            harness.flickr.failAll(with: answer)
            for json in [false, true] {
                let result = try await harness.fetch(["--search", "SECRETKEY123", "--thumbnails"] + (json ? ["--json"] : []))
                #expect(result.code != 0 || answer.isRecordProblem)
                #expect(!result.output.contains(FakeFlickr.key), "\(result.output)")
                #expect(!result.errors.contains(FakeFlickr.key), "\(result.errors)")
            }
        }
        #expect(harness.flickr.restRequests.allSatisfy { $0.query["api_key"] == FakeFlickr.key })
    }
}

/// In-process: an unset `FLICKR_API_KEY` cannot be had through a child of this process, whose
/// environment the developer's shell may have set.
@MainActor
@Suite("fetch: the key")
struct FetchKeyTests {
    @Test("no key, or an empty one, is a usage error before any request")
    func noKey() throws {
        let harness = try FetchHarness()
        defer { harness.flickr.stop() }
        for (arguments, variables) in [([], ["FLICKR_API_KEY": ""]), (["--api-key", ""], [:]), ([], [:])] as [([String], [String: String])] {
            var environment = harness.variables.merging(variables) { $1 }
            if variables.isEmpty && arguments.isEmpty { environment["FLICKR_API_KEY"] = nil }
            let result = try harness.runner.run(["fetch", "--recent", "--vacation", "New"] + arguments, variables: environment)
            #expect(result.code == 64)
            #expect(result.errors == "Error: No Flickr API key: give --api-key KEY or set FLICKR_API_KEY\nGet a key at https://www.flickr.com/services/apps/create/\n")
        }
        #expect(harness.flickr.server.requests.isEmpty)
        #expect(!harness.exists("New"))
        // --api-key wins over the environment.
        let wrong = try harness.fetch(["--recent", "--api-key", "WRONGKEY9"])
        #expect(wrong.code == 65)
        #expect(harness.flickr.restRequests.last?.query["api_key"] == "WRONGKEY9")
        #expect(!wrong.errors.contains("WRONGKEY9"))
    }
}

extension TestSupport.FakeHTTPServer.Answer {
    /// The last answer of `keyNeverShown`: a good list whose records are skipped.
    var isRecordProblem: Bool {
        if case .respond(200, _, let body) = self { return String(decoding: body, as: UTF8.self).contains("\"stat\":\"ok\"") }
        return false
    }
}
