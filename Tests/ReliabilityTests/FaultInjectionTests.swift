import Foundation
import Testing
import TestSupport

/// The short fault sweep; `Scripts/fault-test.sh` runs the full one (`VACATIONS_FAULT_SWEEP=full`:
/// every I/O call of every operation, once and from then on).
@Suite("Fault injection: each I/O call of an operation fails in turn", .serialized)
struct FaultInjectionTests {
    static let operations = ["import", "import-in-chunks", "delete-rules", "fetch", "results-controller", "backup"]

    private static func operation(_ name: String, feeds: URL) throws -> any FaultOperation {
        switch name {
        case "import": return ImportFaultOperation(feeds: feeds)
        case "import-in-chunks": return ChunkedImportFaultOperation(feeds: feeds)
        case "delete-rules": return DeleteRulesFaultOperation()
        case "fetch": return FetchFaultOperation()
        case "results-controller": return ResultsControllerFaultOperation()
        case "backup": return BackupFaultOperation(feeds: feeds)
        default: throw RunFailure("no operation named \(name)")
        }
    }

    @Test("a failing read, write, sync, lock, open or delete ends in a clean error or success, with the store sound and whole",
          arguments: operations)
    func sweep(operation name: String) async throws {
        let full = ProcessInfo.processInfo.environment["VACATIONS_FAULT_SWEEP"] == "full"
        // The short run fails about 12 calls of each operation, twice (once, then from then on).
        let runsPerMode = environmentNumber("VACATIONS_FAULT_RUNS", default: 12)
        let seed = UInt64(environmentNumber("VACATIONS_FAULT_SEED", default: Int(UInt32.random(in: 1...UInt32.max))))
        let directory = try TemporaryDirectory(prefix: "faults-\(name)", inMemory: true)
        let operation = try Self.operation(name, feeds: directory.path("feeds"))
        let sweep = try FaultSweep(root: directory.url)
        let report = try await sweep.sweep(operation, step: { calls in full ? 1 : max(1, calls / max(1, runsPerMode)) }, seed: seed)
        print("Fault sweep (seed \(seed)\(full ? ", every call" : "")): \(report)")
        #expect(report.failures.isEmpty, "seed \(seed):\n\(report.failures.prefix(20).joined(separator: "\n"))")
        #expect(report.runs > 0)
        #expect(report.cleanErrors > 0, "no injected failure surfaced as an error")
        #expect(report.lost == 0)
        #expect(report.errorsTakenForData == 0)
        #expect(report.storesChecked == report.runs)
    }
}
