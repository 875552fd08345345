#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-line progress bar redrawn in place with `\r`:
///
///     Importing 42/100 [========>           ] 12.5/s 0:05 left
///
/// It writes only when told its output is a terminal; otherwise it writes nothing at all,
/// so a pipe or a log file never sees it. Redraws are throttled to one per
/// `minimumRedrawInterval` (a tenth of a second: at most 10 a second), and `finish()`
/// blanks the line. It uses no colour and no escape sequences, so `NO_COLOR` and dumb
/// terminals need nothing special.
///
///     var bar = ProgressBar(total: feeds.count, label: "Importing",
///                           output: FileDescriptorOutputStream(fd: STDERR_FILENO),
///                           isTerminal: Terminal.isTerminal(fd: STDERR_FILENO),
///                           width: Terminal.width(fd: STDERR_FILENO, environment: environment))
///     for feed in feeds { try importFeed(feed); bar.advance() }
///     bar.finish()
package struct ProgressBar<Output: TextOutputStream> {
    /// Where the bar is drawn; tests read what was written from here.
    package var output: Output
    /// The number of items expected; `nil` shows a count and rate without a bar.
    package let total: Int?
    package let label: String
    /// Whether `output` is a terminal; when `false` nothing is ever written.
    package let isTerminal: Bool
    /// The terminal's width in columns; lines stay one column short of it so the cursor
    /// never wraps.
    package let width: Int
    let minimumRedrawInterval: Double
    package private(set) var completed = 0
    /// How many times the line was drawn, for tests of the throttle.
    package private(set) var redrawCount = 0

    let clock: () -> Double
    let startTime: Double
    var lastDrawTime: Double?
    var lastLineWidth = 0
    var isFinished = false

    /// - Parameter clock: seconds from any fixed origin, never going back; tests pass a
    ///   fake one.
    package init(
        total: Int?,
        label: String = "",
        output: Output,
        isTerminal: Bool,
        width: Int = 80,
        minimumRedrawInterval: Double = 0.1,
        clock: @escaping () -> Double = ProgressBarClock.monotonicSeconds
    ) {
        self.output = output
        self.total = total.map { max(0, $0) }
        self.label = TextTable.sanitized(label)
        self.isTerminal = isTerminal
        self.width = max(1, width)
        self.minimumRedrawInterval = minimumRedrawInterval
        self.clock = clock
        self.startTime = clock()
    }

    /// Sets how many items are done and redraws unless the last redraw was too recent.
    package mutating func update(completed: Int) {
        self.completed = max(0, completed)
        guard isTerminal, !isFinished else { return }
        let now = clock()
        if let lastDrawTime, now - lastDrawTime < minimumRedrawInterval { return }
        draw(at: now)
    }

    package mutating func advance(by count: Int = 1) {
        update(completed: completed + count)
    }

    /// Blanks the line and leaves the cursor at its start, for what is printed next.
    package mutating func finish() {
        guard isTerminal, !isFinished else { return }
        isFinished = true
        guard lastLineWidth > 0 else { return }
        output.write("\r" + String(repeating: " ", count: lastLineWidth) + "\r")
        lastLineWidth = 0
    }

    mutating func draw(at now: Double) {
        let line = self.line(at: now)
        let lineWidth = DisplayWidth.of(line)
        // Spaces cover what is left of a longer previous line.
        let padding = String(repeating: " ", count: max(0, lastLineWidth - lineWidth))
        output.write("\r" + line + padding)
        lastLineWidth = lineWidth
        lastDrawTime = now
        redrawCount += 1
    }

    // MARK: Rendering

    /// The line shown at time `now`, fitted to `width - 1` columns.
    package func line(at now: Double) -> String {
        let elapsed = now - startTime
        let rate = elapsed > 0 && completed > 0 ? Double(completed) / elapsed : nil
        let prefix = label.isEmpty ? "" : label + " "
        let count = total.map { "\(completed)/\($0)" } ?? "\(completed)"
        var suffix = " " + (rate.map(ProgressBarFormat.rate) ?? "--") + "/s"
        if let total {
            let remaining = max(0, total - completed)
            let timeLeft = rate.map { ProgressBarFormat.duration(Double(remaining) / $0) } ?? "--:--"
            suffix += " \(timeLeft) left"
        }
        let available = width - 1
        var line = prefix + count + suffix
        if let total {
            let fixed = DisplayWidth.of(prefix + count + suffix) + 3  // " [" and "]"
            let barWidth = min(40, available - fixed)
            if barWidth >= 10 {
                line = prefix + count + " [" + ProgressBarFormat.bar(completed: completed, total: total, width: barWidth) + "]" + suffix
            }
        }
        return DisplayWidth.of(line) <= available ? line : TextTable.truncated(line, to: available).text
    }
}

/// The pieces of a progress line, apart from the generic bar so they need no output type.
enum ProgressBarFormat {
    /// `========>           `: `=` for done, `>` at the head, spaces for the rest.
    static func bar(completed: Int, total: Int, width: Int) -> String {
        guard total > 0 else { return String(repeating: "=", count: width) }
        let filled = min(width, Int(Double(width) * Double(min(completed, total)) / Double(total)))
        switch filled {
        case width...: return String(repeating: "=", count: width)
        case ...0: return String(repeating: " ", count: width)
        default: return String(repeating: "=", count: filled - 1) + ">" + String(repeating: " ", count: width - filled)
        }
    }

    /// `4.2` below ten, `123` from ten up.
    static func rate(_ rate: Double) -> String {
        guard rate.isFinite else { return "--" }
        if rate < 10 {
            let tenths = Int((rate * 10).rounded())
            return "\(tenths / 10).\(tenths % 10)"
        }
        return rate < 1e12 ? String(Int(rate.rounded())) : "--"
    }

    /// `m:ss`, or `h:mm:ss` from an hour up.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0, seconds < 360_000 else { return "--:--" }
        let total = Int(seconds.rounded(.up))
        let hours = total / 3600
        let minutes = (total % 3600) / 60
        let secondsPart = total % 60
        func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        if hours > 0 {
            return "\(hours):\(twoDigits(minutes)):\(twoDigits(secondsPart))"
        }
        return "\(minutes):\(twoDigits(secondsPart))"
    }
}

/// The clock a `ProgressBar` uses unless a test gives it another.
package enum ProgressBarClock {
    /// Seconds of `CLOCK_MONOTONIC`, which never jumps with the wall clock.
    package static func monotonicSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000
    }
}
