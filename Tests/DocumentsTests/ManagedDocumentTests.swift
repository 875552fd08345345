@testable import Documents
import Foundation
import ObjectGraph
import SQLiteDB
import Testing

@MainActor
@Suite("Managed documents")
struct ManagedDocumentTests {
    @Test("creating writes the bundle layout: store in WAL, XML metadata, no staging left")
    func creatingWritesTheBundleLayout() throws {
        let test = try TestLibrary()
        let document = try test.library.create(named: "Paris")
        #expect(document.state == .normal)
        #expect(test.entries() == ["Paris.vacation"])
        #expect(test.entries("Paris.vacation") == ["DocumentMetadata.plist", "StoreContent"])
        let store = try Data(contentsOf: document.bundle.storeURL)
        #expect(store.prefix(16) == Data("SQLite format 3\u{0}".utf8))
        #expect(try document.coordinator.withConnection { try $0.journalMode() } == "wal")

        let metadataData = try Data(contentsOf: document.bundle.metadataURL)
        #expect(String(decoding: metadataData.prefix(38), as: UTF8.self) == "<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        var format = PropertyListSerialization.PropertyListFormat.binary
        let plist = try #require(try PropertyListSerialization.propertyList(from: metadataData, options: [], format: &format) as? [String: Any])
        #expect(format == .xml)
        #expect(Set(plist.keys) == ["appVersion", "created", "formatVersion", "modelVersion", "modified"])
        #expect(plist["appVersion"] as? String == "9.9")
        #expect(plist["modelVersion"] as? String == "1")
        #expect(document.metadata?.created == plist["created"] as? Date)
        try document.close()
    }

    @Test("creating a document that exists fails, and leaves it alone")
    func creatingAnExistingDocumentFails() throws {
        let test = try TestLibrary()
        let document = try test.library.create(named: "Paris")
        try addEntries(["kept"], to: document)
        try document.close()
        #expect(throws: DocumentError(.alreadyExists, .document("Paris"))) { try test.library.create(named: "Paris") }
        #expect(try test.entryTexts("Paris") == ["kept"])
        #expect(test.entries() == ["Paris.vacation"])
    }

    @Test("asking twice for a document gives the same instance, in NFC or NFD")
    func sameDocumentSameInstance() throws {
        let test = try TestLibrary()
        let first = try test.library.create(named: "Caf\u{E9}")
        let second = try test.library.open(named: "Cafe\u{301}")
        #expect(first === second)
        #expect(first === ManagedDocument.document(at: test.library.url.appendingPathComponent("Café.vacation"),
                                                   model: DocumentTestModel.model))
        try first.close()
        #expect(second.state == .closed)
    }

    @Test("close saves the view context, releases the lock and closes")
    func closeSaves() throws {
        let test = try TestLibrary()
        let document = try test.library.create(named: "Paris")
        let entry = Entry(context: try document.viewContext)
        entry.text = "unsaved"
        #expect(document.hasUnsavedChanges)
        try document.close()
        #expect(document.state == .closed)
        #expect(!document.isOpen)
        #expect(try test.entryTexts("Paris") == ["unsaved"])
        #expect(throws: DocumentError(.closed, .document("Paris"))) { try document.viewContext }
        // The lock went with the close: the document can be renamed (which takes the lock).
        try test.library.rename("Paris", to: "Lyon")
    }

    @Test("revert drops unsaved changes and the document stays open")
    func revertDropsUnsavedChanges() throws {
        let test = try TestLibrary()
        let document = try test.library.create(named: "Paris")
        let saved = Entry(context: try document.viewContext)
        saved.text = "saved"
        try document.save()
        let dropped = Entry(context: try document.viewContext)
        dropped.text = "dropped"
        try document.revert()
        #expect(!document.hasUnsavedChanges)
        #expect(document.state == .normal)
        try document.close()
        #expect(try test.entryTexts("Paris") == ["saved"])
    }

    @Test("state observers hear every change of state")
    func stateObservers() throws {
        let test = try TestLibrary()
        try test.library.create(named: "Paris").close()
        let document = try test.library.document(named: "Paris")
        var seen: [DocumentState] = []
        let observation = document.observeState { seen.append($0) }
        try document.open()
        try document.close()
        try document.open(mode: .readOnly)
        try document.close()
        observation.cancel()
        try document.open()
        try document.close()
        #expect(seen == [.normal, .closed, .editingDisabled, .closed])
    }

    @Test("read-only opening disables editing and takes no lock")
    func readOnlyOpening() throws {
        let test = try TestLibrary()
        let writer = try test.library.create(named: "Paris")
        try addEntries(["one", "two"], to: writer)
        try writer.close()

        let reader = try test.library.open(named: "Paris", mode: .readOnly)
        #expect(reader.state == .editingDisabled)
        #expect(try reader.coordinator.withConnection { try $0.scalar("SELECT count(*) FROM ZENTRY")?.integerValue } == 2)
        #expect(throws: DocumentError(.readOnly, .document("Paris"))) { try reader.save() }
        #expect(throws: DocumentError(.readOnly, .document("Paris"))) { try reader.writeAdditionalContent(Data(), named: "x") }
        // Asking to write what this process reads is refused at once rather than waiting on itself.
        #expect(throws: DocumentError(.locked, .document("Paris"))) { try test.library.open(named: "Paris", mode: .readWrite) }
        #expect(throws: DocumentError(.locked, .document("Paris"))) { try test.library.delete("Paris") }
        try reader.close()
        #expect(reader.state == .closed)
    }

    @Test("additional content is written atomically, read back, listed and removed")
    func additionalContent() throws {
        let test = try TestLibrary()
        let document = try test.library.create(named: "Paris")
        #expect(try document.additionalContent(named: "cover.jpg") == nil)
        try document.writeAdditionalContent(Data("first".utf8), named: "cover.jpg")
        try document.writeAdditionalContent(Data("second".utf8), named: "cover.jpg")
        try document.writeAdditionalContent(Data("notes".utf8), named: "Café notes.txt")
        #expect(try document.additionalContent(named: "cover.jpg") == Data("second".utf8))
        #expect(try document.additionalContentNames() == ["Café notes.txt", "cover.jpg"])
        #expect(test.entries("Paris.vacation/AdditionalContent") == ["Café notes.txt", "cover.jpg"])
        try document.removeAdditionalContent(named: "cover.jpg")
        #expect(try document.additionalContentNames() == ["Café notes.txt"])
        for hostile in ["../escape", ".hidden", "a/b", ""] {
            #expect(throws: DocumentError.self) { try document.writeAdditionalContent(Data(), named: hostile) }
        }
        #expect(test.entries("Paris.vacation") == ["AdditionalContent", "DocumentMetadata.plist", "StoreContent"])
        try document.close()
    }

    @Test("a store of an older model migrates on open and the metadata says so")
    func olderModelMigrates() throws {
        let test = try TestLibrary(model: try DocumentTestModel.entryModel(version: "1"))
        do {
            let document = try test.library.create(named: "Old")
            try addEntries(["from version 1"], to: document)
            try document.close()
        }
        let newer = try DocumentTestModel.entryModel(version: "2", extra: [
            AttributeDescription(name: "rating", type: .integer64, isOptional: false, defaultValue: .integer(3)),
        ])
        let library = try DocumentLibrary(url: test.library.url, model: newer, documentConfiguration: test.library.documentConfiguration)
        let document = try library.open(named: "Old")
        #expect(document.metadata?.modelVersion == "2")
        #expect(try test.rows("Old", "SELECT ZTEXT, ZRATING FROM ZENTRY") == [[.text("from version 1"), .integer(3)]])
        try document.close()
        #expect(try DocumentMetadata.read(from: document.bundle.metadataURL.path, fallback: DocumentMetadata(
            modelVersion: "", created: Date(), modified: Date(), appVersion: "")).modelVersion == "2")
    }

    @Test("a migration that cannot be made fails clearly and leaves the document closed and unlocked")
    func impossibleMigrationFails() throws {
        let test = try TestLibrary(model: try DocumentTestModel.entryModel(version: "1"))
        do {
            let document = try test.library.create(named: "Old")
            try addEntries(["one"], to: document)
            try document.close()
        }
        let impossible = try DocumentTestModel.entryModel(version: "3", extra: [
            AttributeDescription(name: "required", type: .string, isOptional: false),
        ])
        let library = try DocumentLibrary(url: test.library.url, model: impossible, documentConfiguration: test.library.documentConfiguration)
        let expected = DocumentError(.migrationFailed(detail:
            "Cannot migrate Entry.required: it is required and has no default, and 1 existing rows would have no value"), .document("Old"))
        #expect(throws: expected) { try library.open(named: "Old") }
        #expect(expected.description == "Document \"Old\" cannot be upgraded to this version of the model: "
                + "Cannot migrate Entry.required: it is required and has no default, and 1 existing rows would have no value")
        #expect(try library.document(named: "Old").state == .closed)
        try test.library.open(named: "Old").close()
    }

    @Test("a damaged bundle is reported as damaged, naming what is wrong")
    func damagedBundles() throws {
        let test = try TestLibrary()
        try test.library.create(named: "Garbage").close()
        try test.library.create(named: "Empty").close()
        let garbage = try test.library.bundle(forDocumentNamed: "Garbage").storeURL
        try Data(repeating: 0x41, count: 8192).write(to: garbage)
        let garbageError = #expect(throws: DocumentError.self) { try test.library.open(named: "Garbage") }
        #expect(garbageError?.kind == .corrupt(detail: "the store is not a valid SQLite database (file is not a database)"))
        try FileManager.default.removeItem(at: try test.library.bundle(forDocumentNamed: "Empty").storeURL)
        #expect(throws: DocumentError(.corrupt(detail: "StoreContent/persistentStore is missing"), .document("Empty"))) {
            try test.library.open(named: "Empty")
        }
        #expect(throws: DocumentError(.notFound, .document("Nowhere"))) { try test.library.open(named: "Nowhere") }
    }

    @Test("the root context saves straight to the store, and close records the modification")
    func rootContextAndModificationDate() throws {
        let test = try TestLibrary()
        try test.library.create(named: "Paris").close()
        let bundle = try test.library.bundle(forDocumentNamed: "Paris")
        let old = Date(timeIntervalSince1970: 1_000_000_000)
        var metadata = try DocumentMetadata.read(from: bundle.metadataURL.path, fallback: DocumentMetadata(
            modelVersion: "", created: old, modified: old, appVersion: ""))
        metadata.modified = old
        try metadata.write(to: bundle.metadataURL.path)

        let untouched = try test.library.open(named: "Paris")
        try untouched.close()
        #expect(try test.library.summary(ofDocumentNamed: "Paris").created == metadata.created)
        #expect(try DocumentMetadata.read(from: bundle.metadataURL.path, fallback: metadata).modified == old)

        let document = try test.library.open(named: "Paris")
        try addEntries(["imported"], to: document)
        #expect(try test.entryTexts("Paris") == ["imported"])
        try document.close()
        #expect(try DocumentMetadata.read(from: bundle.metadataURL.path, fallback: metadata).modified > old)
    }

    @Test("save for creating makes a bundle anywhere, then save for overwriting saves into it")
    func saveForCreatingAndOverwriting() throws {
        let test = try TestLibrary()
        let url = test.directory.path("Elsewhere.vacation")
        let document = ManagedDocument.document(at: url, model: DocumentTestModel.model,
                                                configuration: .init(autosaveDelay: nil, handlesStopSignals: false))
        try document.save(for: .forCreating)
        #expect(document.state == .normal)
        let entry = Entry(context: try document.viewContext)
        entry.text = "saved"
        try document.save(for: .forOverwriting)
        #expect(!document.hasUnsavedChanges)
        #expect(throws: DocumentError(.alreadyExists, .document("Elsewhere"))) { try document.save(for: .forCreating) }
        try document.close()
        #expect(throws: DocumentError(.alreadyExists, .document("Elsewhere"))) { try document.save(for: .forCreating) }
    }

    @Test("a conflicting save sets inConflict until the conflict is resolved")
    func conflicts() throws {
        let test = try TestLibrary()
        let document = try test.library.create(named: "Paris")
        let view = try document.viewContext
        let counter = Counter(context: view)
        counter.name = "visits"
        try document.save()
        let id = counter.objectID
        let background = try document.newBackgroundContext()
        try background.performAndWait { context in
            try context.existingObject(with: id, as: Counter.self).value = 99
            try context.save()
        }
        counter.value = 5
        #expect(throws: DocumentError.self) { try document.save() }
        #expect(document.state == [.savingError, .inConflict])
        #expect(document.hasUnsavedChanges)
        try document.resolveConflicts(.keepingMyChanges)
        #expect(document.state == .normal)
        #expect(document.lastSaveError == nil)
        try document.close()
        #expect(try test.rows("Paris", "SELECT ZVALUE FROM ZCOUNTER") == [[.integer(5)]])
    }
}
