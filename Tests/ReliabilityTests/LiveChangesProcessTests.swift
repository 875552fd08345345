import Documents
import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport
import Vacations

/// Issue 18's multi-process test: this process watches a vacation with a results controller on
/// a document's view context while the real `vacation` binary imports, unvisits and undoes;
/// after each command the controller's results equal a fresh
/// fetch, without reopening. Prints the delay from each command's last commit to the
/// controller's report (no timed assertion: the machine is shared).
@MainActor
@Suite("Live changes between processes: a watcher follows the vacation command")
struct LiveChangesProcessTests {
    private static let byID = FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("unique")])

    /// The results equal a fresh fetch; waits up to 180 s for the change to arrive (the merge runs
    /// on the main actor, which other suites' tests share while the whole suite runs).
    private func settle(_ controller: FetchedResultsController<Photo>, _ coordinator: StoreCoordinator) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(180)
        while ContinuousClock.now < deadline {
            let fresh = try ObjectContext(coordinator: coordinator).fetch(Self.byID).map(\.unique)
            if controller.fetchedObjects.map(\.unique) == fresh { return true }
            try await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    /// The newest commit's time, as its history transaction records it.
    private func lastCommit(_ coordinator: StoreCoordinator) throws -> Date {
        let seconds = try coordinator.withConnection { try $0.scalar("SELECT max(ZTIMESTAMP) FROM ATRANSACTION")?.realValue ?? 0 }
        return Date(timeIntervalSinceReferenceDate: seconds)
    }

    @Test("a watching process's results controller equals a fresh fetch after every import and unvisit another process makes")
    func watcherFollowsCommands() async throws {
        let directory = try TemporaryDirectory(prefix: "live")
        let runner = VacationRunner(library: directory.url.appendingPathComponent("library"), wait: 30)
        let big = try TestFeed(in: directory.url, name: "big", photos: 1_000, firstID: 5_000_000, json: false)
        let small = try (0..<5).map { try TestFeed(in: directory.url, name: "small\($0)", photos: 5, firstID: 6_000_000 + Int64($0) * 100, json: $0 % 2 == 1) }
        #expect(try runner.run(["create", "Live"]).status == 0)

        let library = try VacationLibrary(url: runner.library, configuration: .init(autosaveDelay: nil, handlesStopSignals: false))
        let document = try library.open("Live", access: .read)
        let coordinator = try document.coordinator
        #expect(coordinator.observesOtherProcesses)
        let controller = try FetchedResultsController(request: Self.byID, context: try document.viewContext)
        try controller.performFetch()
        var reported = Date.distantPast
        var reports = 0
        controller.onChange = { _ in
            reported = Date()
            reports += 1
        }
        var delays: [Double] = []
        func step(_ arguments: [String]) async throws {
            let before = reports
            let result = try await onOwnThread { try runner.run(["--vacation", "Live"] + arguments) }
            #expect(result.status == 0, "vacation \(arguments.joined(separator: " ")): \(result.errors)")
            #expect(try await settle(controller, coordinator), "after vacation \(arguments.joined(separator: " "))")
            if reports > before { delays.append(reported.timeIntervalSince(try lastCommit(coordinator)) * 1000) }
        }

        try await step(["import", big.url.path])
        #expect(controller.fetchedObjects.count == 1_000)
        var random = SplitMix64(seed: 18)
        for id in big.ids.shuffled(using: &random).prefix(10) { try await step(["unvisit", id]) }
        for feed in small { try await step(["import", feed.url.path]) }
        #expect(controller.fetchedObjects.count == 1_000 - 10 + 25)
        // `vacation undo` twice: the watcher sees the last import go, then the one before it.
        try await step(["undo"])
        #expect(controller.fetchedObjects.count == 1_000 - 10 + 20)
        try await step(["undo"])
        #expect(controller.fetchedObjects.count == 1_000 - 10 + 15)
        try document.close()
        #expect(delays.count == 16 + 2)
        print(String(format: "Live changes: delay from another process's commit to the results controller's report, p50 %.1f ms, max %.1f ms over %d commands",
                     delays.percentile(0.5), delays.max() ?? .nan, delays.count))
    }
}

private extension Array where Element == Double {
    func percentile(_ fraction: Double) -> Double {
        guard !isEmpty else { return .nan }
        let sorted = self.sorted()
        return sorted[Swift.min(sorted.count - 1, Swift.max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))]
    }
}
