import Foundation

/// Where a context meets its undo manager (`ContextUndoManager`): every change records the
/// object's state first, and saves, merges and refreshes cut the open group where the
/// context's bookkeeping changes meaning.
extension ObjectContext {
    /// Ends the current event: the undo manager's event group closes, and the changes made since
    /// it opened become one undo step (Core Data's `processPendingChanges()`, which its run loop
    /// calls at the end of every event; there is no run loop here, so call it yourself where a
    /// user's gesture ends). Does nothing without an undo manager.
    ///
    /// ```swift
    /// photo.title = "Sunset"
    /// photo.place = lisbon
    /// context.processPendingChanges()   // both changes are undone together
    /// ```
    public func processPendingChanges() {
        guard let undoManager, let group = undoManager.openGroup, group.isEvent, undoManager.nestingDepth == 0 else { return }
        undoManager.closeOpenGroup()
    }

    /// Records `object`'s state before a change: for a failing save's journal, and for undo.
    @inline(__always)
    func willChange(_ object: ManagedObject) {
        journal?.record(object, in: self)
        if let undoManager { undoManager.noteWillChange(object, in: self) }
    }

    func attachUndoManager(_ previous: ContextUndoManager?) {
        if let previous, previous !== undoManager, previous.context === self {
            previous.removeAllActions()
            previous.context = nil
        }
        undoManager?.context = self
    }

    /// Before a merge or a refresh changes objects: what was changed so far stays undoable as it
    /// was recorded.
    func cutUndoGroup() {
        undoManager?.cutOpenGroup()
    }
}
