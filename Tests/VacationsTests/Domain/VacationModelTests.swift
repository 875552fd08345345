import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport
@testable import Vacations

/// The vacations model is built from its classes' `declaredPropertyNames`, not by reflection
/// (which cost every command about 10 M instructions): the lists must say what reflection reads.
@Suite("The vacations model: declared property names")
struct VacationModelTests {
    @Test("each class's declared property names are its properties, in declaration order")
    func declaredNamesMatchReflection() {
        #expect(ObjectModel.declaredPropertyNameMismatches(Album.self, Photo.self, Place.self, Tag.self) == [])
    }

    @Test("the model from the declared names is the model reflection builds, to the version hashes")
    func sameModelEitherWay() throws {
        let declared = VacationModel.model
        let reflected = try ObjectModel(classes: [Album.self, Photo.self, Place.self, Tag.self],
                                        versionIdentifier: VacationModel.version, byReflection: true)
        #expect(declared.versionIdentifier == reflected.versionIdentifier)
        #expect(declared.versionHashes == reflected.versionHashes)
        #expect(declared.entities.map(\.name) == ["Album", "Photo", "Place", "Tag"])
        #expect(declared.entities.count == reflected.entities.count)
        #expect(declared.joinTables == reflected.joinTables)
        for (ours, theirs) in zip(declared.entities, reflected.entities) {
            #expect(ours.name == theirs.name)
            #expect(ours.table == theirs.table)
            #expect(ours.attributes.map(\.declaration) == theirs.attributes.map(\.declaration))
            #expect(ours.attributes.map(\.column) == theirs.attributes.map(\.column))
            #expect(ours.attributes.map(\.slot) == theirs.attributes.map(\.slot))
            #expect(ours.relationships.map(\.declaration) == theirs.relationships.map(\.declaration))
            #expect(ours.relationships.map(\.storage) == theirs.relationships.map(\.storage))
            #expect(ours.uniquenessConstraints == theirs.uniquenessConstraints)
            #expect(declared.columns(ofTable: ours.table) == reflected.columns(ofTable: theirs.table))
        }
        #expect(declared.searchIndexes == reflected.searchIndexes)
    }

    @Test("every property of a saved photo, tag, place and album lands in its own column")
    func propertiesReachTheirOwnColumns() throws {
        let store = try VacationStore()
        let context = store.context()
        let photo = Photo(context: context)
        let strings: [ReferenceWritableKeyPath<Photo, String?>] = [\.title, \.subtitle, \.imageURL, \.thumbnailURL, \.owner, \.media]
        for (index, path) in strings.enumerated() { photo[keyPath: path] = "value \(index)" }
        photo.unique = "42"
        photo.dateTaken = Date(timeIntervalSinceReferenceDate: 1.5)
        photo.dateUploaded = Date(timeIntervalSinceReferenceDate: 2.5)
        photo.visited = Date(timeIntervalSinceReferenceDate: 3.5)
        photo.latitude = 38.5
        photo.longitude = -9.25
        let place = Place(context: context)
        place.name = "Lisbon"
        place.placeID = "p1"
        place.firstVisited = Date(timeIntervalSinceReferenceDate: 4.5)
        let tag = Tag(context: context)
        tag.name = "sea"
        tag.count = 1
        photo.place = place
        photo.tags = [tag]
        let album = Album(context: context)
        album.name = "Sea"
        album.predicate = "ANY tags.name == 'sea'"
        album.created = Date(timeIntervalSinceReferenceDate: 5.5)
        try context.save()

        let connection = try Connection(path: store.directory.path("persistentStore").path,
                                        configuration: .init(readOnly: true, create: false, journalMode: nil))
        let rows = try connection.rows("""
            SELECT p.ZUNIQUE, p.ZTITLE, p.ZSUBTITLE, p.ZIMAGEURL, p.ZTHUMBNAILURL, p.ZOWNER, p.ZMEDIA, p.ZDATETAKEN, p.ZDATEUPLOADED,
                   p.ZVISITED, p.ZLATITUDE, p.ZLONGITUDE, pl.ZNAME, pl.ZPLACEID, pl.ZFIRSTVISITED, t.ZNAME, t.ZCOUNT,
                   a.ZNAME, a.ZPREDICATE, a.ZCREATED
            FROM ZPHOTO p JOIN ZPLACE pl ON pl.Z_PK = p.ZPLACE JOIN Z_2TAGS j ON j.Z_2PHOTOS = p.Z_PK JOIN ZTAG t ON t.Z_PK = j.Z_4TAGS,
                 ZALBUM a
            """) { row in (0..<20).map { "\(row.value(at: $0))" } }
        #expect(rows.count == 1)
        // Values as SQL literals: text quoted, dates as seconds since 2001.
        #expect(rows.first == ["'42'", "'value 0'", "'value 1'", "'value 2'", "'value 3'", "'value 4'", "'value 5'", "1.5", "2.5", "3.5",
                               "38.5", "-9.25", "'Lisbon'", "'p1'", "4.5", "'sea'", "1", "'Sea'", "'ANY tags.name == ''sea'''", "5.5"])
    }
}
