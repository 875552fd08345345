import Foundation
import ObjectGraph

/// What visiting did to one photo.
package enum VisitOutcome: String, Sendable, Equatable {
    case added, updated, unchanged
}

/// Visits and unvisits photos in one context, keeping ARCHITECTURE.md §3's invariants: every tag's
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
package struct VacationEditor {
    package let context: ObjectContext
    /// The visit time recorded on new photos.
    package var now: Date
    /// Whether a batch visit compares the photos the store has from their rows (and their tags'
    /// IDs), making objects only of those that change. Off, every photo found is loaded as an
    /// object: the tests compare the two.
    var comparesStoredRows = true

    package init(context: ObjectContext, now: Date = Date()) {
        self.context = context
        self.now = now
    }

    // MARK: Visiting

    /// Finds or creates each draft's photo, links its place and tags, and moves counts.
    /// A field a draft does not know (``PhotoDraft/unknown``) keeps the photo's value. A repeated
    /// id is one photo, visited as its drafts in turn would leave it. Returns each distinct id's
    /// outcome.
    package func visit(_ drafts: [PhotoDraft]) throws -> [(id: String, outcome: VisitOutcome)] {
        try visitPhotos(drafts, carrying: nil, deferringNew: false).outcomes.map { ($0.id, $0.outcome) }
    }

    /// A photo the vacation lacks, visited but not made: `insertDeferred(_:)` writes it after
    /// the context saves, in one batch insert (no managed object, no change tracking).
    struct DeferredPhoto {
        let draft: PhotoDraft
        let tags: [Tag]
        let place: Place?
    }

    /// What visiting a batch did: each distinct id's outcome and photo (nil for a deferred
    /// one, and for one left unchanged as its stored row showed, whose `objectID` is given
    /// instead: no object was made for it), and the photos deferred.
    struct BatchVisit {
        var outcomes: [(id: String, outcome: VisitOutcome, photo: Photo?, objectID: ObjectID?)] = []
        var deferred: [DeferredPhoto] = []
    }

    /// `visit`, also giving each photo. With `carried`, tags and places are looked up through
    /// what earlier batches found, and tag counts are left to `finishVisits(_:)`. With
    /// `deferringNew`, new photos are not made in the context: their tags and places are found
    /// or made and counted, and the caller passes `deferred` to `insertDeferred(_:)` once the
    /// context has saved.
    ///
    /// `found`, when given, are the drafts' photos the vacation has, by id (the caller looked
    /// them up already).
    func visitPhotos(_ drafts: [PhotoDraft], carrying carried: BatchVisitState?, deferringNew: Bool,
                     found: [String: Photo]? = nil) throws -> BatchVisit {
        // Each distinct id once, in the order first listed; an id listed again is its drafts
        // merged. Drafts are read where they lie, through a buffer and borrowed, not copied: a
        // draft is a dozen strings, and copying each one cost more than comparing it.
        var positions: [String: Int] = [:]
        positions.reserveCapacity(drafts.count)
        var firsts: [Int] = []
        firsts.reserveCapacity(drafts.count)
        var merged: [Int: PhotoDraft] = [:]
        for index in drafts.indices {
            let next = firsts.count
            // One hash: the slot is read and, for a new id, filled in one access.
            let position = { (slot: inout Int) -> Int in
                if slot < 0 { slot = next }
                return slot
            }(&positions[drafts[index].id, default: -1])
            if position == next {
                firsts.append(index)
            } else {
                merged[position] = (merged[position] ?? drafts[firsts[position]]).followed(by: drafts[index])
            }
        }
        // Without repeated ids (the rule), the drafts themselves.
        let distinct = merged.isEmpty ? drafts : firsts.indices.map { merged[$0] ?? drafts[firsts[$0]] }
        return try distinct.withUnsafeBufferPointer { drafts in
            try visitDistinct(drafts, positions: positions, carrying: carried, deferringNew: deferringNew, found: found)
        }
    }

    /// `visitPhotos` once each id is listed once: `positions` gives each id's draft.
    private func visitDistinct(_ drafts: UnsafeBufferPointer<PhotoDraft>, positions: [String: Int], carrying carried: BatchVisitState?,
                               deferringNew: Bool, found: [String: Photo]?) throws -> BatchVisit {
        var tagNames = Set<String>()
        var placeNames = Set<String>()
        for position in drafts.indices {
            for name in drafts[position].tags { tagNames.insert(name) }
            if let name = drafts[position].placeName { placeNames.insert(name) }
        }
        guard let base = drafts.baseAddress else { return BatchVisit() }
        let ids = drafts.map(\.id)
        var tags = try lookUp(Tag.self, names: tagNames, known: carried?.tags)
        var places = try lookUp(Place.self, names: placeNames, known: carried?.places)
        // The photos the store has are compared with their drafts from their rows and their tags'
        // IDs, as they are read (no objects); those that change, or that the context already
        // holds, are then loaded as objects. By position: what a photo left unchanged needs.
        var unchanged = [UnchangedPhoto?](repeating: nil, count: drafts.count)
        var photos = [Photo?](repeating: nil, count: drafts.count)
        var changing: [String] = []
        let keys = comparesStoredRows ? try StoredPhotoKeys(context.storedObjectLayout(of: Photo.self)) : nil
        if let found {
            for (id, photo) in found {
                if let position = positions[id] { photos[position] = photo }
            }
        } else if let keys, !ids.isEmpty, try context.forEachStoredObject(Photo.self, whereKey: "unique", isIn: ids, membersOf: "tags", { row in
            guard let position = positions[row.string(at: keys.unique) ?? ""] else { return }
            if row.registered == nil && Self.leavesUnchanged(row, keys: keys, draft: base + position, tags: tags, places: places) {
                unchanged[position] = UnchangedPhoto(id: row.id, moment: row.date(at: keys.dateTaken) ?? row.date(at: keys.visited),
                                                     place: row.target(at: keys.place))
            } else {
                changing.append(ids[position])
            }
        }) != nil {
            for (id, photo) in try existingPhotos(changing) {
                if let position = positions[id] { photos[position] = photo }
            }
        } else {
            for (id, photo) in try existingPhotos(ids) {
                if let position = positions[id] { photos[position] = photo }
            }
        }
        var emptied: [ObjectIdentifier: Place] = [:]
        var untagged: [ObjectIdentifier: Tag] = [:]
        // The earliest moment of the deferred photos at each place (they are not its photos yet).
        var deferredMoments: [ObjectIdentifier: Date] = [:]
        var result = BatchVisit()
        result.outcomes.reserveCapacity(drafts.count)
        if let carried {
            // Later batches find these without a query.
            carried.tags.merge(tags) { _, new in new }
            carried.places.merge(places) { _, new in new }
        }
        func count(_ tag: Tag, named name: String?, by change: Int64) {
            if let carried {
                let key = name ?? tag.name
                carried.countChanges[key, default: 0] += change
                // A tag a draft names is in `carried.tags` already; one the photo leaves may be
                // one no draft names: remember it for the counts.
                if name == nil && carried.tags[key] == nil { carried.tags[key] = tag }
            } else {
                tag.count += change
            }
        }
        func tag(named name: String) -> Tag {
            if let tag = tags[name] { return tag }
            let tag = Tag(context: context)
            tag.name = name
            tags[name] = tag
            carried?.tags[name] = tag
            return tag
        }
        func place(named name: String) -> Place {
            if let place = places[name] { return place }
            let place = Place(context: context)
            place.name = name
            places[name] = place
            carried?.places[name] = place
            return place
        }
        // The draft is read through its pointer: passed as a value, it was copied whole.
        func visit(_ position: Int, _ pointer: UnsafePointer<PhotoDraft>) throws {
            let id = ids[position]
            if let photo = unchanged[position] {
                // Visiting leaves the photo as it is; its place learns its moment all the same,
                // in the drafts' order (the first place id given wins).
                let place = pointer.pointee.placeName.flatMap { places[$0] }
                    ?? photo.place.flatMap { context.object(with: $0) as? Place }
                if let place { Self.note(place, moment: photo.moment ?? now, placeID: pointer.pointee.placeID) }
                result.outcomes.append((id, .unchanged, nil, photo.id))
                return
            }
            let draft = pointer.pointee
            if photos[position] == nil && deferringNew {
                // A draft made by hand may name a tag twice; link and count it once. (A photo has
                // a few tags: a look along the list costs less than hashing into a set.)
                var wanted: [Tag] = []
                wanted.reserveCapacity(draft.tags.count)
                for name in draft.tags {
                    let tag = tag(named: name)
                    guard !wanted.contains(where: { $0 === tag }) else { continue }
                    count(tag, named: name, by: 1)
                    wanted.append(tag)
                }
                let newPlace = draft.placeName.map(place(named:))
                if let newPlace {
                    let moment = draft.dateTaken ?? now
                    Self.note(newPlace, moment: moment, placeID: draft.placeID)
                    let key = ObjectIdentifier(newPlace)
                    deferredMoments[key] = min(deferredMoments[key] ?? moment, moment)
                }
                result.deferred.append(DeferredPhoto(draft: draft, tags: wanted, place: newPlace))
                result.outcomes.append((id, .added, nil, nil))
                return
            }
            let photo: Photo
            let isNew: Bool
            if let found = photos[position] {
                photo = found
                isNew = false
            } else {
                photo = Photo(context: context)
                photo.unique = id
                photo.visited = now
                isNew = true
            }
            var changed = apply(draft, to: photo, isNew: isNew)

            // Tags: counts follow the links. Tags the feed did not carry keep the photo's, unless
            // it has none and the draft has some to fill them with. A photo visited again mostly
            // keeps its tags: that is checked by IDs first, without making the set of tags.
            let tagsKept = try !isNew && tagsUnchanged(of: photo, draft: draft, tag: tag(named:))
            let current = isNew || tagsKept ? [] : photo.tags
            let keepsTags = tagsKept || draft.unknown.contains(.tags) && (!current.isEmpty || draft.tags.isEmpty)
            let wanted = keepsTags ? [] : draft.tags.map { name in (name: name, tag: tag(named: name)) }
            let wantedSet = keepsTags ? current : Set(wanted.map(\.tag))
            if wantedSet != current {
                for tag in current.subtracting(wantedSet) {
                    count(tag, named: nil, by: -1)
                    untagged[ObjectIdentifier(tag)] = tag
                }
                // A draft made by hand may name a tag twice; count it once.
                let distinct = wanted.count == wantedSet.count
                var counted = Set<ObjectIdentifier>()
                for (name, tag) in wanted where !current.contains(tag) && (distinct || counted.insert(ObjectIdentifier(tag)).inserted) {
                    count(tag, named: name, by: 1)
                }
                photo.tags = wantedSet
                changed = true
            }

            // Place: the new one learns the photo's date; the old one may be left empty. A feed
            // that names no place for the photo leaves the place it has.
            let oldPlace = isNew ? nil : photo.place
            let newPlace = draft.placeName == nil ? oldPlace : draft.placeName.map(place(named:))
            if oldPlace !== newPlace {
                if let oldPlace { emptied[ObjectIdentifier(oldPlace)] = oldPlace }
                photo.place = newPlace
                changed = true
            }
            if let newPlace { Self.note(newPlace, moment: photo.dateTaken ?? photo.visited ?? now, placeID: draft.placeID) }
            result.outcomes.append((id, isNew ? .added : (changed ? .updated : .unchanged), photo, nil))
        }
        for position in drafts.indices { try visit(position, base + position) }
        // With counts carried over, a tag's count is known only when they are settled.
        try cleanUp(tags: carried == nil ? Array(untagged.values) : [], places: Array(emptied.values), leaving: [],
                    arriving: deferredMoments)
        return result
    }

    /// The new place learns the photo's moment (its date taken, else its visit time).
    private static func note(_ place: Place, moment: Date, placeID: String?) {
        if place.placeID == nil, let placeID { place.placeID = placeID }
        if place.firstVisited.map({ moment < $0 }) ?? true { place.firstVisited = moment }
    }

    /// Whether visiting `draft` leaves the photo's tags as they are (the slow path of
    /// `visitPhotos` decides otherwise alike): the tags the feed did not carry are kept while
    /// the photo has some or the draft none; else the draft's tags, once each, must be exactly
    /// the photo's. `tag` finds or makes a tag by name, as the slow path does for each name.
    private func tagsUnchanged(of photo: Photo, draft: PhotoDraft, tag: (String) -> Tag) throws -> Bool {
        let current = try photo.memberIDs(ofToMany: "tags")
        if draft.unknown.contains(.tags) && (!current.isEmpty || draft.tags.isEmpty) { return true }
        guard draft.tags.count >= current.count else { return false }
        // A few tags a photo: a look along the list costs less than hashing into a set.
        var wanted: [ObjectID] = []
        wanted.reserveCapacity(draft.tags.count)
        for name in draft.tags {
            let id = tag(name).objectID
            guard current.contains(id) else { return false }
            if !wanted.contains(id) { wanted.append(id) }
        }
        return wanted.count == current.count
    }

    /// Writes the photos `visitPhotos(_:carrying:deferringNew:)` deferred, in one batch insert,
    /// and returns their keys in order. Call it after the context saved (their tags and places
    /// need their permanent IDs), in the transaction that saved it.
    func insertDeferred(_ deferred: [DeferredPhoto]) throws -> [Int64] {
        guard !deferred.isEmpty else { return [] }
        let coordinator = context.coordinator
        var insert = try BatchInsert(entityName: "Photo", in: coordinator.model)
        let keys = try PhotoInsertKeys(insert)
        insert.reserveCapacity(deferred.count)
        for photo in deferred {
            let draft = photo.draft
            var row = insert.newRow()
            row.set(keys.unique, draft.id)
            row.set(keys.visited, now)
            row.set(keys.title, draft.title)
            row.set(keys.subtitle, draft.subtitle)
            row.set(keys.imageURL, draft.imageURL)
            row.set(keys.thumbnailURL, draft.thumbnailURL)
            row.set(keys.owner, draft.owner)
            row.set(keys.dateTaken, draft.dateTaken)
            row.set(keys.dateUploaded, draft.dateUploaded)
            row.set(keys.latitude, draft.latitude)
            row.set(keys.longitude, draft.longitude)
            row.set(keys.media, draft.media)
            row[keys.place] = photo.place?.objectID
            if !photo.tags.isEmpty { row[keys.tags] = photo.tags.map(\.objectID) }
            insert.append(row)
        }
        return try coordinator.execute(insert).objectIDs.map(\.primaryKey)
    }

    /// Photo's properties, named once per batch.
    private struct PhotoInsertKeys {
        let unique, visited, title, subtitle, imageURL, thumbnailURL, owner: BatchInsert.AttributeKey
        let dateTaken, dateUploaded, latitude, longitude, media: BatchInsert.AttributeKey
        let place: BatchInsert.ToOneKey
        let tags: BatchInsert.ToManyKey

        init(_ insert: BatchInsert) throws {
            unique = try insert.attribute("unique")
            visited = try insert.attribute("visited")
            title = try insert.attribute("title")
            subtitle = try insert.attribute("subtitle")
            imageURL = try insert.attribute("imageURL")
            thumbnailURL = try insert.attribute("thumbnailURL")
            owner = try insert.attribute("owner")
            dateTaken = try insert.attribute("dateTaken")
            dateUploaded = try insert.attribute("dateUploaded")
            latitude = try insert.attribute("latitude")
            longitude = try insert.attribute("longitude")
            media = try insert.attribute("media")
            place = try insert.toOne("place")
            tags = try insert.toMany("tags")
        }
    }

    /// Writes the tag counts that batches visited with `state` left open, and deletes the tags
    /// they leave without photos. Call it before the last save of the run.
    func finishVisits(_ state: BatchVisitState) throws {
        // As faults: the first count read loads them in batches, not one query each.
        // A tag whose changes cancel out may still be new, with no photos: check every one.
        let changed = state.countChanges.compactMap { name, change -> (Tag, Int64)? in
            guard let known = state.tags[name], let tag = context.object(with: known.objectID) as? Tag else { return nil }
            return (tag, change)
        }
        var emptied: [Tag] = []
        for (tag, change) in changed {
            if change != 0 { tag.count += change }
            if tag.count <= 0 { emptied.append(tag) }
        }
        state.countChanges.removeAll()
        try cleanUp(tags: emptied, places: [], leaving: [])
    }

    /// Copies a draft's attributes onto the photo, setting only what differs. A field the draft
    /// does not know keeps the photo's value, unless the photo has none and the draft a stand-in.
    /// A new photo holds nothing yet, so only the draft's values are set. (Plain property
    /// accesses: going through key paths cost more than the rest of visiting.)
    private func apply(_ draft: PhotoDraft, to photo: Photo, isNew: Bool) -> Bool {
        if isNew {
            if let title = draft.title { photo.title = title }
            if let subtitle = draft.subtitle { photo.subtitle = subtitle }
            if let imageURL = draft.imageURL { photo.imageURL = imageURL }
            if let thumbnailURL = draft.thumbnailURL { photo.thumbnailURL = thumbnailURL }
            if let owner = draft.owner { photo.owner = owner }
            if let dateTaken = draft.dateTaken { photo.dateTaken = dateTaken }
            if let dateUploaded = draft.dateUploaded { photo.dateUploaded = dateUploaded }
            if let latitude = draft.latitude { photo.latitude = latitude }
            if let longitude = draft.longitude { photo.longitude = longitude }
            if let media = draft.media { photo.media = media }
            return true
        }
        let unknown = draft.unknown
        var changed = false
        @inline(__always) func writes<Value: Equatable>(_ field: PhotoFields, _ current: Value?, _ new: Value?) -> Bool {
            current != new && (!unknown.contains(field) || (current == nil && new != nil))
        }
        if writes(.title, photo.title, draft.title) { photo.title = draft.title; changed = true }
        if writes(.subtitle, photo.subtitle, draft.subtitle) { photo.subtitle = draft.subtitle; changed = true }
        if writes(.imageURL, photo.imageURL, draft.imageURL) { photo.imageURL = draft.imageURL; changed = true }
        if writes(.thumbnailURL, photo.thumbnailURL, draft.thumbnailURL) { photo.thumbnailURL = draft.thumbnailURL; changed = true }
        if writes(.owner, photo.owner, draft.owner) { photo.owner = draft.owner; changed = true }
        if writes(.dateTaken, photo.dateTaken, draft.dateTaken) { photo.dateTaken = draft.dateTaken; changed = true }
        if writes(.dateUploaded, photo.dateUploaded, draft.dateUploaded) { photo.dateUploaded = draft.dateUploaded; changed = true }
        if writes(.coordinates, photo.latitude, draft.latitude) { photo.latitude = draft.latitude; changed = true }
        if writes(.coordinates, photo.longitude, draft.longitude) { photo.longitude = draft.longitude; changed = true }
        if writes(.media, photo.media, draft.media) { photo.media = draft.media; changed = true }
        return changed
    }

    // MARK: Unvisiting

    /// Removes the photos with these ids: each tag's count drops (the tag goes at zero), a
    /// place goes with its last photo. Returns the ids that were found.
    @discardableResult
    package func unvisit(_ ids: [String]) throws -> Set<String> {
        try unvisit(photos: existingPhotos(ids))
    }

    /// `unvisit`, of photos found already (by id).
    @discardableResult
    private func unvisit(photos: [String: Photo]) throws -> Set<String> {
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
    /// photos get their first-visited date recomputed. `arriving` gives the earliest moment of
    /// photos about to join a place (deferred ones): such a place stays.
    private func cleanUp(tags: [Tag], places: [Place], leaving removed: [Photo], arriving: [ObjectIdentifier: Date] = [:]) throws {
        for tag in tags where tag.count <= 0 && !tag.isDeleted {
            context.delete(tag)
        }
        let gone = Set(removed.map(ObjectIdentifier.init))
        for place in places where !place.isDeleted {
            let remaining = place.photos.filter { !gone.contains(ObjectIdentifier($0)) && !$0.isDeleted }
            let arrival = arriving[ObjectIdentifier(place)]
            if remaining.isEmpty && arrival == nil {
                context.delete(place)
            } else {
                place.firstVisited = (remaining.compactMap { $0.dateTaken ?? $0.visited } + (arrival.map { [$0] } ?? [])).min()
            }
        }
    }

    // MARK: Toggling

    /// What toggling did.
    package enum ToggleOutcome: String, Sendable, Equatable {
        case visited, unvisited
    }

    /// Visits the draft's photo when the vacation lacks it, unvisits it otherwise.
    package func toggle(_ draft: PhotoDraft) throws -> ToggleOutcome {
        // One lookup of the photo, which visiting or unvisiting then uses.
        let found = try existingPhotos([draft.id])
        if found.isEmpty {
            _ = try visitPhotos([draft], carrying: nil, deferringNew: false, found: found)
            return .visited
        }
        try unvisit(photos: found)
        return .unvisited
    }

    // MARK: Lookups

    private func existingPhotos(_ ids: [String]) throws -> [String: Photo] {
        guard !ids.isEmpty else { return [:] }
        // Built, not parsed: the list is a chunk's worth of ids.
        var request = FetchRequest<Photo>(predicate: .key("unique", .in, PredicateValue.array(ids.map(PredicateValue.string))))
        // Tags, whose links each photo's visit compares; not places: a batch's photos share a few
        // hundred, which `lookUp` has as faults already and which load 256 to a query when first
        // read, while prefetching them walks every photo once more.
        request.relationshipKeyPathsForPrefetching = ["tags"]
        var result: [String: Photo] = [:]
        for photo in try context.fetch(request) { result[photo.unique] = photo }
        return result
    }

    /// The objects named `names`: those `known` from earlier batches without a query (as faults,
    /// when the context has let them go), the rest with one query.
    private func lookUp<T: ManagedObject>(_ type: T.Type, names: Set<String>, known: [String: T]?) throws -> [String: T] {
        guard let known, !known.isEmpty else { return try existing(type, names: names) }
        var result: [String: T] = [:]
        result.reserveCapacity(names.count)
        var unknown: Set<String> = []
        for name in names {
            if let object = known[name], let here = context.object(with: object.objectID) as? T {
                result[name] = here
            } else {
                unknown.insert(name)
            }
        }
        for (name, object) in try existing(type, names: unknown) { result[name] = object }
        return result
    }

    private func existing<T: ManagedObject>(_ type: T.Type, names: Set<String>) throws -> [String: T] {
        guard !names.isEmpty else { return [:] }
        let request = FetchRequest<T>(predicate: .key("name", .in, PredicateValue.array(names.map(PredicateValue.string))))
        var result: [String: T] = [:]
        for object in try context.fetch(request) {
            // Tag and Place both have `name`: only an unknown key throws here.
            if let name = try? object.value(forKey: "name", as: String.self) { result[name] = object }
        }
        return result
    }
}

/// What a run of batch visits carries from batch to batch (an import saves and lets go of each
/// batch): the tags and places found or made so far, by name, so that each is looked up once;
/// and the changes to tag counts, written once by `VacationEditor.finishVisits(_:)` rather
/// than by every batch.
final class BatchVisitState {
    var tags: [String: Tag] = [:]
    var places: [String: Place] = [:]
    /// Tag count changes not yet written, by tag name.
    var countChanges: [String: Int64] = [:]
}
