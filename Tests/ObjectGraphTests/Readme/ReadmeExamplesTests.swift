import ObjectGraphTestModels
import Foundation
import ObjectGraph
import Testing
import TestSupport

// The examples of README.md, compiled and run. Keep them in step with the README.

// README: "The object graph" — declaring a model.
final class Trail: ManagedObject {
    @Attribute(unique: true) var name: String = ""
    @Attribute var lengthKilometres: Double = 0
    @Attribute var walked: Date?
    @Relationship(inverse: "trail", deleteRule: .cascade) var stages: Set<Stage>
}

final class Stage: ManagedObject {
    @Attribute var title: String = ""
    @Attribute var order: Int16 = 0
    @Relationship(inverse: "stages") var trail: Trail?
}

@Suite("README examples")
struct ReadmeExamplesTests {
    @Test("the object graph example runs as written")
    func objectGraph() throws {
        let directory = try TemporaryDirectory()
        let storeURL = directory.path("Trails.sqlite")

        // README example begins.
        let model = try ObjectModel(Trail.self, Stage.self)
        let container = try PersistentContainer(url: storeURL, model: model)
        let context = container.viewContext

        let trail = Trail(context: context)
        trail.name = "Rota Vicentina"
        trail.lengthKilometres = 226.5
        for (index, title) in ["Porto Covo", "Vila Nova de Milfontes", "Almograve"].enumerated() {
            let stage = Stage(context: context)
            stage.title = title
            stage.order = Int16(index)
            stage.trail = trail                      // trail.stages follows
        }
        try container.saveToStore()                  // view → writer → one SQLite transaction

        let request = try FetchRequest<Stage>(predicate: "trail.name == %@ AND order >= %d", "Rota Vicentina", 1,
                                              sortedBy: [ObjectSortDescriptor("order")])
        let titles = try context.fetch(request).map(\.title)   // ["Vila Nova de Milfontes", "Almograve"]

        context.delete(trail)                        // cascade: its stages go too
        try container.saveToStore()
        // README example ends.

        #expect(titles == ["Vila Nova de Milfontes", "Almograve"])
        #expect(try context.count(for: FetchRequest<Stage>()) == 0)
    }

    @Test("the fetching example runs as written")
    func fetching() throws {
        let directory = try TemporaryDirectory()
        let container = try PersistentContainer(url: directory.path("Trails.sqlite"), model: try ObjectModel(Trail.self, Stage.self))
        let context = container.viewContext
        for (name, length) in [("Rota Vicentina", 226.5), ("Via Algarviana", 300.0), ("Caminho Português", 240.0)] {
            let trail = Trail(context: context)
            trail.name = name
            trail.lengthKilometres = length
        }
        try container.saveToStore()

        // README example begins.
        // Core Data's format language, compiled to SQL with bound parameters.
        var request = try FetchRequest<Trail>(predicate: "name BEGINSWITH[cd] %@ AND lengthKilometres > %f", "ca", 100.0,
                                              sortedBy: [ObjectSortDescriptor("lengthKilometres", ascending: false)])
        request.fetchLimit = 10
        let long = try context.fetch(request)                         // one query
        let count = try context.count(for: FetchRequest<Trail>())     // SELECT count(*)

        // MagicalRecord's finders.
        let vicentina = try context.findFirst(Trail.self, where: "name == %@", "Rota Vicentina")
        let stage = try context.findOrCreate(Stage.self, by: "title", value: "Odeceixe")
        stage.trail = vicentina

        // A fetched results controller: sections, index paths, and changes a table view applies.
        let controller = try FetchedResultsController(
            request: FetchRequest<Stage>(sortedBy: [ObjectSortDescriptor("trail.name"), ObjectSortDescriptor("order")]),
            context: context, sectionKeyPath: "trail.name")
        var changes: [ResultsChanges] = []
        controller.onChange = { changes.append($0) }
        try controller.performFetch()
        try container.saveToStore()                                   // the controller reports the save
        // README example ends.

        #expect(long.map(\.name) == ["Caminho Português"])
        #expect(count == 3)
        #expect(controller.sectionNames == ["Rota Vicentina"])
        #expect(controller.fetchedObjects.map(\.title) == ["Odeceixe"])
        #expect(changes.isEmpty)   // saving changed nothing the controller shows
    }

    @Test("the batch insert example runs as written and makes the photo it describes")
    func batchInsert() throws {
        let store = try TestStore()
        let model = TestModels.travel
        let coordinator = store.coordinator
        let context = store.context()
        let lisbon = Place(context: context)
        lisbon.name = "Lisbon"
        let sea = Tag(context: context), tram = Tag(context: context)
        sea.name = "sea"
        tram.name = "tram"
        try context.save()

        // README example begins.
        var insert = try BatchInsert(entityName: "Photo", in: model)
        let unique = try insert.attribute("unique"), place = try insert.toOne("place"), tags = try insert.toMany("tags")
        var row = insert.newRow()                  // the attributes' defaults
        row.set(unique, "42")
        row[place] = lisbon.objectID               // saved objects: permanent IDs
        row[tags] = [sea.objectID, tram.objectID]
        insert.append(row)
        let result = try coordinator.execute(insert)   // result.objectIDs, in row order
        // README example ends.

        let photo = try #require(try context.existingObject(with: result.objectIDs[0]) as? Photo)
        #expect(photo.unique == "42" && photo.place === lisbon)
        #expect(photo.tags.map(\.name).sorted() == ["sea", "tram"])
    }

    @Test("the persistent history example runs as written")
    func persistentHistory() throws {
        let directory = try TemporaryDirectory()
        let storeURL = directory.path("Trails.sqlite")
        let model = try ObjectModel(Trail.self, Stage.self)

        // README example begins.
        let coordinator = try StoreCoordinator(url: storeURL, model: model, tracksHistory: true)
        // also PersistentContainer(url:model:tracksHistory:) and ManagedDocument.Configuration(tracksHistory:)
        let context = ObjectContext(coordinator: coordinator, name: "importer")   // the context name
        context.transactionAuthor = "trail import"                                // the author
        coordinator.transactionAuthor = "batch job"     // for batch operations and contexts that name none
        let trail = Trail(context: context)
        trail.name = "Via Algarviana"
        try context.save()

        var lastSeen: HistoryToken? = nil                // or try coordinator.currentHistoryToken()
        for transaction in try coordinator.fetchHistory(after: lastSeen, author: "trail import", entityNames: ["Trail"]) {
            print(transaction.token, transaction.timestamp, transaction.contextName ?? "", transaction.processName ?? "")
            for change in transaction.changes {
                // .insert, .update (the changed properties' names) or .delete (preserved attributes)
                print(change.changeType, change.objectID, change.updatedProperties, change.tombstone)
            }
            lastSeen = transaction.token                 // transaction.changeSet: what a context merges
        }
        if let lastSeen { try coordinator.deleteHistory(before: lastSeen) }   // keeps lastSeen's transaction
        // README example ends.

        #expect(lastSeen == (try coordinator.currentHistoryToken()))
        #expect(try coordinator.fetchHistory().map { $0.changes.map(\.objectID) } == [[trail.objectID]])
    }
}
