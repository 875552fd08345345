import Testing
import CommandLineKit

/// A clock the test moves by hand.
final class FakeClock {
    var now = 0.0
}

@Suite("Progress bar")
struct ProgressBarTests {
    func makeBar(total: Int?, width: Int = 60, isTerminal: Bool = true, clock: FakeClock) -> ProgressBar<String> {
        ProgressBar(total: total, label: "Importing", output: "", isTerminal: isTerminal, width: width,
                    clock: { clock.now })
    }

    @Test("writes nothing at all when the output is not a terminal")
    func notATerminal() {
        let clock = FakeClock()
        var bar = makeBar(total: 10, isTerminal: false, clock: clock)
        for step in 1...10 {
            clock.now += 1
            bar.update(completed: step)
        }
        bar.finish()
        #expect(bar.output == "")
        #expect(bar.redrawCount == 0)
        #expect(bar.completed == 10)
    }

    @Test("draws count, bar, rate and time left, redraws with \\r and clears at the end")
    func terminalOutput() {
        let clock = FakeClock()
        var bar = makeBar(total: 10, clock: clock)
        bar.update(completed: 0)
        clock.now = 0.05
        bar.update(completed: 1)        // too soon: not drawn
        clock.now = 0.1
        bar.update(completed: 2)
        bar.finish()
        let first = "Importing 0/10 [" + String(repeating: " ", count: 26) + "] --/s --:-- left"
        let second = "Importing 2/10 [====>" + String(repeating: " ", count: 22) + "] 20/s 0:01 left"
        #expect(first.count == 59 && second.count == 59)
        #expect(bar.output == "\r" + first + "\r" + second + "\r" + String(repeating: " ", count: 59) + "\r")
        #expect(bar.redrawCount == 2)
    }

    @Test("covers the rest of a longer previous line with spaces")
    func shorterRedraw() {
        let clock = FakeClock()
        var bar = makeBar(total: 10, width: 200, clock: clock)
        bar.update(completed: 0)
        clock.now = 0.25
        bar.update(completed: 5)
        let first = "Importing 0/10 [" + String(repeating: " ", count: 40) + "] --/s --:-- left"
        let half = String(repeating: "=", count: 19) + ">" + String(repeating: " ", count: 20)
        let second = "Importing 5/10 [" + half + "] 20/s 0:01 left"
        #expect(second.count == first.count - 1)
        #expect(bar.output == "\r" + first + "\r" + second + " ")
        clock.now = 2
        bar.update(completed: 10)
        let third = "Importing 10/10 [" + String(repeating: "=", count: 40) + "] 5.0/s 0:00 left"
        #expect(bar.output.hasSuffix("\r" + third))
        bar.finish()
        #expect(bar.output.hasSuffix("\r" + String(repeating: " ", count: third.count) + "\r"))
    }

    @Test("redraws at most ten times a second")
    func throttle() {
        let clock = FakeClock()
        var bar = makeBar(total: 100_000, clock: clock)
        for step in 0..<10_000 {
            clock.now = Double(step) / 10_000   // one simulated second
            bar.update(completed: step)
        }
        #expect(bar.redrawCount == 10)
        #expect(bar.output.filter { $0 == "\r" }.count == 10)
    }

    @Test("shows a count and rate without a bar when the total is unknown")
    func unknownTotal() {
        let clock = FakeClock()
        var bar = ProgressBar(total: nil, label: "Scanning", output: "", isTerminal: true, clock: { clock.now })
        clock.now = 2
        bar.update(completed: 5)
        #expect(bar.output == "\rScanning 5 2.5/s")
    }

    @Test("fits every line into the terminal, one column short")
    func narrowTerminals() {
        let clock = FakeClock()
        for width in 1...90 {
            let bar = makeBar(total: 1_000, width: width, clock: clock)
            for now in [0.0, 0.5, 3_600.0] {
                let line = bar.line(at: now)
                #expect(DisplayWidth.of(line) <= max(0, width - 1), "\(width): '\(line)'")
                #expect(!line.contains("\n"))
            }
        }
        let narrow = makeBar(total: 1_000, width: 20, clock: clock)
        #expect(narrow.line(at: 0) == "Importing 0/1000 -…")
    }

    @Test("finishes only once and then stays quiet")
    func finishOnce() {
        let clock = FakeClock()
        var bar = makeBar(total: 3, clock: clock)
        bar.finish()
        #expect(bar.output == "")
        bar.update(completed: 1)
        #expect(bar.output == "")
    }

    @Test("advances by steps")
    func advance() {
        let clock = FakeClock()
        var bar = makeBar(total: 3, isTerminal: false, clock: clock)
        bar.advance()
        bar.advance(by: 2)
        #expect(bar.completed == 3)
    }
}
