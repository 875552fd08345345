import Foundation
@testable import ObjectGraph
import SQLiteDB
import Testing
import TestSupport
@testable import Vacations

@Suite("tags: names and counts read as values, the same answer as the Tag objects give")
struct TagCountsQueryTests {
    private func reference(_ context: ObjectContext) throws -> [String] {
        try VacationQueries.tags(in: context).map { "\($0.name) \($0.count)" }
    }

    private func answer(_ context: ObjectContext) throws -> [String] {
        try VacationQueries.tagCounts(in: context).map { "\($0.name) \($0.count)" }
    }

    @Test("random vacations (visits, unvisits, equal counts, names in any script and case) list alike, without Tag objects")
    func randomVacations() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("TagCountsQueryTests.randomVacations seed \(seed)")
        var generator = SplitMix64(seed: seed)
        let vocabulary = ["kyoto", "Kyoto", "temple", "été", "ete", "東京", "zebra", "a", "b b", "z", "Ä", "ä", "sunset", "10", "9"]
        for round in 0..<12 {
            let store = try VacationStore()
            var visited: [String] = []
            for batch in 0..<Int.random(in: 1...4, using: &generator) {
                let drafts = (0..<Int.random(in: 0...40, using: &generator)).map { index -> PhotoDraft in
                    let id = String(batch * 1_000 + index + 1)
                    let tags = (0..<Int.random(in: 0...4, using: &generator)).compactMap { _ in vocabulary.randomElement(using: &generator) }
                    return PhotoDraft(id: id, title: "photo \(id)", tags: tags)
                }
                let context = store.context()
                let editor = VacationEditor(context: context, now: Date(timeIntervalSinceReferenceDate: 1_000_000))
                _ = try editor.visit(drafts)
                visited += drafts.map(\.id)
                let leaving = visited.filter { _ in Int.random(in: 0..<5, using: &generator) == 0 }
                _ = try editor.unvisit(leaving)
                visited.removeAll { leaving.contains($0) }
                try context.save()
            }
            let context = store.context()
            let answer = try answer(context)
            #expect(!context.registeredObjects.contains { $0 is Tag }, "seed \(seed): tagCounts made tag objects")
            #expect(answer == (try reference(store.context())), "seed \(seed), round \(round)")
            #expect(answer.count == (try Int(store.count("SELECT count(*) FROM ZTAG"))))
        }
    }

    @Test("a row the model would not hold as it is goes through the objects: a count that is not whole, a NULL name")
    func oddRowsThroughTheObjects() throws {
        let store = try VacationStore()
        let context = store.context()
        _ = try VacationEditor(context: context, now: Date(timeIntervalSinceReferenceDate: 0))
            .visit([PhotoDraft(id: "1", title: "one", tags: ["a", "b"]), PhotoDraft(id: "2", title: "two", tags: ["a"])])
        try context.save()
        #expect(try answer(store.context()) == ["a 2", "b 1"])
        try store.coordinator.withConnection { try $0.execute("UPDATE ZTAG SET ZCOUNT = 1.5 WHERE ZNAME = 'b'") }
        let fractional = store.context()
        #expect(try answer(fractional) == (try reference(store.context())))
        #expect(fractional.registeredObjects.contains { $0 is Tag })
        try store.coordinator.withConnection { try $0.execute("UPDATE ZTAG SET ZCOUNT = 1, ZNAME = NULL WHERE ZNAME = 'b'") }
        let unnamed = store.context()
        #expect(try answer(unnamed) == (try reference(store.context())))
        #expect(unnamed.registeredObjects.contains { $0 is Tag })
    }
}
