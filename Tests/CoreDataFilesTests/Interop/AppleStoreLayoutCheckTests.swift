import Foundation
import CoreDataFiles
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

/// The layout check that lets an open skip the migration planner (`StoreLayout`), against
/// Apple's stores and their models (ObjectGraphTests' `StoreLayoutCheckTests` try this
/// framework's own models).
@Suite("Apple's stores and their models against the layout check that skips the planner")
struct AppleStoreLayoutCheckTests {
    static func verdict(_ url: URL, _ model: ObjectModel) throws -> StoreLayoutVerdict {
        let connection = try Connection(path: url.path, configuration: .init(journalMode: nil))
        return try StoreLayoutVerdict(connection: connection, model: model)
    }

    @Test("an Apple store, which has no model record, always goes to the planner; a new store of its model skips it, and the planner agrees",
          arguments: CompiledModelFixtures.storesWithCache)
    func appleStores(store: CompiledModelFixtures.AppleStore) throws {
        let directory = try TemporaryDirectory()
        let url = try CompiledModelFixtures.copy(store, into: directory)
        let model = try StoreModel.load(fromStoreAt: url).model
        let apple = try Self.verdict(url, model)
        #expect(!apple.matchesLayout, "\(apple)")
        // Its own model's hashes: compatible as it is.
        #expect(apple.plansNothing && apple.planError == nil, "\(apple)")
        let ours = directory.path("ours.sqlite")
        _ = try StoreCoordinator(url: ours, model: model, tracksHistory: true)
        let verdict = try Self.verdict(ours, model)
        #expect(verdict == StoreLayoutVerdict(matchesLayout: true, plansNothing: true, planError: nil))
    }
}
