import Foundation
import TestSupport

/// What one run of an operation came to.
enum FaultRunResult: Sendable {
    /// It finished; `output` is what it produced (compared with the clean run's).
    case succeeded(output: String)
    /// It failed; `clean` when the failure reached the caller as a proper error (a one-line
    /// message of an expected kind, or the CLI's `Error:` line and exit code).
    case failed(message: String, clean: Bool)
}

/// What a folder holds after a run, read with the fault-injecting VFS off.
struct FaultInspection: Sendable {
    /// A description of the content that matters (rows of the store, backups): compared with
    /// the states before and after a clean run.
    var fingerprint: String
    /// SQLite's integrity check and the domain's checks; empty when sound.
    var problems: [String]
}

/// One operation of the sweep: it prepares a starting state once, then runs on fresh copies.
/// Steps that need the main actor (the CLI, documents) hop there for as little as they need it,
/// so that other tests' main-actor work (autosave timers) goes on between them.
protocol FaultOperation: Sendable {
    var name: String { get }
    /// Builds the starting state in `folder`, outside the fault session.
    func prepare(in folder: URL) async throws
    /// Runs the operation on the copy in `folder`.
    func run(in folder: URL) async -> FaultRunResult
    /// Lets go of what a failed run may have left open in `folder` (documents, connections).
    func release(_ folder: URL) async -> [String]
    /// Reads what `folder` holds.
    func inspect(_ folder: URL) throws -> FaultInspection
}

/// SQLite's I/O-error tests, on our operations: count the I/O calls of a clean run, then for N
/// in 1…count run the operation again on a fresh copy with call N failing — once, and again
/// with every call from N on failing ("persistent"). Each time the run must end in a clean
/// error or in success, and afterwards, with the VFS off, the store must pass SQLite's
/// integrity check and the domain's checks and hold either the whole operation or none of it;
/// a run that succeeds must produce exactly what the clean run produced (a failure that
/// became data would show here).
final class FaultSweep: Sendable {
    struct Report: CustomStringConvertible {
        var operation: String
        var callsInCleanRun = 0
        var callsByKind: [FaultKind: Int] = [:]
        var runs = 0
        var transientRuns = 0
        var persistentRuns = 0
        var cleanErrors = 0
        var successes = 0
        var storesChecked = 0
        /// Runs whose failing call was never made (the run took another path).
        var notReached = 0
        /// Runs that left a state that is neither the one before nor the one after.
        var lost = 0
        /// Runs that succeeded but produced something other than the clean run's output.
        var errorsTakenForData = 0
        var failures: [String] = []
        var seconds = 0.0

        var description: String {
            let kinds = FaultKind.allCases.compactMap { kind in callsByKind[kind].flatMap { $0 > 0 ? "\($0) \(kind)" : nil } }
            return "\(operation): \(callsInCleanRun) I/O calls in a clean run (\(kinds.joined(separator: ", "))); "
                + "\(runs) runs with a call failed (\(transientRuns) once, \(persistentRuns) from then on): "
                + "\(cleanErrors) clean errors, \(successes) successes, \(storesChecked) stores checked, "
                + "\(lost) lost or half-written, \(errorsTakenForData) errors taken for data, \(notReached) not reached, "
                + "\(failures.count) failures; \(String(format: "%.1f", seconds)) s"
        }
    }

    private let root: URL
    private let faults: FaultSession

    /// A sweep working in `root` (its `work` folder is the fault session's).
    init(root: URL) throws {
        self.root = root
        let work = root.appendingPathComponent("work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        faults = try FaultSession(folder: work)
    }

    /// The calls to fail: every one (`every` = 1) or every k-th from a seeded offset, at most
    /// `limit` of them.
    static func sample(count: Int, every step: Int, seed: UInt64) -> [Int] {
        guard count > 0 else { return [] }
        let step = max(1, step)
        let offset = Int(seed % UInt64(step))
        return Array(stride(from: 1 + offset, through: count, by: step))
    }

    /// Sweeps `operation`: `step` 1 fails every call; larger steps sample every step-th call.
    ///
    /// Each run is short and the sweep yields between runs, so that it shares Swift's few task
    /// threads (and the main actor) with the tests that run beside it.
    func sweep(_ operation: any FaultOperation, step: (_ calls: Int) -> Int, seed: UInt64) async throws -> Report {
        let started = ContinuousClock.now
        var report = Report(operation: operation.name)
        var runNumber = 0
        func copy(_ template: URL) throws -> URL {
            runNumber += 1
            let folder = faults.folder.appendingPathComponent("run-\(runNumber)")
            try FileManager.default.copyItem(at: template, to: folder)
            return folder
        }
        let template = root.appendingPathComponent("template-\(report.operation)")
        try await operation.prepare(in: template)
        let first = try copy(template)
        let before = try operation.inspect(first)
        guard before.problems.isEmpty else {
            report.failures.append("the starting state is not sound: \(before.problems.joined(separator: "; "))")
            return report
        }

        // The clean run: how many calls, what it produces, what it leaves.
        let cleanFolder = try copy(template)
        faults.arm(failing: 0)
        let cleanResult = await operation.run(in: cleanFolder)
        faults.disarm()
        report.callsInCleanRun = faults.calls
        report.callsByKind = faults.callsByKind
        report.failures += await operation.release(cleanFolder)
        let after = try operation.inspect(cleanFolder)
        guard case .succeeded(let expectedOutput) = cleanResult else {
            report.failures.append("the clean run failed: \(cleanResult)")
            return report
        }
        guard after.problems.isEmpty else {
            report.failures.append("the clean run left problems: \(after.problems.joined(separator: "; "))")
            return report
        }
        try? FileManager.default.removeItem(at: cleanFolder)   // clean-up only: a leftover folder is harmless

        let calls = Self.sample(count: report.callsInCleanRun, every: step(report.callsInCleanRun), seed: seed)
        for persistent in [false, true] {
            for call in calls {
                let folder = try copy(template)
                faults.arm(failing: call, persistent: persistent)
                let result = await operation.run(in: folder)
                faults.disarm()
                let reached = faults.failures > 0
                let kind = faults.firstFailureKind.map { "\($0)" } ?? "none"
                report.runs += 1
                if persistent { report.persistentRuns += 1 } else { report.transientRuns += 1 }
                if !reached { report.notReached += 1 }
                let label = "\(report.operation), call \(call) (\(kind))\(persistent ? " and every call after it" : "") failing"
                report.failures += await operation.release(folder).map { "\(label): \($0)" }
                let inspection: FaultInspection
                do {
                    inspection = try operation.inspect(folder)
                } catch {
                    report.failures.append("\(label): the store could not be inspected afterwards: \(error)")
                    continue
                }
                report.storesChecked += 1
                if !inspection.problems.isEmpty {
                    report.failures.append("\(label): \(inspection.problems.joined(separator: "; "))")
                }
                let whole = inspection.fingerprint == after.fingerprint
                if !whole && inspection.fingerprint != before.fingerprint {
                    report.lost += 1
                    report.failures.append("\(label): left a state that is neither before nor after:\n\(difference(inspection.fingerprint, before.fingerprint, after.fingerprint))")
                }
                switch result {
                case .succeeded(let output):
                    report.successes += 1
                    if output != expectedOutput {
                        report.errorsTakenForData += 1
                        report.failures.append("\(label): succeeded with other results than the clean run:\n\(difference(output, expectedOutput))")
                    }
                    if !whole && before.fingerprint != after.fingerprint {
                        report.lost += 1
                        report.failures.append("\(label): succeeded but the store does not hold the operation")
                    }
                case .failed(let message, let clean):
                    if clean {
                        report.cleanErrors += 1
                    } else {
                        report.failures.append("\(label): failed without a clean error: \(message)")
                    }
                }
                try? FileManager.default.removeItem(at: folder)   // clean-up only: a leftover folder is harmless
                await Task.yield()
            }
        }
        report.seconds = Double((ContinuousClock.now - started).components.seconds)
            + Double((ContinuousClock.now - started).components.attoseconds) / 1e18
        return report
    }

    /// The first lines where `actual` differs from each of `expected`.
    private func difference(_ actual: String, _ expected: String...) -> String {
        let lines = actual.split(separator: "\n", omittingEmptySubsequences: false)
        return expected.enumerated().map { number, other in
            let otherLines = other.split(separator: "\n", omittingEmptySubsequences: false)
            let index = zip(lines, otherLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(lines.count, otherLines.count)
            let got = index < lines.count ? String(lines[index]) : "(end)"
            let wanted = index < otherLines.count ? String(otherLines[index]) : "(end)"
            return "  line \(index + 1): got \(got.debugDescription), expected \(number == 0 ? "" : "(other) ")\(wanted.debugDescription)"
        }.joined(separator: "\n")
    }
}
