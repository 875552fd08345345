import Foundation
import ObjectGraph
import Testing

@Suite("ObjectPredicate parser: grammar")
struct PredicateParserTests {
    @Test("parses every comparison operator spelling")
    func comparisonOperators() throws {
        let spellings: [(String, ComparisonOperator)] = [
            ("==", .equalTo), ("=", .equalTo), ("!=", .notEqualTo), ("<>", .notEqualTo),
            ("<", .lessThan), ("<=", .lessThanOrEqualTo), ("=<", .lessThanOrEqualTo),
            (">", .greaterThan), (">=", .greaterThanOrEqualTo), ("=>", .greaterThanOrEqualTo),
            ("BEGINSWITH", .beginsWith), ("beginswith", .beginsWith), ("EndsWith", .endsWith),
            ("CONTAINS", .contains), ("like", .like), ("MATCHES", .matches),
        ]
        for (spelling, comparisonOperator) in spellings {
            let predicate = try ObjectPredicate(format: "title \(spelling) 'x'")
            #expect(predicate == compare(key("title"), comparisonOperator, .constant("x")), "\(spelling)")
        }
        #expect(try ObjectPredicate(format: "a IN {1, 2}") == compare(key("a"), .in, .constant([1, 2])))
        #expect(try ObjectPredicate(format: "a between {1, 2}") == compare(key("a"), .between, .constant([1, 2])))
    }

    @Test("operators need no spaces around them")
    func compactOperators() throws {
        #expect(try ObjectPredicate(format: "a>=1&&b!=2||!c<3") == .or([
            .and([compare(key("a"), .greaterThanOrEqualTo, .constant(1)), compare(key("b"), .notEqualTo, .constant(2))]),
            .not(compare(key("c"), .lessThan, .constant(3))),
        ]))
    }

    @Test("NOT binds tighter than AND, AND tighter than OR")
    func precedence() throws {
        let a = compare(key("a"), .equalTo, .constant(1))
        let b = compare(key("b"), .equalTo, .constant(2))
        let c = compare(key("c"), .equalTo, .constant(3))
        #expect(try ObjectPredicate(format: "a == 1 OR b == 2 AND c == 3") == .or([a, .and([b, c])]))
        #expect(try ObjectPredicate(format: "a == 1 AND b == 2 OR c == 3") == .or([.and([a, b]), c]))
        #expect(try ObjectPredicate(format: "NOT a == 1 AND b == 2") == .and([.not(a), b]))
        #expect(try ObjectPredicate(format: "NOT (a == 1 AND b == 2)") == .not(.and([a, b])))
        #expect(try ObjectPredicate(format: "(a == 1 OR b == 2) AND c == 3") == .and([.or([a, b]), c]))
        #expect(try ObjectPredicate(format: "a == 1 and b == 2 and c == 3") == .and([a, b, c]))
        #expect(try ObjectPredicate(format: "a == 1 || b == 2 or c == 3") == .or([a, b, c]))
        #expect(try ObjectPredicate(format: "a == 1 AND (b == 2 AND c == 3)") == .and([a, .and([b, c])]))
        #expect(try ObjectPredicate(format: "!!a == 1") == .not(.not(a)))
        #expect(try ObjectPredicate(format: "((a == 1))") == a)
    }

    @Test("parses TRUEPREDICATE and FALSEPREDICATE in any case")
    func constantPredicates() throws {
        #expect(try ObjectPredicate(format: "TRUEPREDICATE") == .true)
        #expect(try ObjectPredicate(format: "falsepredicate") == .false)
        #expect(try ObjectPredicate(format: "TruePredicate OR NOT FALSEPREDICATE") == .or([.true, .not(.false)]))
    }

    @Test("parses literals: nil, booleans, numbers, strings")
    func literals() throws {
        let cases: [(String, PredicateValue)] = [
            ("nil", .null), ("NULL", .null), ("Nil", .null),
            ("TRUE", .bool(true)), ("yes", .bool(true)), ("FALSE", .bool(false)), ("No", .bool(false)),
            ("42", .int(42)), ("-42", .int(-42)), ("- 7", .int(-7)), ("0", .int(0)),
            ("3.25", .double(3.25)), ("-0.5", .double(-0.5)), ("1e3", .double(1000)), ("2.5E-2", .double(0.025)),
            ("1e+2", .double(100)),
            ("0x1F", .int(31)), ("0XfF", .int(255)), ("0o17", .int(15)), ("0b101", .int(5)), ("-0x10", .int(-16)),
            ("9223372036854775807", .int(Int64.max)), ("-9223372036854775808", .int(Int64.min)),
            ("9223372036854775808", .double(9_223_372_036_854_775_808)),
            ("-18446744073709551616", .double(-18_446_744_073_709_551_616.0)),
            ("123456789012345678901234567890", .double(1.2345678901234568e29)),
            ("'single'", .string("single")), ("\"double\"", .string("double")), ("''", .string("")),
            (#""it's""#, .string("it's")), (#"'say "hi"'"#, .string("say \"hi\"")),
            (#""a\"b\'c\\d""#, .string("a\"b'c\\d")), (#""line\nnext\ttab\rret\/""#, .string("line\nnext\ttab\rret/")),
            (#""caf\u00e9""#, .string("café")), (#""\u{1F600}""#, .string("😀")), (#""\ud83d\ude00""#, .string("😀")),
            (#""nul\0""#, .string("nul\0")), ("'naïve 東京 🏖️'", .string("naïve 東京 🏖️")),
            // Apple's octal, hex and capital-U escapes.
            (#""\101\142c""#, .string("Abc")), (#""\000x\0""#, .string("\0x\0")), (#""\377""#, .string("ÿ")),
            (#""\x41\X62\x7a""#, .string("Abz")), (#""caf\xe9""#, .string("café")), (#""\U00e9\U0041""#, .string("éA")),
            (#""\UD83D\UDE00""#, .string("😀")), (#""\08""#, .string("\08")),
            ("'%@ stays'", .string("%@ stays")), ("%%", .string("%")),
            ("{}", .array([])), ("{1, 'a', nil}", .array([1, "a", nil])), ("{{1}, {}}", .array([[1], []])),
            ("CAST(0, \"NSDate\")", .date(Date(timeIntervalSinceReferenceDate: 0))),
            ("CAST(726000000.5, 'NSDate')", .date(Date(timeIntervalSinceReferenceDate: 726_000_000.5))),
            ("CAST('12', 'NSNumber')", .int(12)), ("CAST('1.5', 'NSNumber')", .double(1.5)),
            ("CAST(TRUE, 'NSNumber')", .bool(true)), ("CAST(3, 'NSString')", .string("3")),
            ("CAST('x', 'NSString')", .string("x")), ("CAST('AAE=', 'NSData')", .data(Data([0, 1]))),
            ("CAST(CAST(5, 'NSDate'), 'NSNumber')", .double(5)),
            ("CAST(CAST(5, 'NSDate'), 'NSDate')", .date(Date(timeIntervalSinceReferenceDate: 5))),
            ("CAST(CAST('AAE=', 'NSData'), 'NSData')", .data(Data([0, 1]))),
        ]
        for (literal, value) in cases {
            #expect(try ObjectPredicate(format: "x == \(literal)") == compare(key("x"), .equalTo, .constant(value)), "\(literal)")
        }
        let infinity = try ObjectPredicate(format: "x == CAST('inf', 'NSNumber')")
        #expect(infinity == compare(key("x"), .equalTo, .constant(.double(.infinity))))
    }

    @Test("parses key paths, SELF and #-escaped keywords")
    func keyPaths() throws {
        #expect(try ObjectPredicate(format: "place.name == 'x'") == compare(key("place", "name"), .equalTo, .constant("x")))
        #expect(try ObjectPredicate(format: "SELF == nil") == compare(.keyPath([]), .equalTo, .constant(.null)))
        #expect(try ObjectPredicate(format: "self.title == nil") == compare(key("title"), .equalTo, .constant(.null)))
        #expect(try ObjectPredicate(format: "#in == 1") == compare(key("in"), .equalTo, .constant(1)))
        #expect(try ObjectPredicate(format: "a.#AND.b.in == 1") == compare(key("a", "AND", "b", "in"), .equalTo, .constant(1)))
        #expect(try ObjectPredicate(format: "_private.näme2 == 1") == compare(key("_private", "näme2"), .equalTo, .constant(1)))
        #expect(try ObjectPredicate(format: "1 == size") == compare(.constant(1), .equalTo, key("size")))
    }

    @Test("parses ANY, SOME, ALL and NONE over a to-many path")
    func modifiers() throws {
        #expect(try ObjectPredicate(format: "ANY tags.name == 'sea'")
            == compare(key("tags", "name"), .equalTo, .constant("sea"), .any))
        #expect(try ObjectPredicate(format: "some tags.name == 'sea'")
            == compare(key("tags", "name"), .equalTo, .constant("sea"), .any))
        #expect(try ObjectPredicate(format: "ALL tags.count > 1") == compare(key("tags", "count"), .greaterThan, .constant(1), .all))
        #expect(try ObjectPredicate(format: "NONE tags.name BEGINSWITH[c] 'x'")
            == compare(key("tags", "name"), .beginsWith, .constant("x"), .none, .caseInsensitive))
        #expect(try ObjectPredicate(format: "NOT ANY tags.name == 'a'") == .not(compare(key("tags", "name"), .equalTo, .constant("a"), .any)))
    }

    @Test("parses [c], [d] and [cd] on any operator")
    func stringOptions() throws {
        let options: [(String, StringComparisonOptions)] = [
            ("[c]", .caseInsensitive), ("[d]", .diacriticInsensitive), ("[cd]", [.caseInsensitive, .diacriticInsensitive]),
            ("[dc]", [.caseInsensitive, .diacriticInsensitive]), ("[CD]", [.caseInsensitive, .diacriticInsensitive]),
            (" [c]", .caseInsensitive),
        ]
        for (text, expected) in options {
            for comparisonOperator in ["==", "!=", "<", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "IN"] {
                let predicate = try ObjectPredicate(format: "title \(comparisonOperator)\(text) %@", "x")
                guard case .comparison(let comparison) = predicate else {
                    Issue.record("not a comparison: \(predicate)")
                    continue
                }
                #expect(comparison.options == expected, "\(comparisonOperator)\(text)")
            }
        }
    }

    @Test("parses collection operators after key paths")
    func collectionOperators() throws {
        #expect(try ObjectPredicate(format: "tags.@count > 2")
            == compare(.collectionOperator(.count, of: key("tags"), keyPath: []), .greaterThan, .constant(2)))
        #expect(try ObjectPredicate(format: "place.photos.@count == 0")
            == compare(.collectionOperator(.count, of: key("place", "photos"), keyPath: []), .equalTo, .constant(0)))
        #expect(try ObjectPredicate(format: "items.@sum.price < 10.5")
            == compare(.collectionOperator(.sum, of: key("items"), keyPath: ["price"]), .lessThan, .constant(10.5)))
        #expect(try ObjectPredicate(format: "items.@avg.a.b >= 1 AND items.@min.d == 1 AND items.@MAX.d == 1")
            == .and([
                compare(.collectionOperator(.avg, of: key("items"), keyPath: ["a", "b"]), .greaterThanOrEqualTo, .constant(1)),
                compare(.collectionOperator(.min, of: key("items"), keyPath: ["d"]), .equalTo, .constant(1)),
                compare(.collectionOperator(.max, of: key("items"), keyPath: ["d"]), .equalTo, .constant(1)),
            ]))
        #expect(try ObjectPredicate(format: "SELF.@count == 1")
            == compare(.collectionOperator(.count, of: .keyPath([]), keyPath: []), .equalTo, .constant(1)))
        #expect(try ObjectPredicate(format: "{1, 2}.@count == 2")
            == compare(.collectionOperator(.count, of: .constant([1, 2]), keyPath: []), .equalTo, .constant(2)))
    }

    @Test("parses SUBQUERY with its variable and @count")
    func subquery() throws {
        let predicate = try ObjectPredicate(format: "SUBQUERY(tags, $t, $t.name BEGINSWITH \"s\" AND $t.count > 1).@count > 0")
        let inner: ObjectPredicate = .and([
            compare(.member(of: .variable("t"), keyPath: ["name"]), .beginsWith, .constant("s")),
            compare(.member(of: .variable("t"), keyPath: ["count"]), .greaterThan, .constant(1)),
        ])
        let subquery = ObjectExpression.subquery(collection: key("tags"), variable: "t", predicate: inner)
        #expect(predicate == compare(.collectionOperator(.count, of: subquery, keyPath: []), .greaterThan, .constant(0)))
        let nested = try ObjectPredicate(format: "subquery(photos, $p, SUBQUERY($p.tags, $t, $t == $p).@count > 0).@count == 1")
        guard case .comparison(let comparison) = nested,
              case .collectionOperator(.count, .subquery(_, "p", let body), []) = comparison.lhs else {
            Issue.record("unexpected tree \(nested)")
            return
        }
        #expect(body == compare(
            .collectionOperator(.count, of: .subquery(collection: .member(of: .variable("p"), keyPath: ["tags"]), variable: "t",
                                                      predicate: compare(.variable("t"), .equalTo, .variable("p"))), keyPath: []),
            .greaterThan, .constant(0)))
    }

    @Test("parses variables and aggregates with expressions")
    func variablesAndAggregates() throws {
        #expect(try ObjectPredicate(format: "title == $TITLE") == compare(key("title"), .equalTo, .variable("TITLE")))
        #expect(try ObjectPredicate(format: "$x.name == 1") == compare(.member(of: .variable("x"), keyPath: ["name"]), .equalTo, .constant(1)))
        #expect(try ObjectPredicate(format: "a IN {1, $b, c}") == compare(key("a"), .in, .aggregate([.constant(1), .variable("b"), key("c")])))
        #expect(try ObjectPredicate(format: "'sea' IN tags.name") == compare(.constant("sea"), .in, key("tags", "name")))
        #expect(try ObjectPredicate(format: "a BETWEEN $range") == compare(key("a"), .between, .variable("range")))
        #expect(try ObjectPredicate(format: "a BETWEEN {1, b}") == compare(key("a"), .between, .aggregate([.constant(1), key("b")])))
    }

    @Test("skips all kinds of white space")
    func whitespace() throws {
        #expect(try ObjectPredicate(format: "\n\ta\u{00A0}==\r\n1 ") == compare(key("a"), .equalTo, .constant(1)))
    }

    @Test("parses a lone expression with parseExpression")
    func expressions() throws {
        #expect(try PredicateParser.parseExpression("place.name") == key("place", "name"))
        #expect(try PredicateParser.parseExpression("%K.@count", arguments: ["tags"])
            == .collectionOperator(.count, of: key("tags"), keyPath: []))
        #expect(throws: ObjectPredicateError.self) { try PredicateParser.parseExpression("a b") }
    }
}
