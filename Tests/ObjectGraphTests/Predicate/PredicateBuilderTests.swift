import Foundation
import ObjectGraph
import Testing

@Suite("ObjectPredicate builder and analysis")
struct PredicateBuilderTests {
    @Test("the Swift builder makes the same trees as the parser")
    func builder() throws {
        let built = ObjectPredicate.key("place.name", .beginsWith, "Lis", options: .caseInsensitive)
            && .key("tags.@count", .greaterThan, 2)
            && !.key("title", .equalTo, nil)
        #expect(built == (try ObjectPredicate(format: "place.name BEGINSWITH[c] 'Lis' AND tags.@count > 2 AND NOT title == nil")))
        #expect(built.description == "place.name BEGINSWITH[c] \"Lis\" AND tags.@count > 2 AND NOT title == nil")

        let date = Date(timeIntervalSinceReferenceDate: 10)
        let either = ObjectPredicate.key("dateTaken", .greaterThan, date) || .key("tags.name", .in, ["sea", "sun"], modifier: .any)
            || .key("rating", .between, [1.5, 4])
        #expect(either == (try ObjectPredicate(format: "dateTaken > %@ OR ANY tags.name IN {'sea', 'sun'} OR rating BETWEEN {1.5, 4.0}", date)))

        // An array literal of numbers is a [Double] argument, so 4 becomes 4.0.
        #expect(ObjectPredicate.key("a", .in, ["x", 1]) == compare(key("a"), .in, .constant(["x", 1])))
        let nested = (ObjectPredicate.true && .false) && .true
        #expect(nested == .and([.true, .false, .true]))
        let grouped = ObjectPredicate.true && (.false && .true)
        #expect(grouped == .and([.true, .and([.false, .true])]))

        let compared = ObjectPredicate.compare(.key("SELF.place"), .equalTo, .variable("PLACE"), modifier: .direct, options: [])
        #expect(compared == (try ObjectPredicate(format: "place == $PLACE")))
        #expect(ObjectPredicate.key("items.@sum.price", .lessThan, 10.5)
            == compare(.collectionOperator(.sum, of: key("items"), keyPath: ["price"]), .lessThan, .constant(10.5)))
        #expect(ObjectPredicate.key("unique", .equalTo, Int64(5)) == compare(key("unique"), .equalTo, .constant(5)))
    }

    @Test("ObjectExpression.key reads dotted paths with collection operators")
    func keyExpressions() {
        #expect(ObjectExpression.key("place.name") == key("place", "name"))
        #expect(ObjectExpression.key("SELF") == .evaluatedObject)
        #expect(ObjectExpression.key("self.title") == key("title"))
        #expect(ObjectExpression.key("") == .keyPath([]))
        #expect(ObjectExpression.key("tags.@count") == .collectionOperator(.count, of: key("tags"), keyPath: []))
        #expect(ObjectExpression.key("a.@max.b.@sum.c")
            == .collectionOperator(.sum, of: .collectionOperator(.max, of: key("a"), keyPath: ["b"]), keyPath: ["c"]))
        #expect(ObjectExpression.key("@count") == .collectionOperator(.count, of: .keyPath([]), keyPath: []))
        #expect(ObjectExpression.key("a.@unknown") == key("a", "@unknown"))
        #expect(ObjectExpression.value(Date(timeIntervalSinceReferenceDate: 0)) == .constant(.date(Date(timeIntervalSinceReferenceDate: 0))))
        #expect(ObjectExpression.member(of: .variable("t"), keyPath: []).appendingForTest(["x"]) == .member(of: .variable("t"), keyPath: ["x"]))
    }

    @Test("keyPaths lists every path from the evaluated object, once, in order")
    func keyPaths() throws {
        let predicate = try ObjectPredicate(format: """
            SUBQUERY(tags, $t, $t.name == 'sea' AND $t.photos.@count > 1).@count > 0 AND place.name == 'Lisbon' \
            AND items.@sum.price < 3 AND NOT (title == $TITLE OR title == unique) AND SELF == %@ \
            AND SUBQUERY($free, $f, $f.x == 1).@count == 0 AND {a, $v.b}.@count == 2 AND %@.@count == 1 \
            AND SUBQUERY(SUBQUERY(tags, $u, TRUEPREDICATE), $t, $t.y == 1).@count == 0 AND TRUEPREDICATE
            """, 1, [1])
        #expect(predicate.keyPaths == [
            ["tags"], ["tags", "name"], ["tags", "photos"], ["place", "name"], ["items"], ["items", "price"],
            ["title"], ["unique"], ["a"],
        ])
        #expect(predicate.variableNames == ["TITLE", "free", "v"])
        #expect(ObjectPredicate.true.keyPaths.isEmpty)
    }

    @Test("values and evaluation values have literal forms")
    func literalForms() {
        let value: PredicateValue = ["a", 1, 2.5, true, nil, [1]]
        #expect(value == .array([.string("a"), .int(1), .double(2.5), .bool(true), .null, .array([.int(1)])]))
        #expect(value.description == "{\"a\", 1, 2.5, TRUE, nil, {1}}")
        #expect(PredicateValue.null.isNull)
        #expect(!PredicateValue.int(0).isNull)
        let evaluation: [PredicateEvaluationValue] = [nil, true, 1, 2.5, "s", .init(Optional<Int>.none), .null]
        let described = evaluation.map { value -> String in
            if case .value(let constant) = value { return constant.description }
            return "?"
        }
        #expect(described == ["nil", "TRUE", "1", "2.5", "\"s\"", "nil", "nil"])
        #expect(PredicateObjectReference(1) == PredicateObjectReference(1))
        #expect(PredicateObjectReference(1) != PredicateObjectReference(Int64(1)))
        #expect(Set([PredicateObjectReference(1), PredicateObjectReference(1), PredicateObjectReference("1")]).count == 2)
        #expect(PredicateCollectionOperator.allCases.map(\.description) == ["@count", "@sum", "@avg", "@min", "@max"])
        #expect(ComparisonOperator.allCases.filter(\.isStringOperator) == [.beginsWith, .endsWith, .contains, .like, .matches])
        #expect(ObjectPredicateError.Code.allCases.count == 17)
    }
}

extension ObjectExpression {
    /// Spells `appending` through the parser, which is what users can reach.
    func appendingForTest(_ path: [String]) -> ObjectExpression {
        (try? PredicateParser.parseExpression(description + "." + path.joined(separator: "."))) ?? self
    }
}
