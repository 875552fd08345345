import Foundation
import Testing
import Timestamps

@Suite("ISO 8601 text for stored timestamps: the proleptic Gregorian calendar, years 0001 to 9999, nothing else")
struct ISO8601TimestampTests {
    @Test("moments in range read as ISO 8601, in UTC, whatever the year", arguments: [
        (0.0, "2001-01-01T00:00:00Z"),
        (380_894_400, "2013-01-26T12:00:00Z"),
        (-978_307_200, "1970-01-01T00:00:00Z"),
        (-1, "2000-12-31T23:59:59Z"),
        (-0.5, "2000-12-31T23:59:59Z"),
        (34_214_400, "2002-02-01T00:00:00Z"),
        (-31_622_400, "2000-01-01T00:00:00Z"),  // 2000 is a leap year
        (-3_187_296_000, "1900-01-01T00:00:00Z"),  // 1900 is not
        (-13_197_600_000, "1582-10-15T00:00:00Z"),  // the Gregorian calendar's first day
        (-13_197_686_400, "1582-10-14T00:00:00Z"),  // … extended backwards, as ISO 8601 and Python's datetime do
        (-63_113_904_000, "0001-01-01T00:00:00Z"),
        (63_113_904_000, "4001-01-01T00:00:00Z"),  // Foundation's distantFuture
        (252_423_993_599, "9999-12-31T23:59:59Z"),
    ])
    func inRange(seconds: Double, expected: String) {
        #expect(ISO8601Timestamp.string(secondsSinceReferenceDate: seconds) == expected)
        // Foundation agrees from the Gregorian calendar's first day on (before it, Foundation counts Julian days).
        if seconds >= -13_197_600_000 {
            let foundation = Date(timeIntervalSinceReferenceDate: seconds.rounded(.down)).formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
            #expect(foundation == expected)
        }
    }

    @Test("random moments from 1582 to 9999 read as Foundation writes them, milliseconds three digits rounded down")
    func randomMoments() {
        var state = UInt64.random(in: 1...UInt64.max)
        print("ISO8601TimestampTests.randomMoments seed \(state)")
        // SplitMix64: a seed printed is a run repeated.
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let first = -13_197_600_000.0, last = 252_423_993_599.0
        for _ in 0..<2_000 {
            let seconds = (first + Double(next() % UInt64(last - first))).rounded(.down) + Double(next() % 1000) / 1000 + 0.0001
            let expected = Date(timeIntervalSinceReferenceDate: seconds.rounded(.down)).formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
            #expect(ISO8601Timestamp.string(secondsSinceReferenceDate: seconds) == expected, "\(seconds)")
            let milliseconds = Int((seconds - seconds.rounded(.down)) * 1000)
            let padded = String(repeating: "0", count: 3 - String(milliseconds).count) + String(milliseconds)
            #expect(ISO8601Timestamp.string(secondsSinceReferenceDate: seconds, milliseconds: true)
                    == expected.dropLast() + "." + padded + "Z", "\(seconds)")
        }
    }

    @Test("sentinels and values past year 9999 or before year 0 have no ISO text, so nothing shows a wrong date", arguments: [
        123_456_789_012_345, 252_423_993_600, -63_113_904_001, -63_114_076_800 /* Foundation's distantPast, 0000-12-30 */,
        1e300, -1e300, .infinity, -.infinity, .nan,
    ])
    func outOfRange(seconds: Double) {
        #expect(ISO8601Timestamp.string(secondsSinceReferenceDate: seconds) == nil)
    }

    @Test("fractions show as milliseconds, rounded down, when asked for")
    func milliseconds() {
        #expect(ISO8601Timestamp.string(secondsSinceReferenceDate: 585_865_174.452226, milliseconds: true) == "2019-07-26T20:19:34.452Z")
        #expect(ISO8601Timestamp.string(secondsSinceReferenceDate: -0.25, milliseconds: true) == "2000-12-31T23:59:59.750Z")
        #expect(ISO8601Timestamp.string(secondsSinceReferenceDate: 10.9999, milliseconds: true) == "2001-01-01T00:00:10.999Z")
        #expect(ISO8601Timestamp.string(secondsSinceReferenceDate: 10, milliseconds: true) == "2001-01-01T00:00:10.000Z")
    }
}
