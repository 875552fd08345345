import Foundation
import Locking
import Synchronization
import Testing
import TestSupport

/// Four processes on one vacation at once — two importers of overlapping feeds, a toggler and a
/// backup taker — must give what a serial run gives. `Scripts/concurrency-test.sh` repeats it
/// (`VACATIONS_CONCURRENT_RUNS`).
@Suite("Concurrent processes on one vacation")
struct ConcurrencyTests {
    @Test("two importers, a toggler and a backup taker at once: no lost update, only busy errors, backups restore sound")
    func fourProcesses() async throws {
        let runs = environmentNumber("VACATIONS_CONCURRENT_RUNS", default: 1)
        var busy = 0, backups = 0, commands = 0
        for run in 0..<runs {
            let directory = try TemporaryDirectory(prefix: "concurrent")
            let outcome = try await onOwnThread { try ConcurrentRun(folder: directory.url, seed: UInt64(run + 1) &* 0x9E37).run() }
            #expect(outcome.failures.isEmpty, "run \(run + 1):\n\(outcome.failures.joined(separator: "\n"))")
            busy += outcome.busy
            backups += outcome.backupsChecked
            commands += outcome.commands
            if !outcome.failures.isEmpty { break }
        }
        print("Concurrent runs: \(runs), \(commands) commands, \(busy) busy (exit 75, retried), \(backups) backups restored and checked")
    }
}

/// One concurrent run and its serial reference.
struct ConcurrentRun {
    struct Outcome {
        var failures: [String] = []
        var busy = 0
        var commands = 0
        var backupsChecked = 0
    }

    let folder: URL
    let seed: UInt64
    let vacation = "Shared"
    /// Importer rounds: each importer imports its two feeds this many times.
    var rounds = 2
    var toggles = 24

    func run() throws -> Outcome {
        let feeds = try [
            TestFeed(in: folder, name: "first", photos: 120, firstID: 1_000_000, json: false),
            TestFeed(in: folder, name: "shared", photos: 120, firstID: 2_000_000, json: true),
            TestFeed(in: folder, name: "third", photos: 120, firstID: 3_000_000, json: false),
        ]
        let toggleFeed = try TestFeed(in: folder, name: "toggles", photos: 12, firstID: 4_000_000, json: true)
        var random = SeededRandom(state: seed)
        let toggleIDs = (0..<toggles).map { _ in toggleFeed.ids[Int.random(in: 0..<toggleFeed.ids.count, using: &random)] }
        let importsA = Array(repeating: ["import", feeds[0].url.path, feeds[1].url.path], count: rounds)
        let importsB = Array(repeating: ["import", feeds[2].url.path, feeds[1].url.path], count: rounds)
        let toggleCommands = toggleIDs.map { ["toggle", $0, "--feed", toggleFeed.url.path] }

        // The serial reference: the same commands, one after another, in a library of its own.
        let serial = VacationRunner(library: folder.appendingPathComponent("serial"), wait: 60)
        for command in importsA + importsB + toggleCommands {
            let result = try serial.run(["--vacation", vacation] + command)
            guard result.status == 0 else { return Outcome(failures: ["serial \(command): \(result.errors)"]) }
        }

        let shared = VacationRunner(library: folder.appendingPathComponent("concurrent"), wait: 60)
        // Made first: the backup taker must not race the importers to the vacation's creation.
        let created = try shared.run(["create", vacation])
        guard created.status == 0 else { return Outcome(failures: ["create: \(created.errors)"]) }
        let outcome = Locked(Outcome())
        let working = Atomic<Int>(3)
        // A command that must succeed; the toggler waits briefly and retries when busy, so that
        // "busy" (75) is seen and is the only error that ever surfaces.
        let perform: @Sendable (String, [String], Double?) -> Void = { who, command, wait in
            while true {
                guard let result = try? shared.run(["--vacation", vacation] + command, wait: wait) else {
                    outcome.withLock { $0.failures.append("\(who) could not start \(command)") }
                    return
                }
                outcome.withLock { $0.commands += 1 }
                if let report = sanitizerReport(in: result.errors) {
                    outcome.withLock { $0.failures.append("\(who) \(command.prefix(2)): \(report)") }
                }
                if result.status == 75 && !result.signalled {
                    guard result.errors.hasPrefix("Error: The vacation \"\(vacation)\" is busy") else {
                        outcome.withLock { $0.failures.append("\(who): exit 75 with \(result.errors)") }
                        return
                    }
                    outcome.withLock { $0.busy += 1 }
                    continue
                }
                if result.status != 0 || result.signalled {
                    outcome.withLock { $0.failures.append("\(who) \(command.prefix(2)) exited \(result.status): \(result.errors)") }
                }
                return
            }
        }
        let group = DispatchGroup()
        let sequences: [(String, [[String]], Double?)] = [("importer A", importsA, nil), ("importer B", importsB, nil),
                                                          ("toggler", toggleCommands, 0.05)]
        for (who, commands, wait) in sequences {
            DispatchQueue.global().async(group: group) {
                for command in commands { perform(who, command, wait) }
                working.subtract(1, ordering: .sequentiallyConsistent)
            }
        }
        DispatchQueue.global().async(group: group) {
            repeat {
                perform("backup", ["backup", vacation], nil)
                usleep(100_000)
            } while working.load(ordering: .sequentiallyConsistent) > 0
        }
        group.wait()

        var result = outcome.withLock { $0 }
        guard result.failures.isEmpty else { return result }
        if let problems = try shared.checkProblems(vacation) { result.failures.append("the vacation fails check: \(problems)") }
        if try shared.photos(vacation) != serial.photos(vacation) {
            result.failures.append("the photos differ from the serial run's")
        }
        let (tags, serialTags) = (try shared.tags(vacation), try serial.tags(vacation))
        if tags != serialTags {
            let differing = Set(tags.keys).union(serialTags.keys).filter { tags[$0] != serialTags[$0] }.sorted()
            result.failures.append("tag counts differ from the serial run's: "
                                   + differing.prefix(5).map { "\($0) \(tags[$0] ?? 0) vs \(serialTags[$0] ?? 0)" }.joined(separator: ", "))
        }
        if try shared.places(vacation) != serial.places(vacation) {
            result.failures.append("places differ from the serial run's")
        }
        try checkBackups(shared, feeds: feeds, toggleFeed: toggleFeed, &result)
        return result
    }

    /// Every backup restores as a vacation that passes `check`, each feed wholly in or out, each
    /// photo whole.
    private func checkBackups(_ shared: VacationRunner, feeds: [TestFeed], toggleFeed: TestFeed, _ result: inout Outcome) throws {
        var expected: [String: VacationRunner.PhotoRecord] = toggleFeed.expected
        for feed in feeds { expected.merge(feed.expected) { first, _ in first } }
        let backups = try shared.backups(vacation)
        if backups.isEmpty { result.failures.append("no backup was taken") }
        for (index, backup) in backups.enumerated() {
            let name = "Restored \(index)"
            let restored = try shared.run(["restore", backup.path, "--as", name])
            guard restored.status == 0 else {
                result.failures.append("backup \(backup.name) does not restore: \(restored.errors)")
                continue
            }
            if let problems = try shared.checkProblems(name) {
                result.failures.append("backup \(backup.name) fails check: \(problems)")
            }
            let photos = try shared.photos(name)
            for feed in feeds {
                let found = feed.ids.filter { photos[$0] != nil }.count
                if found != 0 && found != feed.ids.count {
                    result.failures.append("backup \(backup.name) holds \(found) of \(feed.ids.count) photos of \(feed.url.lastPathComponent)")
                }
            }
            for (id, record) in photos where expected[id] != record {
                result.failures.append("backup \(backup.name): photo \(id) is \(record)")
            }
            _ = try shared.run(["delete", name, "--yes"])
            result.backupsChecked += 1
        }
    }
}
