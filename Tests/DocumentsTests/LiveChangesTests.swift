@testable import Documents
import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

/// A document that keeps history follows commits made by another process (a real
/// `vacations-test-helper`), without reopening.
@MainActor
@Suite("Live changes in documents")
struct DocumentLiveChangesTests {
    private static let entries = FetchRequest<Entry>(sortedBy: [ObjectSortDescriptor("text")])

    private func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition() && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
    }

    @Test("a document open for reading sees another process's saves: its view context's results controller equals a fresh fetch")
    func readerFollowsWriter() async throws {
        let test = try TestLibrary(tracksHistory: true)
        try test.library.create(named: "Shared").close()
        let reader = try test.library.open(named: "Shared", mode: .readOnly)
        let coordinator = try reader.coordinator
        #expect(coordinator.observesOtherProcesses)
        let controller = try FetchedResultsController(request: Self.entries, context: try reader.viewContext)
        try controller.performFetch()
        var inserted = 0
        controller.onChange = { inserted += $0.insertedItems.count }
        let writer = try HelperProcess("write-batches", test.root, "Shared", "--size", "50", "--batches", "4", "--pause", "100")
        #expect(try await writer.waitForExit() == .exited(0))
        try await waitUntil { controller.fetchedObjects.count == 200 }
        let fresh = try ObjectContext(coordinator: try reader.coordinator).fetch(Self.entries).map(\.text)
        #expect(fresh.count == 200)
        #expect(controller.fetchedObjects.map(\.text) == fresh)
        #expect(inserted == 200)
        try reader.close()
        #expect(coordinator.observesOtherProcesses == false)
    }

    @Test("a document without history does not watch; one open for writing follows other connections too")
    func writerFollowsOthers() async throws {
        let plain = try TestLibrary()
        let untracked = try plain.library.create(named: "Plain")
        #expect(try untracked.coordinator.observesOtherProcesses == false)
        try untracked.close()

        let test = try TestLibrary(tracksHistory: true)
        let document = try test.library.create(named: "Shared")
        let view = try document.viewContext
        let controller = try FetchedResultsController(request: Self.entries, context: view)
        try controller.performFetch()
        let other = try StoreCoordinator(url: try test.library.bundle(forDocumentNamed: "Shared").storeURL, model: DocumentTestModel.model)
        let context = ObjectContext(coordinator: other)
        for index in 0..<3 { Entry(context: context).text = "other \(index)" }
        try context.save()
        try await waitUntil { controller.fetchedObjects.count == 3 }
        #expect(controller.fetchedObjects.map(\.text) == ["other 0", "other 1", "other 2"])
        try document.close()
    }
}
