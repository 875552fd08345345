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
    /// `SYNC_CONVERGENCE_SEED=<n>` replays a run.
    static let seed: UInt64 = ProcessInfo.processInfo.environment["SYNC_CONVERGENCE_SEED"].flatMap(UInt64.init)
        ?? UInt64.random(in: 1...UInt64(UInt32.max))

    @Test("Three libraries editing one vacation at random, syncing and pruning through a faulty folder, end equal and sound after two syncs each")
    func randomEditsConverge() throws {
        print("SyncConvergenceTests seed: \(Self.seed) (SYNC_CONVERGENCE_SEED=\(Self.seed) replays it)")
        var generator = SplitMix64(seed: Self.seed)
        let root = try TemporaryDirectory()
        let peers = try (1...3).map { try SyncPeer(device: testDevice($0), folder: root.path("folder-\($0)")) }
        var carrier = FaultyCarrier(generator: SplitMix64(seed: Self.seed &+ 1))
        let feeds = root.path("feeds")
        try FileManager.default.createDirectory(at: feeds, withIntermediateDirectories: true)
        var clock = 700_000_000.0
        var counts: [String: Int] = [:]
        let fixtures = [try SampleFeeds.fixture("search_all_extras.json"), SampleFeeds.url("lisbon-porto.xml"), SampleFeeds.url("kyoto.json")]

        for step in 0..<300 {
            clock += 60
            let now = Date(timeIntervalSinceReferenceDate: clock)
            let peer = peers[Int.random(in: 0..<peers.count, using: &generator)]
            let context = ObjectContext(coordinator: peer.coordinator)
            let editor = VacationEditor(context: context, now: now)
            let present = try context.fetch(FetchRequest<Photo>()).map(\.unique).sorted()
            let roll = Int.random(in: 0..<100, using: &generator)
            switch roll {
            case 0..<30:
                let feed = feeds.appendingPathComponent("feed-\(step).json")
                try RandomFeeds.feed(&generator).write(to: feed, atomically: true, encoding: .utf8)
                _ = FeedImporter(coordinator: peer.coordinator).importFeeds([.file(feed)], rules: DraftRules(), now: now)
                counts["import", default: 0] += 1
            case 30..<34:
                let fixture = fixtures[Int.random(in: 0..<fixtures.count, using: &generator)]
                _ = FeedImporter(coordinator: peer.coordinator).importFeeds([.file(fixture)], rules: DraftRules(), now: now)
                counts["import fixture", default: 0] += 1
            case 34..<48:
                let feed = feeds.appendingPathComponent("visit-\(step).json")
                try RandomFeeds.feed(&generator).write(to: feed, atomically: true, encoding: .utf8)
                let drafts = try FeedImporter.drafts(ids: RandomFeeds.ids, in: .file(feed), rules: DraftRules())
                if let draft = drafts.randomElement(using: &generator) {
                    if Bool.random(using: &generator) { _ = try editor.visit([draft]) } else { _ = try editor.toggle(draft) }
                    try context.save()
                }
                counts["visit or toggle", default: 0] += 1
            case 48..<60:
                let leaving = Array(present.shuffled(using: &generator).prefix(Int.random(in: 1...4, using: &generator)))
                if !leaving.isEmpty {
                    try editor.unvisit(leaving)
                    try context.save()
                }
                counts["unvisit", default: 0] += 1
            case 60..<64:
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
            case 64..<80:
                // One sync in six also prunes: a snapshot replaces the device's older files.
                let prune = Int.random(in: 0..<6, using: &generator) == 0
                try peer.sync(now: now, prune: prune)
                counts[prune ? "sync --prune" : "sync", default: 0] += 1
            default:
                for _ in 0..<Int.random(in: 1...4, using: &generator) { try carrier.step(peers) }
                counts["delivery", default: 0] += 1
            }
        }
        print("SyncConvergenceTests commands: \(counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")

        for _ in 0..<2 {
            try carrier.deliverAll(peers)
            for peer in peers {
                let report = try peer.sync()
                #expect(report.refused == [], "seed \(Self.seed)")
                #expect(report.incomplete == [], "seed \(Self.seed)")
            }
        }
        let dumps = try peers.map { try $0.dump() }
        #expect(dumps[0].count > 10, "seed \(Self.seed): the vacation should not end empty")
        for index in 1..<peers.count {
            let difference = dumps[index].difference(from: dumps[0])
            #expect(difference.isEmpty, "seed \(Self.seed): peer \(index + 1) differs from peer 1: \(Array(difference).prefix(6))")
        }
        for peer in peers {
            #expect(try peer.store.problems() == [], "seed \(Self.seed)")
            // Nothing left to say: a third sync sends nothing.
            #expect(try peer.sync().sent == 0, "seed \(Self.seed)")
        }
    }
}
