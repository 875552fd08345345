import ObjectGraphTestModels
import Foundation
import ObjectGraph
import SQLiteDB
import Testing

@Suite("Models declared in Swift resolve as Core Data resolves them")
struct ModelTests {
    let model = TestModels.travel

    @Test("entities are numbered depth first, alphabetically among siblings, ignoring case")
    func numbering() {
        #expect(model.entities.map(\.name) == ["Album", "Media", "Clip", "Picture", "Note", "Photo", "Place", "Sample", "Stop", "Tag", "Trip"])
        #expect(model.entity(named: "Clip")?.parent == 2)
        #expect(model.entity(named: "Media")?.hierarchy == [2, 3, 4])
        #expect(model.entity(named: "Picture")?.table == "ZMEDIA")
        #expect(model.entity(named: "Media")?.isAbstract == true)
    }

    @Test("reflection reads attributes, optionality, defaults and options")
    func attributes() throws {
        let sample = try #require(model.entity(named: "Sample"))
        #expect(sample.attributes.map(\.name) == ["text", "optionalText", "flag", "small", "medium", "large", "native",
                                                  "double", "float", "decimal", "date", "data", "uuid", "url", "required"])
        #expect(sample.attributes.map(\.type) == [.string, .string, .boolean, .integer16, .integer32, .integer64, .integer64,
                                                  .double, .float, .decimal, .date, .binary, .uuid, .uri, .string])
        #expect(sample.attribute(named: "text")?.declaration.defaultValue == .text("default"))
        #expect(sample.attribute(named: "text")?.declaration.isOptional == false)
        #expect(sample.attribute(named: "optionalText")?.declaration.isOptional == true)
        #expect(sample.attribute(named: "required")?.declaration.defaultValue == nil)
        let photo = try #require(model.entity(named: "Photo"))
        #expect(photo.attribute(named: "unique")?.declaration.isUnique == true)
        #expect(photo.attribute(named: "dateTaken")?.declaration.isIndexed == true)
        #expect(photo.uniquenessConstraints == [[0]])
    }

    @Test("relationships resolve their destination, inverse and storage")
    func relationships() throws {
        let photo = try #require(model.entity(named: "Photo"))
        let place = try #require(photo.relationship(named: "place"))
        #expect(place.destination == 7)
        #expect(place.storage == .foreignKey(column: "ZPLACE", entityColumn: nil))
        #expect(photo.relationship(named: "tags")?.storage == .joinTable(table: "Z_6TAGS", sourceColumn: "Z_6PHOTOS", destinationColumn: "Z_10TAGS"))
        let tag = try #require(model.entity(named: "Tag"))
        #expect(tag.relationship(named: "photos")?.storage == .joinTable(table: "Z_6TAGS", sourceColumn: "Z_10TAGS", destinationColumn: "Z_6PHOTOS"))
        #expect(model.entity(named: "Place")?.relationship(named: "photos")?.storage == .inverseForeignKey(column: "ZPLACE"))
        #expect(model.entity(named: "Media")?.relationship(named: "album")?.storage == .foreignKey(column: "ZALBUM", entityColumn: nil))
        #expect(model.entity(named: "Note")?.relationship(named: "photo")?.declaration.isOptional == false)
    }

    @Test("columns follow Core Data's order: integers and keys, dates and floats, decimals, strings, URIs, blobs")
    func columnOrder() {
        #expect(model.columns(ofTable: "ZSAMPLE").map { "\($0.name) \($0.type)" } == [
            "ZFLAG INTEGER", "ZLARGE INTEGER", "ZMEDIUM INTEGER", "ZNATIVE INTEGER", "ZSMALL INTEGER",
            "ZDATE TIMESTAMP", "ZDOUBLE FLOAT", "ZFLOAT FLOAT", "ZDECIMAL DECIMAL",
            "ZOPTIONALTEXT VARCHAR", "ZREQUIRED VARCHAR", "ZTEXT VARCHAR", "ZURL VARCHAR", "ZDATA BLOB", "ZUUID BLOB",
        ])
        #expect(model.columns(ofTable: "ZPHOTO").map(\.name) == ["ZPLACE", "ZDATETAKEN", "ZLATITUDE", "ZTITLE", "ZUNIQUE"])
        #expect(model.columns(ofTable: "ZMEDIA").map(\.name) == ["ZALBUM", "ZWIDTH", "ZSECONDS", "ZCAPTION"])
    }

    @Test("a relationship to a hierarchy with subentities gets an entity column")
    func entityColumn() throws {
        final class Owner: ManagedObject {
            @Relationship(inverse: "owner") var favourite: Media?
        }
        let descriptions: [EntityDescription] = [
            EntityDescription(name: "Media", isAbstract: true, relationships: [
                RelationshipDescription(name: "owner", destination: "Owner", inverse: "favourite")]),
            EntityDescription(name: "Picture", parent: "Media"),
            EntityDescription(name: "Owner", relationships: [
                RelationshipDescription(name: "favourite", destination: "Media", inverse: "owner")]),
        ]
        let model = try ObjectModel(entities: descriptions)
        #expect(model.columns(ofTable: "ZOWNER").map(\.name) == ["ZFAVOURITE", "Z1_FAVOURITE"])
        #expect(model.columns(ofTable: "ZMEDIA").map(\.name) == ["ZOWNER"])
    }

    @Test("invalid models are refused with the entity and property named")
    func invalidModels() {
        let cases: [([EntityDescription], String)] = [
            ([EntityDescription(name: "A", parent: "B")], "Invalid model: entity A has parent B, which is not in the model"),
            ([EntityDescription(name: "A"), EntityDescription(name: "A")], "Invalid model: entity A is declared twice"),
            ([EntityDescription(name: "A", relationships: [RelationshipDescription(name: "b", destination: "B", inverse: nil)])],
             "Invalid model: relationship A.b points to B, which is not in the model"),
            ([EntityDescription(name: "A", relationships: [RelationshipDescription(name: "bs", destination: "B", inverse: nil, isToMany: true)]),
              EntityDescription(name: "B", relationships: [RelationshipDescription(name: "a", destination: "A", inverse: "bs")])],
             "Invalid model: relationship B.a names A.bs as its inverse, but that to-many names no inverse: declare it on both sides"),
            ([EntityDescription(name: "A", relationships: [RelationshipDescription(name: "b", destination: "A", inverse: "missing")])],
             "Invalid model: relationship A.b has inverse A.missing, which does not exist"),
            ([EntityDescription(name: "A", parent: "B"), EntityDescription(name: "B", parent: "A")],
             "Invalid model: entities A, B inherit from each other in a cycle"),
            ([EntityDescription(name: "A", attributes: [AttributeDescription(name: "x", type: .string)], uniquenessConstraints: [["y"]])],
             "Invalid model: uniqueness constraint of A names y, which is not one of its attributes"),
            ([EntityDescription(name: "A", attributes: [AttributeDescription(name: "x", type: .string), AttributeDescription(name: "x", type: .integer16)])],
             "Invalid model: entity A has more than one property named x"),
        ]
        for (descriptions, message) in cases {
            #expect(throws: ModelError.self) { try ObjectModel(entities: descriptions) }
            do {
                _ = try ObjectModel(entities: descriptions)
            } catch {
                #expect("\(error)" == message)
            }
        }
    }

    @Test("version hashes are Apple's: the BSManagedDocument Ebook entity hashes as its store says")
    func appleVersionHash() throws {
        let ebook = EntityDescription(name: "Ebook", attributes: [
            AttributeDescription(name: "contents", type: .binary, isOptional: false),
            AttributeDescription(name: "title", type: .string, isOptional: false),
        ])
        let model = try ObjectModel(entities: [ebook])
        let hash = try #require(model.entity(named: "Ebook")?.versionHash)
        #expect(hash.map { String(format: "%02x", $0) }.joined() == "b48d7af383e1c465caee084a78bc4a72c9aad0b5fe05c04fe558961c748b29d3")
    }
}
