import Foundation
import ObjectGraph
import Testing
import TestSupport
@testable import Vacations

@Suite("Visiting photos again from their stored rows")
struct StoredRowVisitTests {
    private static let first = Date(timeIntervalSinceReferenceDate: 700_000_000)
    private static let later = Date(timeIntervalSinceReferenceDate: 700_086_400)

    /// Everything a vacation holds, keys and versions of photos included (both stores are built
    /// alike, so they hand out the same keys).
    private static func content(of store: VacationStore) throws -> [String] {
        let versions = try store.count("SELECT total(Z_OPT) FROM ZPHOTO") * 1_000_000 + store.count("SELECT total(Z_OPT) FROM ZPLACE")
        return try store.contentLines(keys: true) + ["versions \(versions)"]
    }

    private struct Draw {
        var generator: SplitMix64
        mutating func below(_ bound: Int) -> Int { Int(generator.next() % UInt64(bound)) }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    }

    /// A photo of the first visit: every field known, some empty.
    private static func original(_ number: Int, _ draw: inout Draw) -> PhotoDraft {
        PhotoDraft(id: String(90_000 + number), title: draw.chance(80) ? "title \(number)" : nil,
                   subtitle: draw.chance(50) ? "about \(number)" : nil, imageURL: "https://img/\(number).jpg",
                   thumbnailURL: draw.chance(90) ? "https://img/\(number)_t.jpg" : nil, owner: "owner \(draw.below(5))",
                   dateTaken: draw.chance(85) ? Date(timeIntervalSinceReferenceDate: Double(600_000_000 + draw.below(1_000) * 3_600)) : nil,
                   dateUploaded: Date(timeIntervalSinceReferenceDate: Double(650_000_000 + number)),
                   latitude: draw.chance(70) ? Double(draw.below(90)) + 0.25 : nil, longitude: draw.chance(70) ? Double(draw.below(180)) : nil,
                   media: "photo", tags: (0..<draw.below(5)).map { _ in "tag\(draw.below(12))" }.reduce(into: []) { if !$0.contains($1) { $0.append($1) } },
                   placeName: draw.chance(85) ? "Place \(draw.below(6))" : nil, placeID: draw.chance(30) ? "pid\(draw.below(6))" : nil)
    }

    /// The same photo as a later feed gives it: mostly as it was, else with a field changed,
    /// left unknown (with or without a stand-in), tags or place changed, an earlier date.
    private static func revisit(_ draft: PhotoDraft, _ draw: inout Draw) -> PhotoDraft {
        var next = draft
        guard !draw.chance(55) else { return next }
        for _ in 0...draw.below(3) {
            switch draw.below(14) {
            case 0: next.title = draw.chance(30) ? nil : "new title \(draw.below(3))"
            case 1: next.unknown.insert(.title); next.title = nil
            case 2: next.unknown.insert(.owner); next.owner = draw.chance(50) ? "stand-in" : nil
            case 3: next.unknown.insert(.subtitle); next.subtitle = draw.chance(50) ? "stand-in about" : nil
            case 4: next.dateTaken = Date(timeIntervalSinceReferenceDate: Double(590_000_000 + draw.below(1_000) * 3_600))
            case 5: next.unknown.insert(.coordinates); next.latitude = nil; next.longitude = nil
            case 6: next.latitude = draw.chance(50) ? nil : 1.5
            case 7: next.tags = next.tags.reversed()
            case 8: next.tags = Array(next.tags.dropFirst())
            case 9: next.tags.append(draw.chance(50) ? "tag\(draw.below(12))" : "fresh\(draw.below(3))")
            case 10: next.unknown.insert(.tags); next.tags = draw.chance(50) ? [] : ["tag\(draw.below(12))"]
            case 11: next.placeName = draw.chance(25) ? nil : "Place \(draw.below(8))"
            case 12: next.placeID = "pid\(draw.below(9))"
            default: next.unknown.insert(.imageURL); next.imageURL = draw.chance(50) ? "https://built/\(draft.id).jpg" : nil
            }
        }
        return next
    }

    /// Visits `batches` into `store` as the importer does (tags and places carried from batch
    /// to batch, new photos deferred), or with `visit` batch by batch; returns the outcomes.
    private static func visit(_ batches: [[PhotoDraft]], into store: VacationStore, storedRows: Bool, asImporter: Bool,
                              now: Date) throws -> [String] {
        var outcomes: [String] = []
        try store.coordinator.performTransaction {
            let carried = BatchVisitState()
            for (index, batch) in batches.enumerated() {
                let context = ObjectContext(coordinator: store.coordinator)
                var editor = VacationEditor(context: context, now: now)
                editor.comparesStoredRows = storedRows
                if asImporter {
                    let visited = try editor.visitPhotos(batch, carrying: carried, deferringNew: true)
                    if index == batches.count - 1 { try editor.finishVisits(carried) }
                    try context.save()
                    _ = try editor.insertDeferred(visited.deferred)
                    outcomes += visited.outcomes.map { "\($0.id) \($0.outcome)" }
                } else {
                    outcomes += try editor.visit(batch).map { "\($0.id) \($0.outcome)" }
                    try context.save()
                }
            }
        }
        return outcomes
    }

    @Test("a batch visit that compares stored rows leaves every value, tag, count, place and outcome as visiting objects does",
          arguments: [false, true])
    func sameAsObjects(asImporter: Bool) throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("stored rows (importer: \(asImporter)), seed \(seed)")
        var draw = Draw(generator: SplitMix64(seed: seed))
        for round in 0..<6 {
            let originals = (0..<120).map { Self.original($0, &draw) }
            var second = originals.filter { _ in !draw.chance(10) }.map { Self.revisit($0, &draw) }
            // Ids listed twice, and photos the vacation lacks.
            for _ in 0..<10 { second.insert(Self.revisit(second[draw.below(second.count)], &draw), at: draw.below(second.count)) }
            second += (120..<140).map { Self.original($0, &draw) }
            let size = 1 + draw.below(60)
            let batches = stride(from: 0, to: second.count, by: size).map { Array(second[$0..<min($0 + size, second.count)]) }
            let stores = try (0..<2).map { _ in try VacationStore() }
            for store in stores {
                _ = try Self.visit([originals], into: store, storedRows: true, asImporter: asImporter, now: Self.first)
            }
            let fromRows = try Self.visit(batches, into: stores[0], storedRows: true, asImporter: asImporter, now: Self.later)
            let fromObjects = try Self.visit(batches, into: stores[1], storedRows: false, asImporter: asImporter, now: Self.later)
            #expect(fromRows == fromObjects, "round \(round)")
            #expect(fromRows.filter { $0.hasSuffix(" unchanged") }.count > 20, "round \(round)")
            #expect(fromRows.filter { $0.hasSuffix(" updated") }.count > 10, "round \(round)")
            let content = try Self.content(of: stores[0])
            #expect(content == (try Self.content(of: stores[1])), "round \(round)")
            #expect(try stores[0].problems() == [], "round \(round)")
        }
    }

    @Test("a context with unsaved changes visits photos as objects, and sees what it changed")
    func unsavedChanges() throws {
        let store = try VacationStore()
        var draw = Draw(generator: SplitMix64(seed: 7))
        let originals = (0..<5).map { Self.original($0, &draw) }
        _ = try Self.visit([originals], into: store, storedRows: true, asImporter: false, now: Self.first)
        let context = ObjectContext(coordinator: store.coordinator)
        let photo = try #require(try context.fetch(FetchRequest<Photo>(predicate: .key("unique", .equalTo, PredicateValue.string(originals[0].id)))).first)
        photo.title = "changed in memory"
        #expect(try context.storedObjects(Photo.self, whereKey: "unique", isIn: ["1"]) == nil)
        let outcomes = try VacationEditor(context: context, now: Self.later).visit(originals)
        #expect(outcomes.map(\.outcome) == [.updated, .unchanged, .unchanged, .unchanged, .unchanged])
        #expect(photo.title == originals[0].title)
    }

    @Test("stored objects give the row's values, its to-one, its to-many's members, and the object the context holds")
    func storedObjects() throws {
        let store = try VacationStore()
        let draft = PhotoDraft(id: "5", title: "Sunset", dateTaken: Date(timeIntervalSinceReferenceDate: 1_000.5), latitude: 2,
                               tags: ["sea", "sky"], placeName: "Lisbon")
        _ = try Self.visit([[draft, PhotoDraft(id: "6", title: "Other")]], into: store, storedRows: true, asImporter: false, now: Self.first)
        let context = ObjectContext(coordinator: store.coordinator)
        let ids = ["7", "6", "5"]
        let stored = try #require(try context.storedObjects(Photo.self, whereKey: "unique", isIn: ids, membersOf: "tags"))
        // In the order asked, ids the store lacks left out.
        let unique = try stored.layout.attributeSlot("unique")
        #expect(stored.objects.map { $0.string(at: unique) } == ["6", "5"])
        #expect(stored.objects[0].members.isEmpty)
        let row = try #require(stored.objects.first { $0.value(at: try stored.layout.attributeSlot("unique"), as: String.self) == "5" })
        #expect(row.value(at: try stored.layout.attributeSlot("title"), as: String?.self) == "Sunset")
        #expect(row.value(at: try stored.layout.attributeSlot("dateTaken"), as: Date?.self) == Date(timeIntervalSinceReferenceDate: 1_000.5))
        #expect(row.value(at: try stored.layout.attributeSlot("latitude"), as: Double?.self) == 2)
        #expect(row.value(at: try stored.layout.attributeSlot("longitude"), as: Double?.self) == nil)
        let place = try #require(try context.fetch(FetchRequest<Place>()).first)
        #expect(row.target(at: try stored.layout.toOneSlot("place")) == place.objectID)
        let tags = try context.fetch(FetchRequest<Tag>()).map(\.objectID)
        #expect(Set(row.members) == Set(tags) && row.members.count == 2)
        #expect(row.registered == nil)
        #expect(throws: FetchRequestError.self) { try stored.layout.attributeSlot("nothing") }
        #expect(throws: FetchRequestError.self) { try stored.layout.toOneSlot("tags") }
        #expect(throws: FetchRequestError.self) { try context.storedObjects(Photo.self, whereKey: "unique", isIn: ids, membersOf: "place") }
        #expect(throws: FetchRequestError.self) { try context.storedObjects(Photo.self, whereKey: "tags", isIn: ids) }
        #expect(try context.storedObjects(Photo.self, whereKey: "unique", isIn: [])?.objects.count == 0)
        // Once the context holds the photo, the row says so.
        let photo = try #require(try context.fetch(FetchRequest<Photo>()).first { $0.unique == "5" })
        let again = try #require(try context.storedObjects(Photo.self, whereKey: "unique", isIn: ids))
        #expect(again.objects.first { $0.id == photo.objectID }?.registered === photo)
        #expect(again.objects.allSatisfy { $0.members.isEmpty })
    }
}

/// The result of `ObjectContext.storedObjects(_:whereKey:isIn:membersOf:)`: the rows, and
/// where their properties are.
struct StoredObjects {
    var objects: [StoredObject]
    let layout: StoredObjectLayout
}

extension ObjectContext {
    /// The saved objects of `type` whose attribute `key` holds one of `values` (each listed
    /// once: one listed twice gives its rows twice), as the store holds them, in the order of
    /// `values`, with the members of the to-many relationship `toMany`: what
    /// `forEachStoredObject(_:whereKey:isIn:membersOf:_:)` hands out, kept (for these tests).
    /// Nil when this context cannot answer from the store alone.
    ///
    /// ```swift
    /// if let stored = try context.storedObjects(Photo.self, whereKey: "unique", isIn: ids, membersOf: "tags") {
    ///     let title = try stored.layout.attributeSlot("title")
    ///     for row in stored.objects { print(row.string(at: title) ?? "", row.members.count) }
    /// }
    /// ```
    func storedObjects<T: ManagedObject>(_ type: T.Type, whereKey key: String, isIn values: [String],
                                         membersOf toMany: String? = nil) throws -> StoredObjects? {
        var objects: [StoredObject] = []
        guard let layout = try forEachStoredObject(type, whereKey: key, isIn: values, membersOf: toMany, { objects.append(copy $0) }) else {
            return nil
        }
        return StoredObjects(objects: objects, layout: layout)
    }
}
