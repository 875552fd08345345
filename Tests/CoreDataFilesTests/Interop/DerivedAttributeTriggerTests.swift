import Foundation
import CoreDataFiles
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

/// CoreDataPlus's SampleModel2 store has a derived attribute, `Book.pagesCount` (`pages.@count`),
/// which Core Data keeps with triggers (`Z_DA_ZPAGE_Book_pagesCount_…`) that call functions
/// Core Data registers. Writing through our contexts fires them, and the column ends as Core
/// Data's triggers leave it: the number of pages of each book.
@Suite("Writing to a store with derived-attribute triggers keeps the derived values right")
struct DerivedAttributeTriggerTests {
    static let store = "alemar11__CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V2.sqlite"

    /// SampleModel2 as its store lays it out (the model itself is built in code in CoreDataPlus).
    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(name: "Book", attributes: [
                AttributeDescription(name: "pagesCount", type: .integer64, derivationExpression: "pages.@count"),
                AttributeDescription(name: "publishedAt", type: .date), AttributeDescription(name: "price", type: .decimal),
                AttributeDescription(name: "title", type: .string), AttributeDescription(name: "uniqueID", type: .uuid),
                AttributeDescription(name: "frontCover", type: .transformable),
            ], relationships: [
                RelationshipDescription(name: "author", destination: "Author", inverse: "books"),
                RelationshipDescription(name: "pages", destination: "Page", inverse: "book", isToMany: true, deleteRule: .cascade),
            ], uniquenessConstraints: [["uniqueID"]]),
            EntityDescription(name: "GraphicNovel", parent: "Book", attributes: [AttributeDescription(name: "isBlackAndWhite", type: .boolean)]),
            EntityDescription(name: "Feedback", attributes: [
                AttributeDescription(name: "rating", type: .double), AttributeDescription(name: "authorAlias", type: .string),
                AttributeDescription(name: "comment", type: .string), AttributeDescription(name: "bookID", type: .uuid),
            ]),
            EntityDescription(name: "Page", attributes: [
                AttributeDescription(name: "isBookmarked", type: .boolean), AttributeDescription(name: "number", type: .integer32),
                AttributeDescription(name: "content", type: .transformable),
            ], relationships: [RelationshipDescription(name: "book", destination: "Book", inverse: "pages")]),
            EntityDescription(name: "Writer", attributes: [AttributeDescription(name: "age", type: .integer16)]),
            EntityDescription(name: "Author", parent: "Writer", attributes: [AttributeDescription(name: "alias", type: .string)],
                              relationships: [RelationshipDescription(name: "books", destination: "Book", inverse: "author", isToMany: true)],
                              uniquenessConstraints: [["alias"]]),
        ])
    }

    /// Each book's stored pagesCount, and the pages that point at it.
    private func counts(_ store: URL) throws -> [[SQLiteValue]] {
        try AppleStores.rows("SELECT Z_PK, ZPAGESCOUNT, (SELECT count(*) FROM ZPAGE p WHERE p.ZBOOK = b.Z_PK) FROM ZBOOK b ORDER BY Z_PK", in: store)
    }

    @Test("the store's triggers call Core Data's functions: without them SQLite refuses the write")
    func functionsNeeded() throws {
        let directory = try TemporaryDirectory()
        let store = try AppleStores.copyMore(Self.store, into: directory)
        let connection = try Connection(path: store.path, configuration: .init(journalMode: nil))
        #expect(throws: SQLiteError.self) {
            try connection.execute("INSERT INTO ZPAGE (Z_PK, Z_ENT, Z_OPT, ZNUMBER, ZBOOK, Z1_BOOK) VALUES (500, 4, 1, 1, 1, 1)")
        }
        let triggers = try AppleStores.rows("SELECT sql FROM sqlite_master WHERE type = 'trigger'", in: store).compactMap { $0[0].textValue }
        #expect(triggers.count == 5)
        for name in ["NSCoreDataDATriggerUpdatedAffectedObjectValue", "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue"] {
            #expect(triggers.contains { $0.contains(name + "(") })
        }
    }

    @Test("inserting, moving and deleting pages and inserting a book through a context leave pagesCount as Core Data's triggers do")
    func writes() throws {
        let directory = try TemporaryDirectory()
        let store = try AppleStores.copyMore(Self.store, into: directory)
        #expect(try counts(store) == [[.integer(1), .integer(1), .integer(1)], [.integer(2), .integer(99), .integer(99)],
                                      [.integer(3), .integer(19), .integer(19)]])
        let model = try Self.model()
        // The model lays the store out exactly: nothing to migrate, the triggers stay as they are.
        #expect(try StoreMigrationPlan.statements(forStoreAt: store, model: model) == [])
        let coordinator = try StoreCoordinator(url: store, model: model, journalMode: nil)
        let context = ObjectContext(coordinator: coordinator)
        let book1 = try context.existingObject(with: ObjectID(entityNumber: 1, primaryKey: 1))
        let novel3 = try context.existingObject(with: ObjectID(entityNumber: 2, primaryKey: 3))

        let page = try context.insertObject(entityName: "Page")
        try page.setValue(Int32(2), forKey: "number")
        try page.setObject(book1, forKey: "book")
        try context.save()
        #expect(try counts(store)[0] == [.integer(1), .integer(2), .integer(2)])

        try page.setObject(novel3, forKey: "book")
        try context.save()
        #expect(try counts(store) == [[.integer(1), .integer(1), .integer(1)], [.integer(2), .integer(99), .integer(99)],
                                      [.integer(3), .integer(20), .integer(20)]])

        context.delete(page)
        try context.save()
        #expect(try counts(store)[2] == [.integer(3), .integer(19), .integer(19)])

        let book = try context.insertObject(entityName: "Book")
        try book.setValue("New", forKey: "title")
        try book.setValue(UUID(uuidString: "9D1F6C8E-4E35-4AE3-9C6F-0A3A8C0F7E11"), forKey: "uniqueID")
        try context.save()
        #expect(try counts(store).last == [.integer(book.objectID.primaryKey), .integer(0), .integer(0)])
        let second = try context.insertObject(entityName: "Page")
        try second.setObject(book, forKey: "book")
        try context.save()
        #expect(try counts(store).last == [.integer(book.objectID.primaryKey), .integer(1), .integer(1)])
        // The triggers and the history tables are untouched.
        #expect(try AppleStores.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'", in: store) == .integer(5))
        #expect(try AppleStores.rows("PRAGMA integrity_check", in: store) == [[.text("ok")]])
    }

    @Test("functions any other NSCoreData… trigger calls are registered too, and a trigger's SQL can call them")
    func otherFunctions() throws {
        let directory = try TemporaryDirectory()
        let store = try AppleStores.copyMore(Self.store, into: directory)
        let connection = try Connection(path: store.path, configuration: .init(journalMode: nil))
        try connection.execute("""
            CREATE TRIGGER ZT_TEST AFTER UPDATE OF ZCOMMENT ON ZFEEDBACK BEGIN
            SELECT NSCoreDataTriggerSomethingNew('ZFEEDBACK', NEW.Z_PK); END
            """)
        let coordinator = try StoreCoordinator(url: store, model: Self.model(), journalMode: nil)
        let context = ObjectContext(coordinator: coordinator)
        let feedback = try #require(try AppleStores.objects(of: "Feedback", in: context).first)
        try feedback.setValue("Changed", forKey: "comment")
        try context.save()
        #expect(try AppleStores.scalar("SELECT ZCOMMENT FROM ZFEEDBACK WHERE Z_PK = \(feedback.objectID.primaryKey)", in: store) == .text("Changed"))
    }

    @Test("a model that knows the store, or knows only another, still registers the functions its triggers call")
    func functionsWhenTheModelKnowsStores() throws {
        let model = try Self.model()
        // Two copies, each with a trigger of its own: two fingerprints.
        let directories = [try TemporaryDirectory(), try TemporaryDirectory()]
        let stores = try directories.enumerated().map { index, directory in
            let store = try AppleStores.copyMore(Self.store, into: directory)
            let connection = try Connection(path: store.path, configuration: .init(journalMode: nil))
            try connection.execute("""
                CREATE TRIGGER ZT_TEST\(index) AFTER UPDATE OF ZCOMMENT ON ZFEEDBACK BEGIN
                SELECT NSCoreDataTriggerSomethingNew\(index)('ZFEEDBACK', NEW.Z_PK); END
                """)
            return store
        }
        func edit(_ store: URL, to comment: String) throws {
            let coordinator = try StoreCoordinator(url: store, model: model, journalMode: nil)
            let context = ObjectContext(coordinator: coordinator)
            let feedback = try #require(try AppleStores.objects(of: "Feedback", in: context).first)
            try feedback.setValue(comment, forKey: "comment")
            try context.save()
            #expect(try AppleStores.scalar("SELECT ZCOMMENT FROM ZFEEDBACK WHERE Z_PK = \(feedback.objectID.primaryKey)",
                                           in: store) == .text(comment))
        }
        try edit(stores[0], to: "First open")       // a model that knows no store: the rows read at once
        #expect(model.verifiedSchemas.count == 1)
        try edit(stores[1], to: "Another store")    // the fingerprint alone, new to the model: the rows read again
        #expect(model.verifiedSchemas.count == 2)
        let reuses = model.verifiedSchemas.reuses
        try edit(stores[0], to: "Opened again")     // a fingerprint the model knows: no row made a value
        try edit(stores[1], to: "Opened again")
        #expect(model.verifiedSchemas.reuses == reuses + 2)
    }
}

@Suite("Migrating an Apple store with history and triggers: entities renumbered everywhere, triggers kept")
struct RenumberingAppleStoreTests {
    @Test("a new entity that sorts first renumbers rows, entity columns, history's changes and Z_PRIMARYKEY; triggers still count pages")
    func renumber() throws {
        let directory = try TemporaryDirectory()
        let store = try AppleStores.copyMore(DerivedAttributeTriggerTests.store, into: directory)
        let changesBefore = try AppleStores.rows("SELECT ZENTITY, count(*) FROM ACHANGE GROUP BY 1 ORDER BY 1", in: store)
        let pagesBefore = try AppleStores.rows("SELECT Z_PK, ZBOOK, Z1_BOOK FROM ZPAGE ORDER BY Z_PK", in: store)
        let model = try DerivedAttributeTriggerTests.model()
        var descriptions = try Self.descriptions(of: model)
        descriptions.append(EntityDescription(name: "Atlas", attributes: [AttributeDescription(name: "title", type: .string)]))
        let newer = try ObjectModel(entities: descriptions)
        #expect(newer.entities.map(\.name) == ["Atlas", "Book", "GraphicNovel", "Feedback", "Page", "Writer", "Author"])
        let plan = try StoreMigrationPlan.statements(forStoreAt: store, model: newer)
        // The same plan every time, in its fixed order.
        #expect(try StoreMigrationPlan.statements(forStoreAt: store, model: newer) == plan)
        let coordinator = try StoreCoordinator(url: store, model: newer, journalMode: nil)

        #expect(try AppleStores.rows("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT", in: store) == [
            [.integer(1), .text("Atlas"), .integer(0)], [.integer(2), .text("Book"), .integer(0)],
            [.integer(3), .text("GraphicNovel"), .integer(2)], [.integer(4), .text("Feedback"), .integer(0)],
            [.integer(5), .text("Page"), .integer(0)], [.integer(6), .text("Writer"), .integer(0)],
            [.integer(7), .text("Author"), .integer(6)], [.integer(16001), .text("CHANGE"), .integer(0)],
            [.integer(16002), .text("TRANSACTION"), .integer(0)], [.integer(16003), .text("TRANSACTIONSTRING"), .integer(0)],
        ])
        // Every entity number moved by one: rows, the entity column (now Z2_BOOK), history's changes.
        #expect(try AppleStores.rows("SELECT Z_PK, ZBOOK, Z2_BOOK FROM ZPAGE ORDER BY Z_PK", in: store)
                == pagesBefore.map { [$0[0], $0[1], .integer(($0[2].integerValue ?? 0) + 1)] })
        #expect(try AppleStores.rows("SELECT DISTINCT Z_ENT FROM ZBOOK ORDER BY 1", in: store) == [[.integer(2)], [.integer(3)]])
        #expect(try AppleStores.rows("SELECT ZENTITY, count(*) FROM ACHANGE GROUP BY 1 ORDER BY 1", in: store)
                == changesBefore.map { [.integer(($0[0].integerValue ?? 0) + 1), $0[1]] })
        #expect(try AppleStores.scalar("SELECT sql FROM sqlite_master WHERE name = 'ZPAGE'", in: store) == .text(
            "CREATE TABLE ZPAGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZISBOOKMARKED INTEGER, ZNUMBER INTEGER, "
                + "ZBOOK INTEGER, Z2_BOOK INTEGER, ZCONTENT BLOB )"))
        // The derived attribute's five triggers are there and still keep count.
        #expect(try AppleStores.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'Z_DA_%'", in: store) == .integer(5))
        let context = ObjectContext(coordinator: coordinator)
        let page = try context.insertObject(entityName: "Page")
        try page.setObject(try context.existingObject(with: ObjectID(entityNumber: 3, primaryKey: 3)), forKey: "book")
        try context.save()
        #expect(try AppleStores.scalar("SELECT ZPAGESCOUNT FROM ZBOOK WHERE Z_PK = 3", in: store) == .integer(20))
        #expect(try AppleStores.rows("PRAGMA integrity_check", in: store) == [[.text("ok")]])
    }

    /// A resolved model's entities as descriptions again, to extend it.
    static func descriptions(of model: ObjectModel) throws -> [EntityDescription] {
        model.entities.map { entity in
            EntityDescription(
                name: entity.name, parent: entity.parent.map { model.entities[$0 - 1].name }, isAbstract: entity.isAbstract,
                attributes: entity.attributes.filter { $0.declaringEntity == entity.number }.map(\.declaration),
                relationships: entity.relationships.filter { $0.declaringEntity == entity.number }.map(\.declaration),
                uniquenessConstraints: entity.uniquenessConstraints.filter { constraint in
                    constraint.allSatisfy { entity.attributes[$0].declaringEntity == entity.number }
                }.map { $0.map { entity.attributes[$0].name } })
        }
    }
}
