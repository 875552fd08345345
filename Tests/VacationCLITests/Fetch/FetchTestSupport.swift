import Foundation
import Testing
import TestSupport
@testable import VacationCLI

/// A library in a temporary folder and a fake Flickr, with `vacation fetch` pointed at it.
@MainActor
struct FetchHarness {
    let runner: CLIRunner
    let flickr: FakeFlickr
    /// Test knobs: retries after about a millisecond, attempts that wait at most 2 s.
    var variables: [String: String]

    init() throws {
        runner = try CLIRunner()
        flickr = try FakeFlickr()
        variables = ["FLICKR_API_BASE": flickr.base, "FLICKR_API_KEY": FakeFlickr.key,
                     "VACATION_FETCH_RETRY_BASE_MS": "1", "VACATION_FETCH_TIMEOUT_MS": "2000",
                     "TMPDIR": runner.directory.path("tmp").path]
        try FileManager.default.createDirectory(at: runner.directory.path("tmp"), withIntermediateDirectories: true)
    }

    /// What fetches left in their temporary folder: nothing, whatever happened.
    var leftovers: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: runner.directory.path("tmp").path)) ?? ["unreadable"]
    }

    /// `vacation --library … fetch <arguments>` with the fake's variables (and `extra` over them).
    func fetch(_ arguments: [String], extra: [String: String] = [:], terminal: Bool = false) throws -> CLIRunner.Result {
        try runner.run(["fetch"] + arguments, terminal: terminal, variables: variables.merging(extra) { $1 })
    }

    func run(_ arguments: String...) throws -> CLIRunner.Result {
        try runner.run(arguments)
    }

    /// What `photos`, `tags` and `places` say of a vacation, as JSON.
    func snapshot(_ vacation: String) throws -> [String] {
        try ["photos", "tags", "places"].map { command in
            let result = try runner.run(["--vacation", vacation, command, "--json"])
            #expect(result.code == 0, "\(command): \(result.errors)")
            return result.output
        }
    }

    /// Writes responses to files, as a user would save them with curl; returns their paths.
    func save(_ bodies: [String], prefix: String = "response") throws -> [String] {
        try bodies.enumerated().map { index, body in
            let url = runner.directory.path("\(prefix)-\(UUID().uuidString)-\(index + 1).json")
            try Data(body.utf8).write(to: url)
            return url.path
        }
    }

    /// The vacation's bundle.
    func bundle(_ vacation: String) -> URL {
        URL(fileURLWithPath: runner.library).appendingPathComponent(vacation + ".vacation")
    }

    func exists(_ vacation: String) -> Bool {
        FileManager.default.fileExists(atPath: bundle(vacation).path)
    }
}
