import Foundation
import ObjectGraph

/// The documents of this process: one instance per bundle, and the open ones, so that a stop
/// request can save them all.
///
/// Process-wide by nature: the lock rule, "asking twice gives the same instance", and signals
/// all concern the process, so this one registry is shared.
@MainActor
final class DocumentRegistry {
    static let shared = DocumentRegistry()

    private struct WeakDocument {
        weak var document: ManagedDocument?
    }

    private var known: [String: WeakDocument] = [:]
    private var open: [ObjectIdentifier: ManagedDocument] = [:]
    private var stopMonitor: StopSignalMonitor?

    /// The instance for the bundle at `url`: the open one whatever its model, else a closed one
    /// of the same model; else a new one made by `make`.
    /// `key`, when given, is `key(for: url)` as the caller already knows it.
    func document(at url: URL, key: String? = nil, model: ObjectModel, make: () -> ManagedDocument) -> ManagedDocument {
        let key = key ?? Self.key(for: url)
        if let document = known[key]?.document, document.isOpen || document.model === model { return document }
        let document = make()
        known = known.filter { $0.value.document != nil }
        known[key] = WeakDocument(document: document)
        return document
    }

    func didOpen(_ document: ManagedDocument) {
        open[ObjectIdentifier(document)] = document
        if Self.needsStopHandling(document) && stopMonitor == nil {
            let monitor = StopSignalMonitor { _ in
                for error in DocumentRegistry.shared.closeAll() {
                    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
                }
            }
            monitor.start()
            stopMonitor = monitor
        }
    }

    func didClose(_ document: ManagedDocument) {
        open[ObjectIdentifier(document)] = nil
        if !open.values.contains(where: Self.needsStopHandling) {
            // Give the signals back their usual meaning once no document needs them.
            stopMonitor?.cancel()
            stopMonitor = nil
        }
    }

    /// Only a document open for writing has anything to save when the process stops.
    private static func needsStopHandling(_ document: ManagedDocument) -> Bool {
        document.configuration.handlesStopSignals && document.state != .closed && !document.state.contains(.editingDisabled)
    }

    /// Saves and closes every open document; returns the errors of those that could not be.
    func closeAll() -> [DocumentError] {
        var errors: [DocumentError] = []
        for document in open.values.sorted(by: { $0.name < $1.name }) {
            do {
                try document.close()
            } catch {
                errors.append(error)
            }
        }
        return errors
    }

    /// The bundle's path with its folder resolved, so that two spellings of one folder meet.
    static func key(for url: URL) -> String {
        let standardized = url.standardizedFileURL
        let parent = standardized.deletingLastPathComponent().path
        let resolvedParent = FileSystem.realPath(parent) ?? parent
        return resolvedParent + "/" + DocumentName.composed(standardized.lastPathComponent)
    }
}

extension ManagedDocument {
    /// Saves and closes every document this process has open, as the stop handler does; returns
    /// the errors of the documents that could not be saved (they stay open).
    ///
    /// ```swift
    /// for error in ManagedDocument.closeAll() { report(error) }
    /// ```
    public static func closeAll() -> [DocumentError] {
        DocumentRegistry.shared.closeAll()
    }
}
