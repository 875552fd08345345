import CommandLineKit
import Foundation
import Testing

@Suite("JSON dates")
struct JSONDateTests {
    @Test("JSON dates outside the calendar's four-digit years are the stored number, never a wrong date")
    func json() {
        #expect(JSONValue.date(Date(timeIntervalSinceReferenceDate: 123_456_789_012_345)).rendered() == "123456789012345")
        #expect(JSONValue.date(Date(timeIntervalSinceReferenceDate: -63_114_076_800)).rendered() == "-63114076800")
        #expect(JSONValue.date(Date(timeIntervalSinceReferenceDate: 380_894_400)).rendered() == "\"2013-01-26T12:00:00Z\"")
        #expect(JSONValue.formatDate(Date(timeIntervalSinceReferenceDate: 1e13)) == "10000000000000.0")
    }
}
