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
            let stem = DocumentName.composed(entry.dropLast(suffix.count))
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
            let stem = DocumentName.composed(entry.dropLast(suffix.count))
            guard DocumentName.problem(with: stem) == nil, FileSystem.kind(at: root + "/" + entry) == .directory else { continue }
            names.append(stem)
        }
        return names.sorted { ($0.lowercased(), $0) < ($1.lowercased(), $1) }
    }

    /// Each document's summary (as `summary(ofDocumentNamed:counting:)`), read on its own: a
    /// document that cannot be summarised is its own error, not the whole list's.
    ///
    /// Counts are kept for the next listing (`CountCache`, in `<library>/.list-counts`) and
    /// reused while a store's files are exactly as they were when counted: opening a store
    /// parses its whole schema, about a millisecond a vacation whatever its size. Stores that
    /// must be counted are counted several at once, each on its own read-only connection.
    package func summaries(of names: [String], counting entityNames: [String]) -> [Result<DocumentSummary, DocumentError>] {
        let cache = CountCache.load(in: root)
        let started = Date()
        let results = Locked([(summary: Result<DocumentSummary, DocumentError>, kept: (String, CountCache.Entry)?)?](
            repeating: nil, count: names.count))
        let workers = min(names.count, max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4)))
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for index in stride(from: worker, to: names.count, by: workers) {
                var kept: (String, CountCache.Entry)?
                let result: Result<DocumentSummary, DocumentError>
                do throws(DocumentError) {
                    let location = try locate(names[index])
                    try location.bundle.checkStructure(subject: .document(location.name.rawValue))
                    let bundleName = location.bundle.url.lastPathComponent
                    let summary = try summary(of: location.bundle, name: location.name.rawValue, counting: entityNames) {
                        bundle throws(DocumentError) in
                        if let counts = cache.counts(bundleName: bundleName, storePath: bundle.storePath, entityNames: entityNames) {
                            kept = cache.entries[bundleName].map { (bundleName, $0) }
                            return counts
                        }
                        let before = (CountCache.FileState.of(bundle.storePath), CountCache.FileState.of(bundle.storePath + "-wal"))
                        let counts = try countRows(in: bundle, name: location.name.rawValue, entityNames: entityNames)
                        let after = (CountCache.FileState.of(bundle.storePath), CountCache.FileState.of(bundle.storePath + "-wal"))
                        // Kept only when no write (ours or another process's) came between.
                        if before == after, let entry = CountCache.entry(store: after.0, wal: after.1, counts: counts, started: started) {
                            kept = (bundleName, entry)
                        }
                        return counts
                    }
                    result = .success(summary)
                } catch {
                    result = .failure(error)
                }
                results.withLock { $0[index] = (result, kept) }
            }
        }
        let finished = results.withLock { $0 }
        var updated = CountCache()
        for case let (bundleName, entry)? in finished.map({ $0?.kept }) { updated.entries[bundleName] = entry }
        if updated != cache { updated.save(in: root) }
        // `concurrentPerform` returns once every iteration has run: every slot is filled.
        return finished.map { $0?.summary ?? .failure(DocumentError(.io(operation: "read", detail: "not read"), .path(root))) }
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

    private func summary(of bundle: DocumentBundle, name: String, counting entityNames: [String],
                         counter: ((DocumentBundle) throws(DocumentError) -> [String: Int])? = nil) throws(DocumentError) -> DocumentSummary {
        let storeDates = [bundle.storePath, bundle.storePath + "-wal"].compactMap { FileSystem.modificationDate(at: $0) }
        let fallbackDate = storeDates.min() ?? Date()
        let metadata = try DocumentMetadata.read(from: bundle.metadataURL.path, fallback: DocumentMetadata(
            modelVersion: model.versionIdentifier, created: fallbackDate, modified: fallbackDate, appVersion: ""))
        let modified = ([metadata.modified] + storeDates.map(\.wholeSeconds)).max() ?? metadata.modified
        let counts: [String: Int]
        if let counter {
            counts = try counter(bundle)
        } else {
            counts = try countRows(in: bundle, name: name, entityNames: entityNames)
        }
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
