import Foundation
import ObjectGraph
import Testing

/// Limits that keep hostile input from taking the tool's time or memory, checked in-process.
@Suite("Limits on expensive input")
struct LimitsTests {
    @Test("a MATCHES pattern that backtracks without end fails fast instead of taking seconds per value", arguments: [
        "(a|a?)+b", "(a|aa)*c", "(.*a){20}", "(([a-z])+.)+[A-Z]([a-z])+",
    ])
    func catastrophicBacktracking(pattern: String) {
        let value = String(repeating: "a", count: 44) + "!"
        let started = ContinuousClock.now
        #expect(throws: ObjectPredicateError.self) {
            try PredicateStringMatching.matches(value, regularExpression: pattern, caseInsensitive: false)
        }
        #expect(ContinuousClock.now - started < .seconds(2))
    }

    @Test("ordinary patterns still match whole strings, long ones included")
    func ordinaryPatterns() throws {
        #expect(try PredicateStringMatching.matches("Sunset over the sea", regularExpression: ".*[Ss]ea", caseInsensitive: false))
        #expect(try !PredicateStringMatching.matches("Sunset over the sea", regularExpression: "[Ss]ea", caseInsensitive: false))
        #expect(try PredicateStringMatching.matches("SEA", regularExpression: "sea", caseInsensitive: true))
        // A long value gets a budget in proportion: 100,000 characters scanned by a linear pattern.
        let long = String(repeating: "word ", count: 20_000) + "sea"
        #expect(try PredicateStringMatching.matches(long, regularExpression: ".*sea", caseInsensitive: false))
        #expect(try PredicateStringMatching.matches(long, regularExpression: "(?:word )+sea", caseInsensitive: false))
    }

    @Test("error messages stay one line whatever the format quotes")
    func oneLineErrors() {
        for format in ["o'bri\n'", "title == 'a' AND \u{1B}[2J", "a == 1 \u{2028}]", "\"x\ny\" ==", "%\n"] {
            #expect(throws: ObjectPredicateError.self) { try ObjectPredicate(format: format) }
            do {
                _ = try ObjectPredicate(format: format)
            } catch {
                #expect(!error.description.unicodeScalars.contains { $0.properties.generalCategory == .control }, "\(format.debugDescription)")
            }
        }
    }
}
