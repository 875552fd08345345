import Foundation
import Testing
import TestSupport
@testable import VacationCLI

/// `vacation fetch` imports what `vacation import` imports from the same responses, asking
/// Flickr as its documentation says.
@MainActor
@Suite("fetch: each option imports what import gives")
struct FetchImportTests {
    @Test("--place-id asks for the top places first, then names the photos' place as import --places --place does")
    func placeID() throws {
        let harness = try FetchHarness()
        defer { harness.flickr.stop() }
        let pages = FlickrResponses.photoPages(FlickrResponses.searchRecords, perPage: 50)
        harness.flickr.serve("flickr.photos.search", pages: pages)
        harness.flickr.serve("flickr.places.getTopPlacesList", pages: [FlickrResponses.topPlaces])

        let fetched = try harness.fetch(["--place-id", "00j4IylZV7scWik", "--pages", "2", "--per-page", "50", "--vacation", "Fetched"])
        #expect(fetched.code == 0, "\(fetched.errors)")
        #expect(fetched.output == "Fetched 2 pages of flickr.photos.search (98 photos) into \"Fetched\": 98 added, 0 updated, 0 unchanged, 0 skipped\n")
        let requests = harness.flickr.restRequests
        #expect(requests.map { $0.query["method"] } == ["flickr.places.getTopPlacesList", "flickr.photos.search", "flickr.photos.search"])
        #expect(requests[0].query == ["method": "flickr.places.getTopPlacesList", "api_key": FakeFlickr.key, "place_type_id": "7",
                                      "format": "json", "nojsoncallback": "1"])
        #expect(requests[1].query["place_id"] == "00j4IylZV7scWik")
        #expect(requests[2].query["page"] == "2")

        let top = try harness.save([FlickrResponses.topPlaces])
        let files = try harness.save(pages)
        let imported = try harness.runner.run(["--vacation", "Imported", "import"] + files
                                              + ["--places", top[0], "--place", "Zagreb, Grad Zagreb, Croatia"])
        #expect(imported.code == 0, "\(imported.errors)")
        #expect(try harness.snapshot("Fetched") == harness.snapshot("Imported"))
        let places = try harness.runner.run(["--vacation", "Fetched", "places", "--json"]).array
        #expect(places.map { $0["name"] as? String } == ["Zagreb, Grad Zagreb, Croatia"])
        #expect(places.first?["photos"] as? Int == 98)
    }

    @Test("--top-places lists the places to pick a --place-id from and imports nothing")
    func topPlaces() throws {
        let harness = try FetchHarness()
        defer { harness.flickr.stop() }
        harness.flickr.serve("flickr.places.getTopPlacesList", pages: [FlickrResponses.topPlaces])
        let listed = try harness.fetch(["--top-places", "--vacation", "Never"])
        #expect(listed.code == 0, "\(listed.errors)")
        #expect(listed.errors == "")
        #expect(listed.output == """
            PLACE ID         NAME                          PHOTOS
            00j4IylZV7scWik  Zagreb, Grad Zagreb, Croatia     412
            ZD0b1mlWU7vWbvI  Lisbon, Lisbon, Portugal        1051

            """)
        let json = try harness.fetch(["--top-places", "--json"])
        #expect(json.array.map { $0["placeID"] as? String } == ["00j4IylZV7scWik", "ZD0b1mlWU7vWbvI"])
        #expect(json.array.map { $0["woeid"] as? String } == ["851128", "742676"])
        #expect(json.array.map { $0["photos"] as? Int } == [412, 1051])
        #expect(json.array.map { $0["name"] as? String } == ["Zagreb, Grad Zagreb, Croatia", "Lisbon, Lisbon, Portugal"])
        #expect(harness.flickr.restRequests.count == 2)
        #expect(!harness.exists("Never"))
        #expect(try harness.run("photos", "--json").output == "[]\n")
    }

    @Test("pages: the default is one; --pages stops early at Flickr's last page and at an empty list")
    func paging() throws {
        let harness = try FetchHarness()
        defer { harness.flickr.stop() }
        let records = FlickrResponses.searchRecords
        harness.flickr.serve("flickr.photos.getRecent", pages: FlickrResponses.photoPages(records, perPage: 10))
        // (pages asked, requests made, photos imported in all so far)
        for (asked, requests, photos) in [(nil, 1, 10), (3, 4, 30), (100, 14, 98)] as [(Int?, Int, Int)] {
            let before = harness.flickr.restRequests.count
            let result = try harness.fetch(["--recent", "--per-page", "10", "--json"] + (asked.map { ["--pages", String($0)] } ?? []))
            #expect(result.code == 0, "\(result.errors)")
            #expect(harness.flickr.restRequests.count == requests)
            #expect(harness.flickr.restRequests.dropFirst(before).map { $0.query["page"] } == (1...(requests - before)).map { String($0) })
            #expect(try harness.run("photos", "--json").array.count == photos)
        }
        // A search that finds nothing: one request, nothing added, success.
        harness.flickr.serve("flickr.photos.search", pages: FlickrResponses.photoPages([], perPage: 250))
        let empty = try harness.fetch(["--search", "nothing at all", "--pages", "9", "--vacation", "Empty"])
        #expect(empty.code == 0)
        #expect(empty.output == "Fetched 1 page of flickr.photos.search (0 photos) into \"Empty\": 0 added, 0 updated, 0 unchanged, 0 skipped\n")
        #expect(harness.flickr.restRequests.count == 15)
        #expect(harness.flickr.restRequests.last?.query["per_page"] == "250")
    }

    @Test("a fetch again counts what it had as unchanged, and a changed record as updated")
    func refetch() throws {
        let harness = try FetchHarness()
        defer { harness.flickr.stop() }
        let records = FlickrResponses.searchRecords
        harness.flickr.serve("flickr.photos.search", pages: FlickrResponses.photoPages(records, perPage: 500))
        #expect(try harness.fetch(["--search", "x"]).code == 0)
        var changed = records
        changed[0] = changed[0].replacingOccurrences(of: "\"title\":\"IMG_0917\"", with: "\"title\":\"Zagreb at night\"")
        harness.flickr.serve("flickr.photos.search", pages: FlickrResponses.photoPages(changed, perPage: 500))
        let again = try harness.fetch(["--search", "x", "--json"])
        #expect(again.object["added"] as? Int == 0)
        #expect(again.object["updated"] as? Int == 1)
        #expect(again.object["unchanged"] as? Int == 97)
        #expect(try harness.run("show", "7093101501", "--json").object["title"] as? String == "Zagreb at night")
    }

    @Test("a progress bar on a terminal only, on standard error")
    func progress() throws {
        let harness = try FetchHarness()
        defer { harness.flickr.stop() }
        harness.flickr.serve("flickr.photos.search", pages: FlickrResponses.photoPages(FlickrResponses.searchRecords, perPage: 50))
        harness.flickr.script(2, .respond(status: 503))
        let terminal = try harness.fetch(["--search", "x", "--pages", "2", "--per-page", "50"], terminal: true)
        #expect(terminal.code == 0)
        #expect(terminal.errors.contains("\rFetching flickr.photos.search, 50 photos 1/2"))
        #expect(terminal.errors.contains("\rFetching flickr.photos.search, 98 photos 2/2"))
        #expect(terminal.errors.contains("\rImporting 50/98"))
        // A retry's warning takes a line of its own: the bar is blanked first.
        #expect(terminal.errors.contains(" \rWarning: page 2 of flickr.photos.search: HTTP 503; trying again (attempt 2 of 6)\n"))
        #expect(!terminal.output.contains("\r"))
        let piped = try harness.fetch(["--search", "x", "--pages", "2", "--per-page", "50"])
        #expect(piped.errors == "")
    }
}

/// Through the binary, off the main actor: the two vacations are compared field by field, all
/// but the time each was visited (each process has its own clock).
@Suite("fetch: each option imports what import gives, through the binary")
struct FetchEquivalenceTests {
    struct Case: Sendable, CustomStringConvertible {
        var arguments: [String]
        var method: String
        /// The method's own parameters as the fake must receive them.
        var parameters: [String: String]
        var photoset = false
        var description: String { arguments.joined(separator: " ") }
    }

    static let cases: [Case] = [
        Case(arguments: ["--search", "zagreb & lisbon +1"], method: "flickr.photos.search", parameters: ["text": "zagreb & lisbon +1"]),
        Case(arguments: ["--tags", "beach, sunset ,,Ærø"], method: "flickr.photos.search", parameters: ["tags": "beach,sunset,Ærø"]),
        Case(arguments: ["--user", "67131352@N04"], method: "flickr.photos.search", parameters: ["user_id": "67131352@N04"]),
        Case(arguments: ["--photoset", "72157624618609504"], method: "flickr.photosets.getPhotos",
             parameters: ["photoset_id": "72157624618609504"], photoset: true),
        Case(arguments: ["--photoset", "72157624618609504", "--user", "67131352@N04"], method: "flickr.photosets.getPhotos",
             parameters: ["photoset_id": "72157624618609504", "user_id": "67131352@N04"], photoset: true),
        Case(arguments: ["--recent"], method: "flickr.photos.getRecent", parameters: [:]),
        Case(arguments: ["--interesting"], method: "flickr.interestingness.getList", parameters: [:]),
    ]

    @Test("each option asks for its method page by page and imports what importing the responses gives", arguments: cases)
    func matchesImport(_ testCase: Case) async throws {
        let harness = try FetchProcessHarness()
        defer { harness.flickr.stop() }
        let records = FlickrResponses.searchRecords
        let pages = testCase.photoset ? FlickrResponses.photosetPages(records, perPage: 40, id: "72157624618609504")
            : FlickrResponses.photoPages(records, perPage: 40)
        #expect(pages.count == 3)
        harness.flickr.serve(testCase.method, pages: pages)

        let fetched = try await harness.fetch(testCase.arguments + ["--pages", "5", "--per-page", "40", "--vacation", "Fetched", "--json"])
        #expect(fetched.code == 0, "\(fetched.errors)")
        #expect(fetched.errors == "")
        #expect(fetched.object["vacation"] as? String == "Fetched")
        #expect(fetched.object["method"] as? String == testCase.method)
        #expect(fetched.object["pages"] as? Int == 3)
        #expect(fetched.object["requests"] as? Int == 3)
        #expect(fetched.object["photos"] as? Int == 98)
        #expect(fetched.object["added"] as? Int == 98)
        #expect(fetched.object["skipped"] as? Int == 0)
        #expect(fetched.object["thumbnails"] is NSNull)

        // Three requests, pages 1 to 3 (Flickr said 3 pages: the fourth and fifth are not asked for).
        let requests = harness.flickr.restRequests
        #expect(requests.count == 3)
        for (index, request) in requests.enumerated() {
            var expected = testCase.parameters
            expected["method"] = testCase.method
            expected["api_key"] = FakeFlickr.key
            expected["extras"] = "description,date_upload,date_taken,owner_name,geo,tags,machine_tags,media,url_sq,url_l"
            expected["per_page"] = "40"
            expected["page"] = String(index + 1)
            expected["format"] = "json"
            expected["nojsoncallback"] = "1"
            #expect(request.query == expected)
            #expect(request.method == "GET")
        }

        let files = try harness.save(pages)
        let imported = try await harness.run(["--vacation", "Imported", "import"] + files, variables: harness.variables)
        #expect(imported.code == 0, "\(imported.errors)")
        let fetchedVacation = try await harness.comparable("Fetched"), importedVacation = try await harness.comparable("Imported")
        #expect(fetchedVacation == importedVacation)
        #expect(fetchedVacation.photos.count == 98)
        #expect(harness.leftovers == [])
    }
}
