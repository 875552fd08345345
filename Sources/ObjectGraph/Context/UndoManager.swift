import Foundation
import SQLiteDB

/// Undo and redo of a context's changes, in groups: `NSUndoManager` as Core Data uses it on a
/// managed object context (`context.undoManager`).
///
/// A context has none until you give it one (as Core Data on macOS and iOS 13 and later):
///
/// ```swift
/// context.undoManager = ContextUndoManager()
/// photo.title = "Sunset"
/// context.processPendingChanges()          // ends the event: one undo group
/// try context.undoManager?.undo()          // the title is back
/// try context.undoManager?.redo()          // "Sunset" again
/// ```
///
/// **Groups.** With `groupsByEvent` (the default) the first change opens a group, and the event
/// ends (the group closes) at `processPendingChanges()`, `undo()`, `redo()` or
/// `beginUndoGrouping()`. There is no run loop here to end events, so call
/// `processPendingChanges()` where a user's gesture ends. `beginUndoGrouping()` and
/// `endUndoGrouping()` make explicit groups; nested groups belong to the outermost one, which is
/// what `undo()` reverts. With `groupsByEvent` off, changes made outside an explicit group are
/// not registered (`NSUndoManager` refuses them).
///
/// **What is restored.** Undo puts every object the group touched back exactly: attribute
/// values, to-one targets, to-many members (both sides of each relationship, since each side is
/// recorded), inserted objects leave the context (the same instances come back on redo),
/// deleted objects come back with their relationships. Delete rules run when the context saves,
/// and what they change is part of the group of the save's event.
///
/// **Saves.** The stacks stay after a save, as Core Data's do; a save cuts the open group in two
/// parts, undone last first. Undoing after a save changes the context's objects back, as
/// unsaved changes: saving again stores the reversal. An object whose insertion is undone after
/// it was saved is deleted; one whose deletion is undone after the deletion was saved is
/// inserted again as a new object (with a new ID) holding the values and relationships it had.
/// `rollback()` and `reset()` remove every action, as Core Data's do.
public final class ContextUndoManager {
    /// The most groups the undo stack keeps (the oldest go first); 0 for no limit.
    public var levelsOfUndo: Int = 0 {
        didSet { trimUndoStack() }
    }
    /// Whether the first change of an event opens a group by itself (see the type's notes).
    public var groupsByEvent = true
    /// True while `undo()` runs.
    public private(set) var isUndoing = false
    /// True while `redo()` runs.
    public private(set) var isRedoing = false

    weak var context: ObjectContext?
    var undoStack: [UndoGroup] = []
    var redoStack: [UndoGroup] = []
    /// The group being recorded; nil when none is open.
    var openGroup: OpenUndoGroup?
    /// Explicit groups nested inside `openGroup`, beyond the outermost.
    var nestingDepth = 0
    private var disabledCount = 0
    /// Objects inserted again after their saved deletion was undone: old ID → the new one.
    var reinsertedIDs: [ObjectID: ObjectID] = [:]

    /// An undo manager keeping at most `levelsOfUndo` groups (0: no limit); give it to a context.
    public init(levelsOfUndo: Int = 0) {
        self.levelsOfUndo = max(0, levelsOfUndo)
    }

    // MARK: State

    /// True when `undo()` has something to undo: a closed group, or changes in the open one.
    public var canUndo: Bool {
        !undoStack.isEmpty || (openGroup.map { context.map($0.hasChanges) ?? false } ?? false)
    }

    /// True when `redo()` has something to redo.
    public var canRedo: Bool { !redoStack.isEmpty }

    /// How many groups are open: 0 when none, 1 for an event's group or an explicit group, more
    /// for explicit groups nested inside it.
    public var groupingLevel: Int { openGroup == nil ? 0 : 1 + nestingDepth }

    /// True unless registration is disabled (`disableUndoRegistration()`).
    public var isUndoRegistrationEnabled: Bool { disabledCount == 0 }

    /// The name of the group `undo()` would revert, as given to `setActionName(_:)`.
    public var undoActionName: String { undoStack.last?.actionName ?? openGroup?.actionName ?? "" }

    /// The name of the group `redo()` would apply again.
    public var redoActionName: String { redoStack.last?.actionName ?? "" }

    /// Names the open group (or, with none open, the latest closed one) for menus.
    public func setActionName(_ name: String) {
        if openGroup != nil {
            openGroup?.actionName = name
        } else if !undoStack.isEmpty {
            undoStack[undoStack.count - 1].actionName = name
        }
    }

    // MARK: Grouping

    /// Opens a group; changes until the matching `endUndoGrouping()` are undone together.
    ///
    /// An event's group that is open when this is called is closed first, so that an explicit
    /// group is a step of its own.
    public func beginUndoGrouping() {
        if let group = openGroup, group.isEvent, nestingDepth == 0 {
            closeOpenGroup()
        }
        if openGroup == nil {
            openGroup = OpenUndoGroup(isEvent: false)
        } else {
            nestingDepth += 1
        }
    }

    /// Closes the innermost open group; closing the outermost one makes it an undo step.
    ///
    /// - Throws: `UndoError` when no group is open.
    public func endUndoGrouping() throws {
        guard openGroup != nil else { throw UndoError("endUndoGrouping() without an open group") }
        if nestingDepth > 0 {
            nestingDepth -= 1
        } else {
            closeOpenGroup()
        }
    }

    /// Stops registering changes until as many `enableUndoRegistration()` calls (for changes
    /// that are not the user's, such as default values an app sets up).
    public func disableUndoRegistration() {
        if disabledCount == 0, let context {
            // What changed so far stays undoable; what follows is not recorded.
            openGroup?.cut(in: context)
        }
        disabledCount += 1
    }

    /// Ends one `disableUndoRegistration()`: registration resumes when every one is ended.
    public func enableUndoRegistration() {
        disabledCount = max(0, disabledCount - 1)
    }

    /// Forgets every group, open or closed (the context's `rollback()` and `reset()` call it).
    public func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        openGroup = nil
        nestingDepth = 0
        reinsertedIDs.removeAll()
    }

    // MARK: Undo and redo

    /// Reverts the latest group. An open event's group (or a single open explicit group) is
    /// closed first and is what gets reverted.
    ///
    /// - Throws: `UndoError` while nested groups are open; `ObjectLoadError` when an object the
    ///   group touched must be loaded and cannot be (nothing changes then).
    public func undo() throws {
        try closeForUndoOrRedo()
        guard let group = undoStack.last, let context else { return }
        isUndoing = true
        defer { isUndoing = false }
        try apply(group, forward: false, in: context)
        undoStack.removeLast()
        redoStack.append(group)
    }

    /// Applies again the group `undo()` reverted last.
    ///
    /// - Throws: as `undo()`.
    public func redo() throws {
        try closeForUndoOrRedo()
        guard let group = redoStack.last, let context else { return }
        isRedoing = true
        defer { isRedoing = false }
        try apply(group, forward: true, in: context)
        redoStack.removeLast()
        undoStack.append(group)
        trimUndoStack()
    }

    private func closeForUndoOrRedo() throws {
        guard openGroup != nil else { return }
        guard nestingDepth == 0 else {
            throw UndoError("undo() or redo() with \(nestingDepth + 1) nested undo groups open: end them first")
        }
        closeOpenGroup()
    }

    // MARK: Stacks

    /// Closes the open group, pushing it when it changed anything; a new step clears redo.
    func closeOpenGroup() {
        guard let group = openGroup else { return }
        openGroup = nil
        nestingDepth = 0
        guard let context else { return }
        let closed = group.close(in: context)
        guard !closed.parts.isEmpty else { return }
        undoStack.append(closed)
        redoStack.removeAll()
        trimUndoStack()
    }

    private func trimUndoStack() {
        if levelsOfUndo > 0 && undoStack.count > levelsOfUndo {
            undoStack.removeFirst(undoStack.count - levelsOfUndo)
        }
    }

    /// True when a change the context is about to make should be recorded.
    var isRecording: Bool {
        disabledCount == 0 && !isUndoing && !isRedoing && (openGroup != nil || groupsByEvent)
    }

    /// The open group, opening an event's group when needed.
    func groupForChange() -> OpenUndoGroup? {
        if openGroup == nil && groupsByEvent { openGroup = OpenUndoGroup(isEvent: true) }
        return openGroup
    }

    /// Everything a save may have to put back when it fails: the stacks and the open group.
    struct SavedState {
        let undoStack: [UndoGroup]
        let redoStack: [UndoGroup]
        let openGroup: OpenUndoGroup?
        let nestingDepth: Int
    }

    var savedState: SavedState {
        SavedState(undoStack: undoStack, redoStack: redoStack, openGroup: openGroup?.copy(), nestingDepth: nestingDepth)
    }

    func restore(_ state: SavedState) {
        undoStack = state.undoStack
        redoStack = state.redoStack
        openGroup = state.openGroup
        nestingDepth = state.nestingDepth
    }
}

/// A misuse of the undo manager (unbalanced groups, undo inside nested groups).
public struct UndoError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What was misused, in a sentence.
    public var message: String
    /// An error with `message`.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
