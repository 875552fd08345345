import Foundation
import ObjectGraph
import Testing
import TestSupport
@testable import Vacations

/// `undo` and sync together (README.md, "Sync between machines", "Undo and sync"): undo reverts
/// this device's latest operation, a sync's apply of other devices' changes included, and what
/// it reverted is then this device's edit, which the next sync carries like any other.
@Suite("Sync and undo")
@MainActor
struct SyncUndoTests {
    let root: TemporaryDirectory
    let shared: URL

    init() throws {
        root = try TemporaryDirectory()
        shared = root.path("shared")
    }

    func peer(_ index: Int) throws -> SyncPeer { try SyncPeer(device: testDevice(index), folder: shared) }

    func importFeed(_ peer: SyncPeer, _ url: URL) throws {
        try peer.coordinator.beginOperation(author: "import")
        let report = FeedImporter(coordinator: peer.coordinator).importFeeds([.file(url)], rules: DraftRules(),
                                                                              now: Date(timeIntervalSinceReferenceDate: 700_000_000))
        #expect(report.added > 0 && report.skipped == 0)
    }

    func unvisit(_ peer: SyncPeer, _ ids: [String]) throws {
        try peer.coordinator.beginOperation(author: "unvisit")
        let context = ObjectContext(coordinator: peer.coordinator)
        try VacationEditor(context: context).unvisit(ids)
        try context.save()
    }

    func retitle(_ peer: SyncPeer, _ id: String, _ title: String) throws {
        try peer.coordinator.beginOperation(author: "visit")
        let context = ObjectContext(coordinator: peer.coordinator)
        _ = try VacationEditor(context: context).visit([PhotoDraft(id: id, title: title, unknown: PhotoFields.all.subtracting([.title]))])
        try context.save()
    }

    func ids(_ peer: SyncPeer) throws -> [String] { try peer.store.photos().map(\.unique) }

    func undo(_ peer: SyncPeer) throws -> String? {
        try peer.coordinator.undoLatestOperation(author: "undo")?.author
    }

    /// Two devices holding the Lisbon and Porto sample, synced.
    func twoSynced() throws -> (SyncPeer, SyncPeer) {
        let one = try peer(1), two = try peer(2)
        try importFeed(one, SampleFeeds.url("lisbon-porto.xml"))
        try one.sync()
        try two.sync()
        #expect(try two.dump() == one.dump())
        return (one, two)
    }

    @Test("undoing a sync that brought another device's unvisit brings the photos back here, and the next syncs bring them back there, every field, tag count and place as before")
    func undoSyncOfUnvisit() throws {
        let (one, two) = try twoSynced()
        let before = try two.dump()
        let leaving = Array(try ids(one).prefix(3))
        try unvisit(one, leaving)
        try one.sync()
        try two.sync()
        #expect(try ids(two).filter(leaving.contains) == [])
        #expect(try undo(two) == "sync")
        #expect(try two.dump() == before)
        // What the undo put back is two's edit: only the photos' presence, nothing else.
        let report = try two.sync()
        #expect(report.sent == leaving.count && report.files == 0)
        let received = try one.sync()
        #expect(received.applied == leaving.count)
        #expect(try one.dump() == before && two.dump() == before)
        #expect(try one.store.problems() == [] && two.store.problems() == [])
        for peer in [one, two] { #expect(try peer.sync().sent == 0) }
    }

    @Test("undoing a sync that brought new photos takes them out here and, once synced, there too; what else changed meanwhile stays; undoing that sync there brings them back everywhere")
    func undoSyncOfImport() throws {
        let (one, two) = try twoSynced()
        let lisbon = try ids(one)
        let beforeKyoto = try two.dump()
        try importFeed(one, SampleFeeds.url("kyoto.json"))
        let withKyoto = try one.dump()
        let kyoto = try ids(one).filter { !lisbon.contains($0) }
        #expect(!kyoto.isEmpty)
        try one.sync()
        try two.sync()
        #expect(try two.dump() == withKyoto)
        #expect(try undo(two) == "sync")
        #expect(try two.dump() == beforeKyoto)
        // Meanwhile one re-titles a Lisbon photo; it is sent before two's undo arrives.
        let renamed = try #require(lisbon.first)
        try retitle(one, renamed, "Renamed meanwhile")
        try one.sync()
        try two.sync()
        try one.sync()
        #expect(try one.dump() == two.dump())
        #expect(try ids(one) == lisbon)
        #expect(try one.store.photos().first { $0.unique == renamed }?.title == "Renamed meanwhile")
        #expect(try one.store.problems() == [] && two.store.problems() == [])

        // Nothing is lost for good: one undoes the sync that took the photos out.
        #expect(try undo(one) == "sync")
        #expect(try ids(one).sorted() == (lisbon + kyoto).sorted())
        try one.sync()
        try two.sync()
        #expect(try one.dump() == two.dump())
        #expect(try ids(two).sorted() == (lisbon + kyoto).sorted())
        #expect(try one.store.problems() == [] && two.store.problems() == [])
    }

    @Test("undoing an edit that was synced sends its reversal; undoing one that was not synced sends nothing")
    func undoLocalEdits() throws {
        let (one, two) = try twoSynced()
        let all = try ids(one)
        let before = try one.dump()
        let (first, second) = (all[0], all[1])
        try unvisit(one, [first])
        try one.sync()
        try two.sync()
        #expect(try !ids(two).contains(first))
        #expect(try undo(one) == "unvisit")
        #expect(try one.dump() == before)
        #expect(try one.sync().sent == 1)
        try two.sync()
        #expect(try two.dump() == before)

        try unvisit(one, [second])
        #expect(try undo(one) == "unvisit")
        let quiet = try one.sync()
        #expect(quiet.sent == 0)
        #expect(try two.sync().received == 0)
        #expect(try one.dump() == before && two.dump() == before)
    }

    @Test("concurrent edits settle by clock after an undo: a later edit elsewhere of a field the undo put back wins on both")
    func undoAgainstLaterEdit() throws {
        let (one, two) = try twoSynced()
        let photo = try #require(try ids(one).first)
        let original = try #require(try two.store.photos().first { $0.unique == photo }).title
        try retitle(one, photo, "From one")
        try one.sync()
        try two.sync()
        #expect(try undo(two) == "sync")
        #expect(try two.store.photos().first { $0.unique == photo }?.title == original)
        // Two's undo goes out stamped later than one's title: it wins on one too.
        try two.sync()
        try one.sync()
        #expect(try one.store.photos().first { $0.unique == photo }?.title == original)
        // Then one, having seen it, titles the photo again: the later edit wins everywhere.
        try retitle(one, photo, "Again from one")
        try one.sync()
        try two.sync()
        #expect(try one.dump() == two.dump())
        #expect(try two.store.photos().first { $0.unique == photo }?.title == "Again from one")
    }
}
