import Foundation
import ObjectGraph
import Testing
import TestSupport
@testable import Vacations

/// README.md, "Sync between machines": devices that have applied the same change files hold equal vacations, whatever
/// order the files arrived in, however often, and however cut short on the way.
@Suite("Sync convergence")
@MainActor
struct SyncConvergenceTests {
    /// The runs' seeds: `SYNC_CONVERGENCE_SEED=<n>` replays one run; otherwise
    /// `SYNC_CONVERGENCE_RUNS` fresh seeds (default 2) are drawn, each printed.
    nonisolated static let seeds: [UInt64] = {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["SYNC_CONVERGENCE_SEED"].flatMap(UInt64.init) { return [seed] }
        let runs = environment["SYNC_CONVERGENCE_RUNS"].flatMap(Int.init).map { max(1, $0) } ?? 2
        return (0..<runs).map { _ in UInt64.random(in: 1...UInt64(UInt32.max)) }
    }()

    /// Random steps per run (`SYNC_CONVERGENCE_STEPS` to change it).
    nonisolated static let steps = ProcessInfo.processInfo.environment["SYNC_CONVERGENCE_STEPS"].flatMap(Int.init) ?? 750

    @Test("Three libraries editing one vacation at random, undoing, syncing and pruning through a faulty folder, end equal and sound after two syncs each",
          arguments: seeds)
    func randomEditsConverge(seed: UInt64) throws {
        print("SyncConvergenceTests seed: \(seed) (SYNC_CONVERGENCE_SEED=\(seed) replays it)")
        var generator = SplitMix64(seed: seed)
        let root = try TemporaryDirectory()
        let peers = try (1...3).map { try SyncPeer(device: testDevice($0), folder: root.path("folder-\($0)")) }
        var carrier = FaultyCarrier(generator: SplitMix64(seed: seed &+ 1))
        let feeds = root.path("feeds")
        try FileManager.default.createDirectory(at: feeds, withIntermediateDirectories: true)
        var clock = 700_000_000.0
        var counts: [String: Int] = [:]
        let fixtures = [try SampleFeeds.fixture("search_all_extras.json"), SampleFeeds.url("lisbon-porto.xml"), SampleFeeds.url("kyoto.json")]

        for step in 0..<Self.steps {
            clock += 60
            let now = Date(timeIntervalSinceReferenceDate: clock)
            let peer = peers[Int.random(in: 0..<peers.count, using: &generator)]
            let context = ObjectContext(coordinator: peer.coordinator)
            let editor = VacationEditor(context: context, now: now)
            let present = try context.fetch(FetchRequest<Photo>()).map(\.unique).sorted()
            let roll = Int.random(in: 0..<100, using: &generator)
            // Each command is one operation of the peer's log, as each `vacation` command is;
            // the vacation before it is kept to check its undo.
            try peer.coordinator.beginOperation(author: "step \(step)")
            let before = roll < 80 && !(56..<64).contains(roll) ? try peer.commandStarts() : nil
            switch roll {
            case 0..<26:
                let feed = feeds.appendingPathComponent("feed-\(step).json")
                try RandomFeeds.feed(&generator).write(to: feed, atomically: true, encoding: .utf8)
                _ = FeedImporter(coordinator: peer.coordinator).importFeeds([.file(feed)], rules: DraftRules(), now: now)
                counts["import", default: 0] += 1
            case 26..<30:
                let fixture = fixtures[Int.random(in: 0..<fixtures.count, using: &generator)]
                _ = FeedImporter(coordinator: peer.coordinator).importFeeds([.file(fixture)], rules: DraftRules(), now: now)
                counts["import fixture", default: 0] += 1
            case 30..<42:
                let feed = feeds.appendingPathComponent("visit-\(step).json")
                try RandomFeeds.feed(&generator).write(to: feed, atomically: true, encoding: .utf8)
                let drafts = try FeedImporter.drafts(ids: RandomFeeds.ids, in: .file(feed), rules: DraftRules())
                if let draft = drafts.randomElement(using: &generator) {
                    if Bool.random(using: &generator) { _ = try editor.visit([draft]) } else { _ = try editor.toggle(draft) }
                    try context.save()
                }
                counts["visit or toggle", default: 0] += 1
            case 42..<52:
                let leaving = Array(present.shuffled(using: &generator).prefix(Int.random(in: 1...4, using: &generator)))
                if !leaving.isEmpty {
                    try editor.unvisit(leaving)
                    try context.save()
                }
                counts["unvisit", default: 0] += 1
            case 52..<56:
                let name = ["sea", "Night shots", "Kyoto"].randomElement(using: &generator) ?? "sea"
                if try VacationAlbums.album(named: name, in: context) != nil {
                    try VacationAlbums.delete(name: name, in: context)
                } else {
                    let predicate = ["ANY tags.name == 'sea'", "title CONTAINS[c] 'night'", "place.name BEGINSWITH 'Kyoto'"]
                        .randomElement(using: &generator) ?? "TRUEPREDICATE"
                    try VacationAlbums.create(name: name, predicate: predicate, in: context, now: now)
                }
                try context.save()
                counts["album", default: 0] += 1
            case 56..<64:
                // Undo whatever the peer did last: an import, an unvisit, or a sync's apply of
                // the others' changes (which the next sync then sends as this peer's edit).
                for _ in 0..<([1, 1, 1, 2, 2, 3].randomElement(using: &generator) ?? 1) {
                    let undone = try peer.undo("seed \(seed), step \(step)")
                    counts[undone.map { $0.author == "sync" ? "undo sync" : "undo edit" } ?? "undo, nothing", default: 0] += 1
                }
            case 64..<80:
                // One sync in six also prunes: a snapshot replaces the device's older files.
                let prune = Int.random(in: 0..<6, using: &generator) == 0
                let report = try peer.sync(now: now, prune: prune)
                counts[prune ? "sync --prune" : "sync", default: 0] += 1
                // A sync that brought others' changes is undone now and then at once: the undo
                // must take out exactly what it applied, and the next sync must carry that.
                if let before, report.files > 0 && Int.random(in: 0..<4, using: &generator) == 0 {
                    try peer.commandEnded(before)
                    let undone = try peer.undo("seed \(seed), step \(step)")
                    counts[undone?.author == "sync" ? "undo sync" : "undo after sync, not a sync", default: 0] += 1
                }
            default:
                for _ in 0..<Int.random(in: 1...4, using: &generator) { try carrier.step(peers) }
                counts["delivery", default: 0] += 1
            }
            if let before { try peer.commandEnded(before) }
        }
        print("SyncConvergenceTests commands: \(counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")

        for _ in 0..<2 {
            try carrier.deliverAll(peers)
            for peer in peers {
                let report = try peer.sync()
                #expect(report.refused == [], "seed \(seed)")
                #expect(report.incomplete == [], "seed \(seed)")
            }
        }
        let dumps = try peers.map { try $0.dump() }
        #expect(dumps[0].count > 10, "seed \(seed): the vacation should not end empty")
        for index in 1..<peers.count {
            let difference = dumps[index].difference(from: dumps[0])
            #expect(difference.isEmpty, "seed \(seed): peer \(index + 1) differs from peer 1: \(Array(difference).prefix(6))")
        }
        for peer in peers {
            #expect(try peer.store.problems() == [], "seed \(seed)")
            // Nothing left to say: a third sync sends nothing.
            #expect(try peer.sync().sent == 0, "seed \(seed)")
        }
    }
}
