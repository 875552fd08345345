import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport
@testable import Vacations

/// One library's vacation for sync tests: a store, a device id, and the copy of the shared
/// folder this device sees (a sync engine gives each device its own).
final class SyncPeer {
    let device: String
    let store: VacationStore
    let folder: URL

    init(device: String, folder: URL) throws {
        self.device = device
        self.folder = folder
        store = try VacationStore()
        // Every vacation opened for writing keeps an operation log, so sync's apply is an operation.
        try store.coordinator.recordOperations(author: "test")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    var coordinator: StoreCoordinator { store.coordinator }

    @discardableResult
    func sync(now: Date = Date(timeIntervalSinceReferenceDate: 800_000_000), prune: Bool = false) throws -> SyncReport {
        // One operation of its own, as `vacation sync` is: `undo` after it reverts its apply.
        try coordinator.beginOperation(author: "sync")
        return try VacationSync(folder: folder, vacation: "Trip", device: device, now: now, prune: prune).run(coordinator: coordinator)
    }

    /// The operations of this peer's log that an undo can still revert, oldest first, each with
    /// the vacation as it was before it (`recording`).
    private(set) var undoable: [(id: Int64, before: [String])] = []

    /// What `commandEnded` needs to know of the vacation before a command: its latest operation
    /// and its content.
    struct BeforeCommand {
        let latest: Int64?
        let content: [String]
    }

    func commandStarts() throws -> BeforeCommand {
        BeforeCommand(latest: try coordinator.loggedOperations(limit: 1).first?.id, content: try dump())
    }

    /// When the command logged an operation, keeps the vacation as it was before it, so that
    /// `undo` can check that undoing it gives exactly that back.
    func commandEnded(_ before: BeforeCommand) throws {
        if let operation = try coordinator.loggedOperations(limit: 1).first, operation.id != before.latest, operation.undoes == nil {
            undoable.append((operation.id, before.content))
        }
    }

    /// Undoes the latest operation not undone and checks that the vacation is exactly as before
    /// it (every field, tag count, place and album); nil when there was nothing to undo.
    func undo(_ note: @autoclosure () -> String) throws -> LoggedOperation? {
        let undone = try coordinator.undoLatestOperation(author: "undo")
        guard let undone else {
            #expect(undoable.isEmpty, "\(note()): nothing to undo, but \(undoable.count) operations were logged")
            return nil
        }
        let expected = undoable.popLast()
        #expect(expected?.id == undone.id, "\(note()): undid operation \(undone.id), expected \(expected?.id ?? -1)")
        let after = try dump()
        let difference = after.difference(from: expected?.before ?? [])
        #expect(difference.isEmpty, "\(note()): undoing \(undone.author) left \(Array(difference).prefix(6))")
        return undone
    }

    /// Every field of every photo, tag, place and album, as comparable text (no row keys).
    func dump() throws -> [String] {
        let context = store.context()
        var lines: [String] = []
        func text(_ date: Date?) -> String { date.map { String($0.timeIntervalSinceReferenceDate) } ?? "nil" }
        // Prefetched: the convergence test dumps a vacation before every command.
        var photos = FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("unique")])
        photos.relationshipKeyPathsForPrefetching = ["tags", "place"]
        for photo in try context.fetch(photos) {
            let fields: [String?] = [photo.unique, photo.title, photo.subtitle, photo.imageURL, photo.thumbnailURL, photo.owner,
                                     text(photo.dateTaken), text(photo.dateUploaded), text(photo.visited),
                                     photo.latitude.map { String($0) }, photo.longitude.map { String($0) }, photo.media,
                                     photo.place?.name, photo.tagNames.joined(separator: ",")]
            lines.append("photo " + fields.map { $0 ?? "nil" }.joined(separator: " | "))
        }
        for tag in try context.fetch(FetchRequest<Tag>(sortedBy: [ObjectSortDescriptor("name")])) {
            lines.append("tag \(tag.name) \(tag.count)")
        }
        var places = FetchRequest<Place>(sortedBy: [ObjectSortDescriptor("name")])
        places.relationshipKeyPathsForPrefetching = ["photos"]
        for place in try context.fetch(places) {
            lines.append("place \(place.name) | \(place.placeID ?? "nil") | \(text(place.firstVisited)) | \(place.photos.count)")
        }
        for album in try context.fetch(FetchRequest<Album>(sortedBy: [ObjectSortDescriptor("name")])) {
            lines.append("album \(album.name) | \(album.predicate) | \(text(album.created))")
        }
        return lines
    }
}

/// A sync engine between the peers' folders that misbehaves as real ones do: it delivers files
/// late, out of order, more than once, and half-copied first (a prefix that grows to the whole).
struct FaultyCarrier {
    var generator: SplitMix64
    let vacation = "Trip"

    /// Every change file in `folder`: (device, name) → bytes.
    static func files(in folder: URL, vacation: String) -> [String: Data] {
        var result: [String: Data] = [:]
        let root = folder.appendingPathComponent(vacation)
        let devices = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []  // Why `try?`: no folder yet is no files.
        for device in devices {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(device).path)) ?? []
            for name in names where !name.hasPrefix(".") {
                result[device + "/" + name] = FileManager.default.contents(atPath: root.appendingPathComponent(device).appendingPathComponent(name).path)
            }
        }
        return result
    }

    /// One delivery step: a random file of a random peer's folder goes to another peer's, whole
    /// or cut short, sometimes with a stray copy under a name a reader must ignore.
    mutating func step(_ peers: [SyncPeer]) throws {
        let source = peers[Int.random(in: 0..<peers.count, using: &generator)]
        let target = peers[Int.random(in: 0..<peers.count, using: &generator)]
        guard source !== target else { return }
        let available = Self.files(in: source.folder, vacation: vacation).filter { $0.key.hasSuffix(".change") && !$0.key.contains("conflict") }
        guard let (path, data) = available.sorted(by: { $0.key < $1.key }).randomElement(using: &generator) else { return }
        let destination = target.folder.appendingPathComponent(vacation).appendingPathComponent(path)
        // An engine brings a device's own files to it only as it wrote them, and never shrinks a
        // copy it has finished.
        if path.hasPrefix(target.device + "/") { return }
        if let held = FileManager.default.contents(atPath: destination.path), held.count >= data.count {
            // A finished copy is never shrunk; now and then the engine copies it again whole
            // (a file seen twice must be applied once).
            if held.count == data.count && Int.random(in: 0..<4, using: &generator) == 0 { try data.write(to: destination) }
            return
        }
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        let roll = Int.random(in: 0..<10, using: &generator)
        if roll < 3 && data.count > 1 {
            // Half copied: a prefix, as a copy in progress leaves it.
            try data.prefix(Int.random(in: 0..<data.count, using: &generator)).write(to: destination)
        } else {
            try data.write(to: destination)
        }
        if roll == 9 {
            let stray = destination.deletingLastPathComponent()
            try data.write(to: stray.appendingPathComponent(".syncthing." + destination.lastPathComponent + ".tmp"))
            try data.write(to: stray.appendingPathComponent(destination.deletingPathExtension().lastPathComponent + ".sync-conflict-1.change"))
        }
    }

    /// Everything everywhere, whole; and what a device deleted from its own folder (pruning)
    /// deleted everywhere, as an engine carries deletions too.
    func deliverAll(_ peers: [SyncPeer]) throws {
        for owner in peers {
            let kept = Set(Self.files(in: owner.folder, vacation: vacation).keys.filter { $0.hasPrefix(owner.device + "/") })
            for peer in peers where peer !== owner {
                for path in Self.files(in: peer.folder, vacation: vacation).keys where path.hasPrefix(owner.device + "/") && !kept.contains(path) {
                    try FileManager.default.removeItem(at: peer.folder.appendingPathComponent(vacation).appendingPathComponent(path))
                }
            }
        }
        var all: [String: Data] = [:]
        for peer in peers { all.merge(Self.files(in: peer.folder, vacation: vacation)) { whole, other in whole.count >= other.count ? whole : other } }
        for peer in peers {
            for (path, data) in all {
                let destination = peer.folder.appendingPathComponent(vacation).appendingPathComponent(path)
                try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
                try data.write(to: destination)
            }
        }
    }
}

/// A Flickr JSON search response from a small pool of photos, with random titles, tags, places,
/// dates and coordinates, some of them left out (absent is unknown).
struct RandomFeeds {
    static let ids = (0..<40).map { String(7_000_000_000 + $0 * 7) }
    static let tags = ["sea", "sun", "Beach", "city", "night", "food", "bridge", "tram", "castle", "river"]
    static let places = ["Lisbon, Portugal", "Porto, Portugal", "Sintra,  Portugal", "Kyoto, Japan"]

    static func feed(_ generator: inout SplitMix64) -> String {
        let count = Int.random(in: 1...8, using: &generator)
        let chosen = ids.shuffled(using: &generator).prefix(count)
        let photos = chosen.map { id -> String in
            var fields = ["\"id\":\"\(id)\"", "\"owner\":\"1234@N00\""]
            if Bool.random(using: &generator) { fields.append("\"title\":\"Title \(Int.random(in: 0..<5, using: &generator))\"") }
            if Int.random(in: 0..<3, using: &generator) == 0 { fields.append("\"description\":{\"_content\":\"About \(id)\"}") }
            if Bool.random(using: &generator) {
                let names = tags.shuffled(using: &generator).prefix(Int.random(in: 0...3, using: &generator))
                fields.append("\"tags\":\"\(names.joined(separator: " "))\"")
            }
            if Bool.random(using: &generator) { fields.append("\"derived_place\":\"\(places.randomElement(using: &generator) ?? "")\"") }
            if Bool.random(using: &generator) { fields.append("\"datetaken\":\"2019-0\(Int.random(in: 1...9, using: &generator))-1\(Int.random(in: 0...9, using: &generator)) 10:00:00\"") }
            if Bool.random(using: &generator) {
                fields.append("\"latitude\":\"\(Double(Int.random(in: -900...900, using: &generator)) / 10)\"")
                fields.append("\"longitude\":\"\(Double(Int.random(in: -1800...1800, using: &generator)) / 10)\"")
            }
            if Bool.random(using: &generator) { fields.append("\"media\":\"photo\"") }
            if Bool.random(using: &generator) { fields.append("\"url_l\":\"https://example.com/\(id)_\(Int.random(in: 0..<3, using: &generator)).jpg\"") }
            return "{" + fields.joined(separator: ",") + "}"
        }
        return "{\"photos\":{\"page\":1,\"pages\":1,\"perpage\":\(count),\"total\":\"\(count)\",\"photo\":[\(photos.joined(separator: ","))]},\"stat\":\"ok\"}"
    }
}

/// Device ids for tests: fixed, in lower case.
func testDevice(_ index: Int) -> String {
    String(format: "00000000-0000-4000-8000-%012d", index)
}
