import Foundation
@testable import ObjectGraph
import SQLiteDB
import Testing
import TestSupport
@testable import Vacations

@Suite("places: counts from one aggregate query, the same answer as counting each place's photo objects")
struct PlacesQueryTests {
    /// The answer as `places` gave it before it counted in SQL: every place's photos made as
    /// objects and counted, in the same itinerary order.
    private func reference(_ context: ObjectContext) throws -> [PlaceSummary] {
        let places = try context.fetch(FetchRequest<Place>(sortedBy: [ObjectSortDescriptor("firstVisited"), ObjectSortDescriptor("name")]))
        try context.prefetch("photos", of: places)
        let summaries = places.map { PlaceSummary(name: $0.name, photos: $0.photos.count, firstVisited: $0.firstVisited) }
        return summaries.filter { $0.firstVisited != nil } + summaries.filter { $0.firstVisited == nil }
    }

    @Test("random vacations (visits, unvisits, photos without a place or a date, places edited by hand) count alike")
    func randomVacations() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("PlacesQueryTests.randomVacations seed \(seed)")
        var generator = SplitMix64(seed: seed)
        for round in 0..<12 {
            let store = try VacationStore()
            let placeNames = (0..<Int.random(in: 1...9, using: &generator)).map { "Place \($0)" }
            var visited: [String] = []
            for batch in 0..<Int.random(in: 1...4, using: &generator) {
                let drafts = (0..<Int.random(in: 0...40, using: &generator)).map { index -> PhotoDraft in
                    let id = String(batch * 1_000 + index + 1)
                    // Some photos have no place, some no date: their places sort last.
                    let place = Int.random(in: 0..<5, using: &generator) == 0 ? nil : placeNames.randomElement(using: &generator)
                    let taken = Int.random(in: 0..<4, using: &generator) == 0 ? nil
                        : Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...50, using: &generator)) * 3_600)
                    return PhotoDraft(id: id, title: "photo \(id)", dateTaken: taken, tags: ["t\(index % 3)"], placeName: place)
                }
                let context = store.context()
                let editor = VacationEditor(context: context, now: Date(timeIntervalSinceReferenceDate: 1_000_000))
                _ = try editor.visit(drafts)
                visited += drafts.map(\.id)
                let leaving = visited.filter { _ in Int.random(in: 0..<6, using: &generator) == 0 }
                _ = try editor.unvisit(leaving)
                visited.removeAll { leaving.contains($0) }
                try context.save()
            }
            if round % 3 == 0 {
                // What a hand edit can leave: a place without photos or a date, a date taken away.
                try store.coordinator.withConnection { connection in
                    try connection.execute("INSERT INTO ZPLACE (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (9000, 3, 1, 'Empty')")
                    try connection.execute("UPDATE ZPLACE SET ZFIRSTVISITED = NULL WHERE Z_PK = (SELECT min(Z_PK) FROM ZPLACE)")
                }
            }
            let context = store.context()
            let places = try VacationQueries.places(in: context)
            #expect(!context.registeredObjects.contains { $0 is Photo }, "seed \(seed): places made photo objects")
            #expect(places == (try reference(store.context())), "seed \(seed), round \(round)")
            #expect(places.map(\.photos).reduce(0, +) == (try Int(store.count("SELECT count(*) FROM ZPHOTO WHERE ZPLACE IS NOT NULL"))))
        }
    }

    @Test("a vacation without places has none; every place of the sample trip is counted")
    func edges() throws {
        let empty = try VacationStore()
        #expect(try VacationQueries.places(in: empty.context()) == [])
        let store = try VacationStore()
        _ = store.importFeeds([SampleFeeds.url("lisbon-porto.xml"), SampleFeeds.url("kyoto.json")])
        let places = try VacationQueries.places(in: store.context())
        #expect(!places.isEmpty)
        #expect(places == (try reference(store.context())))
        #expect(Dictionary(uniqueKeysWithValues: places.map { ($0.name, $0.photos) }) == (try store.placePhotoCounts()))
    }

    @Test("an unvisit of saved photos sets each place's first visit from two grouped queries, as walking its photos would")
    func unvisitFirstVisits() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("PlacesQueryTests.unvisitFirstVisits seed \(seed)")
        var generator = SplitMix64(seed: seed)
        for round in 0..<10 {
            let store = try VacationStore()
            let placeNames = (0..<Int.random(in: 1...6, using: &generator)).map { "Place \($0)" }
            let drafts = (0..<Int.random(in: 1...60, using: &generator)).map { index -> PhotoDraft in
                let place = Int.random(in: 0..<6, using: &generator) == 0 ? nil : placeNames.randomElement(using: &generator)
                // Some photos have no date taken: they count from when they were visited.
                let taken = Int.random(in: 0..<3, using: &generator) == 0 ? nil
                    : Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...50, using: &generator)) * 3_600)
                return PhotoDraft(id: String(index + 1), title: "photo \(index)", dateTaken: taken, tags: ["t\(index % 4)"], placeName: place)
            }
            var remaining = drafts.map(\.id)
            for (step, start) in stride(from: 0, to: drafts.count, by: 10).enumerated() {
                let batch = Array(drafts[start..<min(start + 10, drafts.count)])
                let context = store.context()
                _ = try VacationEditor(context: context, now: Date(timeIntervalSinceReferenceDate: Double(step) * 7_200)).visit(batch)
                try context.save()
            }
            while !remaining.isEmpty {
                let leaving = Array(Set((0..<Int.random(in: 1...5, using: &generator)).compactMap { _ in remaining.randomElement(using: &generator) }))
                let context = store.context()
                try VacationEditor(context: context, now: Date(timeIntervalSinceReferenceDate: 1_000_000)).unvisit(leaving)
                // Only the photos that left were made as objects: the places' others were not walked.
                #expect(context.registeredObjects.filter { $0 is Photo }.count == leaving.count, "seed \(seed), round \(round)")
                try context.save()
                remaining.removeAll { leaving.contains($0) }
                let reader = store.context()
                let photos = try reader.fetch(FetchRequest<Photo>())
                var expected: [String: Date?] = [:]
                for photo in photos {
                    guard let place = photo.place else { continue }
                    let moment = photo.dateTaken ?? photo.visited
                    let earlier = expected[place.name] ?? nil
                    expected[place.name] = [earlier, moment].compactMap { $0 }.min()
                }
                let places = try reader.fetch(FetchRequest<Place>())
                #expect(Dictionary(uniqueKeysWithValues: places.map { ($0.name, $0.firstVisited) }) == expected,
                        "seed \(seed), round \(round), after unvisiting \(leaving.sorted())")
            }
            #expect(try store.count("SELECT count(*) FROM ZPLACE") == 0, "seed \(seed): every place went with its last photo")
        }
    }
}
