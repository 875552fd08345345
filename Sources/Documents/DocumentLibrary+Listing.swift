import Foundation
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
