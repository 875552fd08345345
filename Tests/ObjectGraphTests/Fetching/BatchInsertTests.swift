import ObjectGraphTestModels
import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

@Suite("Batch inserts: rows straight into the store, checked as a save checks them")
struct BatchInsertTests {
    /// A place and two tags, saved; the photos of `rows` go in by batch or by context.
    private struct Scene {
        let store: TestStore
        let place: Place
        let tags: [Tag]
        let context: ObjectContext

        init() throws {
            store = try TestStore()
            let context = store.context()
            self.context = context
            place = Place(context: context)
            place.name = "Lisbon"
            tags = ["sea", "tram"].map { name in
                let tag = Tag(context: context)
                tag.name = name
                return tag
            }
            try context.save()
        }

        /// Counts and key counters: what a refused batch must leave as it was.
        func state() throws -> [[SQLiteValue]] {
            try store.rows("SELECT (SELECT count(*) FROM ZPHOTO), (SELECT count(*) FROM Z_6TAGS), (SELECT count(*) FROM ZNOTE), "
                + "(SELECT count(*) FROM ZSAMPLE), (SELECT group_concat(Z_MAX) FROM Z_PRIMARYKEY)")
        }
    }

    private static let photos: [(unique: String, title: String?, date: Double?, latitude: Double?, tags: [Int], placed: Bool)] = [
        ("1", "Alfama", 100, 38.71, [0, 1], true),
        ("2", nil, nil, nil, [], false),
        ("3", "Belém", 300.5, -9.2, [1], true),
    ]

    private static func batch(for scene: Scene) throws -> BatchInsert {
        var insert = try BatchInsert(entityName: "Photo", in: TestModels.travel)
        let unique = try insert.attribute("unique"), title = try insert.attribute("title")
        let date = try insert.attribute("dateTaken"), latitude = try insert.attribute("latitude")
        let place = try insert.toOne("place"), tags = try insert.toMany("tags")
        for photo in photos {
            var row = insert.newRow()
            row.set(unique, photo.unique)
            row.set(title, photo.title)
            row.set(date, photo.date.map(Date.init(timeIntervalSinceReferenceDate:)))
            row[latitude] = photo.latitude.map(SQLiteValue.real) ?? .null
            row[place] = photo.placed ? scene.place.objectID : nil
            row[tags] = photo.tags.map { scene.tags[$0].objectID }
            insert.append(row)
        }
        return insert
    }

    @Test("rows, join rows and Z_PRIMARYKEY come out as a context's save of the same photos writes them")
    func sameAsSave() throws {
        let byBatch = try Scene()
        let result = try byBatch.store.coordinator.execute(try Self.batch(for: byBatch))
        #expect(result.objectIDs.map(\.primaryKey) == [1, 2, 3])

        let bySave = try Scene()
        for photo in Self.photos {
            let object = Photo(context: bySave.context)
            object.unique = photo.unique
            object.title = photo.title
            object.dateTaken = photo.date.map(Date.init(timeIntervalSinceReferenceDate:))
            object.latitude = photo.latitude
            object.place = photo.placed ? bySave.place : nil
            object.tags = Set(photo.tags.map { bySave.tags[$0] })
        }
        try bySave.context.save()
        for query in ["SELECT * FROM ZPHOTO ORDER BY Z_PK", "SELECT * FROM Z_6TAGS ORDER BY 1, 2", "SELECT * FROM Z_PRIMARYKEY ORDER BY Z_ENT"] {
            #expect(try byBatch.store.rows(query) == bySave.store.rows(query), "\(query)")
        }
        let written = try byBatch.store.rows("SELECT ZUNIQUE, ZTITLE, ZDATETAKEN, ZLATITUDE, ZPLACE FROM ZPHOTO ORDER BY Z_PK")
        #expect(written == [
            // TIMESTAMP has NUMERIC affinity: SQLite keeps a whole number of seconds as an integer.
            [.text("1"), .text("Alfama"), .integer(100), .real(38.71), .integer(1)],
            [.text("2"), .null, .null, .null, .null],
            [.text("3"), .text("Belém"), .real(300.5), .real(-9.2), .integer(1)],
        ])
    }

    @Test("the change set names the new objects and the related ones, and a live context sees the new members")
    func changeSetAndMerging() throws {
        let scene = try Scene()
        scene.context.automaticallyMergesChanges = true
        #expect(scene.place.photos.isEmpty && scene.tags[1].photos.isEmpty)
        let result = try scene.store.coordinator.execute(try Self.batch(for: scene))
        #expect(result.changeSet.inserted == Set(result.objectIDs))
        #expect(result.changeSet.updated == [scene.place.objectID, scene.tags[0].objectID, scene.tags[1].objectID])
        #expect(result.changeSet.changedKeys[scene.tags[1].objectID] == ["photos"])
        _ = try scene.context.fetch(FetchRequest<Tag>())
        #expect(scene.place.photos.map(\.unique).sorted() == ["1", "3"])
        #expect(scene.tags[1].photos.map(\.unique).sorted() == ["1", "3"])
        let photo = try #require(scene.context.object(with: result.objectIDs[0]) as? Photo)
        #expect(photo.title == "Alfama" && photo.tags.map(\.name).sorted() == ["sea", "tram"])
    }

    @Test("a new row starts from the attributes' defaults; numbers convert to the attribute's type")
    func defaultsAndConversions() throws {
        let store = try TestStore()
        var insert = try BatchInsert(entityName: "Sample", in: TestModels.travel)
        let required = try insert.attribute("required"), double = try insert.attribute("double")
        let date = try insert.attribute("date"), uuid = try insert.attribute("uuid")
        var row = insert.newRow()
        row.set(required, "here")
        row[double] = .integer(3)
        row[date] = .integer(60)
        row[uuid] = .text("E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        insert.append(row)
        try store.coordinator.execute(insert)
        let context = store.context()
        let sample = try #require(try context.fetch(FetchRequest<Sample>()).first)
        #expect(sample.required == "here" && sample.text == "default" && sample.double == 3)
        #expect(sample.date == Date(timeIntervalSinceReferenceDate: 60))
        #expect(sample.uuid == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(try store.rows("SELECT typeof(ZDOUBLE), typeof(ZUUID) FROM ZSAMPLE") == [[.text("real"), .text("blob")]])
    }

    @Test("keys that a batch cannot set are refused when named")
    func refusedKeys() throws {
        let insert = try BatchInsert(entityName: "Place", in: TestModels.travel)
        #expect(throws: BatchInsertError.self) { try insert.attribute("nope") }
        #expect(throws: BatchInsertError.self) { try insert.toOne("photos") }
        let error = #expect(throws: BatchInsertError.self) { try insert.toMany("photos") }
        #expect(error?.description == "Batch insert of Place: photos has a to-one inverse: set that side "
            + "(it would move objects away from their owners)")
        #expect(throws: BatchInsertError.self) { try BatchInsert(entityName: "Nope", in: TestModels.travel) }
        #expect(throws: BatchInsertError.self) { try BatchInsert(entityName: "Media", in: TestModels.travel) }
    }

    @Test("a row that breaks a rule fails the batch by its number, and nothing is written",
          arguments: [
              ("required attribute", "Batch insert of Sample, row 1: required is required"),
              ("wrong type", "Batch insert of Photo, row 0: latitude holds 'north', which is not a Double"),
              ("NaN", "Batch insert of Photo, row 0: latitude is NaN, which cannot be stored"),
              ("wrong entity", "Batch insert of Photo, row 0: place names a Tag, not a Place"),
              ("unsaved object", "Batch insert of Photo, row 0: place names an unsaved Place: save it first"),
              ("missing object", "Batch insert of Photo: tags names Tag p99, which is not in the store"),
              ("twice", "Batch insert of Photo, row 0: tags names one object twice"),
              ("taken unique", "Batch insert of Photo, row 1: breaks the uniqueness of unique: another object already has unique = '7'"),
              ("required to-one", "Batch insert of Note, row 0: photo is required"),
          ])
    func refusedRows(rule: String, message: String) throws {
        let scene = try Scene()
        let coordinator = scene.store.coordinator
        let photo = Photo(context: scene.context)
        photo.unique = "0"
        try scene.context.save()
        let before = try scene.state()
        let model = TestModels.travel
        var insert: BatchInsert
        switch rule {
        case "required attribute":
            insert = try BatchInsert(entityName: "Sample", in: model)
            let required = try insert.attribute("required")
            var row = insert.newRow()
            row.set(required, "ok")
            insert.append(row)
            insert.append(insert.newRow())
        case "required to-one":
            insert = try BatchInsert(entityName: "Note", in: model)
            insert.append(insert.newRow())
        default:
            insert = try BatchInsert(entityName: "Photo", in: model)
            let unique = try insert.attribute("unique"), latitude = try insert.attribute("latitude")
            let place = try insert.toOne("place"), tags = try insert.toMany("tags")
            var row = insert.newRow()
            row.set(unique, "7")
            switch rule {
            case "wrong type": row[latitude] = .text("north")
            case "NaN": row.set(latitude, Double.nan)
            case "wrong entity": row[place] = scene.tags[0].objectID
            case "unsaved object": row[place] = Place(context: scene.context).objectID
            case "missing object": row[tags] = [scene.tags[0].objectID, ObjectID(entityNumber: scene.tags[0].objectID.entityNumber, primaryKey: 99)]
            case "twice": row[tags] = [scene.tags[0].objectID, scene.tags[0].objectID]
            default: break
            }
            insert.append(row)
            if rule == "taken unique" { insert.append(row) }
        }
        let error = #expect(throws: BatchInsertError.self) { try coordinator.execute(insert) }
        #expect(error?.description == message)
        #expect(try scene.state() == before)
    }

    @Test("a unique value already in the store is refused")
    func takenInStore() throws {
        let scene = try Scene()
        let photo = Photo(context: scene.context)
        photo.unique = "7"
        try scene.context.save()
        var insert = try BatchInsert(entityName: "Photo", in: TestModels.travel)
        var row = insert.newRow()
        row.set(try insert.attribute("unique"), "7")
        insert.append(row)
        let error = #expect(throws: BatchInsertError.self) { try scene.store.coordinator.execute(insert) }
        #expect(error?.row == 0)
        #expect(try scene.store.rows("SELECT count(*) FROM ZPHOTO") == [[.integer(1)]])
    }

    @Test("inside a transaction the batch is rolled back with everything else")
    func rolledBackWithTransaction() throws {
        let scene = try Scene()
        let before = try scene.state()
        struct Abandon: Error {}
        #expect(throws: Abandon.self) {
            try scene.store.coordinator.performTransaction {
                try scene.store.coordinator.execute(try Self.batch(for: scene))
                #expect(try scene.store.rows("SELECT count(*) FROM ZPHOTO") == [[.integer(3)]])
                throw Abandon()
            }
        }
        #expect(try scene.state() == before)
    }

    @Test("a batch for another model, or an empty one, writes nothing")
    func otherModelAndEmpty() throws {
        let scene = try Scene()
        let before = try scene.state()
        let other = try ObjectModel(Tag.self, Photo.self, Place.self, Note.self)
        var foreign = try BatchInsert(entityName: "Tag", in: other)
        foreign.append(foreign.newRow())
        #expect(throws: BatchInsertError.self) { try scene.store.coordinator.execute(foreign) }
        let empty = try scene.store.coordinator.execute(try BatchInsert(entityName: "Tag", in: TestModels.travel))
        #expect(empty.objectIDs.isEmpty && empty.changeSet.isEmpty)
        #expect(try scene.state() == before)
    }
}
