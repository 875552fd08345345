import Foundation
import ObjectGraph
import Testing

@Suite("ObjectPredicate parser: errors name what and where")
struct PredicateErrorTests {
    @Test("unexpected tokens say what was expected", arguments: [
        ("title == AND x", "Unexpected 'AND' at position 9: expected an expression"),
        ("", "Unexpected end of format at position 0: expected an expression"),
        ("   ", "Unexpected end of format at position 3: expected an expression"),
        ("title ==", "Unexpected end of format at position 8: expected an expression"),
        ("title", "Unexpected end of format at position 5: expected a comparison operator"),
        ("title 'x'", "Unexpected '\"x\"' at position 6: expected a comparison operator".replacingOccurrences(of: "\"x\"", with: "'x'")),
        ("a == 1 b", "Unexpected 'b' at position 7: expected AND, OR or end of format"),
        ("a == 1)", "Unexpected ')' at position 6: expected AND, OR or end of format"),
        ("(a == 1", "Unexpected end of format at position 7: expected ')'"),
        ("(a == 1 b", "Unexpected 'b' at position 8: expected ')'"),
        ("a == -x", "Unexpected 'x' at position 6: expected a number"),
        ("a == -", "Unexpected end of format at position 6: expected a number"),
        ("tags.@count.name == 1", "Unexpected 'name' at position 12: expected a collection operator after @count"),
        ("a. == 1", "Unexpected '==' at position 3: expected a key"),
        ("a.", "Unexpected end of format at position 2: expected a key"),
        ("a.5 == 1", "Unexpected '5' at position 2: expected a key"),
        ("a IN {1 2}", "Unexpected '2' at position 8: expected ',' or '}'"),
        ("a IN {1,", "Unexpected end of format at position 8: expected an expression"),
        ("SUBQUERY(tags, t, t.name == 1).@count > 0", "Unexpected 't' at position 15: expected a variable"),
        ("SUBQUERY tags", "Unexpected 'tags' at position 9: expected '('"),
        ("SUBQUERY(tags $t", "Unexpected '$t' at position 14: expected ','"),
        ("SUBQUERY(tags, $t, TRUEPREDICATE", "Unexpected end of format at position 32: expected ')'"),
        ("CAST(1, NSDate) == a", "Unexpected 'NSDate' at position 8: expected a class name string"),
        ("ANY", "Unexpected end of format at position 3: expected an expression"),
        ("NOT", "Unexpected end of format at position 3: expected an expression"),
        ("a == 1 AND", "Unexpected end of format at position 10: expected an expression"),
        ("a == 1 OR OR b == 2", "Unexpected 'OR' at position 10: expected an expression"),
        ("a [c] 'x'", "Unexpected '[c]' at position 2: expected a comparison operator"),
        ("a == 'x' [c]", "Unexpected '[c]' at position 9: expected AND, OR or end of format"),
        ("a == 'a' 'very long string that goes on and on and on'",
         "Unexpected ''very long string that goes on and on an…' at position 9: expected AND, OR or end of format"),
    ])
    func unexpectedTokens(format: String, message: String) {
        #expect(errorMessage(format) == message)
    }

    @Test("lexical errors", arguments: [
        ("title == 'abc", "Unterminated string starting at position 9"),
        ("a == \"x\\", "Unterminated string starting at position 5"),
        ("a == 'it\\'s", "Unterminated string starting at position 5"),
        ("a == 'x\\q'", "Invalid escape '\\q' in string at position 7"),
        ("a == 'x\\12'", "Invalid escape '\\1' in string at position 7"),
        ("a == 'x\\8'", "Invalid escape '\\8' in string at position 7"),
        ("a == 'x\\x4'", "Invalid escape '\\x' in string at position 7"),
        ("a == 'x\\xg0'", "Invalid escape '\\x' in string at position 7"),
        ("a == 'x\\U12'", "Invalid escape '\\U12' in string at position 7"),
        ("a == 'x\\u12'", "Invalid escape '\\u12' in string at position 7"),
        ("a == '\\u{}'", "Invalid escape '\\u{}' in string at position 6"),
        ("a == '\\u{110000}'", "Invalid escape '\\u{110000}' in string at position 6"),
        ("a == '\\u{123456789}'", "Invalid escape '\\u{123456789}' in string at position 6"),
        ("a == '\\u{zz}'", "Invalid escape '\\u{zz}' in string at position 6"),
        ("a == '\\ud83d'", "Invalid escape '\\ud83d' in string at position 6"),
        ("a == '\\udc00'", "Invalid escape '\\udc00' in string at position 6"),
        ("a == '\\ud83d\\u0041'", "Invalid escape '\\ud83d\\u0041' in string at position 6"),
        ("a == '\\ud83d\\uzz'", "Invalid escape '\\u' in string at position 12"),
        ("a == 0x", "Invalid number '0x' at position 5"),
        ("a == 0xZ1", "Invalid number '0xZ1' at position 5"),
        ("a == 0b102", "Invalid number '0b102' at position 5"),
        ("a == 0x1FFFFFFFFFFFFFFFF", "Invalid number '0x1FFFFFFFFFFFFFFFF' at position 5"),
        ("a == 12abc", "Invalid number '12abc' at position 5"),
        ("a == 1e5x", "Invalid number '1e5x' at position 5"),
        ("a == 1e", "Invalid number '1e' at position 5"),
        ("a == 1e999", "Invalid number '1e999' at position 5"),
        ("a ^ 1", "Unexpected character '^' at position 2"),
        ("a == 1 & b == 2", "Unexpected character '&' at position 7"),
        ("a == 1 | b == 2", "Unexpected character '|' at position 7"),
        ("a == $", "Unexpected character '$' at position 5"),
        ("a == $1", "Unexpected character '$' at position 5"),
        ("a.@ == 1", "Unexpected character '@' at position 2"),
        ("# == 1", "Unexpected character '#' at position 0"),
        ("a == \u{0}", "Unexpected character '\\u{0}' at position 5"),
        ("a ==\u{200B}1", "Unexpected character '\\u{200B}' at position 4"),
        ("café == 'x' ¿", "Unexpected character '¿' at position 12"),
    ])
    func lexicalErrors(format: String, message: String) {
        #expect(errorMessage(format) == message)
    }

    @Test("string options must be [c], [d] or [cd]", arguments: [
        ("title BEGINSWITH[x] 'a'", "Unknown string option '[x]' at position 16"),
        ("title ==[] 'a'", "Unknown string option '[]' at position 8"),
        ("title ==[c!] 'a'", "Unknown string option '[c!]' at position 8"),
        ("title ==[cl] 'a'", "Unknown string option '[cl]' at position 8"),
        ("title ==[c 'a'", "Unterminated string option starting at position 8"),
        ("title ==[c", "Unterminated string option starting at position 8"),
        ("title ==[c[d]] 'a'", "Unterminated string option starting at position 8"),
    ])
    func stringOptionErrors(format: String, message: String) {
        #expect(errorMessage(format) == message)
    }

    @Test("format specifiers and their arguments are checked")
    func argumentErrors() {
        #expect(errorMessage("unique == %@") == "Too few arguments for format: %@ at position 10")
        #expect(errorMessage("a == %@ AND b == %lld", ["x"]) == "Too few arguments for format: %lld at position 17")
        #expect(errorMessage("a == %x", [1]) == "Unknown format specifier '%x' at position 5")
        #expect(errorMessage("a == %lx", [1]) == "Unknown format specifier '%lx' at position 5")
        #expect(errorMessage("a == %") == "Unknown format specifier '%' at position 5")
        #expect(errorMessage("a == % d") == "Unknown format specifier '%' at position 5")
        #expect(errorMessage("a == %lll", [1]) == "Unknown format specifier '%lll' at position 5")
        #expect(errorMessage("%K == 1", [5]) == "Invalid argument 1 for %K at position 0: expected a key path string, got 5")
        #expect(errorMessage("%K == 1", [""]) == "Invalid argument 1 for %K at position 0: expected a key path string, got \"\"")
        #expect(errorMessage("%K == 1", ["a..b"]) == "Invalid argument 1 for %K at position 0: expected a key path string, got \"a..b\"")
        #expect(errorMessage("a == %@ AND b == %d", [1, "two"])
            == "Invalid argument 2 for %d at position 17: expected an integer, got \"two\"")
        #expect(errorMessage("a == %d", [1.5]) == "Invalid argument 1 for %d at position 5: expected an integer, got 1.5")
        #expect(errorMessage("a == %f", ["x"]) == "Invalid argument 1 for %f at position 5: expected a number, got \"x\"")
        #expect(errorMessage("a == %s", [1]) == "Invalid argument 1 for %s at position 5: expected a string, got 1")
    }

    @Test("collection operators, BETWEEN bounds and CAST are checked")
    func semanticErrors() {
        #expect(errorMessage("tags.@size > 1") == "Unknown collection operator '@size' at position 5")
        #expect(errorMessage("a BETWEEN {1}") == "BETWEEN needs two bounds {lower, upper} at position 10")
        #expect(errorMessage("a BETWEEN {1, 2, 3}") == "BETWEEN needs two bounds {lower, upper} at position 10")
        #expect(errorMessage("a BETWEEN 5") == "BETWEEN needs two bounds {lower, upper} at position 10")
        #expect(errorMessage("a BETWEEN {b}") == "BETWEEN needs two bounds {lower, upper} at position 10")
        #expect(errorMessage("a BETWEEN %@", [[1]]) == "BETWEEN needs two bounds {lower, upper} at position 10")
        #expect(errorMessage("a == CAST(b, 'NSDate')") == "CAST needs a constant value at position 10")
        #expect(errorMessage("a == CAST('x', 'NSDate')") == "Cannot CAST \"x\" to NSDate at position 5")
        #expect(errorMessage("a == CAST('x', 'NSNumber')") == "Cannot CAST \"x\" to NSNumber at position 5")
        #expect(errorMessage("a == CAST('!', 'NSData')") == "Cannot CAST \"!\" to NSData at position 5")
        #expect(errorMessage("a == CAST(1.5, 'NSString')") == "Cannot CAST 1.5 to NSString at position 5")
        #expect(errorMessage("a == CAST(1, 'NSFoo')") == "Unsupported CAST to 'NSFoo' at position 5")
    }

    @Test("a lone expression must end where the expression ends")
    func expressionErrors() {
        do {
            _ = try PredicateParser.parseExpression("a b")
            Issue.record("parsed")
        } catch {
            #expect(error.description == "Unexpected 'b' at position 2: expected end of format")
        }
        #expect((try? PredicateParser.parseExpression("a", arguments: [1])) == .keyPath(["a"]))
    }

    @Test("errors carry their code and position")
    func errorFields() {
        guard case .failure(let error) = parseResult("title BEGINSWITH[x] 'a'") else {
            Issue.record("parsed")
            return
        }
        #expect(error.code == .unknownStringOption)
        #expect(error.position == 16)
        #expect("\(error)" == "Unknown string option '[x]' at position 16")
        guard case .failure(let missing) = parseResult("a == %@ OR b == %@", [1]) else {
            Issue.record("parsed")
            return
        }
        #expect(missing.code == .tooFewArguments)
        #expect(missing.position == 16)
    }

    @Test("nesting deeper than the limit fails at the first level too many")
    func nestingLimit() {
        let limit = ObjectPredicateError.maximumNestingDepth
        let deepest = String(repeating: "(", count: limit) + "a == 1" + String(repeating: ")", count: limit)
        #expect(errorMessage(deepest).hasPrefix("parsed as a == 1"))
        let tooDeep = String(repeating: "(", count: limit + 1) + "a == 1" + String(repeating: ")", count: limit + 1)
        #expect(errorMessage(tooDeep) == "Nesting deeper than 200 levels at position 200")
        #expect(errorMessage(String(repeating: "(", count: 100_000)) == "Nesting deeper than 200 levels at position 200")
        #expect(errorMessage(String(repeating: "NOT ", count: 100_000)) == "Nesting deeper than 200 levels at position 800")
        #expect(errorMessage(String(repeating: "!", count: 100_000)) == "Nesting deeper than 200 levels at position 200")
        #expect(errorMessage("a IN " + String(repeating: "{", count: 100_000)) == "Nesting deeper than 200 levels at position 205")
        #expect(errorMessage("a == " + String(repeating: "CAST(", count: 1000)) == "Nesting deeper than 200 levels at position 1005")
        let subqueries = String(repeating: "SUBQUERY(a, $x, ", count: 1000)
        #expect(errorMessage(subqueries) == "Nesting deeper than 200 levels at position 3200")
        let operators = "a" + String(repeating: ".@count", count: 10_000) + " == 1"
        #expect(errorMessage(operators) == "Nesting deeper than 200 levels at position 1402")
        let fitting = "a" + String(repeating: ".@sum", count: 200) + " == 1"
        #expect(errorMessage(fitting).hasPrefix("parsed as a.@sum.@sum"))
        let mixed = String(repeating: "(NOT {", count: 100)
        #expect(errorMessage(mixed) == "Unexpected '(' at position 6: expected an expression")
        let mixedDeep = String(repeating: "NOT (", count: 101)
        #expect(errorMessage(mixedDeep) == "Nesting deeper than 200 levels at position 500")
    }
}
