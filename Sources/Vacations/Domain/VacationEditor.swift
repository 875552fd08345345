import Foundation
import ObjectGraph

/// What visiting did to one photo.
public enum VisitOutcome: String, Sendable, Equatable {
    case added, updated, unchanged
}

/// Visits and unvisits photos in one context, keeping DESIGN §4's invariants: every tag's
/// count equals its photos, no tag or place without photos, one photo per id.
///
/// Set-based: a batch of drafts costs one query for its photos, one for its tags and one for
/// its places, however many photos it holds. The caller saves the context (one transaction).
///
/// ```swift
/// let editor = VacationEditor(context: context)
/// let outcomes = try editor.visit(drafts)
/// try context.save()
/// ```
public struct VacationEditor {
    public let context: ObjectContext
    /// The visit time recorded on new photos.
    public var now: Date

    public init(context: ObjectContext, now: Date = Date()) {
        self.context = context
        self.now = now
    }

    // MARK: Visiting

    /// Finds or creates each draft's photo, links its place and tags, and moves counts.
    /// A repeated id is one photo: its last draft wins. Returns each distinct id's outcome.
    public func visit(_ drafts: [PhotoDraft]) throws -> [(id: String, outcome: VisitOutcome)] {
        var order: [String] = []
        var latest: [String: PhotoDraft] = [:]
        for draft in drafts {
            if latest.updateValue(draft, forKey: draft.id) == nil { order.append(draft.id) }
        }
        let photos = try existingPhotos(order)
        var tags = try existing(Tag.self, names: Set(latest.values.flatMap(\.tags)))
        var places = try existing(Place.self, names: Set(latest.values.compactMap(\.placeName)))
        var emptied: [ObjectIdentifier: Place] = [:]
        var untagged: [ObjectIdentifier: Tag] = [:]
        var outcomes: [(String, VisitOutcome)] = []
        outcomes.reserveCapacity(order.count)
        for id in order {
            guard let draft = latest[id] else { continue }
            let photo: Photo
            let isNew: Bool
            if let found = photos[id] {
                photo = found
                isNew = false
            } else {
                photo = Photo(context: context)
                photo.unique = id
                photo.visited = now
                isNew = true
            }
            var changed = apply(draft, to: photo)

            // Tags: counts follow the links.
            let current = isNew ? [] : photo.tags
            let wanted = draft.tags.map { name in
                tags[name] ?? {
                    let tag = Tag(context: context)
                    tag.name = name
                    tags[name] = tag
                    return tag
                }()
            }
            let wantedSet = Set(wanted)
            if wantedSet != current {
                for tag in current.subtracting(wantedSet) {
                    tag.count -= 1
                    untagged[ObjectIdentifier(tag)] = tag
                }
                for tag in wantedSet.subtracting(current) { tag.count += 1 }
                photo.tags = wantedSet
                changed = true
            }

            // Place: the new one learns the photo's date; the old one may be left empty. A feed
            // that names no place for the photo leaves the place it has.
            let oldPlace = isNew ? nil : photo.place
            let newPlace = draft.placeName == nil ? oldPlace : draft.placeName.map { name in
                places[name] ?? {
                    let place = Place(context: context)
                    place.name = name
                    places[name] = place
                    return place
                }()
            }
            if oldPlace !== newPlace {
                if let oldPlace { emptied[ObjectIdentifier(oldPlace)] = oldPlace }
                photo.place = newPlace
                changed = true
            }
            if let newPlace {
                if newPlace.placeID == nil, let placeID = draft.placeID { newPlace.placeID = placeID }
                let moment = photo.dateTaken ?? photo.visited ?? now
                if newPlace.firstVisited.map({ moment < $0 }) ?? true { newPlace.firstVisited = moment }
            }
            outcomes.append((id, isNew ? .added : (changed ? .updated : .unchanged)))
        }
        try cleanUp(tags: Array(untagged.values), places: Array(emptied.values), leaving: [])
        return outcomes
    }

    /// Copies a draft's attributes onto the photo, setting only what differs.
    private func apply(_ draft: PhotoDraft, to photo: Photo) -> Bool {
        var changed = false
        func set<Value: Equatable>(_ keyPath: ReferenceWritableKeyPath<Photo, Value>, _ value: Value) {
            if photo[keyPath: keyPath] != value {
                photo[keyPath: keyPath] = value
                changed = true
            }
        }
        set(\.title, draft.title)
        set(\.subtitle, draft.subtitle)
        set(\.imageURL, draft.imageURL)
        set(\.thumbnailURL, draft.thumbnailURL)
        set(\.owner, draft.owner)
        set(\.dateTaken, draft.dateTaken)
        set(\.dateUploaded, draft.dateUploaded)
        set(\.latitude, draft.latitude)
        set(\.longitude, draft.longitude)
        set(\.media, draft.media)
        return changed
    }

    // MARK: Unvisiting

    /// Removes the photos with these ids: each tag's count drops (the tag goes at zero), a
    /// place goes with its last photo. Returns the ids that were found.
    @discardableResult
    public func unvisit(_ ids: [String]) throws -> Set<String> {
        let photos = try existingPhotos(ids)
        var untagged: [ObjectIdentifier: Tag] = [:]
        var emptied: [ObjectIdentifier: Place] = [:]
        for photo in photos.values {
            for tag in photo.tags {
                tag.count -= 1
                untagged[ObjectIdentifier(tag)] = tag
            }
            if let place = photo.place { emptied[ObjectIdentifier(place)] = place }
            context.delete(photo)
        }
        try cleanUp(tags: Array(untagged.values), places: Array(emptied.values), leaving: Array(photos.values))
        return Set(photos.keys)
    }

    /// Deletes tags whose count reached zero and places left without photos; places that keep
    /// photos get their first-visited date recomputed.
    private func cleanUp(tags: [Tag], places: [Place], leaving removed: [Photo]) throws {
        for tag in tags where tag.count <= 0 && !tag.isDeleted {
            context.delete(tag)
        }
        let gone = Set(removed.map(ObjectIdentifier.init))
        for place in places where !place.isDeleted {
            let remaining = place.photos.filter { !gone.contains(ObjectIdentifier($0)) && !$0.isDeleted }
            if remaining.isEmpty {
                context.delete(place)
            } else {
                place.firstVisited = remaining.compactMap { $0.dateTaken ?? $0.visited }.min()
            }
        }
    }

    // MARK: Toggling

    /// What toggling did.
    public enum ToggleOutcome: String, Sendable, Equatable {
        case visited, unvisited
    }

    /// Visits the draft's photo when the vacation lacks it, unvisits it otherwise.
    public func toggle(_ draft: PhotoDraft) throws -> ToggleOutcome {
        if try existingPhotos([draft.id]).isEmpty {
            _ = try visit([draft])
            return .visited
        }
        try unvisit([draft.id])
        return .unvisited
    }

    // MARK: Lookups

    private func existingPhotos(_ ids: [String]) throws -> [String: Photo] {
        guard !ids.isEmpty else { return [:] }
        var request = try FetchRequest<Photo>(predicate: "unique IN %@", ids)
        request.relationshipKeyPathsForPrefetching = ["tags", "place"]
        var result: [String: Photo] = [:]
        for photo in try context.fetch(request) { result[photo.unique] = photo }
        return result
    }

    private func existing<T: ManagedObject>(_ type: T.Type, names: Set<String>) throws -> [String: T] {
        guard !names.isEmpty else { return [:] }
        let request = try FetchRequest<T>(predicate: "name IN %@", Array(names))
        var result: [String: T] = [:]
        for object in try context.fetch(request) {
            if let name = try? object.value(forKey: "name", as: String.self) { result[name] = object }
        }
        return result
    }
}
