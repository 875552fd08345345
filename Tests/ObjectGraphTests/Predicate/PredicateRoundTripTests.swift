import ObjectGraphTestModels
import Foundation
import ObjectGraph
import Testing

@Suite("ObjectPredicate description: canonical format that parses back")
struct PredicateRoundTripTests {
    static let corpus = [
        "unique == %@ AND (tags.@count > 2 OR title BEGINSWITH[cd] 'a')",
        "TRUEPREDICATE", "FALSEPREDICATE", "NOT TRUEPREDICATE",
        "a = 1 OR b <> 2 AND NOT c =< 3 AND d => 4",
        "a == 1 AND (b == 2 AND c == 3)", "(a == 1 OR b == 2) OR c == 3", "NOT (a == 1 OR b == 2)", "NOT NOT a == 1",
        "ANY tags.name IN[c] {'Sea', 'sun'}", "ALL tags.count BETWEEN {1, 10}", "NONE tags.name LIKE[cd] 'r?in*'",
        "SOME tags.name MATCHES '[a-z]+'", "title ENDSWITH[d] 'é'", "title CONTAINS[c] \"quote\\\"d\"",
        "SUBQUERY(tags, $t, $t.name BEGINSWITH \"s\").@count > 0",
        "SUBQUERY(photos, $p, SUBQUERY($p.tags, $t, $t.name == 'x' AND $t == $p).@count == 1).@count >= 1",
        "items.@sum.price < 10.5 AND items.@avg.price > -1.5e-7 AND items.@min.d == items.@max.d",
        "SELF IN %@", "SELF.@count == 0", "self == $me", "$x.a.b == {1, $y, c}", "#in.#and == #SELF",
        "a == nil OR b != NULL OR c == TRUE OR d == NO", "x == -9223372036854775808", "x == 0x7fffffffffffffff",
        "x == 1e300 OR x == 5e-324 OR x == -0.0 OR x == 2.0", "'%@' == %%",
        "s == 'tab\\tnew\\nline\\u0001\\u007f\\\\ \\'single\\' 東京 🏖️'",
        "d == CAST(726000000.25, 'NSDate') AND e == CAST('AAEC', \"NSData\") AND f == CAST('-inf', 'NSNumber')",
        "{1, {2, {}}}.@count == 2", "a IN {}", "%K == %@",
    ]

    private static func arguments(for format: String) -> [any PredicateArgument] {
        switch format {
        case corpus[0]: return ["123"]
        case "SELF IN %@": return [[1, 2]]
        case "%K == %@": return ["place.name", Date(timeIntervalSinceReferenceDate: 1.5)]
        default: return []
        }
    }

    @Test("format → predicate → description → predicate is the identity", arguments: corpus)
    func roundTrip(format: String) throws {
        let predicate = try ObjectPredicate(format: format, arguments: Self.arguments(for: format))
        let text = predicate.description
        let reparsed = try ObjectPredicate(format: text)
        #expect(reparsed == predicate, "\(format) printed as \(text)")
        #expect(reparsed.description == text)
    }

    @Test("descriptions are canonical")
    func canonicalDescriptions() throws {
        let cases: [(String, String)] = [
            ("unique = %@ and (tags.@count > 2 || title beginswith[cd] 'a')",
             "unique == \"123\" AND (tags.@count > 2 OR title BEGINSWITH[cd] \"a\")"),
            ("a <> 1 && !(b =< 2) && some c => 3", "a != 1 AND NOT b <= 2 AND ANY c >= 3"),
            ("#in == yes OR self.x == null", "#in == TRUE OR x == nil"),
            ("x in { 1 ,2 }", "x IN {1, 2}"),
            ("d == CAST(0, 'NSDate')", "d == CAST(0.0, \"NSDate\")"),
            ("subquery(tags,$t,$t.name like[dc] '*').@count>0", "SUBQUERY(tags, $t, $t.name LIKE[cd] \"*\").@count > 0"),
            ("SELF == 2.50", "SELF == 2.5"),
        ]
        for (format, expected) in cases {
            let arguments: [any PredicateArgument] = format.contains("%@") ? ["123"] : []
            #expect(try ObjectPredicate(format: format, arguments: arguments).description == expected)
        }
        #expect(ObjectPredicate.and([]).description == "TRUEPREDICATE")
        #expect(ObjectPredicate.or([]).description == "FALSEPREDICATE")
        #expect(ObjectPredicate.and([.false]).description == "FALSEPREDICATE")
        #expect(ObjectPredicate.not(.and([.true, .false])).description == "NOT (TRUEPREDICATE AND FALSEPREDICATE)")
        #expect(ObjectExpression.member(of: .variable("v"), keyPath: []).description == "$v")
        #expect(PredicateValue.object(PredicateObjectReference(7)).description == "<object 7>")
        #expect(PredicateValue.double(.nan).description == "CAST(\"nan\", \"NSNumber\")")
        #expect(StringComparisonOptions().description == "")
        #expect(ComparisonOperator.allCases.map(\.description)
            == ["==", "!=", "<", "<=", ">", ">=", "IN", "BETWEEN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES"])
    }

    @Test("random canonical trees print as text that parses back to them")
    func randomTreesRoundTrip() throws {
        var generator = TreeGenerator(random: SeededGenerator(state: 42))
        for _ in 0..<1500 {
            let predicate = generator.predicate(depth: 4)
            let text = predicate.description
            switch parseResult(text) {
            case .success(let reparsed):
                #expect(reparsed == predicate, "printed as \(text)")
            case .failure(let error):
                Issue.record("\(text) does not parse: \(error)")
            }
        }
    }

    @Test("random bytes never crash the parser")
    func randomBytes() {
        var random = SeededGenerator(state: 7)
        let alphabet = Array("()[]{}'\"\\$@#%.,=!<>&|-+*?0123456789xXeEabcdKSELFANYNOT \n\t".utf8)
        for iteration in 0..<3000 {
            let length = Int.random(in: 0...40, using: &random)
            let bytes = (0..<length).map { _ in
                iteration.isMultiple(of: 2) ? UInt8.random(in: 0...255, using: &random) : alphabet.randomElement(using: &random) ?? 0
            }
            checkInvariants(String(decoding: bytes, as: UTF8.self), arguments: [])
        }
    }

    @Test("random token soups either parse and round-trip or fail with a position")
    func randomTokenSoups() {
        var random = SeededGenerator(state: 99)
        let vocabulary = [
            "(", ")", "{", "}", ",", ".", "==", "=", "!=", "<>", "<", "<=", ">", ">=", "=<", "=>", "&&", "||", "!",
            "AND", "or", "NOT", "ANY", "all", "NONE", "SOME", "IN", "BETWEEN", "BEGINSWITH", "ENDSWITH", "CONTAINS",
            "LIKE", "MATCHES", "[c]", "[cd]", "[x]", "nil", "TRUE", "NO", "TRUEPREDICATE", "FALSEPREDICATE", "SELF",
            "SUBQUERY", "CAST", "'NSDate'", "@count", "@sum", "@bad", "$v", "$t", "#in", "%@", "%K", "%d", "%f", "%s",
            "%%", "%x", "title", "tags", "name", "place", "1", "-2", "3.5", "0x1F", "1e400", "'a'", "\"b\\n\"", "'open",
            "-", "\\", "^",
        ]
        let argumentPool: [any PredicateArgument] = ["title", 1, 2.5, true, ["x", "y"], [1, 2], "tags.name", Optional<Int>.none]
        for _ in 0..<4000 {
            let count = Int.random(in: 1...14, using: &random)
            let format = (0..<count).map { _ in vocabulary.randomElement(using: &random) ?? "" }.joined(separator: " ")
            let arguments = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                argumentPool.randomElement(using: &random) ?? 0
            }
            checkInvariants(format, arguments: arguments)
        }
    }

    /// A parse either fails with a position inside the text,
    /// or gives a predicate whose description parses back to it and that evaluates.
    private func checkInvariants(_ format: String, arguments: [any PredicateArgument]) {
        switch parseResult(format, arguments) {
        case .failure(let error):
            // Every parse error has a place in the text (arguments left over are ignored).
            let position = error.position ?? -1
            #expect(position >= 0 && position <= format.unicodeScalars.count, "\(format): \(error)")
        case .success(let predicate):
            let text = predicate.description
            if !text.contains("nan") {
                #expect((try? ObjectPredicate(format: text)) == predicate, "\(format) printed as \(text)")
            }
            let photo = TestPhoto("1", title: "title", tags: [TestTag("tag")])
            _ = try? predicate.evaluate(with: photo, variables: ["v": 1])
            _ = predicate.keyPaths
        }
    }

    @Test("the nesting limit keeps parsing, printing and evaluating within a small stack")
    func nestingFitsSmallStack() throws {
        let depth = ObjectPredicateError.maximumNestingDepth
        let format = String(repeating: "NOT (", count: depth / 2 - 1) + "a IN {b}" + String(repeating: ")", count: depth / 2 - 1)
        let finished = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome = ""
        let thread = Thread {
            defer { finished.signal() }
            do {
                let predicate = try ObjectPredicate(format: format)
                let reparsed = try ObjectPredicate(format: predicate.description)
                let result = try reparsed.evaluate(with: TestPhoto("1"))
                outcome = "\(reparsed == predicate) \(result)"
            } catch {
                outcome = "\(error)"
            }
        }
        thread.stackSize = 1 << 20
        thread.start()
        finished.wait()
        #expect(outcome == "true false")
    }
}

/// Builds random predicates in the parser's canonical form.
struct TreeGenerator {
    var random: SeededGenerator

    private mutating func pick<T>(_ values: [T]) -> T {
        values[Int.random(in: 0..<values.count, using: &random)]
    }

    private mutating func chance(_ percent: Int) -> Bool {
        Int.random(in: 0..<100, using: &random) < percent
    }

    mutating func predicate(depth: Int) -> ObjectPredicate {
        let choice = depth <= 0 ? 0 : Int.random(in: 0..<6, using: &random)
        switch choice {
        case 1: return .and((0..<Int.random(in: 2...3, using: &random)).map { _ in predicate(depth: depth - 1) })
        case 2: return .or((0..<Int.random(in: 2...3, using: &random)).map { _ in predicate(depth: depth - 1) })
        case 3: return .not(predicate(depth: depth - 1))
        case 4: return pick([.true, .false])
        default:
            let comparisonOperator = pick(ComparisonOperator.allCases)
            var rhs = expression(depth: depth - 1)
            if comparisonOperator == .between { rhs = .constant([value(depth: 0), value(depth: 0)]) }
            let options: StringComparisonOptions = pick([[], .caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive]])
            return .comparison(PredicateComparison(expression(depth: depth - 1), comparisonOperator, rhs,
                                                   modifier: pick(ComparisonModifier.allCases), options: options))
        }
    }

    private mutating func name() -> String {
        pick(["title", "place", "name", "tags", "in", "AND", "Self", "nil", "_x1", "näme", "東京", "size", "first"])
    }

    private mutating func path() -> [String] {
        (0..<Int.random(in: 1...3, using: &random)).map { _ in name() }
    }

    mutating func expression(depth: Int) -> ObjectExpression {
        let choice = depth <= 0 ? Int.random(in: 0..<4, using: &random) : Int.random(in: 0..<8, using: &random)
        switch choice {
        case 0: return .constant(value(depth: 1))
        case 1: return .keyPath(chance(10) ? [] : path())
        case 2: return .variable(name())
        case 3: return .member(of: .variable(name()), keyPath: path())
        case 4:
            let base = pick([ObjectExpression.keyPath(path()), .keyPath([]), .variable("v"), expression(depth: depth - 1)])
            let collectionOperator = pick(PredicateCollectionOperator.allCases)
            return .collectionOperator(collectionOperator, of: base, keyPath: collectionOperator == .count || chance(50) ? [] : path())
        case 5:
            return .aggregate([expression(depth: depth - 1), .keyPath(path())])
        case 6:
            return .subquery(collection: .keyPath(path()), variable: name(), predicate: predicate(depth: depth - 1))
        default:
            return .constant(value(depth: 2))
        }
    }

    mutating func value(depth: Int) -> PredicateValue {
        switch Int.random(in: 0..<(depth > 0 ? 9 : 8), using: &random) {
        case 0: return .null
        case 1: return .bool(chance(50))
        case 2: return .int(Int64.random(in: Int64.min...Int64.max, using: &random))
        case 3:
            let bits = UInt64.random(in: 0...UInt64.max, using: &random)
            let double = Double(bitPattern: bits)
            return .double(double.isNaN ? 0.5 : double)
        case 4:
            let scalars = (0..<Int.random(in: 0...6, using: &random)).compactMap { _ in
                Unicode.Scalar(pick([0x0, 0x9, 0x22, 0x27, 0x5C, 0x41, 0x7F, 0xE9, 0x301, 0x6771, 0x1F3D6, 0x2028]))
            }
            return .string(String(String.UnicodeScalarView(scalars)))
        case 5: return .date(Date(timeIntervalSinceReferenceDate: Double(Int.random(in: -1_000_000...1_000_000, using: &random)) / 8))
        case 6: return .data(Data((0..<Int.random(in: 0...5, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }))
        case 7: return .int(Int64.random(in: -3...3, using: &random))
        default: return .array((0..<Int.random(in: 0...3, using: &random)).map { _ in value(depth: depth - 1) })
        }
    }
}
