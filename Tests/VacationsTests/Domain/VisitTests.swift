import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport
@testable import Vacations

@Suite("Visit, unvisit, toggle: reference-counted tags and places")
struct VisitTests {
    private func draft(_ id: String, tags: [String] = [], place: String? = nil, taken: Double? = nil) -> PhotoDraft {
        PhotoDraft(id: id, title: "photo \(id)", dateTaken: taken.map { Date(timeIntervalSinceReferenceDate: $0) },
                   tags: tags, placeName: place)
    }

    private func run(_ store: VacationStore, _ body: (VacationEditor) throws -> Void) throws {
        let context = store.context()
        try body(VacationEditor(context: context, now: Date(timeIntervalSinceReferenceDate: 1_000)))
        try context.save()
    }

    @Test("visiting links tags and place and counts them; unvisiting the last photo removes them")
    func visitUnvisit() throws {
        let store = try VacationStore()
        try run(store) { _ = try $0.visit([self.draft("1", tags: ["sea", "sun"], place: "Lisbon", taken: 50),
                                           self.draft("2", tags: ["sea"], place: "Lisbon", taken: 20)]) }
        #expect(try store.tagCounts() == ["sea": 2, "sun": 1])
        #expect(try store.placePhotoCounts() == ["Lisbon": 2])
        let place = try #require(store.context().fetch(FetchRequest<Place>()).first)
        #expect(place.firstVisited == Date(timeIntervalSinceReferenceDate: 20))
        try run(store) { editor in let found = try editor.unvisit(["2"]); #expect(found == ["2"]) }
        #expect(try store.tagCounts() == ["sea": 1, "sun": 1])
        #expect(try store.context().fetch(FetchRequest<Place>()).first?.firstVisited == Date(timeIntervalSinceReferenceDate: 50))
        try run(store) { editor in let found = try editor.unvisit(["1", "404"]); #expect(found == ["1"]) }
        #expect(try store.tagCounts() == [:])
        #expect(try store.placePhotoCounts() == [:])
        #expect(try store.count("SELECT count(*) FROM Z_2TAGS") == 0)
        #expect(try store.problems() == [])
    }

    @Test("toggling visits an absent photo and unvisits a present one")
    func toggle() throws {
        let store = try VacationStore()
        let photo = draft("7", tags: ["fado"], place: "Alfama")
        try run(store) { editor in let outcome = try editor.toggle(photo); #expect(outcome == .visited) }
        #expect(try store.photos().map(\.unique) == ["7"])
        try run(store) { editor in let outcome = try editor.toggle(photo); #expect(outcome == .unvisited) }
        #expect(try store.photos().isEmpty)
        #expect(try store.tagCounts().isEmpty && store.placePhotoCounts().isEmpty)
    }

    @Test("moving a photo to another place deletes the place it leaves empty; a feed naming no place keeps it")
    func movePlace() throws {
        let store = try VacationStore()
        try run(store) { _ = try $0.visit([self.draft("1", place: "Porto")]) }
        try run(store) { editor in let outcomes = try editor.visit([self.draft("1", place: "Gaia")]); #expect(outcomes.map(\.outcome) == [.updated]) }
        #expect(try store.placePhotoCounts() == ["Gaia": 1])
        try run(store) { editor in let outcomes = try editor.visit([self.draft("1")]); #expect(outcomes.map(\.outcome) == [.unchanged]) }
        #expect(try store.placePhotoCounts() == ["Gaia": 1])
        #expect(try store.problems() == [])
    }

    @Test("a tag dropped by one photo and taken by another in one batch survives with the right count")
    func tagHandOver() throws {
        let store = try VacationStore()
        try run(store) { _ = try $0.visit([self.draft("1", tags: ["dusk"])]) }
        try run(store) { _ = try $0.visit([self.draft("1", tags: []), self.draft("2", tags: ["dusk"])]) }
        #expect(try store.tagCounts() == ["dusk": 1])
        #expect(try store.problems() == [])
    }

    @Test("random visit, unvisit, toggle and re-import sequences keep every invariant after every save")
    func randomSequences() throws {
        var generator = SeededGenerator(seed: 0x5EED)
        let store = try VacationStore()
        var expected: [String: PhotoDraft] = [:]
        let tagPool = ["sea", "sun", "fado", "tram", "dusk", "café", "東京", "🌊"]
        let placePool = ["Lisbon", "Porto", "Kyoto", nil]
        for step in 0..<120 {
            let batch = (0..<Int.random(in: 1...6, using: &generator)).map { _ -> PhotoDraft in
                let id = String(Int.random(in: 1...25, using: &generator))
                let tags = tagPool.filter { _ in Int.random(in: 0..<4, using: &generator) == 0 }
                return draft(id, tags: tags, place: placePool.randomElement(using: &generator) ?? nil,
                             taken: Double(Int.random(in: 0...1000, using: &generator)))
            }
            let operation = Int.random(in: 0..<3, using: &generator)
            try run(store) { editor in
                switch operation {
                case 0:
                    _ = try editor.visit(batch)
                    for var draft in batch {
                        // A draft without a place keeps the place the photo has.
                        if draft.placeName == nil { draft.placeName = expected[draft.id]?.placeName }
                        expected[draft.id] = draft
                    }
                case 1:
                    let ids = batch.map(\.id)
                    try editor.unvisit(ids)
                    for id in ids { expected[id] = nil }
                default:
                    let draft = batch[0]
                    let outcome = try editor.toggle(draft)
                    #expect(outcome == (expected[draft.id] == nil ? .visited : .unvisited))
                    expected[draft.id] = expected[draft.id] == nil ? draft : nil
                }
            }
            #expect(try store.problems() == [], "step \(step)")
            var counts: [String: Int64] = [:]
            for draft in expected.values { for tag in draft.tags { counts[tag, default: 0] += 1 } }
            #expect(try store.tagCounts() == counts, "step \(step)")
            var places: [String: Int] = [:]
            for draft in expected.values { if let place = draft.placeName { places[place, default: 0] += 1 } }
            #expect(try store.placePhotoCounts() == places, "step \(step)")
            #expect(Set(try store.photos().map(\.unique)) == Set(expected.keys), "step \(step)")
        }
    }
}

/// SplitMix64, seeded (TestSupport).
typealias SeededGenerator = SplitMix64
