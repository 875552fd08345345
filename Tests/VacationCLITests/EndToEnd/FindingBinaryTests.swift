import Foundation
import Testing
import TestSupport

/// `search` and `album` through the real binary, on a vacation of model version 1 that the
/// previous version wrote: the first command migrates it, reading ones included.
@Suite("search and album, through the binary")
struct FindingBinaryTests {
    private let directory: TemporaryDirectory
    private var library: String { directory.path("library").path }

    init() throws {
        directory = try TemporaryDirectory(prefix: "e2e-finding")
        let fixture = SampleFiles.root.appendingPathComponent("Tests/VacationsTests/Fixtures/model-v1/Sample.vacation")
        try FileManager.default.createDirectory(at: directory.path("library"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: fixture, to: directory.path("library", "My Vacation.vacation"))
    }

    private func vacation(_ arguments: String...) throws -> ProductProcess.Result {
        try ProductProcess.run("vacation", ["--library", library] + arguments, environment: [:], input: nil)
    }

    @Test("an old vacation is searched (migrated on the way), albums are made, listed and used, each with its exit code")
    func searchAndAlbums() throws {
        let photos = try vacation("photos", "--json")
        #expect(photos.status == 0 && photos.errors == "")
        #expect((try JSONSerialization.jsonObject(with: Data(photos.output.utf8)) as? [[String: Any]])?.count == 42)
        let found = try vacation("search", "BELÉM", "--json")
        #expect(found.status == 0 && found.errors == "")
        let ids = (try JSONSerialization.jsonObject(with: Data(found.output.utf8)) as? [[String: Any]])?.compactMap { $0["id"] as? String }
        #expect(ids == ["52814571233", "52814563021"])
        #expect(try vacation("search", "nothing-like-it", "--json").output == "[]\n")
        let empty = try vacation("search", "?!")
        #expect(empty.status == 64 && empty.output == "" && empty.errors.hasPrefix("Error: Cannot search for \"?!\""))

        let created = try vacation("album", "create", "Temples", "--where", "ANY tags.name == 'temple'")
        #expect(created.status == 0)
        #expect(created.output == "Created the album \"Temples\" (3 photos now)\n")
        #expect(try vacation("album", "create", "Temples", "--where", "TRUEPREDICATE").status == 1)
        #expect(try vacation("album", "create", "Bad", "--where", "title ==").status == 64)
        let list = try vacation("album", "list", "--json")
        #expect(list.output == "[\n  {\n    \"name\": \"Temples\",\n    \"where\": \"ANY tags.name == 'temple'\",\n    \"photos\": 3\n  }\n]\n")
        #expect(try vacation("photos", "--album", "Temples", "--place", "Kyoto", "--json").status == 0)
        #expect(try vacation("photos", "--album", "Shrines").status == 66)
        #expect(try vacation("album", "delete", "Shrines").status == 66)
        #expect(try vacation("album", "delete", "Temples").status == 0)
        let check = try vacation("check")
        #expect(check.status == 0)
        #expect(check.output == "Vacation \"My Vacation\" is sound: no problems found.\n")
        let info = try vacation("info", "--json")
        #expect((try JSONSerialization.jsonObject(with: Data(info.output.utf8)) as? [String: Any])?["modelVersion"] as? String == "2")
    }
}
