import Foundation
import Vacations

/// The feed targets' check: any bytes either read as a feed or fail with a one-line
/// `FeedError`, and whatever reads obeys ARCHITECTURE.md §3's rules once made into drafts.
enum FeedChecks {
    static func sniffedFormat(_ data: Data) -> FeedFormat? {
        FlickrFeedReader.sniff(data.prefix(256))
    }

    /// What reading a feed gave.
    enum Outcome: Equatable {
        case feed(FeedSummary, [FlickrPhoto], [FlickrPlace])
        case failure(FeedError)
        case otherError(String)
    }

    static func check(_ data: Data, target: FuzzTarget) throws(FuzzFinding) {
        let outcome = read { photo, place in try FlickrFeedReader.read(data: data, photo: photo, place: place) }
        // The same bytes arriving in small pieces through a pipe, as standard input may: the
        // reader refills its window at other places, and must read exactly the same feed. (Input
        // with several faults may be refused for another of them: which one is found first
        // depends on how much was read, as bytes are checked as UTF-8 when they arrive.)
        if data.count <= maximumPipedSize {
            let piped = readThroughPipe(data)
            let bothRefused: Bool
            switch (piped, outcome) {
            case (.failure, .failure): bothRefused = true
            default: bothRefused = false
            }
            guard piped == outcome || bothRefused else {
                throw FuzzFinding(target, "read whole: \(outcome); read in small pieces from a pipe: \(piped)")
            }
        }
        let summary: FeedSummary, photos: [FlickrPhoto], places: [FlickrPlace]
        switch outcome {
        case .failure(let error):
            let text = error.description
            guard !text.isEmpty, !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw FuzzFinding(target, "a FeedError's description must be one non-empty line: \(text.debugDescription)")
            }
            return
        case .otherError(let description):
            throw FuzzFinding(target, "the reader threw something other than a FeedError: \(description)")
        case .feed(let feedSummary, let feedPhotos, let feedPlaces):
            (summary, photos, places) = (feedSummary, feedPhotos, feedPlaces)
        }
        guard summary.photoCount == photos.count, summary.placeCount == places.count else {
            throw FuzzFinding(target, "the summary counts \(summary.photoCount) photos and \(summary.placeCount) places; "
                              + "\(photos.count) and \(places.count) were delivered")
        }
        var rules = DraftRules(excludedTags: ["Excluded"], defaultPlace: " Somewhere \n else ")
        for place in places { rules.learn(place) }
        for photo in photos {
            try checkPhoto(photo, target: target)
            try checkDraft(rules.draft(from: photo), target: target)
        }
    }

    /// Inputs up to this size also go through a pipe (it holds 64 KB, so the writer never
    /// waits for a reader that stopped early).
    static let maximumPipedSize = 60_000

    private static func read(
        _ body: (_ photo: (FlickrPhoto) -> Void, _ place: (FlickrPlace) -> Void) throws -> FeedSummary
    ) -> Outcome {
        var photos: [FlickrPhoto] = []
        var places: [FlickrPlace] = []
        do {
            let summary = try body({ photos.append($0) }, { places.append($0) })
            return .feed(summary, photos, places)
        } catch let error as FeedError {
            return .failure(error)
        } catch {
            return .otherError("\(type(of: error)): \(error)")
        }
    }

    /// Writes the input into a pipe in pieces of 1 to 13 bytes from a thread of its own while the
    /// reader reads the other end.
    static func readThroughPipe(_ data: Data) -> Outcome {
        let pipe = Pipe()
        let writer = pipe.fileHandleForWriting
        let written = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var offset = data.startIndex
            var size = data.count % 13
            while offset < data.endIndex {
                size = size % 13 + 1
                let end = min(offset + size, data.endIndex)
                try? writer.write(contentsOf: data[offset..<end])
                offset = end
            }
            try? writer.close()
            written.signal()
        }
        let outcome = read { photo, place in
            try FlickrFeedReader.read(fileHandle: pipe.fileHandleForReading, photo: photo, place: place)
        }
        written.wait()
        try? pipe.fileHandleForReading.close()
        return outcome
    }

    private static func checkPhoto(_ photo: FlickrPhoto, target: FuzzTarget) throws(FuzzFinding) {
        guard FlickrNames.canonicalID(photo.id) == photo.id else {
            throw FuzzFinding(target, "photo id \(photo.id.debugDescription) is not a canonical decimal string")
        }
        for (name, value) in [("latitude", photo.latitude), ("longitude", photo.longitude)] {
            if let value, value.isNaN {
                // The store refuses NaN, so one such record would fail a whole import.
                throw FuzzFinding(target, "photo \(photo.id) has a NaN \(name)")
            }
        }
        for (name, date) in [("dateTaken", photo.dateTaken), ("dateUploaded", photo.dateUploaded)] {
            if let date, !date.timeIntervalSinceReferenceDate.isFinite {
                throw FuzzFinding(target, "photo \(photo.id) has a \(name) that is not finite")
            }
        }
        // A field carried empty has no value; a derived one (a URL from server and secret) has one.
        let values: [(PhotoFields, Bool)] = [
            (.title, photo.title != nil), (.subtitle, photo.description != nil), (.dateTaken, photo.dateTaken != nil),
            (.dateUploaded, photo.dateUploaded != nil), (.coordinates, photo.latitude != nil || photo.longitude != nil),
            (.media, photo.media != nil), (.tags, !photo.tags.isEmpty), (.imageURL, photo.imageURL != nil),
            (.thumbnailURL, photo.thumbnailURL != nil), (.owner, false),
        ]
        for (field, hasValue) in values where photo.emptied.contains(field) && hasValue {
            throw FuzzFinding(target, "photo \(photo.id) has a value for a field it carries empty (\(field.rawValue))")
        }
        guard photo.emptied.isDisjoint(with: [.owner, .imageURL, .thumbnailURL]),
              photo.derived.isSubset(of: [.imageURL, .thumbnailURL]),
              (!photo.derived.contains(.imageURL) || photo.imageURL != nil),
              (!photo.derived.contains(.thumbnailURL) || photo.thumbnailURL != nil) else {
            throw FuzzFinding(target, "photo \(photo.id): emptied \(photo.emptied.rawValue), derived \(photo.derived.rawValue)")
        }
    }

    private static func checkDraft(_ draft: PhotoDraft, target: FuzzTarget) throws(FuzzFinding) {
        var seen = Set<String>()
        for tag in draft.tags {
            guard !tag.isEmpty, !tag.contains(where: \.isWhitespace), !tag.contains(":") else {
                throw FuzzFinding(target, "photo \(draft.id) has the tag \(tag.debugDescription): empty, spaced or a machine tag")
            }
            guard FlickrNames.foldTag(tag) == tag, tag != "excluded" else {
                throw FuzzFinding(target, "photo \(draft.id) has the tag \(tag.debugDescription), not folded or excluded")
            }
            guard seen.insert(tag).inserted else {
                throw FuzzFinding(target, "photo \(draft.id) has the tag \(tag.debugDescription) twice")
            }
        }
        // A value read from the feed is known; only stand-ins (owner id, built URLs) sit in unknown fields.
        let read: [(PhotoFields, Bool)] = [
            (.title, draft.title != nil), (.subtitle, draft.subtitle != nil), (.dateTaken, draft.dateTaken != nil),
            (.dateUploaded, draft.dateUploaded != nil), (.coordinates, draft.latitude != nil), (.media, draft.media != nil),
            (.tags, !draft.tags.isEmpty),
        ]
        for (field, hasValue) in read where hasValue && draft.unknown.contains(field) {
            throw FuzzFinding(target, "photo \(draft.id) has a value for a field its draft calls unknown (\(field.rawValue))")
        }
        if let place = draft.placeName, FlickrNames.placeName(place) != place {
            throw FuzzFinding(target, "photo \(draft.id) has the place \(place.debugDescription), not trimmed and collapsed")
        }
    }
}
