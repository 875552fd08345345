import Foundation

/// Milliseconds on the monotonic clock.
func monotonicMilliseconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) * 1_000 + Double(now.tv_nsec) / 1_000_000
}

/// CPU time of this process, user and system, in milliseconds.
func processCPUMilliseconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Double(now.tv_sec) * 1_000 + Double(now.tv_nsec) / 1_000_000
}

/// The CPU time (user and system) of the last `timed` call, in milliseconds: on a machine
/// shared with other work, wall-clock times stretch with its load, CPU times much less.
@MainActor var lastCPUMilliseconds = 0.0

/// How long `body` takes, in milliseconds (wall clock); its CPU time goes to `lastCPUMilliseconds`.
@MainActor
func timed(_ body: () throws -> Void) rethrows -> Double {
    let start = monotonicMilliseconds()
    let cpuStart = processCPUMilliseconds()
    try body()
    lastCPUMilliseconds = processCPUMilliseconds() - cpuStart
    return monotonicMilliseconds() - start
}

/// Each side's times over a figure's measured rounds: wall clock and CPU.
struct SideTimes {
    var wall: [Side: [Double]] = [:]
    var cpu: [Side: [Double]] = [:]
}

extension Array where Element == Double {
    /// The value below which `fraction` of the samples lie (nearest rank).
    func percentile(_ fraction: Double) -> Double {
        guard !isEmpty else { return .nan }
        let sorted = self.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[Swift.min(Swift.max(rank, 0), sorted.count - 1)]
    }

    var median: Double {
        guard !isEmpty else { return .nan }
        let sorted = self.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// One measured figure: ours against the baseline.
struct Figure {
    enum Kind {
        /// A duration: the median of several runs.
        case time(ours: Double, baseline: Double)
        /// A latency distribution over many operations.
        case latency(oursP50: Double, oursP99: Double, baselineP50: Double, baselineP99: Double)
        /// Peak resident memory of a child process, in megabytes, with its run time.
        case memory(ours: Double, baseline: Double, oursMilliseconds: Double, baselineMilliseconds: Double)
    }

    var name: String
    var photos: Int
    var kind: Kind
    /// What the issue asks for, as text for the table (ratio or absolute).
    var goal: String?
    /// Whether the goal is met, when there is one.
    var meetsGoal: Bool?
    /// Measured runs (warm-up excluded) behind the median; operations behind a latency.
    var runs = 0
    /// The floor's median (imports only): the same rows with the fastest reader and settings.
    var limit: Double?
    /// Median CPU times (user and system) of ours, the baseline and the floor, where measured.
    var cpu: (ours: Double, baseline: Double, limit: Double?)?

    /// Ours over the baseline, and over the floor, in CPU time.
    var cpuRatio: Double? { cpu.map { $0.ours / $0.baseline } }
    var cpuLimitRatio: Double? { cpu.flatMap { cpu in cpu.limit.map { cpu.ours / $0 } } }

    /// Ours over the floor, when there is one.
    var limitRatio: Double? {
        guard case let .time(ours, _) = kind, let limit else { return nil }
        return ours / limit
    }

    /// Ours over the baseline (medians, p50 for latencies, peak RSS for memory).
    var ratio: Double {
        switch kind {
        case let .time(ours, baseline): ours / baseline
        case let .latency(ours, _, baseline, _): ours / baseline
        case let .memory(ours, baseline, _, _): ours / baseline
        }
    }

    /// The figure as one JSON line, keys in a fixed order.
    var jsonLine: String {
        var members: [(String, String)] = [("figure", "\"\(name)\""), ("photos", String(photos))]
        switch kind {
        case let .time(ours, baseline):
            members += [("ms", format(ours)), ("baseline_ms", format(baseline))]
        case let .latency(oursP50, oursP99, baselineP50, baselineP99):
            members += [("p50_ms", format(oursP50)), ("p99_ms", format(oursP99)),
                        ("baseline_p50_ms", format(baselineP50)), ("baseline_p99_ms", format(baselineP99))]
        case let .memory(ours, baseline, oursMilliseconds, baselineMilliseconds):
            members += [("peak_rss_mb", format(ours)), ("baseline_peak_rss_mb", format(baseline)),
                        ("ms", format(oursMilliseconds)), ("baseline_ms", format(baselineMilliseconds))]
        }
        members.append(("ratio", format(ratio)))
        if let limit, let limitRatio {
            members += [("limit_ms", format(limit)), ("limit_ratio", format(limitRatio))]
        }
        if let cpu {
            members += [("cpu_ms", format(cpu.ours)), ("baseline_cpu_ms", format(cpu.baseline))]
            if let limit = cpu.limit { members.append(("limit_cpu_ms", format(limit))) }
        }
        if let cpuRatio { members.append(("cpu_ratio", format(cpuRatio))) }
        if let cpuLimitRatio { members.append(("limit_cpu_ratio", format(cpuLimitRatio))) }
        members.append(("runs", String(runs)))
        return "{" + members.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
    }

    private func format(_ value: Double) -> String {
        value.isFinite ? String(format: "%.3f", value) : "null"
    }
}

/// The readable table: one row per figure.
enum FigureTable {
    static func render(_ figures: [Figure]) -> String {
        var rows = [["figure", "photos", "runs", "ours", "baseline", "ratio", "limit", "÷ limit", "cpu ratio", "cpu ÷ limit", "goal"]]
        for figure in figures {
            let (ours, baseline): (String, String)
            switch figure.kind {
            case let .time(oursTime, baselineTime):
                (ours, baseline) = (milliseconds(oursTime), milliseconds(baselineTime))
            case let .latency(oursP50, oursP99, baselineP50, baselineP99):
                (ours, baseline) = ("p50 \(milliseconds(oursP50)), p99 \(milliseconds(oursP99))",
                                    "p50 \(milliseconds(baselineP50)), p99 \(milliseconds(baselineP99))")
            case let .memory(oursPeak, baselinePeak, oursTime, baselineTime):
                (ours, baseline) = (String(format: "%.1f MB (%@)", oursPeak, milliseconds(oursTime)),
                                    String(format: "%.1f MB (%@)", baselinePeak, milliseconds(baselineTime)))
            }
            let goal = figure.goal.map { $0 + (figure.meetsGoal == false ? "  MISSED" : "  met") } ?? ""
            rows.append([figure.name, String(figure.photos), String(figure.runs), ours, baseline, String(format: "%.2f×", figure.ratio),
                         figure.limit.map(milliseconds) ?? "", figure.limitRatio.map { String(format: "%.2f×", $0) } ?? "",
                         figure.cpuRatio.map { String(format: "%.2f×", $0) } ?? "", figure.cpuLimitRatio.map { String(format: "%.2f×", $0) } ?? "",
                         goal])
        }
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.enumerated().map { index, row in
            let line = row.enumerated().map { column, text in
                let padding = String(repeating: " ", count: widths[column] - text.count)
                return column == 0 || column == row.count - 1 ? text + padding : padding + text
            }.joined(separator: "  ")
            return index == 0 ? line + "\n" + widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") : line
        }.joined(separator: "\n")
    }

    private static func milliseconds(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f ms", value) : String(format: "%.2f ms", value)
    }
}
