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
}
