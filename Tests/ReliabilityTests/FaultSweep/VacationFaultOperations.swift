import CommandLineKit
import Documents
import Foundation
import ObjectGraph
import SQLiteDB
import TestSupport
import VacationCLI
import Vacations

/// Reads a vacation's store with plain SQL (none of the code under test): what it holds, and
/// what `VacationCheck` finds wrong with it.
enum VacationStoreReader {
    static func storeURL(library: URL, vacation: String) -> URL {
        library.appendingPathComponent(vacation + ".vacation").appendingPathComponent(DocumentBundle.storeFolderName)
            .appendingPathComponent(DocumentBundle.storeFileName)
    }

    /// Photos (id, title, place, tags), tags (name, count) and places (name, first visit), in order.
    static func fingerprint(store: URL) throws -> String {
        let connection = try Connection(path: store.path, configuration: .init(readOnly: true, create: false, journalMode: nil,
                                                                              synchronous: nil))
        let model = VacationModel.model
        guard let photo = model.entity(named: "Photo"),
              case .joinTable(let links, let photoColumn, let tagColumn)? = photo.relationship(named: "tags")?.storage,
              case .foreignKey(let placeColumn, _)? = photo.relationship(named: "place")?.storage else {
            throw RunFailure("the vacations model lacks Photo.tags or Photo.place")
        }
        var lines = ["photos:"]
        lines += try connection.rows(
            "SELECT f.ZUNIQUE, f.ZTITLE, p.ZNAME, (SELECT group_concat(name, ',') FROM (SELECT t.ZNAME AS name FROM \(links) j "
                + "JOIN ZTAG t ON t.Z_PK = j.\(tagColumn) WHERE j.\(photoColumn) = f.Z_PK ORDER BY 1)) "
                + "FROM ZPHOTO f LEFT JOIN ZPLACE p ON p.Z_PK = f.\(placeColumn) ORDER BY f.ZUNIQUE") { row in
            "\(row.string(at: 0) ?? "-") | \(row.string(at: 1) ?? "-") | \(row.string(at: 2) ?? "-") | \(row.string(at: 3) ?? "")"
        }
        lines.append("tags:")
        lines += try connection.rows("SELECT ZNAME, ZCOUNT FROM ZTAG ORDER BY 1") { "\($0.string(at: 0) ?? "-") \($0.int64(at: 1))" }
        lines.append("places:")
        lines += try connection.rows("SELECT ZNAME, ZFIRSTVISITED FROM ZPLACE ORDER BY 1") {
            "\($0.string(at: 0) ?? "-") \($0.isNull(at: 1) ? "-" : String($0.double(at: 1)))"
        }
        return lines.joined(separator: "\n")
    }

    static func problems(store: URL) throws -> [String] {
        let connection = try Connection(path: store.path, configuration: .init(readOnly: true, create: false, journalMode: nil,
                                                                              synchronous: nil))
        return try VacationCheck.problems(on: connection)
    }
}

/// Runs the `vacation` command in-process, with a fixed clock.
@MainActor
struct InProcessVacation {
    let library: URL

    struct Outcome: Sendable {
        var code: Int32
        var output: String
        var errors: String
    }

    func run(_ arguments: [String]) -> Outcome {
        let output = BufferSink(), errors = BufferSink()
        let environment = CLIEnvironment(variables: [:], currentDirectory: library.deletingLastPathComponent().path,
                                         standardInput: FileHandle.nullDevice, output: output, errors: errors,
                                         errorsIsTerminal: false, terminalWidth: 100,
                                         now: { Date(timeIntervalSince1970: 1_700_000_000) })
        let code = VacationCLI.run(["--library", library.path, "--wait", "0"] + arguments, environment: environment)
        return Outcome(code: code, output: output.text, errors: errors.text)
    }

    /// Success with its output, or a failure that is clean when it exits 1 with an `Error:` line
    /// first (after any warnings).
    func result(of arguments: [String]) -> FaultRunResult {
        let outcome = run(arguments)
        if outcome.code == ExitCode.success { return .succeeded(output: outcome.output) }
        let lines = outcome.errors.split(separator: "\n").map(String.init)
        let first = lines.first { !$0.hasPrefix("Warning: ") }
        let clean = outcome.code == ExitCode.failure && first?.hasPrefix("Error: ") == true
            && sanitizerReport(in: outcome.errors) == nil
        return .failed(message: "exit \(outcome.code): \(outcome.errors)", clean: clean)
    }

    /// Closes, without saving, every document of the library that a failed command left open
    /// (the process would have ended; here the next run goes on in the same process).
    func releaseDocuments() -> [String] {
        let bundles = (try? FileManager.default.contentsOfDirectory(atPath: library.path)) ?? []
        var problems: [String] = []
        for name in bundles where name.hasSuffix(".vacation") {
            let document = ManagedDocument.document(at: library.appendingPathComponent(name), model: VacationModel.model)
            guard document.isOpen else { continue }
            do {
                try document.revert()
                try document.close()
            } catch {
                problems.append("the document \(name) left open could not be closed: \(error)")
            }
        }
        return problems
    }
}

/// `vacation import` of a feed that overlaps the vacation's photos: new photos, changed ones
/// (titles, tags, places), tag counts moved, places left without photos deleted.
struct ImportFaultOperation: FaultOperation {
    let name = "import"
    let feeds: URL

    func prepare(in folder: URL) async throws {
        try FileManager.default.createDirectory(at: feeds, withIntermediateDirectories: true)
        // Feed B's photo i is feed A's photo i+20: same id, other title, tags and place.
        _ = try TestFeed(in: feeds, name: "a", photos: 40, firstID: 5_000_000, json: false, vocabulary: 30, places: 8)
        _ = try TestFeed(in: feeds, name: "b", photos: 40, firstID: 5_000_020, json: true, vocabulary: 30, places: 8)
        let library = folder.appendingPathComponent("library")
        let outcome = await MainActor.run {
            InProcessVacation(library: library).run(["--vacation", "Trip", "import", feeds.appendingPathComponent("a.xml").path])
        }
        guard outcome.code == 0 else { throw RunFailure("preparing the import sweep: \(outcome.errors)") }
    }

    func run(in folder: URL) async -> FaultRunResult {
        await MainActor.run {
            InProcessVacation(library: folder.appendingPathComponent("library"))
                .result(of: ["--vacation", "Trip", "import", feeds.appendingPathComponent("b.json").path, "--json"])
        }
    }

    func release(_ folder: URL) async -> [String] {
        await MainActor.run { InProcessVacation(library: folder.appendingPathComponent("library")).releaseDocuments() }
    }

    func inspect(_ folder: URL) throws -> FaultInspection {
        let store = VacationStoreReader.storeURL(library: folder.appendingPathComponent("library"), vacation: "Trip")
        return FaultInspection(fingerprint: try VacationStoreReader.fingerprint(store: store),
                               problems: try VacationStoreReader.problems(store: store))
    }
}

/// `vacation backup`: a consistent copy verified before it appears, or no backup at all; the
/// vacation itself unchanged either way.
struct BackupFaultOperation: FaultOperation {
    let name = "backup"
    let feeds: URL

    func prepare(in folder: URL) async throws {
        try FileManager.default.createDirectory(at: feeds, withIntermediateDirectories: true)
        _ = try TestFeed(in: feeds, name: "c", photos: 60, firstID: 6_000_000, json: false, vocabulary: 30, places: 8)
        let library = folder.appendingPathComponent("library")
        let outcome = await MainActor.run {
            InProcessVacation(library: library).run(["--vacation", "Trip", "import", feeds.appendingPathComponent("c.xml").path])
        }
        guard outcome.code == 0 else { throw RunFailure("preparing the backup sweep: \(outcome.errors)") }
    }

    func run(in folder: URL) async -> FaultRunResult {
        let result = await MainActor.run { InProcessVacation(library: folder.appendingPathComponent("library")).result(of: ["backup", "Trip"]) }
        // The output names the backup by the time it was taken: only success matters.
        if case .succeeded = result { return .succeeded(output: "backed up") }
        return result
    }

    func release(_ folder: URL) async -> [String] {
        await MainActor.run { InProcessVacation(library: folder.appendingPathComponent("library")).releaseDocuments() }
    }

    func inspect(_ folder: URL) throws -> FaultInspection {
        let libraryURL = folder.appendingPathComponent("library")
        let store = VacationStoreReader.storeURL(library: libraryURL, vacation: "Trip")
        let vacation = try VacationStoreReader.fingerprint(store: store)
        var problems = try VacationStoreReader.problems(store: store)
        let library = try DocumentLibrary(url: libraryURL, model: VacationModel.model)
        let backups = try library.backups(of: "Trip")
        for backup in backups {
            let copy = backup.bundle.storeURL
            problems += try VacationStoreReader.problems(store: copy).map { "backup \(backup.name): \($0)" }
            if try VacationStoreReader.fingerprint(store: copy) != vacation {
                problems.append("backup \(backup.name) does not hold the vacation")
            }
        }
        return FaultInspection(fingerprint: vacation + "\nbackups: \(backups.count)", problems: problems)
    }
}

/// The same import through the library, in chunks of 8 photos, with a page cache of 4 pages:
/// several saves and batch inserts inside one transaction (`performTransaction`), with pages
/// spilled and read back between them, which must stay whole when one of them fails and SQLite
/// rolls the transaction back underneath.
struct ChunkedImportFaultOperation: FaultOperation {
    let name = "import-in-chunks"
    let feeds: URL

    func prepare(in folder: URL) async throws { try await ImportFaultOperation(feeds: feeds).prepare(in: folder) }

    func run(in folder: URL) -> FaultRunResult {
        do {
            // The vacation's store itself, without its document: nothing else writes it here, and
            // the import runs off the main actor.
            let store = VacationStoreReader.storeURL(library: folder.appendingPathComponent("library"), vacation: "Trip")
            let coordinator = try StoreCoordinator(url: store, model: VacationModel.model)
            // A cache of a few pages: pages spill to the WAL and are read back between chunks,
            // so that I/O happens inside the transaction, as in an import of a large feed.
            try coordinator.withConnection { try $0.execute("PRAGMA cache_size = 4") }
            var importer = FeedImporter(coordinator: coordinator)
            importer.chunkSize = 8
            // The connection's own 4 pages, not the bulk cache an import asks for, and journals
            // on disk: the point is I/O inside the transaction.
            importer.pageCacheKibibytes = nil
            importer.memoryJournals = false
            let report = importer.importFeeds([.file(feeds.appendingPathComponent("b.json"))], rules: DraftRules(),
                                              now: Date(timeIntervalSince1970: 1_700_000_000))
            if let failure = report.files.first?.failure {
                let message = failure.description
                guard case .store = failure else { return .failed(message: message, clean: false) }
                return .failed(message: message, clean: !message.isEmpty && !message.contains("\n"))
            }
            return .succeeded(output: "\(report.added) added, \(report.updated) updated, \(report.unchanged) unchanged")
        } catch {
            let message = "\(error)"
            return .failed(message: message, clean: ShelvesStore.isClean(error))
        }
    }

    func release(_ folder: URL) -> [String] { [] }

    func inspect(_ folder: URL) throws -> FaultInspection { try ImportFaultOperation(feeds: feeds).inspect(folder) }
}
