import Foundation
import Testing
import TestSupport
import Vacations
@testable import VacationCLI

/// `fetch --thumbnails`: each photo's thumbnail kept in the vacation, whole or not at all,
/// named by `show`, carried by backups, removed by `unvisit`.
@Suite("fetch --thumbnails")
struct FetchThumbnailTests {
    /// Twelve search results whose thumbnails the fake serves.
    private func harness() async throws -> (FetchProcessHarness, [String]) {
        let harness = try FetchProcessHarness()
        let records = FlickrResponses.withThumbnails(Array(FlickrResponses.searchRecords.prefix(12)), base: harness.flickr.server.baseURL)
        harness.flickr.serve("flickr.photos.search", pages: FlickrResponses.photoPages(records, perPage: 100))
        let ids = records.compactMap { $0.firstMatch(of: /"id":"(\d+)"/).map { String($0.1) } }
        #expect(ids.count == 12)
        return (harness, ids)
    }

    private func thumbnailsFolder(_ harness: FetchProcessHarness, _ vacation: String = "My Vacation") -> URL {
        harness.bundle(vacation).appendingPathComponent("AdditionalContent/Thumbnails")
    }

    private func files(in folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    @Test("each photo's thumbnail is kept as AdditionalContent/Thumbnails/<id>.jpg and show names it")
    func kept() async throws {
        let (harness, ids) = try await harness()
        defer { harness.flickr.stop() }
        let result = try await harness.fetch(["--search", "x", "--thumbnails", "--json"])
        #expect(result.code == 0, "\(result.errors)")
        #expect(result.errors == "")
        let thumbnails = result.object["thumbnails"] as? [String: Any]
        #expect(thumbnails?["downloaded"] as? Int == 12)
        #expect((thumbnails?["failed"] as? [Any])?.isEmpty == true)
        let folder = thumbnailsFolder(harness)
        #expect(files(in: folder) == ids.map { $0 + ".jpg" }.sorted())
        for id in ids {
            #expect(FileManager.default.contents(atPath: folder.appendingPathComponent(id + ".jpg").path) == FakeFlickr.jpeg(id))
        }
        #expect(Set(harness.flickr.thumbnailRequests.map(\.path)) == Set(ids.map { "/thumbs/\($0)_s.jpg" }))
        #expect(harness.flickr.thumbnailRequests.allSatisfy { $0.query.isEmpty })

        let shown = try await harness.run("show", ids[0], "--json")
        #expect(shown.object["thumbnailFile"] as? String == folder.appendingPathComponent(ids[0] + ".jpg").path)
        let text = try await harness.run("show", ids[0])
        #expect(text.output.contains("Thumbnail file  \(folder.appendingPathComponent(ids[0] + ".jpg").path)\n"))

        // Fetching again downloads nothing: every photo has its copy.
        let again = try await harness.fetch(["--search", "x", "--thumbnails"])
        #expect(again.output.hasSuffix("Thumbnails: 0 downloaded, 0 failed\n"))
        #expect(harness.flickr.thumbnailRequests.count == 12)
    }

    @Test("show without a local copy: thumbnailFile is null and the text has no such line")
    func noCopy() async throws {
        let (harness, ids) = try await harness()
        defer { harness.flickr.stop() }
        #expect(try await harness.fetch(["--search", "x"]).code == 0)
        let shown = try await harness.run("show", ids[0], "--json")
        #expect(shown.object.keys.contains("thumbnailFile"))
        #expect(shown.object["thumbnailFile"] is NSNull)
        #expect(!(try await harness.run("show", ids[0]).output.contains("Thumbnail file")))
        #expect(harness.flickr.thumbnailRequests.isEmpty)
    }

    @Test("a failed download is listed, never half a file, and the next fetch --thumbnails tries it again", arguments: [
        (FakeHTTPServer.Answer.respond(status: 404), "HTTP 404"),
        (.respond(status: 200, body: Data("<html>not an image</html>".utf8)), "the answer is not a JPEG image"),
        (.truncated(body: Data([0xFF, 0xD8, 0xFF, 0xE0, 1, 2]), declaredLength: 4000),
         "the transfer was cut short (transfer closed with 3994 bytes remaining to read), 3 attempts"),
        (.respond(status: 503), "HTTP 503, 3 attempts"),
    ] as [(FakeHTTPServer.Answer, String)])
    func failed(_ answer: FakeHTTPServer.Answer, reason: String) async throws {
        let (harness, ids) = try await harness()
        defer { harness.flickr.stop() }
        let failing = ids[3]
        harness.flickr.thumbnail(failing, answer)
        let result = try await harness.fetch(["--search", "x", "--thumbnails"])
        #expect(result.code == 0)
        #expect(result.errors == "Warning: thumbnail of \(failing) not kept: \(reason); the next fetch --thumbnails tries again\n")
        #expect(result.output.hasSuffix("Thumbnails: 11 downloaded, 1 failed\n"))
        let folder = thumbnailsFolder(harness)
        #expect(files(in: folder) == (ids.filter { $0 != failing }.map { $0 + ".jpg" } + [".to-fetch"]).sorted())
        #expect(FileManager.default.contents(atPath: folder.appendingPathComponent(".to-fetch").path) == Data("\(failing)\n".utf8))
        #expect(try await harness.run("show", failing, "--json").object["thumbnailFile"] is NSNull)

        // The next fetch --thumbnails, of other photos, tries the failed one again.
        harness.flickr.thumbnail(failing, nil)
        harness.flickr.serve("flickr.photos.getRecent", pages: FlickrResponses.photoPages([], perPage: 250))
        let retried = try await harness.fetch(["--recent", "--thumbnails"])
        #expect(retried.errors == "")
        #expect(retried.output.hasSuffix("Thumbnails: 1 downloaded, 0 failed\n"))
        #expect(files(in: folder) == ids.map { $0 + ".jpg" }.sorted())
        #expect(FileManager.default.contents(atPath: folder.appendingPathComponent(failing + ".jpg").path) == FakeFlickr.jpeg(failing))
    }

    @Test("thumbnails of a feed's file: or other non-http URL are refused, never read")
    func onlyHTTP() async throws {
        let harness = try FetchProcessHarness()
        defer { harness.flickr.stop() }
        let secret = harness.directory.path("secret.jpg")
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 42]).write(to: secret)
        let record = #"{"id":"5","title":"x","url_sq":"file:\/\/\#(secret.path.replacingOccurrences(of: "/", with: "\\/"))"}"#
        harness.flickr.serve("flickr.photos.search", pages: FlickrResponses.photoPages([record], perPage: 100))
        let result = try await harness.fetch(["--search", "x", "--thumbnails"])
        #expect(result.code == 0)
        #expect(result.errors == "Warning: thumbnail of 5 not kept: the thumbnail URL is not an http or https URL; the next fetch --thumbnails tries again\n")
        #expect(!FileManager.default.fileExists(atPath: thumbnailsFolder(harness).appendingPathComponent("5.jpg").path))
    }

    @Test("unvisit and toggle remove the thumbnail after their change; backups carry thumbnails")
    func unvisitAndBackup() async throws {
        let (harness, ids) = try await harness()
        defer { harness.flickr.stop() }
        #expect(try await harness.fetch(["--search", "x", "--thumbnails"]).code == 0)
        let folder = thumbnailsFolder(harness)

        let backup = try await harness.run("backup", "--json")
        #expect(backup.code == 0, "\(backup.errors)")
        let backupPath = try #require(backup.object["path"] as? String)
        let copied = URL(fileURLWithPath: backupPath).appendingPathComponent("AdditionalContent/Thumbnails")
        #expect(files(in: copied) == ids.map { $0 + ".jpg" }.sorted())

        #expect(try await harness.run("unvisit", ids[0], ids[1]).code == 0)
        #expect(files(in: folder) == ids.dropFirst(2).map { $0 + ".jpg" }.sorted())
        // An unvisit that fails changes nothing, thumbnails included.
        #expect(try await harness.run("unvisit", ids[2], "999").code == 66)
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(ids[2] + ".jpg").path))

        let feed = try harness.save(FlickrResponses.photoPages(FlickrResponses.searchRecords, perPage: 500))
        #expect(try await harness.run("toggle", ids[2], "--feed", feed[0]).output == "\(ids[2]): unvisited\n")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(ids[2] + ".jpg").path))

        let restored = try await harness.run("restore", backupPath, "--as", "Restored")
        #expect(restored.code == 0, "\(restored.errors)")
        #expect(files(in: thumbnailsFolder(harness, "Restored")) == ids.map { $0 + ".jpg" }.sorted())
        #expect(try await harness.run("--vacation", "Restored", "show", ids[0], "--json").object["thumbnailFile"] as? String
                == thumbnailsFolder(harness, "Restored").appendingPathComponent(ids[0] + ".jpg").path)
    }

    @Test("the store writes whole files only, under canonical ids, and lists ids to fetch again")
    func store() throws {
        let directory = try TemporaryDirectory(prefix: "thumbnails")
        let store = ThumbnailStore(bundle: .init(url: directory.path("A.vacation")))
        try FileManager.default.createDirectory(at: directory.path("A.vacation"), withIntermediateDirectories: true)
        for bad in ["../x", "0012", "12a", "", "1/2"] {
            #expect(store.file(for: bad) == nil)
            #expect(throws: ThumbnailError.self) { try store.write(Data([1]), for: bad) }
        }
        try store.write(Data([0xFF, 0xD8, 0xFF]), for: "12")
        try store.write(Data([0xFF, 0xD8, 0xFF, 0xEE]), for: "12")
        #expect(store.localFile(for: "12").flatMap { FileManager.default.contents(atPath: $0.path) } == Data([0xFF, 0xD8, 0xFF, 0xEE]))
        #expect(files(in: store.folder) == ["12.jpg"])
        try store.markToFetch(["7", "8", "7", "bad"])
        try store.markToFetch(["8", "9"])
        #expect(store.idsToFetch() == ["7", "8", "9"])
        try store.setIDsToFetch([])
        #expect(store.idsToFetch().isEmpty)
        #expect(files(in: store.folder) == ["12.jpg"])
        #expect(store.remove(["12", "13"]).isEmpty)
        #expect(files(in: store.folder).isEmpty)

        // A Thumbnails folder that is a symbolic link is not written through.
        let other = ThumbnailStore(bundle: .init(url: directory.path("B.vacation")))
        try FileManager.default.createDirectory(at: other.additionalContent, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: other.folder, withDestinationURL: directory.url)
        #expect(throws: ThumbnailError.self) { try other.write(Data([0xFF]), for: "1") }
        #expect(!FileManager.default.fileExists(atPath: directory.path("1.jpg").path))
    }
}
