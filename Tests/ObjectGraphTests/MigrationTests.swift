import ObjectGraphTestModels
import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

@Suite("Lightweight migration of stores with rows")
struct MigrationTests {
    private static func entity(_ name: String, _ attributes: [AttributeDescription], _ relationships: [RelationshipDescription] = []) -> EntityDescription {
        EntityDescription(name: name, attributes: attributes, relationships: relationships)
    }

    /// Version 1: Photo(title, rating) ↔ Tag(name) many-to-many.
    private static let version1: [EntityDescription] = [
        entity("Photo", [AttributeDescription(name: "title", type: .string), AttributeDescription(name: "rating", type: .integer16)],
               [RelationshipDescription(name: "tags", destination: "Tag", inverse: "photos", isToMany: true)]),
        entity("Tag", [AttributeDescription(name: "name", type: .string)],
               [RelationshipDescription(name: "photos", destination: "Photo", inverse: "tags", isToMany: true)]),
    ]

    /// A store of version 1 with two photos, one tag, linked.
    private func makeStore() throws -> (TemporaryDirectory, URL) {
        let directory = try TemporaryDirectory()
        let url = directory.path("store.sqlite")
        let coordinator = try StoreCoordinator(url: url, model: ObjectModel(entities: Self.version1))
        let context = ObjectContext(coordinator: coordinator)
        let tag = try context.insertObject(entityName: "Tag")
        try tag.setValue("sea", forKey: "name")
        for (title, rating) in [("Belém", 4), ("Alfama", 5)] {
            let photo = try context.insertObject(entityName: "Photo")
            try photo.setValue(title, forKey: "title")
            try photo.setValue(Int16(rating), forKey: "rating")
            try photo.addObject(tag, forKey: "tags")
        }
        try context.save()
        return (directory, url)
    }

    private func rows(_ url: URL, _ sql: String) throws -> [[SQLiteValue]] {
        let connection = try Connection(path: url.path, configuration: .init(journalMode: nil))
        let statement = try connection.prepare(sql)
        var rows: [[SQLiteValue]] = []
        try statement.forEachRow { row in rows.append((0..<row.columnCount).map { row.value(at: $0) }) }
        return rows
    }

    @Test("an added attribute gets its default in existing rows; a removed one goes; a renamed one keeps its data")
    func attributes() throws {
        let (directory, url) = try makeStore()
        defer { withExtendedLifetime(directory) {} }
        var version2 = Self.version1
        version2[0].attributes = [
            AttributeDescription(name: "caption", type: .string, renamingIdentifier: "title"),
            AttributeDescription(name: "visited", type: .boolean, isOptional: false, defaultValue: .integer(1)),
        ]
        let coordinator = try StoreCoordinator(url: url, model: ObjectModel(entities: version2))
        #expect(try rows(url, "SELECT ZCAPTION, ZVISITED FROM ZPHOTO ORDER BY Z_PK") == [[.text("Belém"), .integer(1)], [.text("Alfama"), .integer(1)]])
        // The table is rebuilt as Core Data lays it out: integers first, then strings.
        #expect(try coordinator.withConnection { try $0.columns(of: "ZPHOTO") } == ["Z_PK", "Z_ENT", "Z_OPT", "ZVISITED", "ZCAPTION"])
        #expect(try rows(url, "SELECT sql FROM sqlite_master WHERE name = 'ZPHOTO'")
                == [[.text("CREATE TABLE ZPHOTO ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZVISITED INTEGER, ZCAPTION VARCHAR )")]])
        #expect(try rows(url, "SELECT count(*) FROM Z_1TAGS") == [[.integer(2)]])
        // Opening again migrates nothing.
        let schema = try rows(url, "SELECT sql FROM sqlite_master ORDER BY name")
        _ = try StoreCoordinator(url: url, model: ObjectModel(entities: version2))
        #expect(try rows(url, "SELECT sql FROM sqlite_master ORDER BY name") == schema)
    }

    @Test("an app's own indexes on a rebuilt table come back when their columns remain, and go with a removed column")
    func ownIndexesOnRebuiltTable() throws {
        let (directory, url) = try makeStore()
        defer { withExtendedLifetime(directory) {} }
        let own = ["CREATE INDEX my_title ON ZPHOTO (ZTITLE)", "CREATE INDEX my_rating_title ON ZPHOTO (ZRATING, ZTITLE)",
                   "CREATE INDEX my_tag_name ON ZTAG (ZNAME)"]
        let connection = try Connection(path: url.path, configuration: .init(journalMode: nil))
        for sql in own { try connection.execute(sql) }
        var version2 = Self.version1
        version2[0].attributes = [AttributeDescription(name: "title", type: .string),
                                  AttributeDescription(name: "visited", type: .boolean, isOptional: false, defaultValue: .integer(0))]
        _ = try StoreCoordinator(url: url, model: ObjectModel(entities: version2))
        #expect(try rows(url, "SELECT name, sql FROM sqlite_master WHERE name LIKE 'my\\_%' ESCAPE '\\' ORDER BY name") == [
            [.text("my_tag_name"), .text(own[2])], [.text("my_title"), .text(own[0])],
        ])
        #expect(try rows(url, "SELECT ZTITLE, ZVISITED FROM ZPHOTO ORDER BY Z_PK") == [[.text("Belém"), .integer(0)], [.text("Alfama"), .integer(0)]])
    }

    @Test("a new entity that sorts first renumbers the others, their rows, join tables and key counters")
    func renumbering() throws {
        let (directory, url) = try makeStore()
        defer { withExtendedLifetime(directory) {} }
        var version2 = Self.version1
        version2.append(Self.entity("Album", [AttributeDescription(name: "title", type: .string)],
                                    [RelationshipDescription(name: "photos", destination: "Photo", inverse: "album", isToMany: true)]))
        version2[0].relationships.append(RelationshipDescription(name: "album", destination: "Album", inverse: "photos"))
        let model = try ObjectModel(entities: version2)
        #expect(model.entities.map(\.name) == ["Album", "Photo", "Tag"])
        let coordinator = try StoreCoordinator(url: url, model: model)
        #expect(try rows(url, "SELECT DISTINCT Z_ENT FROM ZPHOTO") == [[.integer(2)]])
        #expect(try rows(url, "SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
                == [[.integer(1), .text("Album"), .integer(0)], [.integer(2), .text("Photo"), .integer(2)], [.integer(3), .text("Tag"), .integer(1)]])
        #expect(try rows(url, "SELECT count(*) FROM Z_2TAGS") == [[.integer(2)]])
        #expect(try rows(url, "SELECT name FROM sqlite_master WHERE name = 'Z_1TAGS'") == [])
        let context = ObjectContext(coordinator: coordinator)
        let photos = try context.fetch(FetchRequest<ManagedObject>(entityName: "Photo", predicate: try ObjectPredicate(format: "ANY tags.name == 'sea'")))
        #expect(photos.count == 2)
        let album = try context.insertObject(entityName: "Album")
        try album.setObjects(photos, forKey: "photos")
        try context.save()
        #expect(try rows(url, "SELECT count(*) FROM ZPHOTO WHERE ZALBUM IS NOT NULL") == [[.integer(2)]])
    }

    @Test("what lightweight migration cannot do fails naming the entity and property, and changes nothing")
    func refusals() throws {
        let (directory, url) = try makeStore()
        defer { withExtendedLifetime(directory) {} }
        let before = try rows(url, "SELECT sql FROM sqlite_master ORDER BY name")
        var typeChange = Self.version1
        typeChange[0].attributes[0] = AttributeDescription(name: "title", type: .integer64)
        #expect(throws: MigrationError(entity: "Photo", property: "title", reason: "its type changed from string to integer64")) {
            try StoreCoordinator(url: url, model: ObjectModel(entities: typeChange))
        }
        var required = Self.version1
        required[1].attributes.append(AttributeDescription(name: "colour", type: .string, isOptional: false))
        let error = #expect(throws: MigrationError.self) { try StoreCoordinator(url: url, model: ObjectModel(entities: required)) }
        #expect(error?.description == "Cannot migrate Tag.colour: it is required and has no default, and 1 existing rows would have no value")
        var cardinality = Self.version1
        cardinality[0].relationships[0] = RelationshipDescription(name: "tags", destination: "Tag", inverse: "photos", isToMany: false)
        cardinality[1].relationships[0] = RelationshipDescription(name: "photos", destination: "Photo", inverse: "tags", isToMany: true)
        #expect(throws: MigrationError.self) { try StoreCoordinator(url: url, model: ObjectModel(entities: cardinality)) }
        #expect(try rows(url, "SELECT sql FROM sqlite_master ORDER BY name") == before)
        #expect(try rows(url, "SELECT count(*) FROM ZPHOTO") == [[.integer(2)]])
    }

    @Test("a read-only open of a store that needs migrating is refused")
    func readOnly() throws {
        let (directory, url) = try makeStore()
        defer { withExtendedLifetime(directory) {} }
        var version2 = Self.version1
        version2[1].attributes.append(AttributeDescription(name: "colour", type: .string))
        #expect(throws: StoreError.self) { try StoreCoordinator(url: url, model: ObjectModel(entities: version2), readOnly: true) }
    }
    @Test("without a model record (an Apple store), a new parent entity is refused: the rows would have to move tables")
    func newParentRefused() throws {
        let (directory, url) = try makeStore()
        defer { withExtendedLifetime(directory) {} }
        let connection = try Connection(path: url.path, configuration: .init(journalMode: nil))
        let data = try #require(try connection.scalar("SELECT Z_PLIST FROM Z_METADATA")?.blobValue)
        var plist = try #require(try PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any])
        plist.removeValue(forKey: "VacationsModel")
        try connection.execute("UPDATE Z_METADATA SET Z_PLIST = ?", [.blob(try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0))])
        let before = try rows(url, "SELECT sql FROM sqlite_master ORDER BY name")
        var version2 = Self.version1
        version2[0].parent = "Item"
        version2.append(Self.entity("Item", [AttributeDescription(name: "created", type: .date)]))
        #expect(throws: MigrationError(entity: "Photo", property: nil, reason: "its parent entity changed from none to Item")) {
            try StoreCoordinator(url: url, model: ObjectModel(entities: version2))
        }
        #expect(try rows(url, "SELECT sql FROM sqlite_master ORDER BY name") == before)
        #expect(try rows(url, "SELECT count(*) FROM ZPHOTO") == [[.integer(2)]])
    }

    @Test("the plan for the same store and model is the same, statement for statement, every time")
    func deterministic() throws {
        let (directory, url) = try makeStore()
        defer { withExtendedLifetime(directory) {} }
        var version2 = Self.version1
        version2.append(Self.entity("Album", [AttributeDescription(name: "title", type: .string)],
                                    [RelationshipDescription(name: "photos", destination: "Photo", inverse: "album", isToMany: true)]))
        version2[0].relationships.append(RelationshipDescription(name: "album", destination: "Album", inverse: "photos"))
        version2[0].attributes.append(AttributeDescription(name: "rank", type: .integer32, isIndexed: true))
        version2[1].uniquenessConstraints = [["name"]]
        let model = try ObjectModel(entities: version2)
        let plans = try (0..<5).map { _ in try StoreMigrationPlan.statements(forStoreAt: url, model: model) }
        #expect(Set(plans).count == 1)
        #expect(plans[0].filter { $0.hasPrefix("CREATE") && $0.contains("INDEX") } == [
            "CREATE INDEX ZPHOTO_ZRANK_INDEX ON ZPHOTO (ZRANK)", "CREATE INDEX ZPHOTO_ZALBUM_INDEX ON ZPHOTO (ZALBUM)",
            "CREATE UNIQUE INDEX Z_Tag_UNIQUE_name ON ZTAG (ZNAME COLLATE BINARY ASC)",
            "CREATE INDEX Z_2TAGS_Z_3TAGS_INDEX ON Z_2TAGS (Z_3TAGS, Z_2PHOTOS)",
        ])
    }
}
