import ObjectGraphTestModels
import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

@Suite("Relationships: inverses in memory, rows on disk, delete rules")
struct RelationshipTests {
    @Test("setting a to-one keeps the inverse to-many in step, and moving it updates both places")
    func toOneInverse() throws {
        let store = try TestStore()
        let context = store.context()
        let lisbon = Place(context: context)
        lisbon.name = "Lisbon"
        let porto = Place(context: context)
        porto.name = "Porto"
        let photo = Photo(context: context)
        photo.unique = "1"
        photo.place = lisbon
        #expect(lisbon.photos == [photo])
        photo.place = porto
        #expect(lisbon.photos.isEmpty)
        #expect(porto.photos == [photo])
        try context.save()
        #expect(try store.rows("SELECT p.ZUNIQUE, l.ZNAME FROM ZPHOTO p JOIN ZPLACE l ON l.Z_PK = p.ZPLACE") == [[.text("1"), .text("Porto")]])
        let reader = store.context()
        let place = try reader.existingObject(with: porto.objectID, as: Place.self)
        #expect(place.photos.map(\.unique) == ["1"])
    }

    @Test("to-many changes from either side write join rows once, and the other side sees them")
    func manyToMany() throws {
        let store = try TestStore()
        let context = store.context()
        let sea = Tag(context: context)
        sea.name = "sea"
        let sun = Tag(context: context)
        sun.name = "sun"
        let photo = Photo(context: context)
        photo.unique = "1"
        photo.tags = [sea, sun]
        #expect(sea.photos == [photo])
        let second = Photo(context: context)
        second.unique = "2"
        sea.photos.insert(second)
        #expect(second.tags == [sea])
        try context.save()
        #expect(try store.rows("SELECT Z_6PHOTOS, Z_10TAGS FROM Z_6TAGS ORDER BY 1, 2")
                == [[.integer(1), .integer(1)], [.integer(1), .integer(2)], [.integer(2), .integer(1)]]
                || store.rows("SELECT count(*) FROM Z_6TAGS") == [[.integer(3)]])
        photo.tags.remove(sun)
        #expect(sun.photos.isEmpty)
        try context.save()
        let reader = store.context()
        let readSea = try reader.existingObject(with: sea.objectID, as: Tag.self)
        #expect(Set(readSea.photos.map(\.unique)) == ["1", "2"])
        #expect(try reader.existingObject(with: sun.objectID, as: Tag.self).photos.isEmpty)
        #expect(try store.rows("SELECT count(*) FROM Z_6TAGS") == [[.integer(2)]])
    }

    @Test("a new object related to saved ones gets its permanent key in their rows")
    func temporaryIDsInRelationships() throws {
        let store = try TestStore()
        let context = store.context()
        let place = Place(context: context)
        place.name = "Kyoto"
        try context.save()
        let photo = Photo(context: context)
        photo.unique = "9"
        photo.place = place
        let temporary = photo.objectID
        try context.save()
        #expect(!photo.objectID.isTemporary)
        #expect(place.photos.map(\.objectID) == [photo.objectID])
        #expect(context.object(with: temporary) === photo)
        #expect(try store.rows("SELECT ZPLACE FROM ZPHOTO") == [[.integer(place.objectID.primaryKey)]])
    }

    @Test("nullify: deleting a place clears its photos' place, even when they were never loaded")
    func nullify() throws {
        let store = try TestStore()
        let writer = store.context()
        let place = Place(context: writer)
        place.name = "Lisbon"
        for index in 0..<3 {
            let photo = Photo(context: writer)
            photo.unique = "\(index)"
            photo.place = place
        }
        try writer.save()
        let context = store.context()
        context.delete(try context.existingObject(with: place.objectID))
        try context.save()
        #expect(try store.rows("SELECT count(*), count(ZPLACE) FROM ZPHOTO") == [[.integer(3), .integer(0)]])
        #expect(try store.rows("SELECT count(*) FROM ZPLACE") == [[.integer(0)]])
        #expect(try store.rows("SELECT min(Z_OPT) FROM ZPHOTO") == [[.integer(2)]])
    }

    @Test("nullify on a many-to-many removes the join rows of the deleted side only")
    func nullifyManyToMany() throws {
        let store = try TestStore()
        let context = store.context()
        let tag = Tag(context: context)
        tag.name = "sea"
        let photo = Photo(context: context)
        photo.unique = "1"
        photo.tags = [tag]
        try context.save()
        context.delete(tag)
        try context.save()
        #expect(photo.tags.isEmpty)
        #expect(try store.rows("SELECT count(*) FROM Z_6TAGS") == [[.integer(0)]])
        #expect(try store.rows("SELECT count(*) FROM ZPHOTO") == [[.integer(1)]])
    }

    @Test("cascade: deleting a photo deletes its notes; deleting an album deletes its media of every subentity")
    func cascade() throws {
        let store = try TestStore()
        let context = store.context()
        let photo = Photo(context: context)
        photo.unique = "1"
        for text in ["a", "b"] {
            let note = Note(context: context)
            note.text = text
            note.photo = photo
        }
        let album = Album(context: context)
        album.title = "Summer"
        let picture = Picture(context: context)
        picture.width = 640
        picture.album = album
        let clip = Clip(context: context)
        clip.seconds = 3.5
        clip.album = album
        try context.save()
        #expect(try store.rows("SELECT Z_ENT, ZWIDTH, ZSECONDS FROM ZMEDIA ORDER BY Z_ENT") == [[.integer(3), .null, .real(3.5)], [.integer(4), .integer(640), .null]])
        let other = store.context()
        other.delete(try other.existingObject(with: photo.objectID))
        other.delete(try other.existingObject(with: album.objectID))
        try other.save()
        #expect(try store.rows("SELECT (SELECT count(*) FROM ZNOTE), (SELECT count(*) FROM ZMEDIA), (SELECT count(*) FROM ZALBUM)")
                == [[.integer(0), .integer(0), .integer(0)]])
    }

    @Test("deny: a trip with stops cannot be deleted, and the refused save changes nothing")
    func deny() throws {
        let store = try TestStore()
        let context = store.context()
        let trip = Trip(context: context)
        trip.name = "Iceland"
        let stop = Stop(context: context)
        stop.trip = trip
        try context.save()
        context.delete(trip)
        let error = #expect(throws: ValidationError.self) { try context.save() }
        #expect(error?.rule == .deny)
        #expect(error?.description == "Trip p1: stops refuses the delete: 1 related object remain")
        #expect(try store.rows("SELECT count(*) FROM ZTRIP") == [[.integer(1)]])
        #expect(trip.isDeleted)
        context.rollback()
        #expect(!trip.isDeleted)
        context.delete(stop)
        try context.save()
        context.delete(trip)
        try context.save()
        #expect(try store.rows("SELECT (SELECT count(*) FROM ZTRIP), (SELECT count(*) FROM ZSTOP)") == [[.integer(0), .integer(0)]])
    }

    @Test("a required to-one is checked on save")
    func requiredToOne() throws {
        let store = try TestStore()
        let context = store.context()
        let note = Note(context: context)
        note.text = "orphan"
        let error = #expect(throws: ValidationError.self) { try context.save() }
        #expect(error?.property == "photo")
        #expect(error?.rule == .required)
    }

    @Test("relating objects of two contexts is refused when the context saves")
    func crossContext() throws {
        let store = try TestStore()
        let first = store.context()
        let second = store.context()
        let photo = Photo(context: first)
        photo.unique = "1"
        let place = Place(context: second)
        place.name = "Elsewhere"
        photo.place = place
        #expect(photo.place == nil)
        #expect(throws: ContextError.self) { try first.save() }
    }
}

@Suite("A failed save leaves the context as it was")
struct FailedSaveTests {
    @Test("after a refused save every object keeps its values, relationships and pending state, and the next save works")
    func contextUnchanged() throws {
        let store = try TestStore()
        let setup = store.context()
        let existing = Tag(context: setup)
        existing.name = "sea"
        try setup.save()

        let context = store.context()
        let place = Place(context: context)
        place.name = "Lisbon"
        let photo = Photo(context: context)
        photo.unique = "1"
        photo.place = place
        let clash = Tag(context: context)
        clash.name = "sea"
        photo.tags = [clash]
        let trip = Trip(context: context)
        trip.name = "Portugal"
        let stop = Stop(context: context)
        stop.trip = trip
        #expect(throws: UniqueConstraintError.self) { try context.save() }
        #expect(try store.rows("SELECT (SELECT count(*) FROM ZPHOTO), (SELECT count(*) FROM ZPLACE), (SELECT count(*) FROM ZTAG)")
                == [[.integer(0), .integer(0), .integer(1)]])
        #expect(photo.objectID.isTemporary && photo.isInserted)
        #expect(photo.place === place && place.photos == [photo] && clash.photos == [photo])
        #expect(context.hasChanges)
        #expect(context.insertedObjects.count == 5)
        clash.name = "sun"
        try context.save()
        #expect(try store.rows("SELECT ZNAME FROM ZTAG ORDER BY 1") == [[.text("sea")], [.text("sun")]])
        #expect(!photo.objectID.isTemporary)
    }

    @Test("a delete refused by a deny rule restores the inverse relationships it had cleared")
    func denyRestores() throws {
        let store = try TestStore()
        let context = store.context()
        let trip = Trip(context: context)
        trip.name = "Iceland"
        let stop = Stop(context: context)
        stop.trip = trip
        let photo = Photo(context: context)
        photo.unique = "9"
        let note = Note(context: context)
        note.text = "n"
        note.photo = photo
        try context.save()
        context.delete(photo)      // cascades to the note, nullifies nothing else
        context.delete(trip)       // refused: the trip still has a stop
        #expect(throws: ValidationError.self) { try context.save() }
        #expect(note.photo === photo && !note.isDeleted)
        #expect(stop.trip === trip)
        context.rollback()
        #expect(!photo.isDeleted && !trip.isDeleted)
        #expect(photo.notes.count == 1)
    }
}
