import Foundation
import Testing
import TestSupport

/// The library found however it is spelled (issue 22, session 29, took Foundation's URL
/// standardisation off the common path): through a symbolic link, a relative path with `..`,
/// `~`, a trailing slash, and vacations named in NFD, the real binary gives the same answers.
@Suite("The vacation binary: library paths")
struct LibraryPathBinaryTests {
    @Test("a library reached by a link, a relative path, ~ or a trailing slash answers as by its real path")
    func spellingsOfOneLibrary() throws {
        let directory = try TemporaryDirectory(prefix: "e2e-paths")
        let real = directory.path("real library").path
        let link = directory.path("link").path
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        let feed = SampleFiles.root.appendingPathComponent("SampleData/kyoto.json").path
        let decomposed = "Cafe\u{301} Kyo\u{304}to"
        let created = try ProductProcess.run("vacation", ["--library", link, "import", feed, "--vacation", decomposed])
        #expect(created.status == 0, "\(created.errors)")
        // From the test's folder to the link, up to the root and down again: a relative path with "..".
        let depth = FileManager.default.currentDirectoryPath.split(separator: "/").count
        let relative = String(repeating: "../", count: depth) + String(link.dropFirst())
        let spellings = [real, link, link + "/", link + "/./", relative, directory.path("link/../link").path, "~/link"]
        var answers: [String: [String]] = [:]
        for spelling in spellings {
            var outputs: [String] = []
            for command in [["list", "--json"], ["tags", "--json", "--vacation", decomposed],
                            ["photos", "--limit", "3", "--json", "--vacation", "Caf\u{E9} Ky\u{14D}to"]] {
                let result = try ProductProcess.run("vacation", ["--library", spelling] + command,
                                                    environment: ["HOME": directory.url.path])
                #expect(result.status == 0, "\(spelling) \(command): \(result.errors)")
                outputs.append(result.output)
            }
            answers[spelling] = outputs
        }
        let expected = try #require(answers[real])
        #expect(expected[0].contains("\"Caf\u{E9} Ky\u{14D}to\""))
        #expect(expected[1].contains("\"kyoto\""))
        for spelling in spellings { #expect(answers[spelling] == expected, "\(spelling)") }
        // Nothing was made beside the real library: one library, one vacation.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == ["link", "real library"])
    }
}
