import Foundation
import ObjectGraph
import SQLiteDB

/// A document in `UIManagedDocument`'s bundle layout: a Core Data-layout store with a view
/// context over a private writer, metadata, additional content, autosave, and the one-writer
/// lock.
///
/// A document belongs to the main actor, as `UIManagedDocument` belongs to the main thread:
/// its view context is for the main actor; background contexts (`newBackgroundContext()`) are
/// for imports. Asking twice for the same bundle gives the same instance.
///
/// ```swift
/// let document = ManagedDocument.document(at: bundleURL, model: model)
/// try document.open(wait: .seconds(10))          // waits for another writer, then `busy`
/// let place = Place(context: try document.viewContext)
/// place.name = "Lisbon"                          // saved by autosave, or:
/// try document.close()                           // saves, then lets go of the lock
/// ```
@MainActor
public final class ManagedDocument {
    /// How a document behaves once open.
    public struct Configuration: Sendable {
        /// How long after the last change autosave waits before saving; nil turns autosave off.
        public var autosaveDelay: Duration?
        /// Written to the metadata as the version of the app that last wrote the document.
        package var appVersion: String
        /// When true, SIGINT and SIGTERM save and close every open document before the process
        /// stops (see `StopSignalMonitor`).
        public var handlesStopSignals: Bool
        /// When true, the store keeps persistent history (`StoreCoordinator`'s `tracksHistory`),
        /// and the view context merges other processes' commits as they happen.
        public var tracksHistory: Bool
        /// With `tracksHistory`: when true (the default), a thread watches for other
        /// processes' commits and the view context merges them as they happen. A process that
        /// opens a document for one quick command and closes it (the command line) turns it
        /// off: it would start a thread and a task only to stop them again.
        public var followsOtherProcesses = true

        /// A configuration; the defaults autosave 2 s after the last change, handle stop signals
        /// and keep no persistent history.
        public init(autosaveDelay: Duration? = .seconds(2), appVersion: String = "1.0", handlesStopSignals: Bool = true,
                    tracksHistory: Bool = false) {
            self.autosaveDelay = autosaveDelay
            self.appVersion = appVersion
            self.handlesStopSignals = handlesStopSignals
            self.tracksHistory = tracksHistory
        }
    }

    /// Whether to open for writing (taking the lock) or for reading only.
    public enum OpenMode: Sendable {
        case readWrite
        /// Editing disabled; no lock, so it works while another process writes.
        case readOnly
    }

    /// `UIDocument.SaveOperation`.
    public enum SaveOperation: Sendable {
        /// Writes a new bundle where none exists, then opens it.
        case forCreating
        /// Saves the open document's changes into its bundle.
        case forOverwriting
    }

    /// The document's folder.
    public nonisolated let bundle: DocumentBundle
    /// The bundle's name without its extension.
    public nonisolated let name: String
    /// The model the document's store is opened with.
    public nonisolated let model: ObjectModel
    package var configuration: Configuration
    /// The document's state; observe it with `observeState(_:)`.
    public internal(set) var state: DocumentState = .closed {
        didSet {
            guard state != oldValue else { return }
            for observer in stateObservers.values { observer(state) }
        }
    }
    /// The metadata as last read or written; nil while closed.
    package internal(set) var metadata: DocumentMetadata?
    /// Why the last save failed, while `state` contains `savingError`.
    public internal(set) var lastSaveError: DocumentError?

    /// What exists only while the document is open.
    struct Session {
        let container: PersistentContainer
        let lock: DocumentLock
        let mode: OpenMode
        var changeObservation: ObservationToken?
        /// SQLite's `total_changes()` when the metadata was last written: when it moves, the
        /// store changed (through any context) and `modified` is due.
        var changesAtLastMetadataWrite: Int64
    }

    var session: Session?
    var stateObservers: [UUID: @MainActor (DocumentState) -> Void] = [:]
    var autosaveTask: Task<Void, Never>?
    var changeWatchTask: Task<Void, Never>?
    var failedAutosaves = 0
    /// True while this document saves, so that its own context notifications do not schedule
    /// another autosave.
    var isSaving = false

    init(bundle: DocumentBundle, model: ObjectModel, configuration: Configuration) {
        self.bundle = bundle
        self.name = DocumentName.composed(bundle.url.deletingPathExtension().lastPathComponent)
        self.model = model
        self.configuration = configuration
    }

    /// The document at `url`: the instance this process already has for it (the open one, or a
    /// closed one of the same model), or a new, closed one.
    ///
    /// ```swift
    /// let document = ManagedDocument.document(at: url, model: model)
    /// document === ManagedDocument.document(at: url, model: model)   // true
    /// ```
    public static func document(at url: URL, model: ObjectModel, configuration: Configuration = Configuration()) -> ManagedDocument {
        document(at: url, registryKey: nil, model: model, configuration: configuration)
    }

    /// `document(at:model:configuration:)`, with the registry's key when the caller knows it
    /// (`DocumentRegistry.key(for:)` of `url`: its folder resolved, its name in NFC).
    static func document(at url: URL, registryKey: String?, model: ObjectModel, configuration: Configuration) -> ManagedDocument {
        DocumentRegistry.shared.document(at: url, key: registryKey, model: model) {
            ManagedDocument(bundle: DocumentBundle(url: url), model: model, configuration: configuration)
        }
    }

    var subject: DocumentError.Subject { .document(name) }

    // MARK: Opening and closing

    /// Opens the document: for writing, after waiting up to `wait` for another process that
    /// writes it; or read-only, at once, with editing disabled. Opening an open document does
    /// nothing (but asking to write one that is open read-only is `locked`).
    ///
    /// A store made by an older model is migrated here.
    ///
    /// - Throws: `DocumentError`: `notFound`, `busy`, `locked`, `corrupt`, `migrationFailed`,
    ///   `unsafePath`, `io`.
    public func open(mode: OpenMode = .readWrite, wait: Duration = .seconds(10)) throws(DocumentError) {
        if let session {
            if session.mode == .readWrite || mode == .readOnly { return }
            throw DocumentError(.locked, subject)
        }
        let lock = switch mode {
        case .readWrite: try DocumentLock.acquire(bundle.path, subject: subject, wait: wait)
        case .readOnly: try DocumentLock.markReading(bundle.path, subject: subject)
        }
        do {
            try bundle.checkStructure(subject: subject)
            try start(lock: lock, mode: mode)
        } catch {
            lock.release()
            throw error
        }
    }

    /// Opens the store behind a lock already held and makes the document ready for use.
    func start(lock: DocumentLock, mode: OpenMode) throws(DocumentError) {
        let coordinator = try bundle.openCoordinator(model: model, readOnly: mode == .readOnly,
                                                     tracksHistory: configuration.tracksHistory, subject: subject)
        let container = PersistentContainer(coordinator: coordinator)
        let storeDate = FileSystem.modificationDate(at: bundle.storePath) ?? Date()
        let fallback = DocumentMetadata(modelVersion: model.versionIdentifier, created: storeDate, modified: storeDate,
                                        appVersion: configuration.appVersion)
        var metadata = try DocumentMetadata.read(from: bundle.metadataPath, fallback: fallback)
        let changes = try Self.totalChanges(coordinator, subject: subject)
        if mode == .readWrite && (metadata.modelVersion != model.versionIdentifier || FileSystem.kind(at: bundle.metadataPath) == nil) {
            metadata.modelVersion = model.versionIdentifier
            metadata.appVersion = configuration.appVersion
            try metadata.write(to: bundle.metadataPath)
        }
        session = Session(container: container, lock: lock, mode: mode, changeObservation: nil,
                          changesAtLastMetadataWrite: changes)
        self.metadata = metadata
        lastSaveError = nil
        failedAutosaves = 0
        state = mode == .readOnly ? .editingDisabled : .normal
        if mode == .readWrite { startAutosave(observing: container.viewContext) }
        startLiveChanges(coordinator)
        DocumentRegistry.shared.didOpen(self)
    }

    /// Saves (for a document open for writing) and closes: the contexts are let go and the lock
    /// released. A closed document stays closed.
    ///
    /// When the save fails the document stays open, with `savingError`, and its changes kept:
    /// fix the cause and close again, or `revert()` first to drop them.
    ///
    /// - Throws: `DocumentError` of kind `saveFailed` or `io`.
    public func close() throws(DocumentError) {
        guard let session else { return }
        if session.mode == .readWrite && (hasUnsavedChanges || isMetadataStale) {
            try saveChanges()
        }
        tearDown()
    }

    /// Closes without saving: what is unsaved is dropped.
    func tearDown() {
        guard let lock = session?.lock else { return }
        stopAutosave()
        stopLiveChanges()
        session?.changeObservation?.cancel()
        // Let go of our references to the store before the lock, so that the next writer does
        // not meet our connection (contexts the caller still holds keep it open, though).
        session = nil
        lock.release()
        metadata = nil
        lastSaveError = nil
        state = .closed
        DocumentRegistry.shared.didClose(self)
    }

    /// Drops every unsaved change and reloads from the store: objects held from the view context
    /// become unmanaged; fetch them again.
    ///
    /// - Throws: `DocumentError` of kind `closed`.
    public func revert() throws(DocumentError) {
        let session = try openSession()
        autosaveTask?.cancel()
        autosaveTask = nil
        session.container.viewContext.reset()
        session.container.writer.performAndWait { $0.reset() }
        if let metadata {
            self.metadata = try DocumentMetadata.read(from: bundle.metadataURL.path, fallback: metadata)
        }
        failedAutosaves = 0
        lastSaveError = nil
        state.remove([.savingError, .inConflict])
    }

    // MARK: Contexts

    /// The context for the main actor; its parent is the private writer that owns the store.
    public var viewContext: ObjectContext {
        get throws(DocumentError) { try openSession().container.viewContext }
    }

    /// The store coordinator (for SQL through `withConnection`, metadata, change streams).
    public var coordinator: StoreCoordinator {
        get throws(DocumentError) { try openSession().container.coordinator }
    }

    /// The view context's private parent, which writes to the store.
    public var writerContext: QueueContext {
        get throws(DocumentError) { try openSession().container.writer }
    }

    /// A context on its own queue working directly on the store, for imports; the view context
    /// merges its saves.
    public func newBackgroundContext(name: String = "background") throws(DocumentError) -> QueueContext {
        try openSession().container.newBackgroundContext(name: name)
    }

    /// A plain root context over the store for synchronous callers (the command line imports
    /// through one): its `save()` writes to the store at once, in one transaction. It is the
    /// caller's: the document neither saves nor resets it.
    ///
    /// ```swift
    /// let context = try document.newRootContext()
    /// importFeed(into: context)
    /// try context.save()
    /// ```
    public func newRootContext(name: String = "root") throws(DocumentError) -> ObjectContext {
        ObjectContext(coordinator: try openSession().container.coordinator, name: name)
    }

    /// True when the view context or the writer holds changes not yet in the store.
    package var hasUnsavedChanges: Bool { session?.container.hasChanges ?? false }

    package var isOpen: Bool { session != nil }

    // MARK: Observing

    /// Calls `handler` with the new state every time the state changes.
    ///
    /// ```swift
    /// let observation = document.observeState { if $0.contains(.savingError) { warn() } }
    /// ```
    public func observeState(_ handler: @escaping @MainActor (DocumentState) -> Void) -> DocumentObservation {
        let key = UUID()
        stateObservers[key] = handler
        return DocumentObservation { [weak self] in self?.stateObservers[key] = nil }
    }

    func openSession() throws(DocumentError) -> Session {
        guard let session else { throw DocumentError(.closed, subject) }
        return session
    }

    static func totalChanges(_ coordinator: StoreCoordinator, subject: DocumentError.Subject) throws(DocumentError) -> Int64 {
        do {
            return try coordinator.withConnection { try $0.scalar("SELECT total_changes()")?.integerValue ?? 0 }
        } catch {
            throw DocumentBundle.storeError(error, subject: subject)
        }
    }
}
