import Documents
import Foundation
import ObjectGraph
import Vacations

/// Peak memory of a streaming import, measured in a child process (this program, started
/// again with `--child-import`), so that nothing the parent holds counts. The child reports its
/// own `VmHWM` (/proc/self/status): `ru_maxrss` of a child started with `posix_spawn` would
/// include the parent's peak, which the kernel carries over the `vfork`-style exec.
enum MemoryProbe {
    struct Result {
        var peakMegabytes: Double
        var milliseconds: Double
    }

    /// Starts this program as a child that imports `feed` (`side` is `ours` or `baseline`) into
    /// a new store under `folder`, and waits for it.
    static func measure(side: String, feed: URL, folder: URL, pageCacheKibibytes: Int?, memoryJournals: Bool,
                        chunkSavepoints: Bool, chunkSize: Int?) throws -> Result {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let arguments = [executable, "--child-import", side, feed.path, folder.path,
                         "--import-cache", pageCacheKibibytes.map { String($0 / 1024) } ?? "sqlite",
                         "--import-journals", memoryJournals ? "memory" : "file",
                         "--import-savepoints", chunkSavepoints ? "chunk" : "none"]
            + (chunkSize.map { ["--import-chunk", String($0)] } ?? [])
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child = pid_t()
        let code = posix_spawn(&child, executable, nil, nil, argv, environ)
        guard code == 0 else { throw BenchError("cannot start \(executable): \(String(cString: strerror(code)))") }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 {
            guard errno == EINTR else { throw BenchError("waiting for the child failed: \(String(cString: strerror(errno)))") }
        }
        // WIFEXITED and WEXITSTATUS, which Swift does not import.
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
            throw BenchError("the \(side) import child failed (wait status \(status))")
        }
        let report = try String(contentsOf: folder.appendingPathComponent("report"), encoding: .utf8).split(separator: " ")
        guard report.count == 2, let elapsed = Double(report[0]), let peak = Double(report[1]) else {
            throw BenchError("the \(side) import child left no report")
        }
        return Result(peakMegabytes: peak / 1024, milliseconds: elapsed)
    }

    /// The child's side: one import; its time (ms) and peak resident set (kB) go to `folder/report`.
    @MainActor
    static func runChild(side: String, feed: String, folder: String, pageCacheKibibytes: Int?, memoryJournals: Bool,
                         chunkSavepoints: Bool, chunkSize: Int?) throws {
        let feedURL = URL(fileURLWithPath: feed)
        let folderURL = URL(fileURLWithPath: folder, isDirectory: true)
        try FileManager.default.createDirectory(at: folderURL, withIntermediateDirectories: true)
        let now = BenchRunner.visitTime
        let elapsed: Double
        switch side {
        case "ours":
            // With persistent history, as vacations keep it.
            let library = try DocumentLibrary(url: folderURL.appendingPathComponent("library"), model: VacationModel.model,
                                              documentConfiguration: .init(tracksHistory: true))
            try library.create(named: "memory").close()
            elapsed = try timed {
                let document = try library.open(named: "memory")
                var importer = FeedImporter(coordinator: try document.coordinator)
                importer.pageCacheKibibytes = pageCacheKibibytes
                importer.memoryJournals = memoryJournals
                importer.chunkSavepoints = chunkSavepoints
                if let chunkSize { importer.chunkSize = chunkSize }
                let report = importer.importFeeds([.file(feedURL)], rules: DraftRules(), now: now)
                try document.close()
                if let failure = report.files.first?.failure { throw BenchError("the import failed: \(failure)") }
            }
        case "baseline":
            let store = baselineStore(in: folderURL)
            try BaselineSearchIndex.makeStore(at: store.path)
            elapsed = try timed {
                _ = try BaselineImporter.importFeed(feedURL, intoStoreAt: store.path, now: now, pageCacheKibibytes: pageCacheKibibytes,
                                                   memoryJournals: memoryJournals)
            }
        default:
            throw BenchError("unknown side '\(side)'")
        }
        try "\(elapsed) \(try peakResidentKilobytes())".write(to: folderURL.appendingPathComponent("report"),
                                                            atomically: true, encoding: .utf8)
    }

    /// Where each side's child leaves its store.
    static func oursStore(in folder: URL) -> URL {
        folder.appendingPathComponent("library/memory.vacation/StoreContent/persistentStore")
    }

    static func baselineStore(in folder: URL) -> URL {
        folder.appendingPathComponent("baseline.sqlite")
    }

    /// `VmHWM` of this process, in kB.
    static func peakResidentKilobytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
            throw BenchError("no VmHWM in /proc/self/status")
        }
        return kilobytes
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
