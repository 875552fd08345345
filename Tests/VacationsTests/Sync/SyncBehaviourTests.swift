import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport
@testable import Vacations

/// Sync's rules one at a time (README.md, "Sync between machines"), on two or three devices sharing one folder.
@Suite("Sync behaviour")
@MainActor
struct SyncBehaviourTests {
    let root: TemporaryDirectory
    let shared: URL

    init() throws {
        root = try TemporaryDirectory()
        shared = root.path("shared")
    }

    func peer(_ index: Int) throws -> SyncPeer { try SyncPeer(device: testDevice(index), folder: shared) }

    func importFixture(_ peer: SyncPeer, _ name: String = "search_unicode_titles.rest.xml") throws {
        let report = FeedImporter(coordinator: peer.coordinator).importFeeds([.file(try SampleFeeds.fixture(name))], rules: DraftRules(),
                                                                              now: Date(timeIntervalSinceReferenceDate: 700_000_000))
        #expect(report.added > 0)
    }

    func ids(_ peer: SyncPeer) throws -> [String] { try peer.store.photos().map(\.unique) }

    func changeFile(of peer: SyncPeer, _ sequence: Int64) -> URL {
        shared.appendingPathComponent("Trip").appendingPathComponent(peer.device).appendingPathComponent(ChangeFile.fileName(sequence))
    }

    @Test("a second device gets every photo, tag, place and album, and a third sync sends and receives nothing")
    func firstSync() throws {
        let first = try peer(1), second = try peer(2)
        try importFixture(first)
        let context = ObjectContext(coordinator: first.coordinator)
        try VacationAlbums.create(name: "Sea", predicate: "ANY tags.name == 'sea'", in: context, now: Date(timeIntervalSinceReferenceDate: 1))
        try context.save()
        let sent = try first.sync()
        #expect(sent.sent > 0 && sent.received == 0 && sent.files == 0)
        let received = try second.sync()
        #expect(received.sent == 0 && received.received == sent.sent && received.applied == sent.sent && received.files == 1)
        #expect(try second.dump() == first.dump())
        #expect(try second.store.problems() == [])
        for peer in [first, second] {
            let again = try peer.sync()
            #expect(again.sent == 0 && again.received == 0)
        }
    }

    @Test("visit on one device and unvisit on another, concurrently, settle alike whichever syncs first")
    func visitAgainstUnvisit() throws {
        for firstToSync in [1, 2] {
            let folder = root.path("order-\(firstToSync)")
            let one = try SyncPeer(device: testDevice(1), folder: folder), two = try SyncPeer(device: testDevice(2), folder: folder)
            try importFixture(one)
            try one.sync(now: Date(timeIntervalSinceReferenceDate: 1))
            try two.sync(now: Date(timeIntervalSinceReferenceDate: 2))
            let id = try #require(try ids(one).first)
            // Concurrently: one unvisits the photo, the other re-tags it through a visit.
            let unvisiting = ObjectContext(coordinator: one.coordinator)
            try VacationEditor(context: unvisiting).unvisit([id])
            try unvisiting.save()
            let visiting = ObjectContext(coordinator: two.coordinator)
            _ = try VacationEditor(context: visiting).visit([PhotoDraft(id: id, title: "Renamed", tags: ["renamed"],
                                                                        unknown: PhotoFields.all.subtracting([.title, .tags]))])
            try visiting.save()
            let order = firstToSync == 1 ? [one, two, one] : [two, one, two]
            for peer in order { try peer.sync() }
            #expect(try one.dump() == two.dump(), "\(firstToSync) first")
            #expect(try one.store.problems() == [] && two.store.problems() == [])
        }
    }

    @Test("a file seen twice is applied once; the same changes under another number change nothing")
    func appliedOnce() throws {
        let first = try peer(1), second = try peer(2)
        try importFixture(first)
        let sent = try first.sync().sent
        #expect(try second.sync().received == sent)
        #expect(try second.sync().received == 0)
        // A copy of file 1 as file 7: read, but every write loses to (equals) what is held.
        let copy = changeFile(of: first, 7)
        let bytes = try String(contentsOf: changeFile(of: first, 1), encoding: .utf8)
            .replacingOccurrences(of: "\"sequence\":1,", with: "\"sequence\":7,")
        try bytes.write(to: copy, atomically: true, encoding: .utf8)
        let report = try second.sync()
        #expect(report.received == sent && report.applied == 0 && report.sent == 0)
        #expect(try second.dump() == first.dump())
    }

    @Test("a half-written file is left for a later sync, then applied whole")
    func halfWritten() throws {
        let first = try peer(1), second = try peer(2)
        try importFixture(first)
        try first.sync()
        let file = changeFile(of: first, 1)
        let whole = try Data(contentsOf: file)
        try whole.prefix(whole.count / 2).write(to: file)
        let early = try second.sync()
        #expect(early.received == 0 && early.incomplete.map(\.path) == [file.path] && early.refused == [])
        #expect(try ids(second) == [])
        try whole.write(to: file)
        let late = try second.sync()
        #expect(late.files == 1 && late.incomplete == [])
        #expect(try second.dump() == first.dump())
    }

    @Test("a refused file changes nothing and the others still apply")
    func refusedFileSkippedWhole() throws {
        let first = try peer(1), second = try peer(2), third = try peer(3)
        try importFixture(first)
        try first.sync()
        // Device 3 writes a file whose album cannot run and whose photo write is fine: none of it applies.
        let bad = ChangeFile(device: third.device, sequence: 1, vacation: "Trip", writes: [
            SyncWrite(SyncRegisterKey(.photo, "99", "present"), value: "true", clock: SyncClock(counter: 9, device: third.device)),
            SyncWrite(SyncRegisterKey(.album, "Broken", "present"), value: "true", clock: SyncClock(counter: 9, device: third.device)),
            SyncWrite(SyncRegisterKey(.album, "Broken", "predicate"), value: "title ==", clock: SyncClock(counter: 9, device: third.device)),
        ])
        let badPath = changeFile(of: third, 1)
        try FileManager.default.createDirectory(at: badPath.deletingLastPathComponent(), withIntermediateDirectories: true)
        try bad.encoded().write(to: badPath)
        let report = try second.sync()
        #expect(report.refused.map(\.path) == [badPath.path])
        #expect(report.refused.first?.reason.hasPrefix("album 'Broken''s predicate cannot run: ") == true)
        #expect(report.files == 1)
        #expect(try second.dump() == first.dump())
        #expect(try !ids(second).contains("99"))
        // Refused every time it is seen, never half applied.
        #expect(try second.sync().refused.map(\.path) == [badPath.path])
    }

    @Test("links and stray folder entries are never followed: a linked file is refused, a linked or oddly named device folder ignored")
    func hostileEntries() throws {
        let first = try peer(1), second = try peer(2)
        try importFixture(first)
        try first.sync()
        let vacationFolder = shared.appendingPathComponent("Trip")
        let outside = root.path("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try Data(try Data(contentsOf: changeFile(of: first, 1))).write(to: outside.appendingPathComponent("1.change"))
        let third = testDevice(3), fourth = testDevice(4)
        try FileManager.default.createDirectory(at: vacationFolder.appendingPathComponent(third), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: vacationFolder.appendingPathComponent(third).appendingPathComponent("1.change"),
                                                   withDestinationURL: outside.appendingPathComponent("1.change"))
        try FileManager.default.createSymbolicLink(at: vacationFolder.appendingPathComponent(fourth), withDestinationURL: outside)
        for name in ["..", "not-a-device", third.uppercased()] {
            try? FileManager.default.createDirectory(at: vacationFolder.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        let report = try second.sync()
        #expect(report.files == 1)
        #expect(report.refused == [.init(path: vacationFolder.appendingPathComponent(third).appendingPathComponent("1.change").path,
                                          reason: "it is not a regular file")])
        #expect(try second.dump() == first.dump())
    }

    @Test("a change file that could not be written is written by the next sync, under the same number")
    func outbox() throws {
        let first = try peer(1), second = try peer(2)
        try importFixture(first)
        let deviceFolder = shared.appendingPathComponent("Trip").appendingPathComponent(first.device)
        try FileManager.default.createDirectory(at: deviceFolder.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("in the way".utf8).write(to: deviceFolder)
        #expect(throws: SyncError.self) { try first.sync() }
        try FileManager.default.removeItem(at: deviceFolder)
        let retry = try first.sync()
        #expect(retry.sent == 0)
        #expect(FileManager.default.fileExists(atPath: changeFile(of: first, 1).path))
        try second.sync()
        #expect(try second.dump() == first.dump())
    }

    @Test("a vacation made anew on a device takes back what that device wrote before, and numbers its files on")
    func madeAnew() throws {
        let first = try peer(1)
        try importFixture(first)
        try first.sync()
        let before = try first.dump()
        let again = try SyncPeer(device: first.device, folder: shared)
        let report = try again.sync()
        #expect(report.files == 1 && report.sent == 0)
        #expect(try again.dump() == before)
        try importFixture(again, "getInfo_with_location.json")
        #expect(try again.sync().sent > 0)
        #expect(FileManager.default.fileExists(atPath: changeFile(of: again, 2).path))
    }
}

@Suite("Sync pruning")
@MainActor
struct SyncPruningTests {
    @Test("pruning leaves one snapshot per device; a device that never synced and one that had half the files both end equal")
    func pruneToSnapshot() throws {
        let root = try TemporaryDirectory()
        let shared = root.path("shared")
        let first = try SyncPeer(device: testDevice(1), folder: shared), second = try SyncPeer(device: testDevice(2), folder: shared)
        for (index, name) in ["search_unicode_titles.rest.xml", "getInfo_with_location.json", "search_all_extras.json"].enumerated() {
            _ = FeedImporter(coordinator: first.coordinator).importFeeds([.file(try SampleFeeds.fixture(name))], rules: DraftRules(),
                                                                          now: Date(timeIntervalSinceReferenceDate: 700_000_000))
            try first.sync()
            if index == 0 { try second.sync() }
        }
        let unvisiting = ObjectContext(coordinator: first.coordinator)
        try VacationEditor(context: unvisiting).unvisit([try #require(try first.store.photos().first?.unique)])
        try unvisiting.save()
        let pruned = try VacationSync(folder: shared, vacation: "Trip", device: first.device, prune: true).run(coordinator: first.coordinator)
        #expect(pruned.sent == 1 && pruned.pruned == 3)
        let own = shared.appendingPathComponent("Trip").appendingPathComponent(first.device)
        #expect(try FileManager.default.contentsOfDirectory(atPath: own.path).sorted() == ["4.change"])
        let late = try second.sync()
        #expect(late.files == 1 && late.refused == [] && late.incomplete == [])
        let newcomer = try SyncPeer(device: testDevice(3), folder: shared)
        try newcomer.sync()
        let expected = try first.dump()
        #expect(expected.count > 100)
        #expect(try second.dump() == expected)
        #expect(try newcomer.dump() == expected)
        #expect(try newcomer.store.problems() == [])
        // Pruning again with nothing new: a fresh snapshot replaces the last one.
        let again = try VacationSync(folder: shared, vacation: "Trip", device: first.device, prune: true).run(coordinator: first.coordinator)
        #expect(again.sent == 0 && again.pruned == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: own.path).sorted() == ["5.change"])
    }
}

@Suite("Sync of values made by hand")
@MainActor
struct SyncHandMadeValueTests {
    @Test("a value other devices would refuse (a tag renamed by plain SQL) stays back, reported; the rest goes")
    func unsendableValueStaysBack() throws {
        let root = try TemporaryDirectory()
        let shared = root.path("shared")
        let first = try SyncPeer(device: testDevice(1), folder: shared), second = try SyncPeer(device: testDevice(2), folder: shared)
        _ = FeedImporter(coordinator: first.coordinator).importFeeds([.file(try SampleFeeds.fixture("getInfo_with_location.json"))],
                                                                      rules: DraftRules(), now: Date(timeIntervalSinceReferenceDate: 700_000_000))
        let photo = try #require(try first.store.photos().first)
        let id = photo.unique, tags = photo.tagNames
        #expect(!tags.isEmpty)
        let tagTable = try #require(VacationModel.model.entity(named: "Tag"))
        let nameColumn = try #require(tagTable.attribute(named: "name")?.column)
        // Through a connection of its own, as the sqlite3 shell would: the vacation's own
        // connection logs every write it commits, and refuses one it cannot log.
        let shell = try Connection(path: first.store.directory.path("persistentStore").path)
        try shell.execute("UPDATE \(tagTable.table) SET \(nameColumn) = 'Not A Tag' WHERE \(nameColumn) = ?", [.text(tags[0])])
        let report = try first.sync()
        let renamed = SyncValues.text(tags: tags.dropFirst() + ["Not A Tag"])
        #expect(report.unsent == ["photo '\(id)''s tags '\(renamed)' are not tag names, sorted, each once"])
        #expect(report.sent > 10)
        let received = try second.sync()
        #expect(received.refused == [] && received.files == 1)
        #expect(try second.store.photos().map(\.unique) == [id])
        #expect(try second.store.photos().first?.tagNames == [])
        #expect(try first.sync().unsent.count == 1)
    }
}

@Suite("Sync writes only where it should")
@MainActor
struct SyncWritePlaceTests {
    @Test("a device folder that is a link elsewhere is not written through; the sync fails and the outbox keeps the file")
    func linkedDeviceFolder() throws {
        let root = try TemporaryDirectory()
        let shared = root.path("shared"), elsewhere = root.path("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let first = try SyncPeer(device: testDevice(1), folder: shared)
        _ = FeedImporter(coordinator: first.coordinator).importFeeds([.file(try SampleFeeds.fixture("getInfo_with_location.json"))],
                                                                      rules: DraftRules(), now: Date(timeIntervalSinceReferenceDate: 700_000_000))
        let vacationFolder = shared.appendingPathComponent("Trip")
        try FileManager.default.createDirectory(at: vacationFolder, withIntermediateDirectories: true)
        let deviceFolder = vacationFolder.appendingPathComponent(first.device)
        try FileManager.default.createSymbolicLink(at: deviceFolder, withDestinationURL: elsewhere)
        #expect(throws: SyncError(.io("\(deviceFolder.path) is not a folder of its own (a link, or a file); sync writes nothing through it"))) {
            try first.sync()
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path) == [])
        try FileManager.default.removeItem(at: deviceFolder)
        #expect(try first.sync().sent == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: deviceFolder.path) == ["1.change"])
    }
}

@Suite("Sync into a new place")
@MainActor
struct SyncNewPlaceTests {
    @Test("a vacation that synced before, syncing into a new folder or under a new name, sends all it holds as a snapshot")
    func newFolderGetsEverything() throws {
        let root = try TemporaryDirectory()
        let first = try SyncPeer(device: testDevice(1), folder: root.path("old"))
        for name in ["search_unicode_titles.rest.xml", "getInfo_with_location.json"] {
            _ = FeedImporter(coordinator: first.coordinator).importFeeds([.file(try SampleFeeds.fixture(name))], rules: DraftRules(),
                                                                          now: Date(timeIntervalSinceReferenceDate: 700_000_000))
            try first.sync()
        }
        let expected = try first.dump()
        // Numbers follow on from the last file this device wrote anywhere.
        for (folder, vacation, number) in [(root.path("new"), "Trip", 3), (root.path("old"), "Journey", 4)] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let report = try VacationSync(folder: folder, vacation: vacation, device: first.device).run(coordinator: first.coordinator)
            #expect(report.sent == 0 && report.pruned == 0)
            let own = folder.appendingPathComponent(vacation).appendingPathComponent(first.device)
            #expect(try FileManager.default.contentsOfDirectory(atPath: own.path) == ["\(number).change"], "\(vacation)")
            let reader = try SyncPeer(device: testDevice(2), folder: folder)
            _ = try VacationSync(folder: folder, vacation: vacation, device: reader.device).run(coordinator: reader.coordinator)
            #expect(try reader.dump() == expected, "\(vacation)")
        }
        // A device that only ever received writes no snapshot where others' files are.
        let receiver = try SyncPeer(device: testDevice(3), folder: root.path("old"))
        try receiver.sync()
        #expect(try receiver.sync().sent == 0)
        #expect(!FileManager.default.fileExists(atPath: root.path("old").appendingPathComponent("Trip").appendingPathComponent(receiver.device).path))
    }
}
