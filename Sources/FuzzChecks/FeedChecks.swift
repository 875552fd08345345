import Foundation
import Vacations

/// The feed targets' check: any bytes either read as a feed or fail with a one-line
/// `FeedError`, and whatever reads obeys DESIGN §4's rules once made into drafts.
enum FeedChecks {
    static func sniffedFormat(_ data: Data) -> FeedFormat? {
        FlickrFeedReader.sniff(data.prefix(256))
    }

    static func check(_ data: Data, target: FuzzTarget) throws(FuzzFinding) {
        var photos: [FlickrPhoto] = []
        var places: [FlickrPlace] = []
        let summary: FeedSummary
        do {
            summary = try FlickrFeedReader.read(data: data, photo: { photos.append($0) }, place: { places.append($0) })
        } catch let error as FeedError {
            let text = error.description
            guard !text.isEmpty, !text.contains("\n") else {
                throw FuzzFinding(target, "a FeedError's description must be one non-empty line: \(text.debugDescription)")
            }
            return
        } catch {
            throw FuzzFinding(target, "the reader threw \(type(of: error)), not a FeedError: \(error)")
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
        if let place = draft.placeName, FlickrNames.placeName(place) != place {
            throw FuzzFinding(target, "photo \(draft.id) has the place \(place.debugDescription), not trimmed and collapsed")
        }
    }
}
