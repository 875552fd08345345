import Foundation
import ObjectGraph

extension ManagedDocument {
    /// How to settle a save that met changes made elsewhere to the same objects.
    public enum ConflictResolution: Sendable {
        /// This document's unsaved values win.
        case keepingMyChanges
        /// The values in the store win; this document's conflicting changes are dropped.
        case keepingStoreVersion
    }

    /// Saves the document's changes into its bundle (`save(for: .forOverwriting)`).
    ///
    /// ```swift
    /// try document.save()
    /// ```
    /// - Throws: `DocumentError`: `saveFailed` (the state gains `savingError`, and `inConflict`
    ///   for a conflict; the changes stay in memory), `readOnly`, `closed`, `io`.
    public func save() throws(DocumentError) {
        try save(for: .forOverwriting)
    }

    /// `UIDocument.save(to:for:)`: creates the bundle (`.forCreating`) or saves into it
    /// (`.forOverwriting`).
    ///
    /// Creating builds the whole bundle in a hidden folder next to it, then renames it into
    /// place, so that no one ever sees half a document; the new document is then open, locked
    /// for writing.
    ///
    /// ```swift
    /// let document = ManagedDocument.document(at: url, model: model)
    /// try document.save(for: .forCreating)
    /// ```
    /// - Throws: `DocumentError`: `alreadyExists`, `unsafePath`, `io`, and as `save()`.
    public func save(for operation: SaveOperation) throws(DocumentError) {
        switch operation {
        case .forCreating: try create()
        case .forOverwriting: try saveChanges()
        }
    }

    /// Saves with `resolution` settling conflicts, then goes back to refusing them; clears
    /// `inConflict`.
    ///
    /// - Throws: as `save()`.
    public func resolveConflicts(_ resolution: ConflictResolution) throws(DocumentError) {
        let session = try openSession()
        let policy: MergePolicy = resolution == .keepingMyChanges ? .objectTrumps : .storeTrumps
        let viewContext = session.container.viewContext
        let previous = viewContext.mergePolicy
        viewContext.mergePolicy = policy
        session.container.writer.performAndWait { $0.mergePolicy = policy }
        defer {
            viewContext.mergePolicy = previous
            session.container.writer.performAndWait { $0.mergePolicy = previous }
        }
        try saveChanges()
    }

    /// Saves view context → writer → store, then the metadata when the store changed.
    func saveChanges() throws(DocumentError) {
        let session = try openSession()
        guard session.mode == .readWrite else { throw DocumentError(.readOnly, subject) }
        autosaveTask?.cancel()
        autosaveTask = nil
        isSaving = true
        defer { isSaving = false }
        do {
            try session.container.saveToStore()
            try recordModification()
        } catch {
            let failure = error as? DocumentError ?? DocumentError(.saveFailed(detail: describe(error)), subject)
            lastSaveError = failure
            var failed = state
            failed.insert(.savingError)
            if error is MergeConflictError { failed.insert(.inConflict) }
            state = failed
            throw failure
        }
        failedAutosaves = 0
        lastSaveError = nil
        state.remove([.savingError, .inConflict])
    }

    /// True when the store changed (through any context of this document) since the metadata's
    /// `modified` was last written, or when that cannot be told: the save it leads to then
    /// reports why, rather than the metadata going stale unnoticed.
    var isMetadataStale: Bool {
        guard let session, session.mode == .readWrite else { return false }
        do {
            return try Self.totalChanges(session.container.coordinator, subject: subject) != session.changesAtLastMetadataWrite
        } catch {
            return true
        }
    }

    /// Writes `modified` (and our app and model versions) when the store changed.
    private func recordModification() throws(DocumentError) {
        guard var session, var metadata else { return }
        let changes = try Self.totalChanges(session.container.coordinator, subject: subject)
        guard changes != session.changesAtLastMetadataWrite else { return }
        metadata.modified = Date().wholeSeconds
        metadata.appVersion = configuration.appVersion
        metadata.modelVersion = model.versionIdentifier
        try metadata.write(to: bundle.metadataURL.path)
        session.changesAtLastMetadataWrite = changes
        self.session = session
        self.metadata = metadata
    }

    /// Builds the bundle in a hidden staging folder beside it, renames it into place (never
    /// over anything), and opens it with the lock taken on the staging folder, so that no other
    /// process can grab the new document first.
    private func create() throws(DocumentError) {
        guard session == nil else { throw DocumentError(.alreadyExists, subject) }
        let parent = bundle.url.deletingLastPathComponent().path
        guard FileSystem.kind(at: parent) == .directory else {
            throw DocumentError(.io(operation: "create", detail: "the folder \(parent) does not exist"), subject)
        }
        try bundle.checkAbsent(subject: subject)
        let now = Date()
        let initialMetadata = DocumentMetadata(modelVersion: model.versionIdentifier, created: now, modified: now,
                                               appVersion: configuration.appVersion)
        let (staging, lock) = try StagingFolder.creating.make(in: parent, subject: subject) { folder throws(DocumentError) in
            try DocumentBundle.populate(folder, model: model, metadata: initialMetadata,
                                        tracksHistory: configuration.tracksHistory, subject: subject)
        }
        do {
            try FileSystem.renameWithoutReplacing(staging, to: bundle.path, subject: subject)
        } catch {
            lock.release()
            // The error that matters is being thrown; a hidden folder left behind is cleared later.
            try? FileSystem.removeTree(staging)
            throw error
        }
        do {
            try start(lock: lock, mode: .readWrite)
        } catch {
            lock.release()
            throw error
        }
    }
}
