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
}
