import ObjectGraphTestModels
import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

@Suite("Fetched results controller: sections, index paths, changes a table view can apply")
struct FetchedResultsControllerTests {
    private func tags(_ context: ObjectContext, _ pairs: [(String, Int64)]) {
        for (name, count) in pairs {
            let tag = Tag(context: context)
            tag.name = name
            tag.count = count
        }
    }

    @Test("sections follow the section key, objects and index paths agree")
    func sections() throws {
        let store = try TestStore()
        let context = store.context()
        tags(context, [("sea", 2), ("sun", 1), ("fado", 2), ("tram", 3)])
        try context.save()
        let controller = try FetchedResultsController(
            request: FetchRequest<Tag>(sortedBy: [ObjectSortDescriptor("count"), ObjectSortDescriptor("name")]),
            context: context, sectionKeyPath: "count")
        try controller.performFetch()
        #expect(controller.sectionNames == ["1", "2", "3"])
        #expect(controller.sections.map { $0.objects.map(\.name) } == [["sun"], ["fado", "sea"], ["tram"]])
        let sea = controller.object(at: ResultsIndexPath(item: 1, section: 1))
        #expect(sea.name == "sea")
        #expect(controller.indexPath(for: sea) == ResultsIndexPath(item: 1, section: 1))
    }

    @Test("a save reports inserts, deletes, moves and updates by index path")
    func reportedChanges() throws {
        let store = try TestStore()
        let context = store.context()
        tags(context, [("a", 1), ("b", 1), ("c", 2)])
        try context.save()
        let controller = try FetchedResultsController(
            request: FetchRequest<Tag>(sortedBy: [ObjectSortDescriptor("count"), ObjectSortDescriptor("name")]),
            context: context, sectionKeyPath: "count")
        try controller.performFetch()
        var reported: [ResultsChanges] = []
        controller.onChange = { reported.append($0) }
        let all = controller.fetchedObjects
        all[0].count = 2          // a moves to section "2"
        context.delete(all[1])    // b leaves; section "1" goes
        all[2].name = "c2"        // c changes in place
        tags(context, [("d", 3)]) // section "3" appears
        try context.save()
        #expect(reported.count == 1)
        let changes = try #require(reported.first)
        #expect(changes.deletedSections == [0])
        #expect(changes.insertedSections == [1])
        #expect(changes.deletedItems == [ResultsIndexPath(item: 1, section: 0)])
        #expect(changes.insertedItems == [ResultsIndexPath(item: 0, section: 1)])
        #expect(changes.movedItems.map(\.from) == [ResultsIndexPath(item: 0, section: 0)])
        #expect(changes.movedItems.map(\.to) == [ResultsIndexPath(item: 0, section: 0)])
        #expect(changes.updatedItems == [ResultsIndexPath(item: 0, section: 1)])
        #expect(controller.sections.map { $0.objects.map(\.name) } == [["a", "c2"], ["d"]])
    }

    @Test("the first sort descriptor must be the section key")
    func sectionKeyMustSort() throws {
        let store = try TestStore()
        #expect(throws: FetchRequestError.self) {
            try FetchedResultsController(request: FetchRequest<Tag>(sortedBy: [ObjectSortDescriptor("name")]),
                                         context: store.context(), sectionKeyPath: "count")
        }
    }

    /// Applies reported changes to the old results as a table view would.
    private func apply(_ changes: ResultsChanges, to old: [(String, [ObjectIdentifier])],
                       new: [(String, [ObjectIdentifier])]) -> [(String, [ObjectIdentifier])] {
        let removed = Set(changes.deletedItems + changes.movedItems.map(\.from))
        var sections: [(String, [ObjectIdentifier])] = old.enumerated().map { sectionIndex, section in
            (section.0, section.1.enumerated().filter { !removed.contains(ResultsIndexPath(item: $0.offset, section: sectionIndex)) }.map(\.element))
        }
        for index in changes.deletedSections.sorted(by: >) { sections.remove(at: index) }
        for index in changes.insertedSections.sorted() { sections.insert((new[index].0, []), at: index) }
        var movedObjects: [ResultsIndexPath: ObjectIdentifier] = [:]
        for move in changes.movedItems { movedObjects[move.to] = old[move.from.section].1[move.from.item] }
        let arrivals = (changes.insertedItems.map { ($0, new[$0.section].1[$0.item]) } + movedObjects.map { ($0.key, $0.value) })
            .sorted { $0.0 < $1.0 }
        for (position, object) in arrivals { sections[position.section].1.insert(object, at: position.item) }
        return sections
    }

    @Test("random saves: the reported changes turn the old results into the new ones, every time")
    func randomized() throws {
        var generator = SeededGenerator(state: 42)
        let store = try TestStore()
        let context = store.context()
        let controller = try FetchedResultsController(
            request: FetchRequest<Tag>(sortedBy: [ObjectSortDescriptor("count"), ObjectSortDescriptor("name")]),
            context: context, sectionKeyPath: "count")
        try controller.performFetch()
        func snapshot() -> [(String, [ObjectIdentifier])] {
            controller.sections.map { ($0.name, $0.objects.map(ObjectIdentifier.init)) }
        }
        var before = snapshot()
        var reported: ResultsChanges?
        controller.onChange = { reported = $0 }
        var serial = 0
        for round in 0..<150 {
            let objects = controller.fetchedObjects
            for _ in 0..<Int.random(in: 1...5, using: &generator) {
                switch Int.random(in: 0..<4, using: &generator) {
                case 0:
                    serial += 1
                    tags(context, [("t\(Int.random(in: 0...999, using: &generator))-\(serial)", Int64.random(in: 0...4, using: &generator))])
                case 1:
                    if let victim = objects.randomElement(using: &generator), !victim.isDeleted { context.delete(victim) }
                case 2:
                    if let changed = objects.randomElement(using: &generator), !changed.isDeleted { changed.count = Int64.random(in: 0...4, using: &generator) }
                default:
                    serial += 1
                    if let renamed = objects.randomElement(using: &generator), !renamed.isDeleted { renamed.name = "r\(Int.random(in: 0...999, using: &generator))-\(serial)" }
                }
            }
            reported = nil
            try context.save()
            let after = snapshot()
            let applied = reported.map { apply($0, to: before, new: after) } ?? before
            #expect(applied.map(\.0) == after.map(\.0), "round \(round)")
            #expect(applied.map(\.1) == after.map(\.1), "round \(round)")
            before = after
        }
    }
}
