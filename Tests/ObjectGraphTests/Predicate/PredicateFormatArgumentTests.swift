import Foundation
import ObjectGraph
import Testing

@Suite("ObjectPredicate parser: format arguments")
struct PredicateFormatArgumentTests {
    private func rhs(_ format: String, _ arguments: any PredicateArgument...) throws -> ObjectExpression? {
        guard case .comparison(let comparison) = try ObjectPredicate(format: format, arguments: arguments) else { return nil }
        return comparison.rhs
    }

    @Test("%@ takes every argument type as a constant")
    func objectSpecifier() throws {
        let date = Date(timeIntervalSinceReferenceDate: 12345.5)
        let title: String? = nil
        let cases: [(any PredicateArgument, PredicateValue)] = [
            ("text", .string("text")), (Substring("sub"), .string("sub")),
            (7, .int(7)), (Int8(-8), .int(-8)), (Int16(16), .int(16)), (Int32(-32), .int(-32)), (Int64.max, .int(Int64.max)),
            (UInt8(8), .int(8)), (UInt16(16), .int(16)), (UInt32.max, .int(Int64(UInt32.max))), (UInt(3), .int(3)),
            (UInt64.max, .double(18_446_744_073_709_551_616.0)), (UInt.max, .double(18_446_744_073_709_551_616.0)),
            (2.5, .double(2.5)), (Float(0.5), .double(0.5)), (true, .bool(true)),
            (date, .date(date)), (Data([1, 2]), .data(Data([1, 2]))),
            (title, .null), (Optional("x"), .string("x")), (PredicateValue.null, .null),
            (["a", "b"], .array(["a", "b"])), ([1, 2], .array([1, 2])), ([[1], []] as [[Int]], .array([[1], []])),
            (Set(["b", "a", "c"]), .array(["a", "b", "c"])), (Set([3, 1]), .array([1, 3])),
            ([Optional("a"), nil], .array(["a", nil])),
        ]
        for (argument, expected) in cases {
            #expect(try rhs("x == %@", argument) == .constant(expected), "\(argument)")
        }
    }

    @Test("%K inserts a key path, with dots and collection operators")
    func keySpecifier() throws {
        #expect(try ObjectPredicate(format: "%K == %@", "title", "x") == compare(key("title"), .equalTo, .constant("x")))
        #expect(try ObjectPredicate(format: "%K BEGINSWITH 'L'", "place.name") == compare(key("place", "name"), .beginsWith, .constant("L")))
        #expect(try ObjectPredicate(format: "%K > 1", "tags.@count")
            == compare(.collectionOperator(.count, of: key("tags"), keyPath: []), .greaterThan, .constant(1)))
        #expect(try ObjectPredicate(format: "%K == 1", "AND") == compare(key("AND"), .equalTo, .constant(1)))
        #expect(try ObjectPredicate(format: "%K.name == 1", "place") == compare(key("place", "name"), .equalTo, .constant(1)))
        #expect(try ObjectPredicate(format: "ANY %K == 1", "tags.count") == compare(key("tags", "count"), .equalTo, .constant(1), .any))
    }

    @Test("%K stands for any key of a key path, as in Apple's parser")
    func keySpecifierAnywhere() throws {
        let count = ObjectExpression.collectionOperator(.count, of: key("record", "photos"), keyPath: [])
        let cases: [(String, [any PredicateArgument], ObjectPredicate)] = [
            ("%K.%K BEGINSWITH 'a'", ["record", "name"], compare(key("record", "name"), .beginsWith, .constant("a"))),
            ("record.%K BEGINSWITH 'a'", ["name"], compare(key("record", "name"), .beginsWith, .constant("a"))),
            ("%K.name BEGINSWITH 'a'", ["record"], compare(key("record", "name"), .beginsWith, .constant("a"))),
            ("%K.%K == %@", ["record", "place.name", "x"], compare(key("record", "place", "name"), .equalTo, .constant("x"))),
            ("SELF.%K == 1", ["a"], compare(key("a"), .equalTo, .constant(1))),
            ("%K == 1", ["SELF.a"], compare(key("a"), .equalTo, .constant(1))),
            ("%K == %@", ["SELF", "x"], compare(key(), .equalTo, .constant("x"))),
            ("ANY %K.name == %@", ["tags", "sea"], compare(key("tags", "name"), .equalTo, .constant("sea"), .any)),
            ("ANY %K.%K ==[c] %@", ["tags", "name", "sea"], compare(key("tags", "name"), .equalTo, .constant("sea"), .any, .caseInsensitive)),
            ("%K.@count > 1", ["record.photos"], compare(count, .greaterThan, .constant(1))),
            ("record.%K.@count > 1", ["photos"], compare(count, .greaterThan, .constant(1))),
            ("record.%K > 1", ["photos.@count"], compare(count, .greaterThan, .constant(1))),
            ("tags.@sum.%K > 1", ["count"], compare(.collectionOperator(.sum, of: key("tags"), keyPath: ["count"]), .greaterThan, .constant(1))),
            ("%K.@max.%K > 1", ["tags", "count"], compare(.collectionOperator(.max, of: key("tags"), keyPath: ["count"]), .greaterThan, .constant(1))),
            ("$t.%K == 1", ["name"], compare(.member(of: .variable("t"), keyPath: ["name"]), .equalTo, .constant(1))),
            ("SUBQUERY(%K, $t, $t.%K == %@).@count > 0", ["tags", "name", "sea"],
             compare(.collectionOperator(.count, of: .subquery(collection: key("tags"), variable: "t",
                                                              predicate: compare(.member(of: .variable("t"), keyPath: ["name"]), .equalTo, .constant("sea"))),
                                         keyPath: []), .greaterThan, .constant(0))),
            ("%@ IN %K.%K", ["sea", "tags", "name"], compare(.constant("sea"), .in, key("tags", "name"))),
        ]
        for (format, arguments, expected) in cases {
            #expect(try ObjectPredicate(format: format, arguments: arguments) == expected, "\(format)")
        }
        #expect(errorMessage("record.%K == 1") == "Too few arguments for format: %K at position 7")
        #expect(errorMessage("record.%K == 1", [1]) == "Invalid argument 1 for %K at position 7: expected a key path string, got 1")
        #expect(errorMessage("record.%K == 1", ["a..b"]) == "Invalid argument 1 for %K at position 7: expected a key path string, got \"a..b\"")
        #expect(errorMessage("record.%K == 1", ["@size"]) == "Unknown collection operator '@size' at position 7")
        #expect(errorMessage("%K.name == 1", ["tags.@count"]) == "Unexpected 'name' at position 3: expected a collection operator after @count")
        #expect(errorMessage("record.%@ == 1", ["name"]) == "Unexpected '%@' at position 7: expected a key")
    }

    @Test("arguments beyond the specifiers are ignored, as Apple's parser ignores them")
    func extraArguments() throws {
        // Apple's guide: `%K like '%@'` with ("firstName", "Adam") means firstName LIKE "%@".
        #expect(try ObjectPredicate(format: "%K like '%@'", "firstName", "Adam") == compare(key("firstName"), .like, .constant("%@")))
        #expect(try ObjectPredicate(format: "SELF == '%@'", "Do") == compare(key(), .equalTo, .constant("%@")))
        #expect(try ObjectPredicate(format: "a == %@", "x", "y", 3) == compare(key("a"), .equalTo, .constant("x")))
        #expect(try ObjectPredicate(format: "TRUEPREDICATE", 1) == .true)
        #expect(try ObjectPredicate(format: "a == \"$x %K\"", "unused") == compare(key("a"), .equalTo, .constant("$x %K")))
        #expect(errorMessage("a == %@ AND b == %@", ["x"]) == "Too few arguments for format: %@ at position 17")
    }

    @Test("integer specifiers take integers and booleans")
    func integerSpecifiers() throws {
        for specifier in ["%d", "%i", "%u", "%ld", "%li", "%lu", "%lld", "%lli", "%llu", "%hd", "%hhd", "%qd", "%zd"] {
            #expect(try rhs("x == \(specifier)", 42) == .constant(42), "\(specifier)")
        }
        #expect(try rhs("x == %d", Int64.min) == .constant(.int(Int64.min)))
        #expect(try rhs("x == %d", true) == .constant(1))
        #expect(try rhs("x == %d", false) == .constant(0))
    }

    @Test("floating-point specifiers take numbers and widen integers")
    func doubleSpecifiers() throws {
        for specifier in ["%f", "%lf", "%e", "%g"] {
            #expect(try rhs("x == \(specifier)", 1.5) == .constant(1.5), "\(specifier)")
        }
        #expect(try rhs("x == %f", 3) == .constant(.double(3)))
        #expect(try rhs("x == %f", Float(0.25)) == .constant(0.25))
    }

    @Test("%s takes a string and %% is a percent sign")
    func stringSpecifiers() throws {
        #expect(try rhs("x == %s", "abc") == .constant("abc"))
        #expect(try rhs("x LIKE %%") == .constant("%"))
    }

    @Test("arguments are consumed in order and never inside quotes")
    func argumentOrder() throws {
        let predicate = try ObjectPredicate(format: "%K == %@ AND '%@' == %d AND b IN %@", "a", "first", 2, [3, 4])
        #expect(predicate == .and([
            compare(key("a"), .equalTo, .constant("first")),
            compare(.constant("%@"), .equalTo, .constant(2)),
            compare(key("b"), .in, .constant([3, 4])),
        ]))
        let viaArray = try ObjectPredicate(format: "unique == %@", arguments: ["123"])
        #expect(viaArray == compare(key("unique"), .equalTo, .constant("123")))
        let values: [PredicateValue] = ["x", 1]
        #expect(try ObjectPredicate(format: "a == %@ AND b == %@", arguments: values)
            == .and([compare(key("a"), .equalTo, .constant("x")), compare(key("b"), .equalTo, .constant(1))]))
    }

    @Test("variables are substituted later, and a missing one is an error")
    func substitution() throws {
        let template = try ObjectPredicate(format: "title == $TITLE AND SUBQUERY(tags, $t, $t.name == $TAG).@count > $N")
        #expect(template.variableNames == ["TITLE", "TAG", "N"])
        let filled = try template.substituting(["TITLE": "x", "TAG": "sea", "N": 0, "unused": 1])
        #expect(filled == (try ObjectPredicate(format: "title == 'x' AND SUBQUERY(tags, $t, $t.name == 'sea').@count > 0")))
        #expect(filled.variableNames.isEmpty)
        #expect(throws: ObjectPredicateError.self) { try template.substituting(["TITLE": "x", "N": 0]) }
        do {
            _ = try template.substituting(["TITLE": "x", "TAG": "y"])
            Issue.record("substituting without $N succeeded")
        } catch {
            #expect(error.description == "No value for variable $N")
            #expect(error.code == .missingVariable)
            #expect(error.position == nil)
        }
        let aggregate = try ObjectPredicate(format: "a IN {$x, 2}").substituting(["x": 1])
        #expect(aggregate == compare(key("a"), .in, .constant([1, 2])))
        let kept = try ObjectPredicate(format: "a IN {$x, b}").substituting(["x": 1])
        #expect(kept == compare(key("a"), .in, .aggregate([.constant(1), key("b")])))
        let member = try ObjectPredicate(format: "$x.name == 1 OR NOT a == 1").substituting(["x": "v"])
        #expect(member == .or([compare(.member(of: .constant("v"), keyPath: ["name"]), .equalTo, .constant(1)),
                               .not(compare(key("a"), .equalTo, .constant(1)))]))
        #expect(try ObjectPredicate.true.substituting([:]) == .true)
    }
}
