/// The state of a `ManagedDocument`, as `UIDocument.State`: a set of flags, empty when the
/// document is open and all is well.
///
/// ```swift
/// if document.state.contains(.savingError) { showSaveProblem(document.lastSaveError) }
/// document.state == .normal   // open, editable, saved or saving fine
/// ```
public struct DocumentState: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The flags, one bit each.
    public let rawValue: Int
    /// The state with the flags of `rawValue`.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Open, editable, and the last save (if any) succeeded.
    public static let normal: DocumentState = []
    /// Not open: no contexts, no lock.
    public static let closed = DocumentState(rawValue: 1 << 0)
    /// Open for reading only (another process writes it, or the caller asked so).
    public static let editingDisabled = DocumentState(rawValue: 1 << 1)
    /// The last save failed; the changes are still in memory and will be retried.
    public static let savingError = DocumentState(rawValue: 1 << 2)
    /// The last save found changes made elsewhere to the same objects; autosave waits until
    /// `resolveConflicts(keeping:)` or `revert()`.
    public static let inConflict = DocumentState(rawValue: 1 << 3)

    /// The flags' names, comma-separated; `normal` when there are none.
    public var description: String {
        if isEmpty { return "normal" }
        let names: [(DocumentState, String)] = [(.closed, "closed"), (.editingDisabled, "editingDisabled"),
                                                (.savingError, "savingError"), (.inConflict, "inConflict")]
        return names.filter { contains($0.0) }.map(\.1).joined(separator: ", ")
    }
}

/// Keeps a state observation alive; cancel it, or let it go, to stop observing.
///
/// ```swift
/// let observation = document.observeState { state in print("now \(state)") }
/// observation.cancel()
/// ```
@MainActor
public final class DocumentObservation {
    private var cancellation: (@MainActor () -> Void)?

    init(_ cancellation: @escaping @MainActor () -> Void) { self.cancellation = cancellation }

    package func cancel() {
        cancellation?()
        cancellation = nil
    }

    isolated deinit { cancellation?() }
}
