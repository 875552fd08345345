import Foundation
import TestSupport
import Vacations

/// SQLite's crash tests, on our binaries: runs `vacation import`, `unvisit`, `undo`, `backup`,
/// `restore --force`, `sync` and an autosaving process (`vacations-test-helper autosave-vacation`) on one
/// vacation, kills each with SIGKILL at a random moment, and after every kill checks that
///
/// - the vacation opens and `check` passes (SQLite's integrity check and ARCHITECTURE.md §3's invariants);
/// - every feed is wholly present or wholly absent, each present photo with all its tags and its
///   place, and feeds the killed command did not touch are as they were;
/// - the autosaving process's photos are a state it reached, no older than its last save;
/// - every backup listed restores to a vacation that passes `check`;
/// - a killed restore left the vacation as it was or as the backup is, never neither;
/// - the operation log agrees with the photos: an undo that changed them is logged, one that
///   is not logged changed nothing;
/// - nothing half-made shows in the library listing;
/// - every change file `sync` left in its folder is whole (written under a temporary name, then
///   renamed), and the next sync succeeds;
/// - the persistent history agrees with the data: every row has its history, none is left
///   without its row (`HistoryConsistency`), so a kill during a history write lost both or neither.
///
/// ```swift
/// let harness = try CrashHarness(folder: directory.url, seed: 7)
/// let report = try harness.run(kills: 20)
/// #expect(report.failures.isEmpty)
/// ```
final class CrashHarness {
    enum Action: String, CaseIterable, Sendable {
        case importFeeds = "import", unvisit, undo, backup, restore, autosave, sync
    }

    struct Report: CustomStringConvertible {
        /// Commands killed while running, by action.
        var kills: [Action: Int] = [:]
        /// Commands that finished before their kill came (and had to succeed).
        var completed: [Action: Int] = [:]
        var backupsRestored = 0
        /// Autosaves the autosaving process saw reach the store before it was killed.
        var autosavesAcknowledged = 0
        /// How long each command took when it ran to the end (kills land in 0…1.2 × this).
        var durations: [Action: Double] = [:]
        var failures: [String] = []
        var seconds = 0.0

        var totalKills: Int { kills.values.reduce(0, +) }

        var description: String {
            let actions = Action.allCases.map { "\($0.rawValue) \(kills[$0] ?? 0) killed/\(completed[$0] ?? 0) finished" }
            let timing = Action.allCases.compactMap { action in durations[action].map { "\(action.rawValue) \(Int($0 * 1000)) ms" } }
            return "\(totalKills) kills survived (\(actions.joined(separator: ", "))); \(backupsRestored) backups restored "
                + "and checked; \(autosavesAcknowledged) autosaves acknowledged before a kill; uninterrupted runs: "
                + "\(timing.joined(separator: ", ")); \(failures.count) failures; \(String(format: "%.1f", seconds)) s"
        }
    }

    let vacation = "Crash"
    private let folder: URL
    /// The folder `sync` writes its change files to.
    private var syncFolder: URL { folder.appendingPathComponent("shared") }
    private let runner: VacationRunner
    private let feeds: [TestFeed]
    private let expected: [String: VacationRunner.PhotoRecord]
    /// The autosaving process toggles photos of this feed.
    private let toggleFeed: TestFeed
    private var random: SeededRandom
    /// Which feeds the vacation holds, as last verified.
    private var present: [Bool]
    /// The toggle feed's photos in the vacation, as last verified.
    private var toggled: Set<String> = []
    private var verifiedBackups: Set<String> = []
    /// The photos of each verified backup, by path: what a restore of it must give.
    private var backupPhotos: [String: [String: VacationRunner.PhotoRecord]] = [:]
    /// The vacation's photos, as last verified.
    private var photosBefore: [String: VacationRunner.PhotoRecord] = [:]
    /// The backup the current restore restores.
    private var restoring: String?
    /// How long each action takes when it is not killed, measured first: kills land in [0, 1.2 × this].
    private var durations: [Action: Double] = [:]
    private var step = 0
    /// How many operations the vacation's log held before the current undo.
    private var logBefore = 0

    private func operationCount() throws -> Int {
        (try runner.json(["log", vacation]) as? [Any])?.count ?? 0
    }

    init(folder: URL, seed: UInt64, feeds feedCount: Int = 5, photosPerFeed: Int = 150) throws {
        self.folder = folder
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("shared"), withIntermediateDirectories: true)
        runner = VacationRunner(library: folder.appendingPathComponent("library"), wait: 30)
        random = SeededRandom(state: seed)
        feeds = try (0..<feedCount).map { index in
            try TestFeed(in: folder, name: "feed\(index)", photos: photosPerFeed, firstID: 7_000_000 + Int64(index) * 100_000,
                         json: index % 2 == 1)
        }
        toggleFeed = try TestFeed(in: folder, name: "toggle", photos: 30, firstID: 9_000_000, json: false)
        var all: [String: VacationRunner.PhotoRecord] = [:]
        for feed in feeds + [toggleFeed] { all.merge(feed.expected) { first, _ in first } }
        expected = all
        present = Array(repeating: false, count: feedCount)
    }

    /// Kills commands until `kills` of them died mid-run (or `4 × kills` commands ran).
    func run(kills: Int) throws -> Report {
        var report = Report()
        let started = Date()
        try calibrate(&report)
        var attempts = 0
        while report.totalKills < kills && attempts < kills * 4 && report.failures.count < 5 {
            attempts += 1
            let action = Action.allCases[Int.random(in: 0..<Action.allCases.count, using: &random)]
            try attempt(action, killing: true, &report)
        }
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    /// Runs one of each action to the end, timing it, so that kills can be spread over a run.
    private func calibrate(_ report: inout Report) throws {
        for action in [Action.importFeeds, .unvisit, .undo, .backup, .restore, .sync] {
            try attempt(action, killing: false, &report)
        }
        durations[.autosave] = 1.5
        report.durations = durations
    }

    private func attempt(_ action: Action, killing: Bool, _ report: inout Report) throws {
        step += 1
        var touched = Set<Int>()
        let process: Spawn
        let label = "step\(step)-\(action.rawValue)"
        switch action {
        case .importFeeds:
            let absent = present.indices.filter { !present[$0] }
            let first = absent.randomElement(using: &random) ?? Int.random(in: 0..<feeds.count, using: &random)
            touched = [first, Int.random(in: 0..<feeds.count, using: &random)]
            process = try runner.start(["--vacation", vacation, "import"] + touched.sorted().map { feeds[$0].url.path },
                                       in: folder, label: label)
        case .unvisit:
            guard let chosen = present.indices.filter({ present[$0] }).randomElement(using: &random) else {
                return try attempt(.importFeeds, killing: killing, &report)
            }
            touched = [chosen]
            process = try runner.start(["--vacation", vacation, "unvisit"] + feeds[chosen].ids, in: folder, label: label)
        case .undo:
            // Whatever the latest operation was: any feed may come or go, and the toggled photos.
            touched = Set(feeds.indices)
            logBefore = try operationCount()
            process = try runner.start(["undo", vacation], in: folder, label: label)
        case .backup:
            process = try runner.start(["backup", vacation, "--keep", "2"], in: folder, label: label)
        case .restore:
            let restorable = backupPhotos.keys.filter { FileManager.default.fileExists(atPath: $0) }.sorted()
            guard let path = restorable.randomElement(using: &random) else {
                return try attempt(.backup, killing: killing, &report)
            }
            restoring = path
            touched = Set(feeds.indices)
            process = try runner.start(["restore", path, "--force"], in: folder, label: label)
        case .sync:
            // Only this library writes to the folder, but a restored (older) vacation takes back
            // what it synced before: any feed may come back, whole.
            touched = Set(feeds.indices)
            process = try runner.start(["sync", vacation, "--folder", syncFolder.path], in: folder, label: label)
        case .autosave:
            process = try ProductProcess.start("vacations-test-helper", [
                "autosave-vacation",
                runner.library.path, vacation, toggleFeed.url.path, "--seed", String(step), "--delay", "15",
            ], output: folder.appendingPathComponent("\(label).out"), errors: folder.appendingPathComponent("\(label).err"))
        }
        let started = Date()
        if killing {
            let window = 1.2 * (durations[action] ?? 0.5)
            let delay = Double.random(in: 0...window, using: &random)
            while process.isRunning && Date().timeIntervalSince(started) < delay { usleep(1_000) }
            if process.isRunning { process.send(SIGKILL) }
        } else {
            // Long enough for autosave's process to save a few times; the commands end by themselves.
            if action == .autosave { Thread.sleep(forTimeInterval: 1) ; process.send(SIGKILL) }
        }
        let termination = process.wait()
        let elapsed = Date().timeIntervalSince(started)
        let errors = (try? String(contentsOf: folder.appendingPathComponent("\(label).err"), encoding: .utf8)) ?? ""
        if termination == .signalled(SIGKILL) {
            report.kills[action, default: 0] += killing ? 1 : 0
        } else {
            report.completed[action, default: 0] += 1
            // An undo with nothing left to undo (every operation undone) ends with 1.
            let nothingToUndo = action == .undo && termination == .exited(1) && errors.hasPrefix("Error: Nothing to undo")
            if termination != .exited(0) && !nothingToUndo {
                report.failures.append("\(label) ended \(termination): \(errors)")
            }
            // Kills should spread over the whole run: follow how long the command takes now.
            durations[action] = killing ? 0.5 * (durations[action] ?? elapsed) + 0.5 * elapsed : elapsed
        }
        if let sanitizer = sanitizerReport(in: errors), !errors.isEmpty {
            report.failures.append("\(label) reported: \(sanitizer)")
        }
        try verify(after: action, label: label, touched: touched, &report)
    }

    private func verify(after action: Action, label: String, touched: Set<Int>, _ report: inout Report) throws {
        if let problems = try runner.checkProblems(vacation) {
            report.failures.append("after \(label): \(problems)")
            return
        }
        let store = runner.library.appendingPathComponent("\(vacation).vacation/StoreContent/persistentStore").path
        if let problem = try HistoryConsistency.problem(inStoreAt: store) {
            report.failures.append("after \(label): history and data disagree: \(problem)")
        }
        let photos = try runner.photos(vacation)
        for (index, feed) in feeds.enumerated() {
            let ids = feed.ids
            let found = ids.filter { photos[$0] != nil }.count
            guard found == 0 || found == ids.count else {
                report.failures.append("after \(label): \(feed.url.lastPathComponent) is partly present (\(found) of \(ids.count) photos)")
                continue
            }
            if !touched.contains(index) && present[index] != (found > 0) {
                report.failures.append("after \(label): \(feed.url.lastPathComponent), untouched, went from "
                                       + "\(present[index] ? "present" : "absent") to \(found > 0 ? "present" : "absent")")
            }
            present[index] = found > 0
        }
        for (id, record) in photos where expected[id] != record {
            report.failures.append("after \(label): photo \(id) is \(record), not \(expected[id].map { "\($0)" } ?? "expected at all")")
        }
        if action == .restore, let restoring, photos != photosBefore && photos != backupPhotos[restoring] {
            report.failures.append("after \(label): the vacation is neither as it was nor as the backup it restores")
        }
        if action == .undo, photos != photosBefore, try operationCount() <= logBefore {
            report.failures.append("after \(label): the photos changed but no undo is logged")
        }
        photosBefore = photos
        let toggledNow = Set(toggleFeed.ids.filter { photos[$0] != nil })
        if action == .autosave {
            let (problem, saves) = autosaveProblem(label: label, found: toggledNow)
            if let problem { report.failures.append("after \(label): \(problem)") }
            report.autosavesAcknowledged += saves
        } else if toggledNow != toggled && action != .restore && action != .undo && action != .sync {
            report.failures.append("after \(label): the toggled photos changed without the autosaving process")
        }
        toggled = toggledNow
        let names = try (runner.json(["list"]) as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        if Set(names) != [vacation, "My Vacation"] {
            report.failures.append("after \(label): the library lists \(names.sorted())")
        }
        if action == .backup { try verifyBackups(label: label, &report) }
        if action == .sync { verifyChangeFiles(label: label, &report) }
    }

    /// Every `N.change` in the sync folder is whole: a killed sync leaves none half-written.
    private func verifyChangeFiles(label: String, _ report: inout Report) {
        let root = syncFolder.appendingPathComponent(vacation)
        for device in (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [] {  // Why `try?`: no folder yet.
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(device).path)) ?? []
            for name in names {
                guard let sequence = ChangeFile.sequence(fromFileName: name) else { continue }
                let path = root.appendingPathComponent(device).appendingPathComponent(name).path
                let data = FileManager.default.contents(atPath: path) ?? Data()
                if case .complete = ChangeFile.read(data, device: device, sequence: sequence) { continue }
                report.failures.append("after \(label): \(name) of \(device) is not a whole change file")
            }
        }
    }

    /// The store must hold a state the process printed, no older than the last one it saw saved.
    private func autosaveProblem(label: String, found: Set<String>) -> (problem: String?, saves: Int) {
        let output = (try? String(contentsOf: folder.appendingPathComponent("\(label).out"), encoding: .utf8)) ?? ""
        var states: [Int: Set<String>] = [:]
        var lastSaved = 0
        var saves = 0
        for line in output.split(separator: "\n") {
            let words = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard words.count >= 2, let number = Int(words[1]) else { continue }
            if words[0] == "state" {
                states[number] = Set((words.count > 2 ? words[2] : "").split(separator: ",").map(String.init))
            } else if words[0] == "saved" {
                lastSaved = max(lastSaved, number)
                saves += 1
            }
        }
        // Killed before it opened the vacation: nothing may have changed.
        if states.isEmpty { return (found == toggled ? nil : "the photos changed before the process said anything", 0) }
        if states.contains(where: { $0.key >= lastSaved && $0.value == found }) { return (nil, saves) }
        return ("the toggled photos \(found.sorted()) are no state reached at or after the last save (step \(lastSaved) of \(states.count - 1))", saves)
    }

    /// Each backup not seen before restores as a vacation that passes `check` and holds whole feeds.
    private func verifyBackups(label: String, _ report: inout Report) throws {
        for backup in try runner.backups(vacation) where !verifiedBackups.contains(backup.name) {
            verifiedBackups.insert(backup.name)
            let restored = try runner.run(["restore", backup.path, "--as", "Restored"])
            guard restored.status == 0 else {
                report.failures.append("after \(label): backup \(backup.name) does not restore: \(restored.errors)")
                continue
            }
            if let problems = try runner.checkProblems("Restored") {
                report.failures.append("after \(label): backup \(backup.name) restores to a vacation that fails check: \(problems)")
            }
            let photos = try runner.photos("Restored")
            backupPhotos[backup.path] = photos
            for feed in feeds {
                let found = feed.ids.filter { photos[$0] != nil }.count
                if found != 0 && found != feed.ids.count {
                    report.failures.append("after \(label): backup \(backup.name) holds part of \(feed.url.lastPathComponent)")
                }
            }
            _ = try runner.run(["delete", "Restored", "--yes"])
            report.backupsRestored += 1
        }
    }
}
