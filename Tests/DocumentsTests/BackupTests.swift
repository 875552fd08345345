@testable import Documents
import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

@MainActor
@Suite("Backups")
struct BackupTests {
    /// A document named `name` with entries `texts` and an additional file, closed.
    func makeDocument(_ test: TestLibrary, _ name: String, _ texts: [String]) throws {
        let document = try test.library.create(named: name)
        try addEntries(texts, to: document)
        try document.writeAdditionalContent(Data("cover of \(name)".utf8), named: "cover.jpg")
        try document.close()
    }

    @Test("a backup is a complete, verified bundle under Backups/<document>/<UTC time>")
    func backupLayout() throws {
        let test = try TestLibrary()
        try makeDocument(test, "Paris", ["one", "two"])
        let backup = try test.library.backup("Paris")
        #expect(backup.name.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ/) != nil)
        #expect(backup.url.path == test.root + "/Backups/Paris/" + backup.name)
        #expect(backup.documentName == "Paris")
        #expect(backup.modelVersion == "1")
        #expect(abs(backup.created.timeIntervalSinceNow) < 60)
        #expect(backup.bytes == FileSystem.size(of: backup.url.path))
        #expect(test.entries("Backups/Paris") == [backup.name])
        #expect(test.entries("Backups/Paris/" + backup.name) == ["AdditionalContent", "BackupInfo.plist", "DocumentMetadata.plist", "StoreContent"])
        #expect(test.entries("Backups/Paris/" + backup.name + "/StoreContent") == ["persistentStore"])
        #expect(try test.library.backups(of: "Paris") == [backup])
        let copy = try Connection(path: backup.bundle.storeURL.path, configuration: .init(readOnly: true, create: false, journalMode: nil, synchronous: nil))
        #expect(try copy.integrityCheck() == ["ok"])
        #expect(try copy.scalar("SELECT count(*) FROM ZENTRY")?.integerValue == 2)
        #expect(try copy.journalMode() == "delete")
        #expect(test.entries("Backups/Paris/" + backup.name + "/StoreContent") == ["persistentStore"])
        #expect(try test.library.documents().map(\.name) == ["Paris"])
    }

    @Test("backups in the same second get -2, -3…, and list oldest first")
    func namesInOneSecond() throws {
        let test = try TestLibrary()
        try makeDocument(test, "Paris", ["one"])
        var backups: [BackupInfo] = []
        for _ in 0..<3 { backups.append(try test.library.backup("Paris")) }
        let listed = try test.library.backups(of: "Paris")
        #expect(listed.map(\.name) == backups.map(\.name))
        #expect(Set(backups.map(\.name)).count == 3)
        if backups[0].created == backups[2].created {
            #expect(backups.map(\.name) == [backups[0].name, backups[0].name + "-2", backups[0].name + "-3"])
        }
    }

    @Test("a backup's name is the second its info records, even a ten-thousandth before the next")
    func nameIsTheRecordedSecond() throws {
        // 2025-12-02T20:10:59 UTC and fractions of it that ISO8601DateFormatter rounds up
        // to the next second when it formats them as they are.
        let second = 786_399_059.0
        for fraction in [0.0, 0.5, 0.9994, 0.9995, 0.9996, 0.9999] {
            let moment = Date(timeIntervalSinceReferenceDate: second + fraction)
            #expect(BackupInfo.name(for: moment) == "2025-12-02T20-10-59Z", "fraction \(fraction)")
            #expect(moment.wholeSeconds == Date(timeIntervalSinceReferenceDate: second), "fraction \(fraction)")
        }
    }

    @Test("backups listed oldest first when a second's second backup came before the next second's first")
    func listingAcrossSeconds() throws {
        let test = try TestLibrary()
        try makeDocument(test, "Paris", ["one"])
        let backups = try (0..<3).map { _ in try test.library.backup("Paris") }
        // Rename and re-date them as three backups taken at 05, 05 (the second) and 06 would be.
        let folder = backups[0].url.deletingLastPathComponent()
        let moments = [786_399_005.0, 786_399_005.0, 786_399_006.0].map { Date(timeIntervalSinceReferenceDate: $0) }
        let names = ["2025-12-02T20-10-05Z", "2025-12-02T20-10-05Z-2", "2025-12-02T20-10-06Z"]
        for (index, backup) in backups.enumerated() {
            let moved = folder.appendingPathComponent(names[index])
            try FileManager.default.moveItem(at: backup.url, to: moved)
            try BackupInfo.write(to: moved.path, documentName: "Paris", created: moments[index], metadata: nil)
        }
        #expect(BackupInfo.name(for: moments[0]) == names[0])
        #expect(BackupInfo.name(for: moments[2]) == names[2])
        #expect(try test.library.backups(of: "Paris").map(\.name) == names)
    }

    @Test("restoring as a new name makes a document with the backed-up contents")
    func restoreAsNewName() throws {
        let test = try TestLibrary()
        try makeDocument(test, "Paris", ["one", "two"])
        let backup = try test.library.backup("Paris")
        let document = try test.library.open(named: "Paris")
        try addEntries(["three"], to: document)
        try document.close()

        #expect(try test.library.restore(backup, as: "Paris then") == "Paris then")
        #expect(try test.entryTexts("Paris then") == ["one", "two"])
        #expect(try test.entryTexts("Paris") == ["one", "three", "two"])
        let restored = try test.library.open(named: "Paris then")
        #expect(try restored.additionalContent(named: "cover.jpg") == Data("cover of Paris".utf8))
        try restored.close()
        #expect(test.entries() == ["Backups", "Paris then.vacation", "Paris.vacation"])
    }

    @Test("restoring over a document needs replacing, then swaps it in whole")
    func restoreOverOriginal() throws {
        let test = try TestLibrary()
        try makeDocument(test, "Paris", ["one"])
        let backup = try test.library.backup("Paris")
        let document = try test.library.open(named: "Paris")
        try addEntries(["two"], to: document)
        #expect(throws: DocumentError(.alreadyExists, .document("Paris"))) { try test.library.restore(backup) }
        #expect(throws: DocumentError(.locked, .document("Paris"))) { try test.library.restore(backup, replacing: true) }
        try document.close()
        #expect(test.entries() == ["Backups", "Paris.vacation"])

        try test.library.restore(backup, replacing: true)
        #expect(try test.entryTexts("Paris") == ["one"])
        #expect(test.entries() == ["Backups", "Paris.vacation"])
        let reopened = try test.library.open(named: "Paris")
        #expect(reopened === document)
        #expect(try reopened.coordinator.withConnection { try $0.integrityCheck() } == ["ok"])
        try reopened.close()
    }

    @Test("prune keeps the newest backups and returns those removed")
    func prune() throws {
        let test = try TestLibrary()
        try makeDocument(test, "Paris", ["one"])
        var backups: [BackupInfo] = []
        for _ in 0..<4 { backups.append(try test.library.backup("Paris")) }
        let removed = try test.library.pruneBackups(of: "Paris", keeping: 2)
        #expect(removed == Array(backups.prefix(2)))
        #expect(try test.library.backups(of: "Paris") == Array(backups.suffix(2)))
        #expect(test.entries("Backups/Paris") == backups.suffix(2).map(\.name).sorted())
        let fifth = try test.library.backup("Paris", keeping: 1)
        #expect(try test.library.backups(of: "Paris") == [fifth])
        #expect(try test.library.pruneBackups(of: "Paris", keeping: 0).map(\.name) == [fifth.name])
        #expect(try test.library.backups(of: "Paris") == [])
    }

    @Test("a backup is found by its listed name, by its path, and never by guesswork")
    func locatingBackups() throws {
        let test = try TestLibrary()
        try makeDocument(test, "Paris", ["one"])
        try makeDocument(test, "Rome", ["uno"])
        let paris = try test.library.backup("Paris")
        #expect(try test.library.locateBackup(paris.name) == paris)
        #expect(try test.library.locateBackup(paris.name, of: "Paris") == paris)
        #expect(try test.library.locateBackup(paris.url.path).url == paris.url)
        #expect(throws: DocumentError(.notFound, .backup("1999-01-01T00-00-00Z"))) {
            try test.library.locateBackup("1999-01-01T00-00-00Z")
        }
        #expect(throws: DocumentError(.notFound, .backup(test.root + "/nothing"))) {
            try test.library.locateBackup(test.root + "/nothing")
        }
        #expect(throws: DocumentError(.invalidName(reason: "a name cannot start with \".\""), .backup(".."))) {
            try test.library.locateBackup("..")
        }
        // The same name under two documents: ambiguous unless the document is named.
        try FileManager.default.createDirectory(atPath: test.root + "/Backups/Rome", withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: paris.url.path, toPath: test.root + "/Backups/Rome/" + paris.name)
        #expect(throws: DocumentError(.ambiguous(candidates: ["Paris", "Rome"]), .backup(paris.name))) {
            try test.library.locateBackup(paris.name)
        }
        #expect(try test.library.locateBackup(paris.name, of: "Rome").documentName == "Rome")
    }

    @Test("backups can go to a folder of the caller's, shared by several documents")
    func backupsElsewhere() throws {
        let test = try TestLibrary()
        try makeDocument(test, "Paris", ["one"])
        try makeDocument(test, "Rome", ["uno"])
        let folder = test.directory.path("Elsewhere", "backups")
        let paris = try test.library.backup("Paris", to: folder)
        let rome = try test.library.backup("Rome", to: folder, keeping: 3)
        #expect(paris.url.deletingLastPathComponent().path == folder.path)
        #expect(try test.library.backups(of: "Paris", in: folder) == [paris])
        #expect(try test.library.backups(of: "Rome", in: folder) == [rome])
        #expect(try test.library.backups(of: "Paris") == [])
        #expect(test.entries().contains("Backups") == false)
        try test.library.restore(try test.library.locateBackup(rome.url.path), as: "Roma")
        #expect(try test.entryTexts("Roma") == ["uno"])
    }

    @Test("a large backup reports its progress, page by page, to the end")
    func progress() throws {
        let test = try TestLibrary()
        let document = try test.library.create(named: "Big")
        try document.coordinator.withConnection { connection in
            try connection.transaction {
                let insert = try connection.prepare("INSERT INTO ZENTRY (Z_PK, Z_ENT, Z_OPT, ZBATCH, ZTEXT) VALUES (?, 1, 1, 0, ?)")
                for key in 1...6000 { try insert.run([.integer(Int64(key)), .text(String(repeating: "x", count: 200))]) }
            }
        }
        try document.close()
        var reports: [CopyProgress] = []
        let backup = try test.library.backup("Big") { reports.append($0) }
        #expect(reports.count > 2)
        #expect(reports.last == CopyProgress(pagesCopied: reports[0].totalPages, totalPages: reports[0].totalPages))
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.pagesCopied < $1.pagesCopied })
        #expect(reports.first?.fractionCompleted ?? 1 < 0.5)
        #expect(Int64(reports[0].totalPages) * 4096 == FileSystem.size(of: backup.bundle.storeURL.path))
    }
}

@Suite("Folder listings")
struct FolderListingTests {
    @Test("a folder that does not exist lists nothing; one that cannot be read is an error, never an empty list")
    func listing() throws {
        let directory = try TemporaryDirectory(prefix: "listing")
        let folder = directory.path("folder").path
        #expect(try FileSystem.entries(of: folder) == [])
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        for name in ["b", "a", ".hidden", "é"] { try Data().write(to: URL(fileURLWithPath: folder + "/" + name)) }
        #expect(try FileSystem.entries(of: folder).sorted() == [".hidden", "a", "b", "é"])
        let file = directory.path("file").path
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        #expect(throws: DocumentError.self) { try FileSystem.entries(of: file) }
        #expect(FileSystem.entriesIfReadable(of: file) == [])
    }
}
