import Foundation
import TestSupport

/// Runs the real `vacation` binary on one library folder and reads its JSON.
///
/// ```swift
/// let vacation = VacationRunner(library: directory.path("library"))
/// let photos = try vacation.photos("Trip")          // id → (tags, place)
/// #expect(try vacation.run(["check", "Trip"]).status == 0)
/// ```
struct VacationRunner: Sendable {
    let library: URL
    /// Every command waits this long for another process's lock.
    var wait: Double = 60

    /// A photo as `photos --json` shows it.
    struct PhotoRecord: Equatable, Sendable {
        var tags: [String]
        var place: String?
    }

    /// Runs `vacation --library LIBRARY --wait WAIT ARGUMENTS…` to completion.
    func run(_ arguments: [String], input: Data? = nil, wait: Double? = nil) throws -> ProductProcess.Result {
        try ProductProcess.run("vacation", ["--library", library.path, "--wait", String(wait ?? self.wait)] + arguments, input: input)
    }

    /// Starts the command without waiting; output goes to files in `folder`.
    func start(_ arguments: [String], in folder: URL, label: String) throws -> Spawn {
        try ProductProcess.start("vacation", ["--library", library.path, "--wait", String(wait)] + arguments,
                                 output: folder.appendingPathComponent("\(label).out"),
                                 errors: folder.appendingPathComponent("\(label).err"))
    }

    /// Runs a command that must succeed and print JSON, and returns what it printed.
    func json(_ arguments: [String]) throws -> Any {
        let result = try run(arguments + ["--json"])
        guard result.status == 0, !result.signalled else {
            throw RunFailure("vacation \(arguments.joined(separator: " ")) exited \(result.status): \(result.errors)")
        }
        return try JSONSerialization.jsonObject(with: Data(result.output.utf8))
    }

    /// The photos of a vacation, by id.
    func photos(_ vacation: String) throws -> [String: PhotoRecord] {
        guard let items = try json(["--vacation", vacation, "photos"]) as? [[String: Any]] else {
            throw RunFailure("photos --json did not print an array")
        }
        var photos: [String: PhotoRecord] = [:]
        for item in items {
            guard let id = item["id"] as? String else { throw RunFailure("a photo without an id: \(item)") }
            photos[id] = PhotoRecord(tags: (item["tags"] as? [String] ?? []).sorted(), place: item["place"] as? String)
        }
        return photos
    }

    /// Tag name → count, as `tags --json` shows them.
    func tags(_ vacation: String) throws -> [String: Int] {
        guard let items = try json(["--vacation", vacation, "tags"]) as? [[String: Any]] else {
            throw RunFailure("tags --json did not print an array")
        }
        return Dictionary(items.compactMap { item in (item["name"] as? String).map { ($0, item["count"] as? Int ?? -1) } },
                          uniquingKeysWith: { _, _ in -1 })
    }

    /// Place name → photo count, as `places --json` shows them.
    func places(_ vacation: String) throws -> [String: Int] {
        guard let items = try json(["--vacation", vacation, "places"]) as? [[String: Any]] else {
            throw RunFailure("places --json did not print an array")
        }
        return Dictionary(items.compactMap { item in (item["name"] as? String).map { ($0, item["photos"] as? Int ?? -1) } },
                          uniquingKeysWith: { _, _ in -1 })
    }

    /// `check NAME`: nil when it passes, else what it said.
    func checkProblems(_ vacation: String) throws -> String? {
        let result = try run(["check", vacation, "--json"])
        if result.status == 0 && !result.signalled { return nil }
        return "check exited \(result.status): \(result.output)\(result.errors)"
    }

    /// The backups of a vacation as `backups --json` lists them: (name, path).
    func backups(_ vacation: String) throws -> [(name: String, path: String)] {
        guard let items = try json(["backups", vacation]) as? [[String: Any]] else {
            throw RunFailure("backups --json did not print an array")
        }
        return items.compactMap { item in
            guard let name = item["name"] as? String, let path = item["path"] as? String else { return nil }
            return (name, path)
        }
    }
}

struct RunFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The sanitizer reports a process wrote, if any (the tests also run under TSan and ASan, and
/// then the binaries they start are instrumented too).
func sanitizerReport(in errors: String) -> String? {
    for marker in ["WARNING: ThreadSanitizer", "ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "Fatal error", "Program crashed"]
    where errors.contains(marker) {
        return errors
    }
    return nil
}

/// A test feed: photos with ids from `firstID`, tags from a small shared vocabulary (so that
/// feeds share tags and places), written as XML or JSON.
struct TestFeed: Sendable {
    let url: URL
    let generator: FlickrFeedGenerator

    init(in folder: URL, name: String, photos: Int, firstID: Int64, json: Bool, vocabulary: Int = 40, places: Int = 12) throws {
        generator = FlickrFeedGenerator(photos: photos, firstID: firstID, vocabulary: vocabulary, places: places, tagsPerPhoto: 4)
        url = folder.appendingPathComponent(name + (json ? ".json" : ".xml"))
        if json { try generator.writeJSON(to: url) } else { try generator.writeXML(to: url) }
    }

    var ids: [String] { (0..<generator.photos).map(generator.id) }

    /// Each photo as the vacation must show it when the feed is present.
    var expected: [String: VacationRunner.PhotoRecord] {
        var records: [String: VacationRunner.PhotoRecord] = [:]
        for index in 0..<generator.photos {
            records[generator.id(index)] = .init(tags: generator.tags(index).sorted(), place: generator.place(index))
        }
        return records
    }
}

/// SplitMix64, seeded (TestSupport).
typealias SeededRandom = SplitMix64

/// A whole number from the environment (the long runs set these), else `fallback`.
func environmentNumber(_ name: String, default fallback: Int) -> Int {
    ProcessInfo.processInfo.environment[name].flatMap { Int($0) } ?? fallback
}

/// Runs blocking work (waiting for processes, sleeping between kills) on a thread of its own.
/// Swift's tasks share as many threads as there are cores (2 here): a test that blocks one of
/// them for seconds stalls every other test's timers and autosaves behind it.
///
/// ```swift
/// let report = try await onOwnThread { try CrashHarness(folder: url, seed: 7).run(kills: 20) }
/// ```
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}
