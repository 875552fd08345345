import Foundation
import ObjectGraph

/// A stretch of a vacation: photos taken with no gap longer than the trip gap between
/// consecutive ones (README.md, "Trips and exports").
package struct Trip: Sendable, Equatable {
    /// The first and last dates taken.
    package var start: Date
    package var end: Date
    /// How many photos.
    package var photos: Int
    /// Place names in first-visit order: the order their photos first appear in the trip.
    package var places: [String]

    package init(start: Date, end: Date, photos: Int, places: [String]) {
        self.start = start
        self.end = end
        self.photos = photos
        self.places = places
    }
}

/// Cuts photos, fed oldest first, into trips: a gap longer than `gap` seconds between one
/// photo and the next starts a new trip; a gap exactly `gap` long does not.
///
/// ```swift
/// var builder = TripBuilder(gap: 48 * 3600)
/// for photo in photosByDate {
///     if let ended = builder.add(dateTaken: photo.date, place: photo.place) { print(ended) }
/// }
/// if let last = builder.finish() { print(last) }
/// ```
struct TripBuilder: Sendable {
    let gap: TimeInterval
    private var current: Trip?
    private var seenPlaces: Set<String> = []

    init(gap: TimeInterval) {
        self.gap = gap
    }

    /// Adds the next photo (dates must not go backwards) and returns the trip it closed, if any.
    mutating func add(dateTaken date: Date, place: String?) -> Trip? {
        var ended: Trip?
        if let trip = current, date.timeIntervalSince(trip.end) > gap {
            ended = trip
            current = nil
            seenPlaces.removeAll(keepingCapacity: true)
        }
        var trip = current ?? Trip(start: date, end: date, photos: 0, places: [])
        trip.end = date
        trip.photos += 1
        if let place, seenPlaces.insert(place).inserted { trip.places.append(place) }
        current = trip
        return ended
    }

    /// The trip still open, if any; the builder starts afresh.
    mutating func finish() -> Trip? {
        defer {
            current = nil
            seenPlaces.removeAll()
        }
        return current
    }
}

/// `vacation trips`: a vacation's photos with a date taken, oldest first, cut into trips.
package enum Trips {
    package static let defaultGapHours = 48.0

    /// The gap in seconds for `hours`, or nil unless `hours` is a positive, finite number.
    /// A gap too long to count in seconds is infinite: nothing splits.
    package static func gap(hours: Double) -> TimeInterval? {
        guard hours.isFinite, hours > 0 else { return nil }
        return hours * 3_600
    }

    /// The trips of the selected photos; photos without a date taken are left out.
    ///
    /// - Throws: `QueryError` for a selection the model refuses, `SQLiteError`.
    package static func trips(in coordinator: StoreCoordinator, context: ObjectContext, selection: PhotoSelection = .all,
                             gap: TimeInterval) throws -> [Trip] {
        let resolved = try selection.resolve(in: context)
        return try coordinator.withConnection { connection in
            let reader = try PhotoReader(connection: connection, model: coordinator.model)
            var builder = TripBuilder(gap: gap)
            var trips: [Trip] = []
            try reader.forEach(.datedOnly, in: resolved, includingTags: false) { photo in
                guard let date = photo.dateTaken, let ended = builder.add(dateTaken: date, place: photo.place) else { return }
                trips.append(ended)
            }
            if let last = builder.finish() { trips.append(last) }
            return trips
        }
    }
}
