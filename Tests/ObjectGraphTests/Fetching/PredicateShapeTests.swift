import Foundation
@testable import ObjectGraph
import ObjectGraphTestModels
import SQLiteDB
import Testing

/// The store keeps one compiled query per predicate shape and binds each predicate's own
/// constants into it (`PredicateShape`): a query kept for one predicate must never answer
/// another with the first one's constants or SQL. Set `VACATIONS_DIFFERENTIAL_SEED` to replay.
@Suite("Compiled queries kept by predicate shape")
struct PredicateShapeTests {
    /// The query the store's cache gives for `predicate` (compiling, keeping or binding it).
    private func cachedQuery(_ predicate: ObjectPredicate, in graph: DifferentialGraph) throws -> SQLFetchQuery {
        try graph.store.coordinator.withStore { store throws(any Error) in
            try store.compiledQuery(entity: graph.photoEntity, predicate: predicate, sortDescriptors: [])
        }
    }

    /// The photos the cache's query for `predicate` selects.
    private func cachedMatches(_ predicate: ObjectPredicate, in graph: DifferentialGraph) throws -> Set<Int64> {
        try PredicateSQLCompiler.validate(predicate: predicate, sortDescriptors: [], entity: graph.photoEntity, model: TestModels.travel)
        let query = try cachedQuery(predicate, in: graph)
        let sql = "SELECT t0.Z_PK FROM \(query.from)" + (query.whereClause.map { " WHERE " + $0 } ?? "")
        return try graph.store.coordinator.withConnection { connection in
            let statement = try connection.prepare(sql)
            statement.bind(query.arguments)
            var keys = Set<Int64>()
            try statement.forEachRow { keys.insert($0.int64(at: 0)) }
            return keys
        }
    }

    private func cachedCount(_ graph: DifferentialGraph) -> Int {
        graph.store.coordinator.withStore { $0.compiledQueries.count }
    }

    @Test("2,000 random predicates, each refilled three times with other constants, get from the cache exactly the query compiled on its own, and select what it selects")
    func refilledPredicates() throws {
        let seed = PredicateSQLDifferentialTests.seed
        let graph = try DifferentialGraph(seed: seed, photoCount: 120)
        var generator = RandomPredicateGenerator(seed: seed &+ 11, photos: graph.photos.map(\.objectID),
                                                 tags: graph.tags.map(\.objectID), places: graph.places.map(\.objectID))
        var refiller = ConstantRefiller(seed: seed &+ 12, graph: graph)
        var failures: [String] = []
        var templated = 0
        for _ in 0..<2_000 {
            let original = generator.predicate()
            for predicate in [original] + (0..<3).map({ _ in refiller.refill(original) }) {
                if PredicateShape(predicate) != nil { templated += 1 }
                let direct = Result { try PredicateSQLCompiler.compile(predicate: predicate, sortDescriptors: [], entity: graph.photoEntity,
                                                                       model: TestModels.travel) }
                let cached = Result { try cachedQuery(predicate, in: graph) }
                switch (direct, cached) {
                case (.success(let expected), .success(let got)) where expected == got:
                    break
                case (.failure(let expected), .failure(let got)) where "\(expected)" == "\(got)":
                    break
                default:
                    failures.append("\(predicate)\n  compiled: \(direct)\n  cached: \(cached)")
                }
                // Against the query compiled on its own, not memory: where those two differ is the
                // compiler's business (`PredicateSQLDifferentialTests`), not the cache's.
                let sql = DifferentialOutcome { try cachedMatches(predicate, in: graph) }
                let compiled = DifferentialOutcome { try graph.sqlMatches(predicate) }
                if sql != compiled { failures.append("\(predicate)\n  cached SQL: \(sql)\n  compiled: \(compiled)") }
            }
            if failures.count >= 8 { break }
        }
        print("predicate shapes, seed \(seed): \(templated) of 8,000 predicates had a shape")
        #expect(failures.isEmpty, "seed \(seed):\n\(failures.joined(separator: "\n"))")
        // Enough of them must go through templates for the comparison to mean something.
        #expect(templated > 500, "only \(templated) predicates had a shape")
    }

    @Test("predicates of one shape with different constants select different photos, each its own")
    func sameShapeDifferentConstants() throws {
        let graph = try DifferentialGraph(seed: PredicateSQLDifferentialTests.seed, photoCount: 120)
        let uniques = graph.photos.compactMap { ($0 as? Photo)?.unique }
        let titles = Set(graph.photos.compactMap { ($0 as? Photo)?.title }).sorted()
        let places = graph.places.map { PredicateValue.object(PredicateObjectReference($0.objectID)) }
        var cases: [ObjectPredicate] = []
        for unique in uniques.prefix(30) {
            cases.append(.key("unique", .equalTo, .string(unique)))
            cases.append(.key("unique", .in, .array([.string(unique)])))
            cases.append(.key("unique", .notEqualTo, .string(unique)))
        }
        for (index, title) in titles.enumerated() {
            cases.append(.key("title", .in, .array([.string(title), .string(titles[(index + 7) % titles.count])])))
            cases.append(.key("title", .lessThan, .string(title)))
            // Same operator, other forms: folded, prefix, substring (their SQL depends on the value).
            cases.append(.comparison(PredicateComparison(.keyPath(["title"]), .equalTo, .constant(.string(title)), options: [.caseInsensitive])))
            cases.append(.comparison(PredicateComparison(.keyPath(["title"]), .beginsWith, .constant(.string(title)))))
            cases.append(.comparison(PredicateComparison(.keyPath(["title"]), .contains, .constant(.string(title)))))
        }
        for place in places {
            cases.append(.key("place", .equalTo, place))
            cases.append(.key("place", .in, .array([place, .null])))
        }
        for latitude in DifferentialValues.doubles + [.nan, .infinity, -.infinity] {
            cases.append(.key("latitude", .greaterThan, .double(latitude)))
            cases.append(.key("latitude", .in, .array([.double(latitude), .double(latitude + 1)])))
        }
        for seconds in DifferentialValues.dates {
            cases.append(.key("dateTaken", .lessThanOrEqualTo, .date(Date(timeIntervalSinceReferenceDate: seconds))))
        }
        for value in [PredicateValue.null, .string("x"), .int(1), .bool(true), .bool(false)] {
            cases.append(.key("title", .equalTo, value))
            cases.append(.key("place", .equalTo, value))
        }
        // Lists with repeats (the compiler drops them) beside lists of the same length without.
        cases.append(.key("title", .in, .array([.string(titles[0]), .string(titles[0])])))
        cases.append(.key("title", .in, .array([.string(titles[1]), .string(titles[2])])))
        cases.append(.key("latitude", .in, .array([.int(1), .double(1)])))
        var failures: [String] = []
        var distinct = Set<Set<Int64>>()
        // Twice over: the second pass meets every shape kept.
        for predicate in cases + cases {
            let sql = DifferentialOutcome { try cachedMatches(predicate, in: graph) }
            let memory = DifferentialOutcome { try graph.memoryMatches(predicate) }
            if sql != memory { failures.append("\(predicate)\n  cached SQL: \(sql)\n  memory: \(memory)") }
            if case .matches(let keys) = sql { distinct.insert(keys) }
        }
        #expect(failures.isEmpty, "\(failures.prefix(8).joined(separator: "\n"))")
        #expect(distinct.count > 100, "only \(distinct.count) different selections")
    }

    @Test("lookups by one id or a few names keep one query per shape, and other predicates are kept by their values as before")
    func oneEntryPerShape() throws {
        let graph = try DifferentialGraph(seed: PredicateSQLDifferentialTests.seed, photoCount: 40)
        let start = cachedCount(graph)
        for photo in graph.photos {
            let unique = try #require((photo as? Photo)?.unique)
            #expect(try cachedMatches(.key("unique", .in, .array([.string(unique)])), in: graph) == [photo.objectID.primaryKey])
        }
        #expect(cachedCount(graph) == start + 1)
        for length in 1...4 {
            for first in 0..<5 {
                let names = (first..<first + length).map { PredicateValue.string(DifferentialValues.names[$0]) }
                _ = try cachedQuery(.key("place.name", .in, .array(names)), in: graph)
            }
        }
        #expect(cachedCount(graph) == start + 5)
        // Folded comparisons bind values made from the constant: kept by value, one each.
        for name in DifferentialValues.names.prefix(6) {
            _ = try cachedQuery(.comparison(PredicateComparison(.keyPath(["title"]), .equalTo, .constant(.string(name)),
                                                                options: [.caseInsensitive])), in: graph)
        }
        #expect(cachedCount(graph) == start + 11)
        // nil and a value are two shapes (IS NULL against = ?).
        _ = try cachedQuery(.key("title", .equalTo, .null), in: graph)
        _ = try cachedQuery(.key("title", .equalTo, .string("y")), in: graph)
        #expect(cachedCount(graph) == start + 13)
    }

    @Test("shapes are made only where the SQL cannot depend on the constants' values")
    func whatHasAShape() {
        let objectID = ObjectID(entityNumber: 1, primaryKey: 4)
        let cases: [(ObjectPredicate, Bool)] = [
            (.key("title", .equalTo, .string("a")), true),
            (.key("title", .in, .array((0..<16).map { .int(Int64($0)) })), true),
            (.key("title", .in, .array((0..<17).map { .int(Int64($0)) })), false),
            (.key("title", .in, .array([.int(1), .int(1)])), false),
            (.key("title", .in, .array([.null, .null])), false),
            (.key("title", .in, .string("abc")), false),
            (.key("latitude", .equalTo, .double(.nan)), false),
            (.key("latitude", .in, .array([.double(1), .double(.nan)])), false),
            (.key("place", .equalTo, .object(PredicateObjectReference(objectID))), true),
            (.key("place", .equalTo, .object(PredicateObjectReference("not an ID"))), false),
            (.comparison(PredicateComparison(.keyPath(["title"]), .equalTo, .constant(.string("a")), options: [.caseInsensitive])), false),
            (.comparison(PredicateComparison(.keyPath(["title"]), .beginsWith, .constant(.string("a")))), false),
            (.comparison(PredicateComparison(.constant(.string("a")), .equalTo, .keyPath(["title"]))), false),
            (.comparison(PredicateComparison(.keyPath(["title"]), .equalTo, .keyPath(["unique"]))), false),
            (.and([.key("title", .equalTo, .null), .not(.key("count", .greaterThan, .bool(true)))]), true),
            (.or([.key("title", .equalTo, .string("a")), .key("title", .like, .string("a*"))]), false),
            (.true, true),
        ]
        for (index, (predicate, expected)) in cases.enumerated() {
            #expect((PredicateShape(predicate) != nil) == expected, "case \(index): \(predicate)")
        }
        // Booleans and nil stay in the shape; everything else is a stand-in.
        let first = PredicateShape(.and([.key("a", .equalTo, .bool(true)), .key("b", .equalTo, .string("x")), .key("c", .equalTo, .null)]))
        let second = PredicateShape(.and([.key("a", .equalTo, .bool(true)), .key("b", .equalTo, .string("y")), .key("c", .equalTo, .null)]))
        let third = PredicateShape(.and([.key("a", .equalTo, .bool(false)), .key("b", .equalTo, .string("y")), .key("c", .equalTo, .null)]))
        #expect(first?.standIn == second?.standIn)
        #expect(first?.values == [.text("x")] && second?.values == [.text("y")])
        #expect(second?.standIn != third?.standIn)
    }
}

/// Replaces a predicate's constants with others, mostly of the same kind (sometimes nil, NaN,
/// an empty or folded string, a repeated or longer list), keeping its shape or not.
struct ConstantRefiller {
    var random: SeededGenerator
    let graph: DifferentialGraph

    init(seed: UInt64, graph: DifferentialGraph) {
        random = SeededGenerator(state: seed)
        self.graph = graph
    }

    mutating func chance(_ oneIn: Int) -> Bool { Int.random(in: 0..<oneIn, using: &random) == 0 }

    mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &random)] }

    mutating func refill(_ predicate: ObjectPredicate) -> ObjectPredicate {
        switch predicate {
        case .true, .false: return predicate
        case .and(let operands): return .and(operands.map { refill($0) })
        case .or(let operands): return .or(operands.map { refill($0) })
        case .not(let operand): return .not(refill(operand))
        case .comparison(var comparison):
            comparison.lhs = refill(comparison.lhs)
            comparison.rhs = refill(comparison.rhs)
            return .comparison(comparison)
        }
    }

    private mutating func refill(_ expression: ObjectExpression) -> ObjectExpression {
        switch expression {
        case .constant(let value): return .constant(refill(value))
        case .keyPath, .variable: return expression
        case .member(let base, let path): return .member(of: refill(base), keyPath: path)
        case .aggregate(let elements): return .aggregate(elements.map { refill($0) })
        case .collectionOperator(let collectionOperator, let base, let path):
            return .collectionOperator(collectionOperator, of: refill(base), keyPath: path)
        case .subquery(let collection, let variable, let predicate):
            return .subquery(collection: refill(collection), variable: variable, predicate: refill(predicate))
        }
    }

    private mutating func refill(_ value: PredicateValue) -> PredicateValue {
        if chance(20) { return .null }
        switch value {
        case .null: return chance(3) ? .string(pick(DifferentialValues.names)) : .null
        case .bool: return .bool(chance(2))
        case .int: return .int(pick(DifferentialValues.integers))
        case .double: return .double(chance(10) ? pick([.nan, .infinity, -0.0]) : pick(DifferentialValues.doubles))
        case .string: return .string(chance(8) ? pick(["", "\u{10FFFF}", "a\u{10FFFF}", "A", "É"]) : pick(DifferentialValues.texts + DifferentialValues.names))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: pick(DifferentialValues.dates)))
        case .data: return .data(Data((0..<Int.random(in: 0...3, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }))
        case .object(let reference):
            guard let id = reference.base as? ObjectID else { return value }
            let candidates = (graph.photos + graph.tags + graph.places).map(\.objectID).filter { $0.entityNumber == id.entityNumber }
            return candidates.isEmpty ? value : .object(PredicateObjectReference(pick(candidates)))
        case .array(var items):
            items = items.map { refill($0) }
            if let first = items.first, chance(6) { items.append(first) }
            if chance(8) { items.append(refill(items.first ?? .int(1))) }
            return .array(items)
        }
    }
}
