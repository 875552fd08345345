import Foundation
import TestSupport
import Testing

/// `vacation-bench` at a tiny size, in the debug build: nothing is timed here, but every figure
/// runs, the framework and the baseline must leave stores with the same content (the bench
/// checks it and fails otherwise), and the output keeps its documented shape.
@Suite("vacation-bench, run small")
struct BenchTests {
    private func lines(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            return try #require(object as? [String: Any], "not a JSON object: \(line)")
        }
    }

    /// Whether `ratio` is `ours / baseline` as printed: all three are rounded to three decimals,
    /// and the ratio was computed from the values before rounding.
    private func consistent(_ ratio: Double, _ ours: Double, _ baseline: Double) -> Bool {
        let half = 0.0005
        guard baseline > half else { return false }
        let low = (ours - half) / (baseline + half) - half
        let high = (ours + half) / (baseline - half) + half
        return low <= ratio && ratio <= high
    }

    @Test("every figure runs, both sides do the same work, and --json gives one line per figure")
    func everyFigure() throws {
        let result = try ProductProcess.run("vacation-bench", ["--photos", "120", "--runs", "1", "--json"])
        #expect(result.status == 0, "\(result.errors)")
        let figures = try lines(result.output)
        #expect(figures.map { $0["figure"] as? String } == [
            "import-xml", "import-json", "reimport", "fetch-all", "fetch-predicate", "frc-initial", "toggle",
            "open-first-page", "backup", "search", "import-history",
        ])
        for figure in figures {
            #expect(figure["photos"] as? Int == 120)
            let ratio = try #require(figure["ratio"] as? Double, "\(figure)")
            if ["toggle", "search"].contains(figure["figure"] as? String) {
                let p50 = try #require(figure["p50_ms"] as? Double)
                let baseline = try #require(figure["baseline_p50_ms"] as? Double)
                #expect(figure["p99_ms"] as? Double ?? -1 >= p50)
                #expect(consistent(ratio, p50, baseline), "\(figure)")
            } else {
                let ours = try #require(figure["ms"] as? Double, "\(figure)")
                let baseline = try #require(figure["baseline_ms"] as? Double, "\(figure)")
                #expect(ours > 0 && baseline > 0)
                #expect(consistent(ratio, ours, baseline), "\(figure)")
            }
        }
    }

    @Test("--memory measures both sides' peak resident memory in child processes")
    func memory() throws {
        let result = try ProductProcess.run("vacation-bench", ["--memory", "--memory-photos", "150", "--json"])
        #expect(result.status == 0, "\(result.errors)")
        let figures = try lines(result.output)
        #expect(figures.count == 1)
        let figure = try #require(figures.first)
        #expect(figure["figure"] as? String == "memory")
        #expect(figure["photos"] as? Int == 150)
        // A Swift program with Foundation loaded takes a few megabytes at least.
        #expect((figure["peak_rss_mb"] as? Double ?? 0) > 2)
        #expect((figure["baseline_peak_rss_mb"] as? Double ?? 0) > 2)
    }

    @Test("bad options are a usage error (64) with the usage text; --only names figures")
    func usage() throws {
        for arguments in [["--photos", "0"], ["--only", "import-xml,teleport"], ["--frobnicate"]] {
            let result = try ProductProcess.run("vacation-bench", arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.errors.hasPrefix("Error: "), "\(arguments)")
            #expect(result.errors.contains("USAGE: vacation-bench"))
            #expect(result.output.isEmpty)
        }
        let help = try ProductProcess.run("vacation-bench", ["--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("--only FIGURE"))
    }
}
