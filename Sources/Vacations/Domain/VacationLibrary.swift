import Documents
import Foundation
import ObjectGraph

/// The vacations of one library folder (CS193p's "VacationHelper", done properly): opens a
/// vacation by name, falls back to the default one ("My Vacation" unless changed), creates it
/// when missing, and hands out one document per vacation.
///
/// ```swift
/// let library = try VacationLibrary(url: libraryURL)
/// let document = try library.open(nil, access: .write)     // the default vacation
/// ```
@MainActor
package final class VacationLibrary {
    /// How a vacation is opened: reading needs no lock; writing takes the vacation's lock.
    package enum Access: Sendable {
        case read, write
    }

    static let standardDefaultName = "My Vacation"
    static let settingsFileName = "Library.plist"
    private static let defaultKey = "DefaultVacation"

    package let documents: DocumentLibrary
    package var url: URL { documents.url }
    /// How long a writer waits for another process's lock.
    package var wait: Duration
    /// The author of what this library's writers change: every vacation opened for writing
    /// logs its changes as one operation by this author (`vacation import`, …), which
    /// `vacation undo` reverts whole. The command line sets it once per command.
    package var operationAuthor = "vacation"
    /// Joins the transactions of every vacation this library opens into one operation each
    /// (a command that opens its vacation twice still makes one).
    package let operationSession = UUID().uuidString
    /// The clock of the operations' dates.
    package var operationClock: @Sendable () -> Date = { Date() }

    /// Opens (creating when needed) the library folder.
    ///
    /// - Throws: `DocumentError` when the folder cannot be made or used.
    package init(url: URL, wait: Duration = .seconds(10),
                configuration: ManagedDocument.Configuration = ManagedDocument.Configuration()) throws(DocumentError) {
        // Vacations keep persistent history: `vacation log` and `undo` read it, and a process
        // with a vacation open merges other processes' commits through it.
        var configuration = configuration
        configuration.tracksHistory = true
        // The folder is made and resolved once; the settings then only name the default.
        let plain = try DocumentLibrary(url: url, model: VacationModel.model, defaultDocumentName: Self.standardDefaultName,
                                        documentConfiguration: configuration)
        let stored = try Self.readDefaultName(in: plain.url)
        documents = try stored.map { name throws(DocumentError) in try plain.withDefaultDocumentName(name) } ?? plain
        self.wait = wait
    }

    /// The default vacation's name.
    package var defaultName: String { documents.defaultDocumentName }

    /// The name a command works on: the one given, else the default.
    package func resolve(_ name: String?) throws(DocumentError) -> String {
        try DocumentName(name ?? defaultName).rawValue
    }

    package func exists(_ name: String) throws(DocumentError) -> Bool {
        try documents.documentExists(named: name)
    }

    /// Makes sure the default vacation exists (every command does, on first use).
    package func ensureDefaultExists() throws(DocumentError) {
        if try !exists(defaultName) {
            do {
                _ = try documents.create(named: defaultName).close()
            } catch where error.kind == .alreadyExists {
                // Another process made it meanwhile.
            }
        }
    }

    /// Opens a vacation. A missing default vacation is created; a missing named one is created
    /// when `creating` (import, visit, toggle) and is `notFound` otherwise. A vacation made by an
    /// older model is migrated on first open, even for reading.
    package func open(_ name: String?, access: Access, creating: Bool = false) throws(DocumentError) -> ManagedDocument {
        try openReportingCreation(name, access: access, creating: creating).document
    }

    /// `open`, also telling whether this call made the vacation (so that a caller whose work
    /// then fails wholly can remove it again rather than leave an empty vacation behind).
    package func openReportingCreation(_ name: String?, access: Access,
                                      creating: Bool = false) throws(DocumentError) -> (document: ManagedDocument, created: Bool) {
        let resolved = try resolve(name)
        if try !exists(resolved) {
            guard creating || resolved == defaultName else { throw DocumentError(.notFound, .document(resolved)) }
            do {
                let document = try documents.create(named: resolved)
                if access == .read {
                    try document.close()
                    return (try documents.open(named: resolved, mode: .readOnly, wait: wait), true)
                }
                return (try logged(document, resolved), true)
            } catch where error.kind == .alreadyExists {
                // Made by another process meanwhile: open it as usual.
            }
        }
        guard access == .read else { return (try logged(documents.open(named: resolved, mode: .readWrite, wait: wait), resolved), false) }
        do {
            return (try documents.open(named: resolved, mode: .readOnly, wait: wait), false)
        } catch {
            guard case .migrationFailed = error.kind else { throw error }
            // A vacation of an older model (or whose search index someone dropped) cannot be
            // read as it is: migrate it once, as a writer would (waiting for another writer,
            // and failing as a writer would when it cannot be migrated), then read it.
            try documents.open(named: resolved, mode: .readWrite, wait: wait).close()
            return (try documents.open(named: resolved, mode: .readOnly, wait: wait), false)
        }
    }

    /// Starts the operation log on a vacation opened for writing (every vacation keeps one).
    private func logged(_ document: ManagedDocument, _ name: String) throws(DocumentError) -> ManagedDocument {
        do {
            try document.coordinator.recordOperations(author: operationAuthor, session: operationSession, now: operationClock)
        } catch let error as DocumentError {
            throw error
        } catch {
            throw DocumentError(.io(operation: "start the operation log of", detail: "\(error)"), .document(name))
        }
        return document
    }

    /// Makes `name` the default vacation; it must exist.
    package func setDefault(_ name: String) throws(DocumentError) {
        let resolved = try resolve(name)
        guard try exists(resolved) else { throw DocumentError(.notFound, .document(resolved)) }
        try Self.writeDefaultName(resolved, in: url)
    }

    /// Renames a vacation; the default follows it.
    package func rename(_ name: String, to newName: String) throws(DocumentError) {
        let old = try resolve(name)
        let new = try DocumentName(newName).rawValue
        try documents.rename(old, to: new, wait: wait)
        if old == defaultName { try Self.writeDefaultName(new, in: url) }
    }

    // MARK: Settings

    /// The default vacation the settings name; nil when there are no settings or they name none.
    ///
    /// - Throws: `DocumentError` when the settings are there but cannot be read or make no
    ///   sense: falling back to "My Vacation" then would send commands to the wrong vacation.
    private static func readDefaultName(in folder: URL) throws(DocumentError) -> String? {
        let file = folder.appendingPathComponent(settingsFileName)
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw DocumentError(.io(operation: "read", detail: "\(error)"), .path(file.path))
        }
        guard let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any] else {
            throw DocumentError(.corrupt(detail: "the library settings are not a property list"), .path(file.path))
        }
        guard let name = plist[defaultKey] as? String else { return nil }
        return try DocumentName(name, subject: { _ in .path(file.path) }).rawValue
    }

    private static func writeDefaultName(_ name: String, in folder: URL) throws(DocumentError) {
        let file = folder.appendingPathComponent(settingsFileName)
        do {
            let data = try PropertyListSerialization.data(fromPropertyList: [defaultKey: name], format: .xml, options: 0)
            try data.write(to: file, options: .atomic)
        } catch {
            throw DocumentError(.io(operation: "write", detail: "\(error)"), .path(file.path))
        }
    }
}
