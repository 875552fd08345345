import Foundation
import SQLiteDB
import Testing
@testable import CoreDataFiles
@testable import ObjectGraph

/// To-many relationships without an inverse (Xcode only warns): Core Data keeps each in a hidden
/// key column of the destination's table, `Z<n><NAME>`, where `n` is the number of the entity
/// declaring it, indexed like a to-one's column and placed after every other integer column.
@Suite("To-many relationships without an inverse")
struct ToManyWithoutInverseTests {
    static let magicalRecord = "magicalpanda__MagicalRecord/Tests/Fixtures/TestModel.xcdatamodeld"
    static let mogenerator = "rentzsch__mogenerator/test/test.xcdatamodel"
    static let owner = "SingleEntityRelatedToManyMappedEntitiesUsingMappedPrimaryKey"

    static func magicalRecordModel() throws -> ObjectModel {
        try ObjectModel(contentsOf: try CoreDataFixtures.more(magicalRecord))
    }

    /// A shelf of books whose to-many has no inverse, with the delete rule asked for.
    static func shelfModel(deleteRule: DeleteRule = .nullify, extraEntity: Bool = false) throws -> ObjectModel {
        var entities = [
            EntityDescription(name: "Book", attributes: [AttributeDescription(name: "title", type: .string)]),
            EntityDescription(name: "Shelf", attributes: [AttributeDescription(name: "label", type: .string)],
                              relationships: [RelationshipDescription(name: "books", destination: "Book", inverse: nil,
                                                                      isToMany: true, deleteRule: deleteRule)]),
        ]
        if extraEntity { entities.append(EntityDescription(name: "Author", attributes: [AttributeDescription(name: "name", type: .string)])) }
        return try ObjectModel(entities: entities)
    }

    // MARK: - Layout

    @Test("MagicalRecord's test model loads; each to-many without an inverse gets its hidden column in the destination's table")
    func magicalRecordLayout() throws {
        let model = try Self.magicalRecordModel()
        #expect(model.entity(named: Self.owner)?.number == 6)
        #expect(model.entity(named: "SingleRelatedEntity")?.number == 12)
        #expect(model.columns(ofTable: "ZMAPPEDENTITY").map(\.name)
            == ["ZMAPPEDENTITYID", "ZTESTMAPPEDENTITYID", "Z6MAPPEDENTITIES", "ZNESTEDATTRIBUTE", "ZSAMPLEATTRIBUTE"])
        #expect(model.columns(ofTable: "ZABSTRACTRELATEDENTITY").map(\.name)
            == ["Z12TESTABSTRACTTOMANYRELATIONSHIP", "Z12TESTCONCRETETOMANYRELATIONSHIP", "ZSAMPLEBASEATTRIBUTE", "ZSAMPLECONCRETEATTRIBUTE"])
        let mapped = try #require(model.entity(named: Self.owner)?.relationship(named: "mappedEntities"))
        #expect(mapped.storage == .inverseForeignKey(column: "Z6MAPPEDENTITIES", isHidden: true))
        #expect(mapped.inverseIndex == nil)
        #expect(model.hiddenKeys.map { "\($0.table).\($0.column) ← \(model[$0.sourceEntity].name).\($0.relationship)" } == [
            "ZABSTRACTRELATEDENTITY.Z12TESTABSTRACTTOMANYRELATIONSHIP ← SingleRelatedEntity.testAbstractToManyRelationship",
            "ZABSTRACTRELATEDENTITY.Z12TESTCONCRETETOMANYRELATIONSHIP ← SingleRelatedEntity.testConcreteToManyRelationship",
            "ZMAPPEDENTITY.Z6MAPPEDENTITIES ← \(Self.owner).mappedEntities",
        ])
        let statements = StoreSchema(model: model).creationStatements()
        #expect(statements.contains("CREATE INDEX ZMAPPEDENTITY_Z6MAPPEDENTITIES_INDEX ON ZMAPPEDENTITY (Z6MAPPEDENTITIES)"))
        #expect(statements.contains("CREATE INDEX ZABSTRACTRELATEDENTITY_Z12TESTCONCRETETOMANYRELATIONSHIP_INDEX ON ZABSTRACTRELATEDENTITY (Z12TESTCONCRETETOMANYRELATIONSHIP)"))
        #expect(!statements.contains { $0.hasPrefix("CREATE TABLE Z_") && !$0.hasPrefix("CREATE TABLE Z_PRIMARYKEY") && !$0.hasPrefix("CREATE TABLE Z_METADATA") })
    }

    @Test("mogenerator's test model: Parent.children (entity 8) is kept in the Human hierarchy's table, after its integers")
    func mogeneratorLayout() throws {
        let model = try ObjectModel(contentsOf: try CoreDataFixtures.more(Self.mogenerator))
        #expect(model.entity(named: "Parent")?.number == 8)
        let columns = model.columns(ofTable: "ZHUMAN")
        #expect(columns.map(\.name) == [
            "ZAGE", "ZGENDER", "ZMEANINGLESSRELATIONSHIP", "ZTYPE", "ZPARENT", "ZMYBOOLEAN", "ZMYINT16", "ZMYINT32", "ZMYINT64",
            "Z8CHILDREN", "ZMYDATE", "ZMYDOUBLE", "ZMYFLOAT", "ZMYDECIMAL", "ZHUMANNAME", "ZCHILDNAME", "ZMYSTRING",
            "ZPARENTNAME", "ZATTRIBUTE", "ZMYBINARYDATA", "ZMYTRANSFORMABLESANSCLASSNAME",
        ])
        #expect(columns.first { $0.name == "Z8CHILDREN" }?.type == "INTEGER")
        #expect(model.entity(named: "Parent")?.relationship(named: "orderedChildren")?.storage == .inverseForeignKey(column: "ZPARENT"))
    }

    @Test("a to-many without an inverse that another relationship names as its inverse is refused")
    func oneSidedInverse() {
        let descriptions = [
            EntityDescription(name: "A", relationships: [RelationshipDescription(name: "bs", destination: "B", inverse: nil, isToMany: true)]),
            EntityDescription(name: "B", relationships: [RelationshipDescription(name: "a", destination: "A", inverse: "bs", isToMany: true)]),
        ]
        #expect(throws: ModelError("relationship B.a names A.bs as its inverse, but that to-many names no inverse: declare it on both sides")) {
            try ObjectModel(entities: descriptions)
        }
    }

    @Test("the version hash of a to-many without an inverse feeds no inverse name")
    func hash() throws {
        let shelf = EntityDescription(name: "Shelf", relationships: [
            RelationshipDescription(name: "books", destination: "Book", inverse: nil, isToMany: true)])
        let book = EntityDescription(name: "Book")
        var hasher = SHA256()
        hasher.update(CoreDataVersionHash.propertyHash(name: "books", isOptional: true, isTransient: false, versionHashModifier: nil))
        hasher.update(Array("Book".utf8))
        hasher.update([0, 0, 0, 0, 0, 0, 0, 0])
        #expect(CoreDataVersionHash.relationshipHash(shelf.relationships[0], of: shelf, in: ["Shelf": shelf, "Book": book])
            == Data(hasher.finalize()))
    }

    // MARK: - Through contexts

    @Test("insert, save, fetch as faults, change and move members: the hidden keys follow, contexts read them back")
    func roundTrip() throws {
        try CoreDataFixtures.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Records.sqlite")
            let model = try Self.magicalRecordModel()
            let coordinator = try StoreCoordinator(url: url, model: model)
            let context = ObjectContext(coordinator: coordinator)
            let first = try context.insertObject(entityName: Self.owner)
            let second = try context.insertObject(entityName: Self.owner)
            var mapped: [ManagedObject] = []
            for index in 0..<4 {
                let object = try context.insertObject(entityName: "MappedEntity")
                try object.setValue("m\(index)", forKey: "sampleAttribute")
                mapped.append(object)
            }
            try first.setObjects(Array(mapped[0..<3]), forKey: "mappedEntities")
            try second.addObject(mapped[3], forKey: "mappedEntities")
            try context.save()
            let firstKey = first.objectID.primaryKey, secondKey = second.objectID.primaryKey
            func stored() throws -> [String: Int64?] {
                try coordinator.withConnection { connection in
                    Dictionary(uniqueKeysWithValues: try connection.rows("SELECT ZSAMPLEATTRIBUTE, Z6MAPPEDENTITIES FROM ZMAPPEDENTITY") {
                        ($0.string(at: 0) ?? "", $0.isNull(at: 1) ? nil : $0.int64(at: 1))
                    })
                }
            }
            #expect(try stored() == ["m0": firstKey, "m1": firstKey, "m2": firstKey, "m3": secondKey])

            // Another context reads them back: the owners come as faults, members load on first use.
            let reader = ObjectContext(coordinator: coordinator)
            let owners = try reader.fetch(FetchRequest<ManagedObject>(entityName: Self.owner)).sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }
            #expect(owners.count == 2)
            func names(_ object: ManagedObject) throws -> [String] {
                try object.objects(forKey: "mappedEntities").map { try $0.value(forKey: "sampleAttribute", as: String.self) }.sorted()
            }
            #expect(try names(owners[0]) == ["m0", "m1", "m2"])
            #expect(try names(owners[1]) == ["m3"])

            // Taking a member away clears its key; moving one to the other owner rewrites it.
            try first.removeObject(mapped[0], forKey: "mappedEntities")
            try first.removeObject(mapped[1], forKey: "mappedEntities")
            try second.addObject(mapped[1], forKey: "mappedEntities")
            try context.save()
            #expect(try stored() == ["m0": nil, "m1": secondKey, "m2": firstKey, "m3": secondKey])
            let fresh = ObjectContext(coordinator: coordinator)
            let reread = try fresh.fetch(FetchRequest<ManagedObject>(entityName: Self.owner)).sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }
            #expect(try names(reread[0]) == ["m2"])
            #expect(try names(reread[1]) == ["m1", "m3"])

            // Prefetching reads every owner's members in one go.
            let prefetching = ObjectContext(coordinator: coordinator)
            var request = FetchRequest<ManagedObject>(entityName: Self.owner)
            request.relationshipKeyPathsForPrefetching = ["mappedEntities"]
            let prefetched = try prefetching.fetch(request)
            #expect(prefetched.map { try? $0.objects(forKey: "mappedEntities").count }.sorted { ($0 ?? 0) < ($1 ?? 0) } == [1, 2])
        }
    }

    @Test("predicates over a to-many without an inverse run in SQL and in memory alike")
    func predicates() throws {
        try CoreDataFixtures.withTemporaryDirectory { directory in
            let coordinator = try StoreCoordinator(url: directory.appendingPathComponent("P.sqlite"), model: try Self.shelfModel())
            let context = ObjectContext(coordinator: coordinator)
            var shelves: [ManagedObject] = []
            for (label, titles) in [("poetry", ["Odes", "Sonnets"]), ("prose", ["Ulysses"]), ("empty", [])] {
                let shelf = try context.insertObject(entityName: "Shelf")
                try shelf.setValue(label, forKey: "label")
                for title in titles {
                    let book = try context.insertObject(entityName: "Book")
                    try book.setValue(title, forKey: "title")
                    try shelf.addObject(book, forKey: "books")
                }
                shelves.append(shelf)
            }
            try context.save()
            let cases: [(String, [String])] = [
                ("ANY books.title == 'Ulysses'", ["prose"]), ("books.@count == 2", ["poetry"]),
                ("books.@count == 0", ["empty"]), ("SUBQUERY(books, $b, $b.title BEGINSWITH 'S').@count > 0", ["poetry"]),
                ("NONE books.title == 'Odes'", ["empty", "prose"]),
            ]
            let reader = ObjectContext(coordinator: coordinator)
            for (format, expected) in cases {
                let request = try FetchRequest<ManagedObject>(entityName: "Shelf", predicate: format)
                let found = try reader.fetch(request).map { try $0.value(forKey: "label", as: String.self) }.sorted()
                #expect(found == expected, "\(format) in SQL")
                let predicate = try ObjectPredicate(format: format)
                let inMemory = try shelves.filter { try predicate.evaluate(with: $0) }.map { try $0.value(forKey: "label", as: String.self) }.sorted()
                #expect(inMemory == expected, "\(format) in memory")
            }
        }
    }

    @Test("delete rules: cascade deletes the members, nullify clears their keys, deny refuses, no action leaves them",
          arguments: [DeleteRule.cascade, .nullify, .deny, .noAction])
    func deleteRules(rule: DeleteRule) throws {
        try CoreDataFixtures.withTemporaryDirectory { directory in
            let coordinator = try StoreCoordinator(url: directory.appendingPathComponent("D.sqlite"), model: try Self.shelfModel(deleteRule: rule))
            let context = ObjectContext(coordinator: coordinator)
            let shelf = try context.insertObject(entityName: "Shelf")
            for title in ["A", "B"] {
                let book = try context.insertObject(entityName: "Book")
                try book.setValue(title, forKey: "title")
                try shelf.addObject(book, forKey: "books")
            }
            try context.save()
            let other = ObjectContext(coordinator: coordinator)
            let stored = try #require(try other.fetch(FetchRequest<ManagedObject>(entityName: "Shelf")).first)
            other.delete(stored)
            if rule == .deny {
                #expect(throws: ValidationError.self) { try other.save() }
                return
            }
            try other.save()
            let books = try coordinator.withConnection { connection in
                try connection.rows("SELECT ZTITLE, Z2BOOKS FROM ZBOOK ORDER BY ZTITLE") { "\($0.string(at: 0) ?? "")=\($0.value(at: 1))" }
            }
            // The store never keeps the key of a row that is gone.
            #expect(books == (rule == .cascade ? [] : ["A=NULL", "B=NULL"]))
        }
    }

    @Test("a deleted member leaves the owners that listed it, in the saving context and in contexts that merge")
    func deletedMember() throws {
        try CoreDataFixtures.withTemporaryDirectory { directory in
            let coordinator = try StoreCoordinator(url: directory.appendingPathComponent("G.sqlite"), model: try Self.shelfModel())
            let context = ObjectContext(coordinator: coordinator)
            let shelf = try context.insertObject(entityName: "Shelf")
            let books = try (0..<2).map { _ in try context.insertObject(entityName: "Book") }
            try shelf.setObjects(books, forKey: "books")
            try context.save()
            let watcher = ObjectContext(coordinator: coordinator)
            watcher.automaticallyMergesChanges = true
            let watched = try #require(try watcher.fetch(FetchRequest<ManagedObject>(entityName: "Shelf")).first)
            #expect(try watched.objects(forKey: "books").count == 2)
            context.delete(books[0])
            try context.save()
            #expect(try shelf.objects(forKey: "books").map(\.objectID) == [books[1].objectID])
            watcher.mergePendingChanges()
            #expect(try watched.objects(forKey: "books").map(\.objectID) == [books[1].objectID])
        }
    }

    @Test("a child context's changes reach the store through its parent")
    func childContext() throws {
        try CoreDataFixtures.withTemporaryDirectory { directory in
            let coordinator = try StoreCoordinator(url: directory.appendingPathComponent("C.sqlite"), model: try Self.shelfModel())
            let parent = ObjectContext(coordinator: coordinator)
            let child = parent.newChildContext()
            let shelf = try child.insertObject(entityName: "Shelf")
            let book = try child.insertObject(entityName: "Book")
            try shelf.addObject(book, forKey: "books")
            try child.save()
            try parent.save()
            let reader = ObjectContext(coordinator: coordinator)
            let stored = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Shelf")).first)
            #expect(try stored.objects(forKey: "books").count == 1)
        }
    }

    @Test("a batch delete of owners clears their members' keys")
    func batchDelete() throws {
        try CoreDataFixtures.withTemporaryDirectory { directory in
            let coordinator = try StoreCoordinator(url: directory.appendingPathComponent("B.sqlite"), model: try Self.shelfModel())
            let context = ObjectContext(coordinator: coordinator)
            let shelf = try context.insertObject(entityName: "Shelf")
            try shelf.addObject(try context.insertObject(entityName: "Book"), forKey: "books")
            try context.save()
            try coordinator.execute(BatchDelete(entityName: "Shelf"))
            let keys = try coordinator.withConnection { try $0.rows("SELECT Z2BOOKS FROM ZBOOK") { $0.value(at: 0) } }
            #expect(keys == [.null])
        }
    }

    @Test("a new entity that renumbers the owner renames its hidden column and keeps the members")
    func migrationRenumbers() throws {
        try CoreDataFixtures.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("M.sqlite")
            do {
                let context = ObjectContext(coordinator: try StoreCoordinator(url: url, model: try Self.shelfModel()))
                let shelf = try context.insertObject(entityName: "Shelf")
                let book = try context.insertObject(entityName: "Book")
                try book.setValue("Kept", forKey: "title")
                try shelf.addObject(book, forKey: "books")
                try context.save()
            }
            let newer = try Self.shelfModel(extraEntity: true)
            #expect(newer.entity(named: "Shelf")?.number == 3)
            let plan = try StoreMigrationPlan.statements(forStoreAt: url, model: newer)
            // The table is rebuilt with the hidden column under its new number, its keys copied over.
            #expect(plan.contains("CREATE TABLE ZBOOK ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, Z3BOOKS INTEGER, ZTITLE VARCHAR )"))
            #expect(plan.contains { $0.hasPrefix("INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, Z3BOOKS, ZTITLE) SELECT Z_PK, ") && $0.contains("Z_OPT, Z2BOOKS, ZTITLE FROM") })
            let context = ObjectContext(coordinator: try StoreCoordinator(url: url, model: newer))
            let shelf = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Shelf")).first)
            #expect(try shelf.objects(forKey: "books").map { try $0.value(forKey: "title", as: String.self) } == ["Kept"])
        }
    }

    @Test("a batch insert refuses a to-many without an inverse, naming why")
    func batchInsertRefuses() throws {
        let insert = try BatchInsert(entityName: "Shelf", in: try Self.shelfModel())
        #expect(throws: BatchInsertError(entityName: "Shelf", property: "books",
                                         detail: "has no inverse: its members keep their owner in their own rows, which a batch insert does not write (use a context)")) {
            try insert.toMany("books")
        }
    }
}
