import Foundation
import Testing
import TestSupport

/// The short crash run; `Scripts/crash-test.sh` runs the long one (`VACATIONS_CRASH_KILLS`).
@Suite("Crash tests: SIGKILL at random moments")
struct CrashTests {
    @Test("import, unvisit, undo, backup, restore, sync and an autosaving process killed at random leave a sound vacation every time")
    func killedAtRandom() async throws {
        let kills = environmentNumber("VACATIONS_CRASH_KILLS", default: 20)
        let seed = UInt64(environmentNumber("VACATIONS_CRASH_SEED", default: Int(UInt32.random(in: 1...UInt32.max))))
        let directory = try TemporaryDirectory(prefix: "crash")
        let report = try await onOwnThread { try CrashHarness(folder: directory.url, seed: seed).run(kills: kills) }
        print("Crash run (seed \(seed)): \(report)")
        #expect(report.failures.isEmpty, "seed \(seed):\n\(report.failures.joined(separator: "\n"))")
        #expect(report.totalKills >= kills, "only \(report.totalKills) of \(kills) kills landed while a command ran (seed \(seed))")
    }
}
