import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The row counts a library listing found in each store, kept in `<library>/.list-counts` for
/// the next listing, each with the state of the store's files when it was counted.
///
/// Counting opens each store, and opening a store parses its whole schema (about a millisecond
/// for a vacation: tables, indexes, search triggers), whatever its size: a hundred vacations
/// cost a hundred milliseconds before a single row is counted. A count is reused only while
/// both the store file and its `-wal` (or its absence) are exactly as they were: same inode,
/// size and change time (`st_ctime`, which every write sets and no one can set back). Every
/// commit writes one of the two files. A state whose change time is within `settling` of the
/// moment it was read is not kept at all: a write in the same tick of the file system's clock
/// could leave the same change time behind (git's "racy" entries, treated the same way).
///
/// The cache is an optimisation only: a file that is missing, unreadable or not understood is
/// an empty cache, and one that cannot be written is not kept.
struct CountCache: Codable, Equatable, Sendable {
    /// What `stat` tells of a file that any write changes.
    struct FileState: Codable, Equatable, Sendable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var changeSeconds: Int64
        var changeNanoseconds: Int64

        /// The file's state, or nil when there is none (or it is not a regular file).
        static func of(_ path: String) -> FileState? {
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
            return FileState(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                             changeSeconds: Int64(info.st_ctim.tv_sec), changeNanoseconds: Int64(info.st_ctim.tv_nsec))
        }

        var changed: Date {
            Date(timeIntervalSince1970: Double(changeSeconds) + Double(changeNanoseconds) / 1e9)
        }
    }

    /// The counts of one store and the state of its files when they were read.
    struct Entry: Codable, Equatable, Sendable {
        var store: FileState
        var wal: FileState?
        var counts: [String: Int]
    }

    static let fileName = ".list-counts"
    /// How old a file's last change must be for its count to be kept.
    static let settling: TimeInterval = 2

    /// By bundle folder name.
    var entries: [String: Entry] = [:]

    /// The cache of the library at `root`; empty when there is none or it cannot be read.
    static func load(in root: String) -> CountCache {
        guard let data = FileManager.default.contents(atPath: root + "/" + fileName),
              // A cache that does not decode (another version's, a torn write) is simply not used.
              let cache = try? JSONDecoder().decode(CountCache.self, from: data) else { return CountCache() }
        return cache
    }

    /// Writes the cache (replacing the file whole), unless it cannot: a listing that fails to
    /// keep its counts has lost only time, and the next one counts again.
    func save(in root: String) {
        guard let data = try? JSONEncoder().encode(self) else { return }
        try? data.write(to: URL(fileURLWithPath: root + "/" + Self.fileName), options: .atomic)
    }

    /// The counts kept for the store at `storePath` (in the bundle `bundleName`) when its files
    /// are as they were and every entity asked for was counted.
    func counts(bundleName: String, storePath: String, entityNames: [String]) -> [String: Int]? {
        guard let entry = entries[bundleName], Set(entityNames).isSubset(of: entry.counts.keys),
              let store = FileState.of(storePath), store == entry.store, FileState.of(storePath + "-wal") == entry.wal else { return nil }
        return entry.counts.filter { entityNames.contains($0.key) }
    }

    /// An entry for counts read from the store at `storePath` whose files were in `store` and
    /// `wal` before counting began at `started`; nil when either changed too recently to be sure
    /// that a later write would show.
    static func entry(store: FileState?, wal: FileState?, counts: [String: Int], started: Date) -> Entry? {
        guard let store else { return nil }
        let latest = max(store.changed, wal?.changed ?? .distantPast)
        guard latest < started.addingTimeInterval(-settling) else { return nil }
        return Entry(store: store, wal: wal, counts: counts)
    }
}
