import Foundation
import ObjectGraph
import SQLiteDB
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

/// Memory that must not grow with the number of distinct questions a long-lived process asks.
@Suite("Bounded memory in long-lived processes")
struct BoundedMemoryTests {
    @Test("a connection's statement cache stays bounded however many different predicates are fetched")
    func statementCacheIsBounded() throws {
        let connection = try Connection.inMemory()
        try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, title TEXT)")
        for index in 0..<(Connection.statementCacheLimit * 2) {
            let statement = try connection.cachedStatement("SELECT id FROM t WHERE title = 'x\(index)'")
            try statement.forEachRow { _ in }
        }
        #expect(connection.cachedStatementCount == Connection.statementCacheLimit)
        // A statement the caller holds outlives its eviction.
        let held = try connection.cachedStatement("SELECT count(*) FROM t")
        for index in 0..<Connection.statementCacheLimit {
            _ = try connection.cachedStatement("SELECT id FROM t WHERE id = \(index)")
        }
        var count: Int64 = -1
        try held.forEachRow { count = $0.int64(at: 0) }
        #expect(count == 0)
    }
}
