import Foundation
@testable import ObjectGraph
import ObjectGraphTestModels
import Testing

/// Swift's `String ==` holds for canonically equivalent strings ("é" and "e\u{301}"); SQLite
/// and the evaluator compare strings by their UTF-8 bytes. Anything that keys a predicate, a
/// bound value or a pattern must tell such strings apart, or a cached query or regular
/// expression made for one answers for the other.
@Suite("Canonically equivalent constants are different constants")
struct CanonicallyEquivalentConstantTests {
    /// "École" precomposed (U+00C9) and decomposed (E, U+0301), and two more pairs.
    static let pairs: [(composed: String, decomposed: String)] = [
        ("\u{C9}cole", "E\u{301}cole"),
        ("caf\u{E9}", "cafe\u{301}"),
        ("\u{212B}ngstr\u{F6}m", "A\u{30A}ngstro\u{308}m"),
    ]

    @Test("the two forms are equal Swift strings but different predicate values, hashed apart only by their bytes")
    func valuesTellTheFormsApart() {
        for (composed, decomposed) in Self.pairs {
            #expect(composed == decomposed)
            #expect(PredicateValue.string(composed) != PredicateValue.string(decomposed))
            #expect(PredicateValue.array([.string(composed)]) != PredicateValue.array([.string(decomposed)]))
            #expect(PredicateValue.string(composed) == PredicateValue.string(String(decoding: Array(composed.utf8), as: UTF8.self)))
            #expect(Set([PredicateValue.string(composed), .string(decomposed), .string(composed)]).count == 2)
            let left = ObjectPredicate.key("title", .equalTo, .string(composed))
            let right = ObjectPredicate.key("title", .equalTo, .string(decomposed))
            #expect(left != right)
        }
    }

    @Test("a fetch with one form, then the other, finds each form's own rows, through every operator the cache keeps by value or by shape")
    func fetchesAfterTheOtherFormFindTheirOwnRows() throws {
        let store = try TestStore()
        let context = store.context()
        for (index, (composed, decomposed)) in Self.pairs.enumerated() {
            for (number, title) in [composed, decomposed, decomposed].enumerated() {
                let photo = Photo(context: context)
                photo.unique = "\(index).\(number)"
                photo.title = title
            }
        }
        try context.save()
        let operators: [(String, (String) -> ObjectPredicate)] = [
            ("==", { .key("title", .equalTo, .string($0)) }),
            ("IN", { .key("title", .in, .array([.string($0), .string("nothing")])) }),
            // Patterns long enough to reach the scalars in which the two forms differ.
            ("BEGINSWITH", { .key("title", .beginsWith, .string($0)) }),
            ("ENDSWITH", { .key("title", .endsWith, .string($0)) }),
            ("CONTAINS", { .key("title", .contains, .string($0)) }),
            ("LIKE", { .key("title", .like, .string($0)) }),
            ("MATCHES", { .key("title", .matches, .string($0)) }),
            ("MATCHES[c]", { .key("title", .matches, .string($0), options: .caseInsensitive) }),
        ]
        for (name, predicate) in operators {
            for (composed, decomposed) in Self.pairs {
                // Each form twice, alternating, so that every fetch after the first can meet a cached entry.
                for (form, expected) in [(composed, 1), (decomposed, 2), (composed, 1), (decomposed, 2)] {
                    let found = try context.fetch(FetchRequest<Photo>(predicate: predicate(form))).compactMap(\.title)
                    #expect(found.count == expected, "\(name) \(Array(form.unicodeScalars))")
                    #expect(found.allSatisfy { $0.utf8.elementsEqual(form.utf8) }, "\(name) \(Array(form.unicodeScalars))")
                    let evaluator = PredicateEvaluator(predicate(form))
                    let inMemory = try context.fetch(FetchRequest<Photo>()).filter { try evaluator.evaluate(with: $0) }
                    #expect(inMemory.count == expected, "\(name) in memory \(Array(form.unicodeScalars))")
                }
            }
        }
    }

    @Test("one evaluator meeting a pattern in both forms compiles each form's own regular expression")
    func evaluatorKeepsAPatternPerForm() throws {
        for (composed, decomposed) in Self.pairs {
            for options in [StringComparisonOptions(), .caseInsensitive] {
                func matches(_ pattern: String) -> ObjectPredicate {
                    .key("title", .matches, .string(pattern), options: options)
                }
                // Holds for exactly the form the first pattern is in, when each pattern is its own.
                let evaluator = PredicateEvaluator(.and([matches(composed), .not(matches(decomposed))]))
                #expect(try evaluator.evaluate(with: TestPhoto("1", title: composed)), "\(Array(composed.unicodeScalars)) \(options)")
                #expect(try !evaluator.evaluate(with: TestPhoto("2", title: decomposed)), "\(Array(decomposed.unicodeScalars)) \(options)")
            }
        }
    }
}
