import Documents
import Foundation
import ObjectGraph
import Vacations

extension BenchRunner {
    /// 1,000 toggles: 500 photos spread over the vacation (all of them in a smaller one), each
    /// unvisited, then each visited again, every toggle saved (one transaction); the vacation
    /// ends as it began. The sides interleave toggle by toggle, taking turns to go first, after
    /// a warm-up pair (a photo outside the measured ones unvisited and visited again on both).
    ///
    /// Both sides do to the store what `vacation toggle` does: persistent history and the
    /// operation log on, one operation per toggle (as one `vacation toggle` process is one), by
    /// the same author at the same (fixed) time, so that the logs compare. Ours records through
    /// the framework (`recordOperations`, then `beginOperation` per toggle, timed); the baseline
    /// writes the same rows by hand (`BaselineOperationLog`). Only the toggles are timed:
    /// nothing here undoes them.
    func measureToggle() throws {
        progress("toggle: reading the drafts")
        let count = min(500, max(1, options.photos - 1))
        let step = max(1, options.photos / count)
        let ids = (0..<count).map { generator.id($0 * step % options.photos) }
        let warmUpID = generator.id(options.photos - 1)
        let drafts = try FeedImporter.drafts(ids: ids + [warmUpID], in: .file(xmlFeed), rules: DraftRules())
        guard drafts.count == count + 1, let warmUp = drafts.last else { throw BenchError("toggle: the feed lacks some photos") }
        let measured = Array(drafts.dropLast())
        let sequence = measured + measured
        progress("toggle: \(sequence.count) toggles each, interleaved")

        let document = try library.open(named: vacationName)
        // The log's tables are made here, untimed, on both sides (`vacation toggle` makes them
        // when a vacation is first opened for writing).
        let clock: @Sendable () -> Date = { Self.visitTime }
        try document.coordinator.recordOperations(author: Self.toggleAuthor, now: clock)
        let context = try document.newRootContext(name: "toggle")
        let database = try RawDatabase(path: baselineStore)
        try BaselineOperationLog.createTables(in: database)
        let toggler = try BaselineToggler(database: database, now: Self.visitTime)
        var times: [Side: [Double]] = [:]
        // CPU time too: a toggle is under a millisecond, and other work on the machine stretches
        // its wall clock far more than the time it runs.
        var cpuTimes: [Side: [Double]] = [:]
        var lastCPU = 0.0
        var outcomes: [Side: [VacationEditor.ToggleOutcome]] = [:]
        func toggle(_ draft: PhotoDraft, side: Side) throws -> Double {
            // Timed without `timed`'s closure: the release build's region analysis would see the
            // context and the toggler sent into it.
            let cpuStart = processCPUMilliseconds()
            let start = monotonicMilliseconds()
            let outcome: VacationEditor.ToggleOutcome
            if side == .ours {
                try document.coordinator.beginOperation(author: Self.toggleAuthor)
                outcome = try VacationEditor(context: context, now: Self.visitTime).toggle(draft)
                try context.save()
            } else {
                outcome = try toggler.toggle(draft)
            }
            let time = monotonicMilliseconds() - start
            lastCPU = processCPUMilliseconds() - cpuStart
            outcomes[side, default: []].append(outcome)
            return time
        }
        for side in [Side.ours, .baseline] {
            _ = try toggle(warmUp, side: side)
            _ = try toggle(warmUp, side: side)
        }
        outcomes = [:]
        for (index, draft) in sequence.enumerated() {
            for side in Self.order([.ours, .baseline], round: index) {
                times[side, default: []].append(try toggle(draft, side: side))
                cpuTimes[side, default: []].append(lastCPU)
            }
        }
        try document.close()
        let expected = Array(repeating: VacationEditor.ToggleOutcome.unvisited, count: count)
            + Array(repeating: .visited, count: count)
        guard outcomes[.ours] == expected, outcomes[.baseline] == expected else {
            throw BenchError("toggle: the outcomes are not \(count) unvisits then \(count) visits")
        }
        try StoreFingerprint.requireEqual(try storePath(ofVacation: vacationName), baselineStore, figure: "toggle")
        try StoreFingerprint.requireLoggedToggles(try storePath(ofVacation: vacationName), baselineStore, operations: 2 + sequence.count)
        let ours = times[.ours] ?? [], baseline = times[.baseline] ?? []
        var figure = Figure(name: "toggle", photos: options.photos,
                            kind: .latency(oursP50: ours.percentile(0.5), oursP99: ours.percentile(0.99),
                                           baselineP50: baseline.percentile(0.5), baselineP99: baseline.percentile(0.99)))
        figure.runs = ours.count
        figure.cpu = (ours: (cpuTimes[.ours] ?? []).percentile(0.5), baseline: (cpuTimes[.baseline] ?? []).percentile(0.5), limit: nil)
        figure.goal = "p50 ≤ 1.2×"
        figure.meetsGoal = figure.ratio <= 1.2
        figures.append(figure)
        progress(String(format: "toggle: ours p50 %.3f ms p99 %.3f ms, baseline p50 %.3f ms p99 %.3f ms",
                        ours.percentile(0.5), ours.percentile(0.99), baseline.percentile(0.5), baseline.percentile(0.99)))
    }

    /// The author `vacation toggle` logs its operations under.
    static let toggleAuthor = "vacation toggle"
}
