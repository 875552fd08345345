import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

/// Optimistic locking and uniqueness between processes: a `vacations-test-helper` process
/// loads a counter, another process changes it, then the first saves under each merge policy.
@Suite("Conflicts with other processes")
struct ProcessConflictTests {
    private func value(_ store: URL) throws -> SQLiteValue? {
        try Connection(path: store.path, configuration: .init(journalMode: nil)).scalar("SELECT ZVALUE FROM ZCOUNTER WHERE ZNAME = 'visits'")
    }

    /// Returns what the paused process printed after another process saved first.
    private func staleSave(policy: MergePolicy) async throws -> (line: String, stored: SQLiteValue?) {
        let outcome = policy == .error ? "conflict" : "saved"
        let directory = try TemporaryDirectory()
        let store = directory.path("store.sqlite").path
        let setup = try ProductProcess.run("vacations-test-helper", ["counter-insert", store, "visits", "1"])
        #expect(setup.status == 0)
        let stale = try HelperProcess("counter-update", store, "visits", "10", "--policy", policy.rawValue, "--pause")
        try await stale.waitForLine("ready")
        let other = try ProductProcess.run("vacations-test-helper", ["counter-update", store, "visits", "5"])
        #expect(other.output == "saved 1 5\n")
        stale.write(line: "go")
        let line = try await stale.waitForLine(outcome)
        _ = try await stale.waitForExit()
        return (line, try value(URL(fileURLWithPath: store)))
    }

    @Test("error: the stale process's save fails with the conflict and the other's value stays")
    func errorPolicy() async throws {
        let (line, stored) = try await staleSave(policy: .error)
        #expect(line.hasPrefix("conflict: Merge conflict: Counter <entity 1 p1> (based on version 1, store has version 2) [value: stored 5, in memory 10]"))
        #expect(stored == .integer(5))
    }

    @Test("storeTrumps and rollback keep the other process's value; objectTrumps and overwrite write this one's")
    func mergingPolicies() async throws {
        for (policy, expected) in [(MergePolicy.storeTrumps, 5), (.rollback, 5), (.objectTrumps, 10), (.overwrite, 10)] {
            let (line, stored) = try await staleSave(policy: policy)
            #expect(line == "saved 1 \(expected)", "\(policy)")
            #expect(stored == .integer(Int64(expected)), "\(policy)")
        }
    }

    @Test("two processes insert the same unique value at once: one row, and the second fails or merges")
    func uniqueAcrossProcesses() async throws {
        for policy in [MergePolicy.error, .objectTrumps] {
            let directory = try TemporaryDirectory()
            let store = directory.path("store.sqlite").path
            _ = try ProductProcess.run("vacations-test-helper", ["counter-insert", store, "seed", "0"])
            let first = try HelperProcess("counter-insert", store, "visits", "1", "--policy", policy.rawValue, "--pause")
            let second = try HelperProcess("counter-insert", store, "visits", "2", "--policy", policy.rawValue, "--pause")
            try await first.waitForLine("ready")
            try await second.waitForLine("ready")
            first.write(line: "go")
            #expect(try await first.waitForLine("saved") == "saved 2 1")
            second.write(line: "go")
            let line = try await second.waitForLine(policy == .error ? "unique" : "saved")
            if policy == .error {
                #expect(line == "unique: Uniqueness constraint of Counter (name) violated: another object already has name = 'visits'")
            } else {
                #expect(line == "saved 2 2")
            }
            let rows = try Connection(path: store, configuration: .init(journalMode: nil)).scalar("SELECT count(*) FROM ZCOUNTER WHERE ZNAME = 'visits'")
            #expect(rows == .integer(1))
        }
    }
}
