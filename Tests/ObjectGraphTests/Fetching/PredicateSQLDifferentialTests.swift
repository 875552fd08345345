import ObjectGraphTestModels
import Foundation
@testable import ObjectGraph
import SQLiteDB
import Testing

/// The store and memory must agree on every predicate and every order, and fail alike on every
/// predicate that cannot run. Set
/// `VACATIONS_DIFFERENTIAL_SEED` to replay a run; a failure prints its seed.
@Suite("Predicate SQL against the in-memory evaluator, on random graphs")
struct PredicateSQLDifferentialTests {
    static let seed: UInt64 = ProcessInfo.processInfo.environment["VACATIONS_DIFFERENTIAL_SEED"].flatMap { UInt64($0) } ?? 0x5EED_2026

    @Test("2,000 random predicates select the same photos in SQL as in memory, or fail with the same error")
    func randomPredicates() throws {
        let seed = Self.seed
        let graph = try DifferentialGraph(seed: seed, photoCount: 120)
        var generator = RandomPredicateGenerator(seed: seed &+ 1, photos: graph.photos.map(\.objectID),
                                                 tags: graph.tags.map(\.objectID), places: graph.places.map(\.objectID))
        var failures: [String] = []
        var nonTrivial = 0
        var refused = 0
        var failed = 0
        for _ in 0..<2_000 {
            let predicate = generator.predicate()
            let sql = DifferentialOutcome { try graph.sqlMatches(predicate) }
            let memory = DifferentialOutcome { try graph.memoryMatches(predicate) }
            switch sql {
            case .matches(let keys): if !keys.isEmpty && keys.count < graph.photos.count { nonTrivial += 1 }
            case .refused: refused += 1
            case .failed: failed += 1
            }
            guard sql != memory else { continue }
            if case .matches(let inSQL) = sql, case .matches(let inMemory) = memory {
                let query = try PredicateSQLCompiler.compile(predicate: predicate, sortDescriptors: [],
                                                             entity: graph.photoEntity, model: TestModels.travel)
                failures.append("""
                    \(predicate)
                      WHERE \(query.whereClause ?? "-") \(query.arguments)
                      only in SQL: \(describe(inSQL.subtracting(inMemory), in: graph))
                      only in memory: \(describe(inMemory.subtracting(inSQL), in: graph))
                    """)
            } else {
                failures.append("\(predicate)\n  SQL: \(sql)\n  memory: \(memory)")
            }
            if failures.count >= 8 { break }
        }
        print("differential predicates, seed \(seed): \(nonTrivial) selecting some photos, \(refused) refused, \(failed) failed running")
        #expect(failures.isEmpty, "seed \(seed):\n\(failures.joined(separator: "\n"))")
        // The generator must not make mostly empty or full selections, and must reach both kinds of error.
        #expect(nonTrivial > 600, "only \(nonTrivial) predicates selected some but not all photos")
        #expect(refused > 100, "only \(refused) predicates were refused")
        #expect(failed > 5, "only \(failed) predicates failed while running")
    }

    @Test("100 random sort descriptor lists order photos the same in SQL as in memory")
    func randomSorts() throws {
        let seed = Self.seed
        let graph = try DifferentialGraph(seed: seed, photoCount: 120)
        var random = SeededGenerator(state: seed &+ 2)
        let keyPaths = ["title", "unique", "dateTaken", "latitude", "place.name", "place.firstVisited", "SELF.title"]
        var failures: [String] = []
        for round in 0..<100 {
            let descriptors = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                ObjectSortDescriptor(keyPaths[Int.random(in: 0..<keyPaths.count, using: &random)], ascending: Bool.random(using: &random),
                               comparison: ObjectSortDescriptor.Comparison.allCases[Int.random(in: 0..<3, using: &random)])
            }
            let sql = try graph.sqlOrder(descriptors)
            let sorted = ObjectSortDescriptor.sorted(graph.photos, by: descriptors).map(\.objectID.primaryKey)
            // The comparator recomputes sort values per comparison; check it on some rounds only.
            let compared = round % 5 == 0
                ? graph.photos.sorted { ObjectSortDescriptor.compare($0, $1, by: descriptors) }.map(\.objectID.primaryKey) : sorted
            if sql != sorted || sql != compared {
                let firstDifference = zip(sql, sorted).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1
                failures.append("\(descriptors): first difference at \(firstDifference)")
            }
            if failures.count >= 5 { break }
        }
        #expect(failures.isEmpty, "seed \(seed):\n\(failures.joined(separator: "\n"))")
    }

    private func describe(_ keys: Set<Int64>, in graph: DifferentialGraph) -> String {
        let photos = graph.photos.filter { keys.contains($0.objectID.primaryKey) }.prefix(3)
        return photos.map { photo in
            let title = (try? photo.storedValue(forKey: "title")).map(\.description) ?? "?"
            return "p\(photo.objectID.primaryKey) title \(title)"
        }.joined(separator: "; ") + (keys.count > 3 ? " (+\(keys.count - 3))" : "")
    }
}
