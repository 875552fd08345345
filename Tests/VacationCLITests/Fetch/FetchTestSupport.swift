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

/// What a run of the `vacation` binary gave.
struct RunResult: Sendable {
    var code: Int32
    var output: String
    var errors: String

    var json: Any? { try? JSONSerialization.jsonObject(with: Data(output.utf8), options: [.fragmentsAllowed]) }
    var array: [[String: Any]] { json as? [[String: Any]] ?? [] }
    var object: [String: Any] { json as? [String: Any] ?? [:] }
}

/// ``FetchHarness`` through the real `vacation` binary: the waits of retries, timeouts and
/// throttling then block a process of their own, not the main actor that the in-process tests
/// of every suite share.
struct FetchProcessHarness: Sendable {
    let directory: TemporaryDirectory
    let flickr: FakeFlickr
    var variables: [String: String]
    var library: String { directory.path("library").path }

    init() throws {
        directory = try TemporaryDirectory(prefix: "fetch")
        flickr = try FakeFlickr()
        variables = ["FLICKR_API_BASE": flickr.base, "FLICKR_API_KEY": FakeFlickr.key,
                     "VACATION_FETCH_RETRY_BASE_MS": "1", "VACATION_FETCH_TIMEOUT_MS": "2000",
                     "TMPDIR": directory.path("tmp").path]
        try FileManager.default.createDirectory(at: directory.path("tmp"), withIntermediateDirectories: true)
    }

    /// `vacation --library … fetch <arguments>` with the fake's variables (and `extra` over them).
    func fetch(_ arguments: [String], extra: [String: String] = [:]) async throws -> RunResult {
        try await run(["fetch"] + arguments, variables: variables.merging(extra) { $1 })
    }

    func run(_ arguments: String...) async throws -> RunResult {
        try await run(arguments, variables: variables)
    }

    /// Sample paths (`SampleData/…`) are made absolute: the binary runs in the test's folder.
    func run(_ arguments: [String], variables: [String: String]) async throws -> RunResult {
        let absolute = arguments.map { $0.hasPrefix("SampleData/") ? SampleFiles.root.appendingPathComponent($0).path : $0 }
        let library = library
        let result = try await onOwnThread { try ProductProcess.run("vacation", ["--library", library] + absolute, environment: variables) }
        return RunResult(code: result.signalled ? -result.status : result.status, output: result.output, errors: result.errors)
    }

    func snapshot(_ vacation: String) async throws -> [String] {
        var outputs: [String] = []
        for command in ["photos", "tags", "places"] {
            let result = try await run("--vacation", vacation, command, "--json")
            #expect(result.code == 0, "\(command): \(result.errors)")
            outputs.append(result.output)
        }
        return outputs
    }

    /// What `photos`, `tags` and `places` say of a vacation, but when it was visited: the photos
    /// by id with every other field, the tags with their counts, the places in order with theirs.
    struct Comparable: Equatable {
        var photos: [String]
        var tags: String
        var places: [String]
    }

    func comparable(_ vacation: String) async throws -> Comparable {
        func without(_ key: String, _ objects: [[String: Any]]) throws -> [String] {
            try objects.map { object in
                var object = object
                object[key] = nil
                return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
            }
        }
        let snapshot = try await self.snapshot(vacation)
        func parse(_ text: String) -> [[String: Any]] {
            (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [[String: Any]] ?? []
        }
        return Comparable(photos: try without("visited", parse(snapshot[0])), tags: snapshot[1],
                          places: try without("firstVisited", parse(snapshot[2])))
    }

    func save(_ bodies: [String]) throws -> [String] {
        try bodies.enumerated().map { index, body in
            let url = directory.path("response-\(UUID().uuidString)-\(index + 1).json")
            try Data(body.utf8).write(to: url)
            return url.path
        }
    }

    func bundle(_ vacation: String) -> URL {
        URL(fileURLWithPath: library).appendingPathComponent(vacation + ".vacation")
    }

    func exists(_ vacation: String) -> Bool {
        FileManager.default.fileExists(atPath: bundle(vacation).path)
    }

    var leftovers: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory.path("tmp").path)) ?? ["unreadable"]
    }
}
