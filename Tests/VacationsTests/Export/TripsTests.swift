import Foundation
import ObjectGraph
import Testing
import TestSupport
@testable import Vacations

@Suite("Trips: photos by date taken, split at gaps longer than the gap")
struct TripsTests {
    static let hour = 3_600.0
    static let start = Date.utc("2023-04-01T00:00:00Z")

    private func trips(_ photos: [(hours: Double, place: String?)], gapHours: Double) -> [Trip] {
        var builder = TripBuilder(gap: gapHours * Self.hour)
        var result: [Trip] = []
        for photo in photos {
            if let ended = builder.add(dateTaken: Self.start.addingTimeInterval(photo.hours * Self.hour), place: photo.place) {
                result.append(ended)
            }
        }
        if let last = builder.finish() { result.append(last) }
        return result
    }

    private func date(_ hours: Double) -> Date { Self.start.addingTimeInterval(hours * Self.hour) }

    @Test("a gap exactly the gap does not split; a second more does")
    func gapEdges() {
        #expect(trips([(0, "A"), (48, "B")], gapHours: 48) == [Trip(start: date(0), end: date(48), photos: 2, places: ["A", "B"])])
        let oneSecondMore = 48 + 1 / Self.hour
        #expect(trips([(0, "A"), (oneSecondMore, "B")], gapHours: 48)
                == [Trip(start: date(0), end: date(0), photos: 1, places: ["A"]),
                    Trip(start: date(oneSecondMore), end: date(oneSecondMore), photos: 1, places: ["B"])])
        // The gap is between consecutive photos, not from the trip's start.
        #expect(trips([(0, nil), (40, nil), (80, nil), (120, nil)], gapHours: 48).count == 1)
        for gap in [0.5, 1, 6, 24, 47.5, 48, 72, 1e6] {
            let photos = [(0.0, "A"), (gap, "A"), (2 * gap + 0.01, "B")]
            #expect(trips(photos.map { ($0.0, Optional($0.1)) }, gapHours: gap).map(\.photos) == [2, 1], "gap \(gap)")
        }
    }

    @Test("places in first-visit order within each trip; photos without a place add none")
    func placesOrder() {
        let result = trips([(0, "Lisbon"), (1, nil), (2, "Sintra"), (3, "Lisbon"), (4, "Belém"), (5, "Sintra"),
                            (100, nil), (101, "Porto"), (102, "Lisbon")], gapHours: 48)
        #expect(result == [
            Trip(start: date(0), end: date(5), photos: 6, places: ["Lisbon", "Sintra", "Belém"]),
            Trip(start: date(100), end: date(102), photos: 3, places: ["Porto", "Lisbon"]),
        ])
        #expect(trips([(0, nil)], gapHours: 48) == [Trip(start: date(0), end: date(0), photos: 1, places: [])])
        #expect(trips([], gapHours: 48) == [])
    }

    @Test("the gap must be a positive, finite number of hours; a huge one never splits")
    func gapValidation() {
        #expect(Trips.gap(hours: 48) == 172_800)
        #expect(Trips.gap(hours: 0.5) == 1_800)
        for bad in [0, -1, -0.0, .nan, .infinity, -.infinity] {
            #expect(Trips.gap(hours: bad) == nil, "\(bad)")
        }
        #expect(trips([(0, "A"), (1e9, "B")], gapHours: 1e300).count == 1)
    }

    @Test("from a store: photos without a date are left out, ties by id, a selection narrows the photos")
    func fromStore() throws {
        let harness = try ExportHarness()
        try harness.add([
            PhotoDraft(id: "10", dateTaken: date(0), placeName: "Lisbon"),
            PhotoDraft(id: "9", dateTaken: date(0), placeName: "Sintra"),
            PhotoDraft(id: "11", placeName: "Nowhere"),
            PhotoDraft(id: "12", dateTaken: date(49), tags: ["late"], placeName: "Porto"),
            PhotoDraft(id: "13", dateTaken: date(50)),
        ])
        let all = try Trips.trips(in: harness.store.coordinator, context: harness.store.context(), gap: 48 * Self.hour)
        // Equal dates: "10" before "9" (ids compare as text, as `photos` orders them).
        #expect(all == [Trip(start: date(0), end: date(0), photos: 2, places: ["Lisbon", "Sintra"]),
                        Trip(start: date(49), end: date(50), photos: 2, places: ["Porto"])])
        let selected = try Trips.trips(in: harness.store.coordinator, context: harness.store.context(),
                                       selection: PhotoSelection(format: "ANY tags.name == 'late' OR place.name == 'Sintra'"),
                                       gap: 48 * Self.hour)
        #expect(selected == [Trip(start: date(0), end: date(0), photos: 1, places: ["Sintra"]),
                             Trip(start: date(49), end: date(49), photos: 1, places: ["Porto"])])
    }
}

@Suite("The photo reader streams what the object graph holds")
struct PhotoReaderTests {
    @Test("read in batches, every photo's fields and tags equal the object graph's, across batch boundaries")
    func matchesObjectGraph() throws {
        let store = try VacationStore()
        let generator = FlickrFeedGenerator(photos: 1_300, vocabulary: 50, places: 7)
        let feed = store.directory.path("feed.xml")
        try generator.writeXML(to: feed)
        #expect(store.importFeeds([feed]).added == 1_300)
        let photos = try store.context().fetch(FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("dateTaken"), ObjectSortDescriptor("unique")]))
        var read: [ExportPhoto] = []
        try store.coordinator.withConnection { connection in
            let reader = try PhotoReader(connection: connection, model: store.coordinator.model)
            try reader.forEach(.dateTaken, in: .all) { read.append($0) }
        }
        #expect(read.count == photos.count)
        for (photo, exported) in zip(photos, read) {
            #expect(exported.id == photo.unique)
            #expect(exported.title == photo.displayTitle)
            #expect(exported.place == photo.place?.name)
            #expect(exported.tags == photo.tagNames)
            #expect(exported.dateTaken == photo.dateTaken)
            #expect(exported.latitude == photo.latitude && exported.longitude == photo.longitude)
            #expect(exported.imageURL == photo.imageURL && exported.thumbnailURL == photo.thumbnailURL)
        }
        var byPlace: [String?] = []
        try store.coordinator.withConnection { connection in
            let reader = try PhotoReader(connection: connection, model: store.coordinator.model)
            try reader.forEach(.place, in: ResolvedSelection(keys: read.prefix(100).map(\.key))) { byPlace.append($0.place) }
        }
        #expect(byPlace.count == 100)
        // Grouped: each place's photos together.
        let runs = byPlace.enumerated().filter { $0.offset == 0 || byPlace[$0.offset - 1] != $0.element }.map(\.element)
        #expect(runs.count == Set(byPlace).count)
    }
}
