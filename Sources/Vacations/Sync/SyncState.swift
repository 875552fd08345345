import Foundation
import ObjectGraph
import SQLiteDB

/// A vacation's state as register values, and the way back: making the vacation match what the
/// registers hold, through the domain's own visit and unvisit (so that tag counts, places and
/// the search index are kept as every command keeps them).
struct SyncState {
    let context: ObjectContext

    /// Every register's value as the vacation holds it now: each photo's fields, each place's
    /// place id, each album's fields. Photos, places and albums that are not there have none.
    func currentValues() throws -> [SyncRegisterKey: String?] {
        var values: [SyncRegisterKey: String?] = [:]
        var request = FetchRequest<Photo>()
        request.relationshipKeyPathsForPrefetching = ["tags", "place"]
        for photo in try context.fetch(request) {
            func set(_ field: String, _ value: String?) { values[SyncRegisterKey(.photo, photo.unique, field)] = .some(value) }
            set(SyncFields.present, SyncValues.yes)
            set("title", photo.title)
            set("subtitle", photo.subtitle)
            set("imageURL", photo.imageURL)
            set("thumbnailURL", photo.thumbnailURL)
            set("owner", photo.owner)
            set("media", photo.media)
            set("dateTaken", SyncValues.text(photo.dateTaken))
            set("dateUploaded", SyncValues.text(photo.dateUploaded))
            set("visited", SyncValues.text(photo.visited))
            set("latitude", SyncValues.text(photo.latitude))
            set("longitude", SyncValues.text(photo.longitude))
            set(SyncFields.tags, SyncValues.text(tags: photo.tags.map(\.name)))
            set(SyncFields.place, photo.place?.name)
        }
        for place in try context.fetch(FetchRequest<Place>()) {
            values[SyncRegisterKey(.place, place.name, SyncFields.placeID)] = .some(place.placeID)
        }
        for album in try context.fetch(FetchRequest<Album>()) {
            values[SyncRegisterKey(.album, album.name, SyncFields.present)] = .some(SyncValues.yes)
            values[SyncRegisterKey(.album, album.name, SyncFields.predicate)] = .some(album.predicate)
            values[SyncRegisterKey(.album, album.name, SyncFields.created)] = .some(SyncValues.text(album.created))
        }
        return values
    }

    /// What this library changed since the registers were last settled: each value that differs
    /// from its register (or has none yet), and `present = false` for a photo or album that the
    /// registers hold as present but the vacation no longer has. A place that is gone writes
    /// nothing: places come and go with their photos.
    static func changes(current: [SyncRegisterKey: String?], registers: [SyncRegisterKey: SyncWrite]) -> [SyncRegisterKey: String?] {
        var changes: [SyncRegisterKey: String?] = [:]
        for (register, value) in current where registers[register].map({ $0.value != value }) ?? true {
            changes[register] = .some(value)
        }
        for (register, write) in registers where register.field == SyncFields.present && write.value == SyncValues.yes
            && current[register] == nil {
            changes[register] = .some(SyncValues.no)
        }
        return changes
    }

    // MARK: Settling

    /// Makes the photos `ids` and the albums `albums` what the registers say. The caller saves.
    /// Returns the ids of the photos it unvisited (their thumbnails can go) and of those it
    /// brought in (they have no thumbnail here yet).
    @discardableResult
    func settle(photos ids: Set<String>, albums: Set<String>, registers: [SyncRegisterKey: SyncWrite],
                now: Date) throws -> (unvisited: [String], arrived: [String]) {
        func value(_ entity: SyncEntity, _ key: String, _ field: String) -> String?? {
            registers[SyncRegisterKey(entity, key, field)].map(\.value)
        }
        let sortedIDs = ids.sorted()
        let editor = VacationEditor(context: context, now: now)
        var existing: Set<String> = []
        if !sortedIDs.isEmpty {
            existing = Set(try context.fetch(FetchRequest<Photo>(predicate: .key("unique", .in,
                PredicateValue.array(sortedIDs.map(PredicateValue.string))))).map(\.unique))
        }
        var leaving: [String] = []
        var drafts: [PhotoDraft] = []
        for id in sortedIDs {
            guard value(.photo, id, SyncFields.present) == .some(SyncValues.yes) else {
                if existing.contains(id) { leaving.append(id) }
                continue
            }
            var unknown: PhotoFields = []
            func text(_ field: String, _ known: PhotoFields) -> String? {
                guard let stored = value(.photo, id, field) else {
                    unknown.insert(known)
                    return nil
                }
                return stored
            }
            let placeName = value(.photo, id, SyncFields.place) ?? nil
            let tags = value(.photo, id, SyncFields.tags)
            if tags == nil { unknown.insert(.tags) }
            drafts.append(PhotoDraft(
                id: id, title: text("title", .title), subtitle: text("subtitle", .subtitle), imageURL: text("imageURL", .imageURL),
                thumbnailURL: text("thumbnailURL", .thumbnailURL), owner: text("owner", .owner),
                dateTaken: SyncValues.date(text("dateTaken", .dateTaken)), dateUploaded: SyncValues.date(text("dateUploaded", .dateUploaded)),
                latitude: SyncValues.number(text("latitude", .coordinates)), longitude: SyncValues.number(text("longitude", .coordinates)),
                media: text("media", .media), tags: SyncValues.tags(tags ?? nil), placeName: placeName,
                placeID: placeName.flatMap { value(.place, $0, SyncFields.placeID) ?? nil }, unknown: unknown))
        }
        if !leaving.isEmpty {
            try editor.unvisit(leaving)
            // Saved before visiting: a tag or place the unvisits delete may be made again by the
            // visits, and one name cannot be both deleted and inserted in one save.
            try context.save()
        }
        if !drafts.isEmpty {
            _ = try editor.visit(drafts)
            // Saved before the fetch below, so that SQLite finds the photos by id: with the new
            // photos still pending, the fetch would test each of them against every id in memory.
            try context.save()
        }
        // What visiting does not do: take the visit date from the registers, and leave a photo
        // without a place when the registers say it has none.
        if !drafts.isEmpty {
            var request = FetchRequest<Photo>(predicate: .key("unique", .in, PredicateValue.array(drafts.map { .string($0.id) })))
            request.relationshipKeyPathsForPrefetching = ["place"]
            for photo in try context.fetch(request) {
                if let visited = value(.photo, photo.unique, "visited") {
                    let date = SyncValues.date(visited)
                    if photo.visited != date { photo.visited = date }
                }
                if value(.photo, photo.unique, SyncFields.place) == .some(nil), let place = photo.place {
                    photo.place = nil
                    if place.photos.allSatisfy({ $0 === photo || $0.isDeleted }) { context.delete(place) }
                }
            }
        }
        try settleAlbums(albums.sorted(), value: value)
        return (leaving, drafts.map(\.id).filter { !existing.contains($0) })
    }

    private func settleAlbums(_ names: [String], value: (SyncEntity, String, String) -> String??) throws {
        for name in names {
            let album = try VacationAlbums.album(named: name, in: context)
            guard value(.album, name, SyncFields.present) == .some(SyncValues.yes) else {
                if let album { context.delete(album) }
                continue
            }
            let target = album ?? {
                let made = Album(context: context)
                made.name = name
                return made
            }()
            if let predicate = value(.album, name, SyncFields.predicate) ?? nil, target.predicate != predicate { target.predicate = predicate }
            if let created = value(.album, name, SyncFields.created) {
                let date = SyncValues.date(created)
                if target.created != date { target.created = date }
            }
        }
    }

    /// Recomputes what sync never trusts from another device, once the context has saved: each
    /// place's first visit (the earliest date taken, else visit date, of its photos), and its
    /// place id from its register. Returns whether it changed anything (the caller saves again).
    func settlePlaces(registers: [SyncRegisterKey: SyncWrite]) throws -> Bool {
        let model = context.coordinator.model
        guard let photo = model.entity(named: "Photo"), let place = model.entity(named: "Place"),
              case .foreignKey(let placeColumn, _)? = photo.relationship(named: "place")?.storage,
              let dateTaken = photo.attribute(named: "dateTaken")?.column, let visited = photo.attribute(named: "visited")?.column,
              let name = place.attribute(named: "name")?.column, let firstVisited = place.attribute(named: "firstVisited")?.column else {
            throw SyncError(.store("the vacation's model lacks Photo or Place"))
        }
        let sql = """
            SELECT p.\(name), (SELECT min(coalesce(f.\(dateTaken), f.\(visited))) FROM \(photo.table) f WHERE f.\(placeColumn) = p.Z_PK) AS first, \
            p.\(firstVisited) FROM \(place.table) p
            """
        let rows = try context.coordinator.withConnection { connection in
            try connection.rows(sql) { row in
                (row.string(at: 0) ?? "", row.isNull(at: 1) ? nil : row.double(at: 1), row.isNull(at: 2) ? nil : row.double(at: 2))
            }
        }
        var changed = false
        var wrong: [String: Double?] = [:]
        for (placeName, first, stored) in rows where first != stored { wrong[placeName] = first }
        let withRegisters = registers.keys.filter { $0.entity == .place }.map(\.key)
        let names = Set(wrong.keys).union(withRegisters)
        guard !names.isEmpty else { return false }
        let places = try context.fetch(FetchRequest<Place>(predicate: .key("name", .in, PredicateValue.array(names.sorted().map(PredicateValue.string)))))
        for place in places {
            if let first = wrong[place.name] {
                place.firstVisited = first.map(Date.init(timeIntervalSinceReferenceDate:))
                changed = true
            }
            if let register = registers[SyncRegisterKey(.place, place.name, SyncFields.placeID)], register.value != place.placeID {
                place.placeID = register.value
                changed = true
            }
        }
        return changed
    }
}
