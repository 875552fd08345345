import ObjectGraphTestModels
import Foundation
@testable import ObjectGraph
import SQLiteDB
import Testing

/// Every attribute type (Sample has one of each) compared with constants of every kind and
/// with each other: booleans, 16/32/64-bit integers, floats, decimals, data, UUIDs, URLs.
@Suite("Predicate SQL against the in-memory evaluator, for every attribute type")
struct AttributeTypeDifferentialTests {
    private static let attributes: [(name: String, values: [PredicateValue])] = [
        ("text", DifferentialValues.texts.prefix(12).map(PredicateValue.string)),
        ("optionalText", [.null] + DifferentialValues.texts.suffix(12).map(PredicateValue.string)),
        ("flag", [.bool(false), .bool(true), .int(0), .int(1), .int(2)]),
        ("small", [.int(-3), .int(0), .int(7), .int(Int64(Int16.max)), .double(7.5), .bool(true)]),
        ("medium", [.int(-70_000), .int(1), .int(Int64(Int32.min)), .double(1)]),
        ("large", [.int(9_007_199_254_740_993), .int(9_007_199_254_740_992), .int(.max), .int(.min), .int(-1),
                   .double(9_007_199_254_740_992), .double(9.3e18), .double(-9.3e18)]),
        ("native", [.int(0), .int(42), .double(41.999999)]),
        ("double", [.double(0.1), .double(-0.0), .double(1e300), .double(-2.5), .double(.infinity), .int(3)]),
        ("float", [.double(Double(Float(0.1))), .double(0.1), .double(1.5), .int(-2)]),
        ("decimal", [.string("1.5"), .string("2"), .string("-3.25"), .string("0.1"), .double(1.5), .int(2)]),
        ("date", [.null] + DifferentialValues.dates.prefix(6).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }),
        ("data", [.null, .data(Data()), .data(Data([0])), .data(Data([0, 1])), .data(Data([1])), .data(Data([0xFF, 0]))]),
        ("uuid", [.null] + sampleUUIDs.map { $0.predicateValue }),
        ("url", [.null, .string("https://example.com/a"), .string("https://example.com/B"), .string("file:///tmp/x")]),
    ]

    private static let sampleUUIDs = [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1)),
                                      UUID(uuid: (0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
                                      UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))]

    @Test("1,000 random predicates over every attribute type select the same samples in SQL as in memory")
    func randomPredicates() throws {
        let seed = PredicateSQLDifferentialTests.seed
        var random = SeededGenerator(state: seed &+ 3)
        let store = try TestStore()
        let writer = store.context()
        for _ in 0..<80 {
            let sample = Sample(context: writer)
            sample.required = "r"
            for (name, values) in Self.attributes {
                // Values the attribute cannot hold (9.3e18 for an Int64) serve as constants only.
                try? sample.setStoredValue(Self.stored(values[Int.random(in: 0..<values.count, using: &random)]), forKey: name)
            }
        }
        try writer.save()
        let entity = try #require(TestModels.travel.entity(named: "Sample"))
        let reader = store.context()
        let samples = try writer.registeredObjects.map { try reader.existingObject(with: $0.objectID) }
        var failures: [String] = []
        for _ in 0..<1_000 {
            let predicate = Self.predicate(&random, depth: 0)
            let query = try PredicateSQLCompiler.compile(predicate: predicate, sortDescriptors: [], entity: entity, model: TestModels.travel)
            let sql = "SELECT t0.Z_PK FROM \(query.from)" + (query.whereClause.map { " WHERE " + $0 } ?? "")
            let selected = try store.coordinator.withConnection { connection in
                let statement = try connection.prepare(sql)
                statement.bind(query.arguments)
                var keys = Set<Int64>()
                try statement.forEachRow { keys.insert($0.int64(at: 0)) }
                return keys
            }
            let evaluator = PredicateEvaluator(predicate)
            let expected = Set(try samples.filter { try evaluator.evaluate(with: $0) }.map(\.objectID.primaryKey))
            if selected != expected {
                failures.append("\(predicate)\n  WHERE \(query.whereClause ?? "-") \(query.arguments)\n  only in SQL \(selected.subtracting(expected).count), only in memory \(expected.subtracting(selected).count)")
            }
            if failures.count >= 8 { break }
        }
        #expect(failures.isEmpty, "seed \(seed):\n\(failures.joined(separator: "\n"))")
    }

    /// A value in the stored form of the attribute, as `setStoredValue` converts it.
    private static func stored(_ value: PredicateValue) -> SQLiteValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .integer(flag ? 1 : 0)
        case .int(let number): return .integer(number)
        case .double(let number): return .real(number)
        case .string(let text): return .text(text)
        case .date(let date): return .real(date.timeIntervalSinceReferenceDate)
        case .data(let data): return .blob(data)
        case .array, .object: return .null
        }
    }

    private static func predicate(_ random: inout SeededGenerator, depth: Int) -> ObjectPredicate {
        if depth < 2 && Int.random(in: 0..<4, using: &random) == 0 {
            let operands = (0..<2).map { _ in predicate(&random, depth: depth + 1) }
            switch Int.random(in: 0..<3, using: &random) {
            case 0: return .and(operands)
            case 1: return .or(operands)
            default: return .not(operands[0])
            }
        }
        let names = attributes.map(\.name)
        let name = names[Int.random(in: 0..<names.count, using: &random)]
        let isString = ["text", "optionalText", "url"].contains(name)
        var operators: [ComparisonOperator] = [.equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan,
                                               .greaterThanOrEqualTo, .in, .between]
        if isString { operators += [.beginsWith, .endsWith, .contains, .like] }
        let comparisonOperator = operators[Int.random(in: 0..<operators.count, using: &random)]
        let options = [StringComparisonOptions(), [.caseInsensitive], [.caseInsensitive, .diacriticInsensitive]][Int.random(in: 0..<3, using: &random)]
        if !comparisonOperator.isStringOperator && comparisonOperator != .between && Int.random(in: 0..<4, using: &random) == 0 {
            let other = names[Int.random(in: 0..<names.count, using: &random)]
            return .compare(.key(name), comparisonOperator, .key(other), options: options)
        }
        func constant() -> PredicateValue {
            // Mostly a value of this attribute, sometimes any attribute's: a constant of another kind.
            let source = Int.random(in: 0..<3, using: &random) == 0 ? names[Int.random(in: 0..<names.count, using: &random)] : name
            let values = attributes.first { $0.name == source }?.values ?? [.null]
            return values[Int.random(in: 0..<values.count, using: &random)]
        }
        let value: PredicateValue
        switch comparisonOperator {
        case .in: value = .array((0..<Int.random(in: 0...4, using: &random)).map { _ in constant() })
        case .between: value = .array([constant(), constant()])
        case .beginsWith, .endsWith, .contains, .like:
            let text = constant()
            if case .string(let string) = text, Int.random(in: 0..<2, using: &random) == 0 {
                value = .string(String(string.prefix(Int.random(in: 0...max(0, string.count), using: &random))))
            } else {
                value = text
            }
        default: value = constant()
        }
        return .key(name, comparisonOperator, value, options: options)
    }
}
