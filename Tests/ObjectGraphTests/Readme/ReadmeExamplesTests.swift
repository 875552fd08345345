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
}
