import Foundation
import Locking
import SQLiteDB

extension DocumentLibrary {
    /// Every document in the library, sorted by name: hidden entries, symbolic links and
    /// anything that is not a `<Name>.<extension>` folder are left out.
    ///
    /// ```swift
    /// let summaries = try library.documents(counting: ["Photo", "Tag"])
    /// ```
    /// - Parameter entityNames: entities whose rows to count (a read-only `count(*)` on the
    ///   store, safe while another process writes); an unknown entity counts 0.
    /// - Throws: `DocumentError` when a store cannot be read for counting (`corrupt`, `io`).
    public func documents(counting entityNames: [String] = []) throws(DocumentError) -> [DocumentSummary] {
        let suffix = "." + fileExtension
        var summaries: [DocumentSummary] = []
        for entry in try FileSystem.entries(of: root) where !entry.hasPrefix(".") && entry.hasSuffix(suffix) {
            let stem = String(entry.dropLast(suffix.count)).precomposedStringWithCanonicalMapping
            let path = root + "/" + entry
            guard DocumentName.problem(with: stem) == nil, FileSystem.kind(at: path) == .directory else { continue }
            summaries.append(try summary(of: DocumentBundle(url: URL(fileURLWithPath: path, isDirectory: true)),
                                         name: stem, counting: entityNames))
        }
        return summaries.sorted { ($0.name.lowercased(), $0.name) < ($1.name.lowercased(), $1.name) }
    }

    /// The names of the library's documents, sorted as `documents(counting:)` sorts them;
    /// nothing inside a bundle is read.
    package func documentNames() throws(DocumentError) -> [String] {
        let suffix = "." + fileExtension
        var names: [String] = []
        for entry in try FileSystem.entries(of: root) where !entry.hasPrefix(".") && entry.hasSuffix(suffix) {
            let stem = String(entry.dropLast(suffix.count)).precomposedStringWithCanonicalMapping
            guard DocumentName.problem(with: stem) == nil, FileSystem.kind(at: root + "/" + entry) == .directory else { continue }
            names.append(stem)
        }
        return names.sorted { ($0.lowercased(), $0) < ($1.lowercased(), $1) }
    }

    /// Each document's summary (as `summary(ofDocumentNamed:counting:)`), read on its own: a
    /// document that cannot be summarised is its own error, not the whole list's. Several
    /// documents are read at once, each on its own read-only connection (opening a store
    /// parses its whole schema, about a millisecond, and counting a large one reads its
    /// smallest index), so that a library of a hundred vacations lists in the time of half.
    package func summaries(of names: [String], counting entityNames: [String]) -> [Result<DocumentSummary, DocumentError>] {
        let results = Locked([Result<DocumentSummary, DocumentError>?](repeating: nil, count: names.count))
        let workers = min(names.count, max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4)))
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for index in stride(from: worker, to: names.count, by: workers) {
                let result: Result<DocumentSummary, DocumentError>
                do throws(DocumentError) {
                    result = .success(try summary(ofDocumentNamed: names[index], counting: entityNames))
                } catch {
                    result = .failure(error)
                }
                results.withLock { $0[index] = result }
            }
        }
        // `concurrentPerform` returns once every iteration has run: every slot is filled.
        return results.withLock { $0 }.map { $0 ?? .failure(DocumentError(.io(operation: "read", detail: "not read"), .path(root))) }
    }

    /// What `documents(counting: [])` tells of the document `name` (dates and size, no store
    /// read), for a listing that could not count it.
    package func uncountedSummary(ofDocumentNamed name: String) throws(DocumentError) -> DocumentSummary {
        let location = try locate(name)
        return try summary(of: location.bundle, name: location.name.rawValue, counting: [])
    }

    /// The summary of the document `name`.
    ///
    /// - Throws: `DocumentError`: `notFound`, `invalidName`, `unsafePath`, `corrupt`, `io`.
    public func summary(ofDocumentNamed name: String, counting entityNames: [String] = []) throws(DocumentError) -> DocumentSummary {
        let location = try locate(name)
        try location.bundle.checkStructure(subject: .document(location.name.rawValue))
        return try summary(of: location.bundle, name: location.name.rawValue, counting: entityNames)
    }

    private func summary(of bundle: DocumentBundle, name: String, counting entityNames: [String]) throws(DocumentError) -> DocumentSummary {
        let storeDates = [bundle.storePath, bundle.storePath + "-wal"].compactMap { FileSystem.modificationDate(at: $0) }
        let fallbackDate = storeDates.min() ?? Date()
        let metadata = try DocumentMetadata.read(from: bundle.metadataURL.path, fallback: DocumentMetadata(
            modelVersion: model.versionIdentifier, created: fallbackDate, modified: fallbackDate, appVersion: ""))
        let modified = ([metadata.modified] + storeDates.map(\.wholeSeconds)).max() ?? metadata.modified
        let counts = try countRows(in: bundle, name: name, entityNames: entityNames)
        // Measured after counting: a reader may leave SQLite's shared-memory file behind.
        return DocumentSummary(name: name, url: bundle.url, created: metadata.created, modified: modified,
                               bytes: FileSystem.size(of: bundle.path), counts: counts)
    }

    /// Counts rows per entity with plain SQL on a read-only connection: no document, no lock,
    /// no migration.
    private func countRows(in bundle: DocumentBundle, name: String, entityNames: [String]) throws(DocumentError) -> [String: Int] {
        guard !entityNames.isEmpty else { return [:] }
        guard FileSystem.kind(at: bundle.storePath) == .file else {
            throw DocumentError(.corrupt(detail: "StoreContent/persistentStore is missing"), .document(name))
        }
        do {
            let connection = try Connection(path: bundle.storePath, configuration: .init(
                readOnly: true, create: false, journalMode: nil, busyTimeout: 5, synchronous: nil))
            var counts: [String: Int] = [:]
            for entityName in entityNames {
                guard let entity = model.entity(named: entityName), try connection.tableExists(entity.table) else {
                    counts[entityName] = 0
                    continue
                }
                var sql = "SELECT count(*) FROM \(quoteIdentifier(entity.table))"
                if let filter = entity.rowsCondition(in: model, column: "Z_ENT") {
                    sql += " WHERE " + filter
                }
                counts[entityName] = Int(try connection.scalar(sql)?.integerValue ?? 0)
            }
            return counts
        } catch {
            throw DocumentBundle.storeError(error, subject: .document(name), operation: "count the rows of")
        }
    }
}
