@testable import Documents
import Foundation
import ObjectGraph
import SQLiteDB
import Testing

@MainActor
@Suite("Document library")
struct DocumentLibraryTests {
    @Test("listing gives documents sorted by name, with dates, sizes and the counts asked for")
    func listing() throws {
        let test = try TestLibrary()
        #expect(try test.library.documents() == [])
        for (name, count) in [("Paris", 3), ("amsterdam", 1), ("Zürich", 0)] {
            let document = try test.library.create(named: name)
            try addEntries((0..<count).map { "entry \($0)" }, to: document)
            try document.close()
        }
        // Things that are not documents: hidden, wrong kind, a symbolic link, the backups folder.
        let fileManager = FileManager.default
        try fileManager.createDirectory(atPath: test.root + "/.hidden.vacation", withIntermediateDirectories: false)
        try Data("x".utf8).write(to: URL(fileURLWithPath: test.root + "/notes.vacation"))
        try fileManager.createSymbolicLink(atPath: test.root + "/Link.vacation", withDestinationPath: test.root + "/Paris.vacation")
        try test.library.backup("Paris")

        let open = try test.library.open(named: "Paris")   // listing works while a document is open
        #expect(try test.library.documents(counting: ["Entry"]).map(\.counts) == [["Entry": 1], ["Entry": 3], ["Entry": 0]])
        try open.close()
        let summaries = try test.library.documents(counting: ["Entry", "Counter", "Unknown"])
        #expect(summaries.map(\.name) == ["amsterdam", "Paris", "Zürich"])
        #expect(summaries.map(\.counts) == [["Entry": 1, "Counter": 0, "Unknown": 0],
                                            ["Entry": 3, "Counter": 0, "Unknown": 0],
                                            ["Entry": 0, "Counter": 0, "Unknown": 0]])
        for summary in summaries {
            #expect(summary.url.lastPathComponent == summary.name + ".vacation")
            #expect(summary.bytes == FileSystem.size(of: summary.url.path))
            #expect(summary.bytes > 4096)
            #expect(summary.modified >= summary.created)
        }
        #expect(try test.library.summary(ofDocumentNamed: "Paris", counting: ["Entry"]).counts == ["Entry": 3])
    }

    @Test("open-or-create creates once, then opens; the default document is made on first use")
    func openOrCreateAndDefault() throws {
        let test = try TestLibrary()
        let created = try test.library.openOrCreate(named: "Paris")
        try addEntries(["one"], to: created)
        try created.close()
        let opened = try test.library.openOrCreate(named: "Paris")
        #expect(opened === created)
        try opened.close()
        #expect(try test.entryTexts("Paris") == ["one"])

        #expect(try !test.library.documentExists(named: "My Vacation"))
        let reading = try test.library.openDefault(mode: .readOnly)
        #expect(reading.name == "My Vacation")
        #expect(reading.state == .editingDisabled)
        try reading.close()
        let writing = try test.library.openDefault()
        #expect(writing.state == .normal)
        try writing.close()
        #expect(test.entries() == ["My Vacation.vacation", "Paris.vacation"])
    }

    @Test("rename moves the document and its backups, and refuses what it must")
    func rename() throws {
        let test = try TestLibrary()
        let document = try test.library.create(named: "Paris")
        try addEntries(["kept"], to: document)
        #expect(throws: DocumentError(.locked, .document("Paris"))) { try test.library.rename("Paris", to: "Lyon") }
        try document.close()
        try test.library.create(named: "Rome").close()
        let backup = try test.library.backup("Paris")

        try test.library.rename("Paris", to: "Lyon")
        #expect(test.entries() == ["Backups", "Lyon.vacation", "Rome.vacation"])
        #expect(try test.entryTexts("Lyon") == ["kept"])
        #expect(try test.library.backups(of: "Lyon").map(\.name) == [backup.name])
        #expect(try test.library.backups(of: "Paris") == [])

        #expect(throws: DocumentError(.alreadyExists, .document("Rome"))) { try test.library.rename("Lyon", to: "Rome") }
        #expect(throws: DocumentError(.notFound, .document("Paris"))) { try test.library.rename("Paris", to: "Nice") }
        #expect(throws: DocumentError(.invalidName(reason: "a name cannot contain \"/\""), .document("Nice/x"))) {
            try test.library.rename("Lyon", to: "Nice/x")
        }
        #expect(test.entries() == ["Backups", "Lyon.vacation", "Rome.vacation"])
    }

    @Test("duplicate copies the store and additional content as a new document")
    func duplicate() throws {
        let test = try TestLibrary()
        let document = try test.library.create(named: "Paris")
        try addEntries(["one", "two"], to: document)
        try document.writeAdditionalContent(Data("cover".utf8), named: "cover.jpg")
        // Duplicating works while the original is open for writing: it reads a snapshot.
        try test.library.duplicate("Paris", as: "Paris copy")
        try document.close()
        #expect(try test.entryTexts("Paris copy") == ["one", "two"])
        let copy = try test.library.open(named: "Paris copy")
        #expect(try copy.additionalContent(named: "cover.jpg") == Data("cover".utf8))
        try copy.close()
        #expect(throws: DocumentError(.alreadyExists, .document("Paris"))) { try test.library.duplicate("Paris copy", as: "Paris") }
        #expect(throws: DocumentError(.notFound, .document("Rome"))) { try test.library.duplicate("Rome", as: "Rome copy") }
        #expect(test.entries() == ["Paris copy.vacation", "Paris.vacation"])
    }

    @Test("delete removes the bundle but keeps its backups")
    func delete() throws {
        let test = try TestLibrary()
        let document = try test.library.create(named: "Paris")
        try addEntries(["one"], to: document)
        #expect(throws: DocumentError(.locked, .document("Paris"))) { try test.library.delete("Paris") }
        try document.close()
        let backup = try test.library.backup("Paris")
        try test.library.delete("Paris")
        #expect(test.entries() == ["Backups"])
        #expect(throws: DocumentError(.notFound, .document("Paris"))) { try test.library.delete("Paris") }
        #expect(try test.library.backups(of: "Paris").map(\.name) == [backup.name])
        try test.library.restore(backup)
        #expect(try test.entryTexts("Paris") == ["one"])
    }

    @Test("hostile names are refused everywhere, and nothing is written anywhere")
    func hostileNamesEverywhere() throws {
        let test = try TestLibrary()
        try test.library.create(named: "Paris").close()
        let before = test.entries()
        let parentBefore = try FileManager.default.contentsOfDirectory(atPath: test.directory.url.path).sorted()
        for hostile in DocumentNameTests.hostileNames {
            let expected = DocumentError(.invalidName(reason: hostile.reason), .document(hostile.name))
            #expect(throws: expected) { try test.library.create(named: hostile.name) }
            #expect(throws: expected) { try test.library.open(named: hostile.name) }
            #expect(throws: expected) { try test.library.openOrCreate(named: hostile.name) }
            #expect(throws: expected) { try test.library.rename("Paris", to: hostile.name) }
            #expect(throws: expected) { try test.library.rename(hostile.name, to: "Rome") }
            #expect(throws: expected) { try test.library.duplicate("Paris", as: hostile.name) }
            #expect(throws: expected) { try test.library.delete(hostile.name) }
            #expect(throws: expected) { try test.library.backup(hostile.name) }
        }
        #expect(test.entries() == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: test.directory.url.path).sorted() == parentBefore)
    }

    @Test("a symbolic link inside the library that points outside is refused, and the outside stays untouched")
    func symbolicLinksAreRefused() throws {
        let test = try TestLibrary()
        let outside = test.directory.path("Outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: test.root + "/Evil.vacation", withDestinationPath: outside.path)
        try test.library.create(named: "Paris").close()
        let refused = DocumentError(.unsafePath(reason: "its bundle is a symbolic link"), .document("Evil"))
        #expect(throws: refused) { try test.library.create(named: "Evil") }
        #expect(throws: refused) { try test.library.open(named: "Evil") }
        #expect(throws: refused) { try test.library.open(named: "Evil", mode: .readOnly) }
        #expect(throws: refused) { try test.library.delete("Evil") }
        #expect(throws: refused) { try test.library.rename("Evil", to: "Good") }
        #expect(throws: refused) { try test.library.rename("Paris", to: "Evil") }
        #expect(throws: refused) { try test.library.duplicate("Paris", as: "Evil") }
        #expect(throws: refused) { try test.library.backup("Evil") }
        #expect(try test.library.documents().map(\.name) == ["Paris"])

        // A link deeper in a bundle, or as the backups folder, is refused too.
        let paris = try test.library.bundle(forDocumentNamed: "Paris")
        let document = try test.library.open(named: "Paris")
        try FileManager.default.createSymbolicLink(atPath: paris.additionalContentURL.path, withDestinationPath: outside.path)
        let linked = DocumentError(.unsafePath(reason: "AdditionalContent is a symbolic link"), .document("Paris"))
        #expect(throws: linked) { try document.additionalContent(named: "x") }
        #expect(throws: linked) { try document.writeAdditionalContent(Data("x".utf8), named: "x") }
        try document.close()
        #expect(throws: linked) { try test.library.open(named: "Paris") }
        #expect(throws: linked) { try test.library.open(named: "Paris", mode: .readOnly) }
        try FileManager.default.removeItem(atPath: paris.additionalContentURL.path)
        try FileManager.default.createSymbolicLink(atPath: test.root + "/Backups", withDestinationPath: outside.path)
        #expect(throws: DocumentError(.unsafePath(reason: "it is a symbolic link"), .path(test.root + "/Backups"))) {
            try test.library.backup("Paris")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path) == [])
    }

    @Test("a name typed in NFD finds the NFC document, and a bundle named in NFD on disk is found by either")
    func unicodeNormalisation() throws {
        let test = try TestLibrary()
        try test.library.create(named: "Caf\u{E9}").close()
        #expect(try test.library.documentExists(named: "Cafe\u{301}"))
        #expect(throws: DocumentError(.alreadyExists, .document("Caf\u{E9}"))) { try test.library.create(named: "Cafe\u{301}") }
        #expect(test.entries().map { Array($0.utf8) } == [Array("Caf\u{E9}.vacation".utf8)])

        // A bundle made on macOS arrives with an NFD name.
        try FileManager.default.moveItem(atPath: test.root + "/Caf\u{E9}.vacation", toPath: test.root + "/Cafe\u{301}.vacation")
        #expect(try test.library.documents().map { Array($0.name.utf8) } == [Array("Caf\u{E9}".utf8)])
        let document = try test.library.open(named: "Caf\u{E9}")
        #expect(document.bundle.url.lastPathComponent == "Cafe\u{301}.vacation")
        try document.close()
    }

    @Test("a library folder is made when missing, and a file where it should be is refused")
    func libraryFolder() throws {
        let test = try TestLibrary()
        let nested = test.directory.path("a", "b", "c")
        let library = try DocumentLibrary(url: nested, model: DocumentTestModel.model)
        #expect(FileSystem.kind(at: library.url.path) == .directory)
        let file = test.directory.path("file")
        try Data().write(to: file)
        #expect(throws: DocumentError.self) { try DocumentLibrary(url: file, model: DocumentTestModel.model) }
        #expect(throws: DocumentError(.invalidName(reason: "a name cannot start with \".\""), .document(".hidden"))) {
            try DocumentLibrary(url: nested, model: DocumentTestModel.model, defaultDocumentName: ".hidden")
        }
    }

    @Test("staging folders left by a dead process are cleared; fresh or locked ones are left alone")
    func abandonedStagingFolders() throws {
        let test = try TestLibrary()
        let abandoned = test.root + "/.creating-abandoned"
        let fresh = test.root + "/.creating-fresh"
        let held = test.root + "/.creating-held"
        for path in [abandoned, fresh, held] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false) }
        let old = Date(timeIntervalSinceNow: -3600)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: abandoned)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: held)
        let lock = try DocumentLock.acquire(held, subject: .path(held), wait: .zero)
        try test.library.create(named: "Paris").close()
        lock.release()
        #expect(test.entries() == [".creating-fresh", ".creating-held", "Paris.vacation"])
    }
}
