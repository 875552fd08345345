import Documents
import Foundation
import ObjectGraph
import SQLiteDB
import TestSupport

// The test model; Sources/vacations-test-helper/HelperModel.swift declares the same entities,
// so that the helper process and the tests open the same stores without migrating.

final class Entry: ManagedObject {
    @Attribute var batch: Int64 = 0
    @Attribute var text: String = ""
}

final class Counter: ManagedObject {
    @Attribute(unique: true) var name: String = ""
    @Attribute var value: Int64 = 0
}

enum DocumentTestModel {
    static let model: ObjectModel = {
        do {
            return try ObjectModel(Entry.self, Counter.self, versionIdentifier: "1")
        } catch {
            preconditionFailure("test model: \(error)")
        }
    }()

    /// The same model built from descriptions, with `extra` attributes on Entry: versions of the
    /// model for migration tests.
    static func entryModel(version: String, extra: [AttributeDescription] = []) throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(name: "Entry", attributes: [
                AttributeDescription(name: "batch", type: .integer64, isOptional: false, defaultValue: .integer(0)),
                AttributeDescription(name: "text", type: .string, isOptional: false, defaultValue: .text("")),
            ] + extra),
            EntityDescription(name: "Counter", attributes: [
                AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: .text(""), isUnique: true),
                AttributeDescription(name: "value", type: .integer64, isOptional: false, defaultValue: .integer(0)),
            ]),
        ], versionIdentifier: version)
    }
}

/// A library in a fresh temporary folder, with autosave off and stop signals left alone unless
/// a test asks.
struct TestLibrary {
    let directory: TemporaryDirectory
    let library: DocumentLibrary

    init(autosaveDelay: Duration? = nil, model: ObjectModel = DocumentTestModel.model, tracksHistory: Bool = false) throws {
        directory = try TemporaryDirectory(prefix: "documents-test")
        let configuration = ManagedDocument.Configuration(autosaveDelay: autosaveDelay, appVersion: "9.9",
                                                          handlesStopSignals: false, tracksHistory: tracksHistory)
        library = try DocumentLibrary(url: directory.path("Library"), model: model, documentConfiguration: configuration)
    }

    var root: String { library.url.path }

    /// The library folder's entries, sorted.
    func entries(_ relative: String = "") -> [String] {
        let path = relative.isEmpty ? root : root + "/" + relative
        return ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    /// Runs a query on the store of document `name` through a read-only connection of its own.
    func rows(_ name: String, _ sql: String) throws -> [[SQLiteValue]] {
        let connection = try Connection(path: try library.bundle(forDocumentNamed: name).storeURL.path,
                                        configuration: .init(readOnly: true, create: false, journalMode: nil, synchronous: nil))
        let statement = try connection.prepare(sql)
        var rows: [[SQLiteValue]] = []
        try statement.forEachRow { row in rows.append((0..<row.columnCount).map { row.value(at: $0) }) }
        return rows
    }

    /// The texts of the entries, sorted (the order of inserts within one save is not kept).
    func entryTexts(_ name: String) throws -> [String] {
        try rows(name, "SELECT ZTEXT FROM ZENTRY ORDER BY ZTEXT").map { $0[0].textValue ?? "" }
    }

    func entryCount(_ name: String) throws -> Int {
        Int(try rows(name, "SELECT count(*) FROM ZENTRY")[0][0].integerValue ?? -1)
    }
}

/// Adds entries with `texts` through a root context and saves them to the store (by entity
/// name, so that it works with the models built from descriptions too).
@MainActor
func addEntries(_ texts: [String], to document: ManagedDocument, batch: Int64 = 0) throws {
    let context = try document.newRootContext()
    for text in texts {
        let entry = try context.insertObject(entityName: "Entry")
        try entry.setValue(text, forKey: "text")
        try entry.setValue(batch, forKey: "batch")
    }
    try context.save()
}

/// Waits, without blocking the main actor, until `condition` holds or `timeout` passes.
///
/// The timeout is generous: the main actor is shared by every main-actor test of the run, and
/// on a busy machine work queued on it (an autosave among it) may wait seconds for its turn.
@MainActor
/// Generous: main-actor tests of other suites can hold the main actor for seconds on a loaded machine.
// The timeout is generous: a condition that holds returns at once, and on a loaded machine the
// main actor (which autosave and the CLI tests share) can be busy with other tests for a minute.
func eventually(timeout: Duration = .seconds(300), _ condition: @MainActor () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    // A few more turns (up to five seconds), for work that was queued on the main actor while we
    // waited: on a loaded host or a sanitizer build, other tests can hold the main actor past
    // the deadline, and the work we wait for needs its turns after they let go.
    let grace = ContinuousClock.now + .seconds(5)
    repeat {
        try? await Task.sleep(for: .milliseconds(10))
        if try condition() { return true }
    } while ContinuousClock.now < grace
    return false
}
