import Foundation
import ObjectGraph
import SQLiteDB

// SQLite's primary result codes for an SQL error and for a string or blob too big.
private let sqliteErrorCode: Int32 = 1
private let sqliteTooBigCode: Int32 = 18

/// A question about a vacation's photos, as `vacation photos` asks it.
package struct PhotoQuery: Sendable, Equatable {
    /// A tag name (case-insensitive).
    package var tag: String?
    /// A place name (case-insensitive): the whole name, or its first part (`Lisbon` for
    /// "Lisbon, Lisbon, Portugal").
    package var place: String?
    /// Any predicate of the format language, against Photo.
    package var predicate: String?
    /// Sort keys: `id`, `title`, `taken`/`dateTaken`, `uploaded`/`dateUploaded`, `place`, `owner`,
    /// `visited`, `latitude`, `longitude`, `media`; the default is the date taken.
    package var sortKeys: [String]
    package var descending: Bool
    package var limit: Int?
    /// A smart album's name: only the photos its predicate matches (`VacationAlbums`).
    package var album: String?

    package init(tag: String? = nil, place: String? = nil, predicate: String? = nil, sortKeys: [String] = [],
                descending: Bool = false, limit: Int? = nil, album: String? = nil) {
        self.tag = tag
        self.place = place
        self.predicate = predicate
        self.sortKeys = sortKeys
        self.descending = descending
        self.limit = limit
        self.album = album
    }
}

/// A question that cannot be asked: a predicate that does not parse or names unknown keys, an
/// unknown sort key. Its description says what and where.
package struct QueryError: Error, CustomStringConvertible, Sendable, Equatable {
    package var message: String
    package var description: String { message }
}

/// A place as `vacation places` shows it: its name, how many photos were taken there, and
/// when it was first visited.
package struct PlaceSummary: Sendable, Equatable {
    package var name: String
    package var photos: Int
    package var firstVisited: Date?

    package init(name: String, photos: Int, firstVisited: Date?) {
        self.name = name
        self.photos = photos
        self.firstVisited = firstVisited
    }
}

/// The reads the CLI and apps make of a vacation.
package enum VacationQueries {
    /// Sort key → key path.
    package static let sortKeys: [String: String] = [
        "id": "unique", "unique": "unique", "title": "title", "taken": "dateTaken", "dateTaken": "dateTaken",
        "date": "dateTaken", "uploaded": "dateUploaded", "dateUploaded": "dateUploaded", "place": "place.name",
        "owner": "owner", "visited": "visited", "latitude": "latitude", "longitude": "longitude", "media": "media",
    ]

    /// The photos matching `query`, in its order.
    ///
    /// - Throws: `QueryError` for a predicate that does not parse (with its position) or an unknown key,
    ///   `AlbumError.notFound` for an album the vacation does not have.
    package static func photos(_ query: PhotoQuery, in context: ObjectContext) throws -> [Photo] {
        var parts: [ObjectPredicate] = []
        if let album = query.album, let predicate = try VacationAlbums.selection(ofAlbum: album, in: context).predicate {
            parts.append(predicate)
        }
        if let tag = query.tag {
            parts.append(try ObjectPredicate(format: "ANY tags.name == %@", FlickrNames.foldTag(tag).precomposedStringWithCanonicalMapping))
        }
        if let place = query.place.flatMap(FlickrNames.placeName)?.precomposedStringWithCanonicalMapping {
            parts.append(try ObjectPredicate(format: "place.name ==[c] %@ OR place.name BEGINSWITH[c] %@", place, place + ","))
        }
        if let format = query.predicate {
            do {
                parts.append(try ObjectPredicate(format: format))
            } catch {
                throw QueryError(message: "invalid predicate: \(error)")
            }
        }
        var descriptors: [ObjectSortDescriptor] = []
        for key in query.sortKeys.isEmpty ? ["taken"] : query.sortKeys {
            guard let keyPath = sortKeys[key] else {
                let known = sortKeys.keys.filter { !["unique", "dateTaken", "dateUploaded", "date"].contains($0) }.sorted()
                throw QueryError(message: "unknown sort key '\(key)'; use one of \(known.joined(separator: ", "))")
            }
            // Ids are canonical decimal strings: compared as numbers (9 before 10), not as text.
            let comparison: ObjectSortDescriptor.Comparison = keyPath == "unique" ? .localized : .binary
            descriptors.append(ObjectSortDescriptor(keyPath, ascending: !query.descending, comparison: comparison))
        }
        if !descriptors.contains(where: { $0.keyPath == "unique" }) {
            descriptors.append(ObjectSortDescriptor("unique", ascending: !query.descending))
        }
        var request = FetchRequest<Photo>(predicate: parts.isEmpty ? nil : (parts.count == 1 ? parts[0] : .and(parts)),
                                          sortedBy: descriptors, limit: query.limit)
        request.relationshipKeyPathsForPrefetching = ["place", "tags"]
        do {
            return try context.fetch(request)
        } catch let error as FetchRequestError {
            throw QueryError(message: "invalid predicate: \(error)")
        } catch let error as ObjectPredicateError {
            throw QueryError(message: "invalid predicate: \(error)")
        } catch let error as SQLiteError where error.resultCode == sqliteErrorCode || error.resultCode == sqliteTooBigCode {
            // A predicate that parses but that SQLite cannot run: an expression tree deeper than
            // its limit (thousands of ORs), more values than it binds, a MATCHES that backtracks
            // without end. The predicate's fault, so a usage error, without the long SQL text.
            throw QueryError(message: "invalid predicate: the store cannot run it: \(error.message)")
        }
    }

    /// The photo with this Flickr id, or nil.
    package static func photo(id: String, in context: ObjectContext) throws -> Photo? {
        let canonical = FlickrNames.canonicalID(id) ?? id
        var request = try FetchRequest<Photo>(predicate: "unique == %@", canonical, limit: 1)
        request.relationshipKeyPathsForPrefetching = ["place", "tags"]
        return try context.fetch(request).first
    }

    /// Tags with their counts: most used first, then by name.
    package static func tags(in context: ObjectContext) throws -> [Tag] {
        try context.fetch(FetchRequest<Tag>(sortedBy: tagOrder))
    }

    private static let tagOrder = [ObjectSortDescriptor("count", ascending: false), ObjectSortDescriptor("name")]

    /// What `tags` lists — each tag's name and count, in `tags(in:)`'s order — read as values,
    /// not made into objects: a million-photo vacation's 2,000 tags cost a `tags` command about
    /// a fifth of its instructions as objects. Names are unique, so the order has no ties. It
    /// reads the store as saved (a command's fresh context has nothing unsaved). A row the model
    /// would not hold as it is (a NULL name, a count that is not a whole number) sends the
    /// whole answer through the objects, which read or refuse it as they always have.
    package static func tagCounts(in context: ObjectContext) throws -> [(name: String, count: Int64)] {
        let rows = try context.fetchValueRows(DictionaryFetchRequest(
            entityName: "Tag", columns: [.key("name"), .key("count")], sortDescriptors: tagOrder))
        var counts: [(name: String, count: Int64)] = []
        counts.reserveCapacity(rows.count)
        for row in rows {
            guard row.count == 2, case .string(let name) = row[0], case .int(let count) = row[1] else {
                return try tags(in: context).map { ($0.name, $0.count) }
            }
            counts.append((name, count))
        }
        return counts
    }

    /// Places in itinerary order: first visited first (places without a date last), then by name,
    /// each with how many photos were taken there.
    ///
    /// The counts come from one aggregate query (the photos grouped by place, which SQLite
    /// answers from the photos' place index): no photo is made as an object, so the answer
    /// takes about as long at a million photos as at a hundred. It reads the store as saved,
    /// as a command's fresh context does.
    package static func places(in context: ObjectContext) throws -> [PlaceSummary] {
        let places = try context.fetch(FetchRequest<Place>(sortedBy: [ObjectSortDescriptor("firstVisited"), ObjectSortDescriptor("name")]))
        let counts = try context.fetchDictionaries(DictionaryFetchRequest(
            entityName: "Photo", columns: [.key("place"), .count(as: "photos")], groupBy: ["place"]))
        var photosByPlace: [Int64: Int] = [:]
        for row in counts {
            // Photos without a place form a group of their own, keyed NULL: no place's.
            guard case .int(let key)? = row["place"] else { continue }
            guard case .int(let count)? = row["photos"] else { throw StoreError("a place's photo count is not a number") }
            photosByPlace[key] = Int(count)
        }
        let summaries = places.map { place in
            PlaceSummary(name: place.name, photos: photosByPlace[place.objectID.primaryKey] ?? 0, firstVisited: place.firstVisited)
        }
        return summaries.filter { $0.firstVisited != nil } + summaries.filter { $0.firstVisited == nil }
    }

    /// How many photos, places and tags a vacation holds.
    package static func counts(in context: ObjectContext) throws -> (photos: Int, places: Int, tags: Int) {
        (try context.count(Photo.self), try context.count(Place.self), try context.count(Tag.self))
    }
}
