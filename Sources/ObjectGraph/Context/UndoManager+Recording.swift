import Foundation
import SQLiteDB

/// Whether an object is in its context, as far as undo is concerned.
enum UndoExistence: Equatable {
    /// Not in the context: not inserted yet, its insertion undone, or its deletion saved.
    case absent
    case present
    /// Marked deleted, not saved yet.
    case deleted
}

/// An object's state before a group first touched it: what undo puts back.
struct UndoObjectState {
    var existence: UndoExistence
    /// Attribute values and to-one targets; nil while the object was a fault (no attribute or
    /// to-one can change without loading it first, and the state is taken then).
    var values: [SQLiteValue]?
    var toOne: [ObjectID?]?
    /// Each to-many's members added and removed since the last save.
    var added: [Set<ObjectID>]
    var removed: [Set<ObjectID>]

    init(of object: ManagedObject, in context: ObjectContext) {
        existence = UndoObjectState.existence(of: object, in: context)
        values = object.isFault ? nil : object.values
        toOne = object.isFault ? nil : object.toOne
        added = object.toMany.map(\.added)
        removed = object.toMany.map(\.removed)
    }

    static func existence(of object: ManagedObject, in context: ObjectContext) -> UndoExistence {
        guard object.owningContext === context, context.registry[object.objectID] === object else { return .absent }
        return object.isDeleted ? .deleted : .present
    }
}

/// What one group did to one object: undo applies it backwards, redo forwards.
struct ObjectChange {
    struct AttributeChange {
        let slot: Int
        let old: SQLiteValue
        let new: SQLiteValue
    }

    struct ToOneChange {
        let slot: Int
        let old: ObjectID?
        let new: ObjectID?
    }

    struct ToManyChange {
        let slot: Int
        /// Members the object gained and lost in the group.
        let gained: Set<ObjectID>
        let lost: Set<ObjectID>
    }

    /// The undo manager keeps the objects it can bring back alive, as `NSUndoManager` keeps
    /// its targets.
    let object: ManagedObject
    let before: UndoExistence
    let after: UndoExistence
    var attributes: [AttributeChange] = []
    var toOnes: [ToOneChange] = []
    var toManys: [ToManyChange] = []

    var isEmpty: Bool { before == after && attributes.isEmpty && toOnes.isEmpty && toManys.isEmpty }

    /// The change from `state` to the object's state now; nil when there is none. With
    /// `deletionSaved`, an object marked deleted counts as gone (the save about to commit
    /// removes its row).
    init?(object: ManagedObject, from state: UndoObjectState, in context: ObjectContext, deletionSaved: Bool = false) {
        self.object = object
        before = state.existence
        let now = UndoObjectState.existence(of: object, in: context)
        after = deletionSaved && now == .deleted ? .absent : now
        if before == .absent && after == .absent { return nil }
        // A new object keeps its own state while it is out of the context: undoing its
        // insertion and redoing it need nothing else of it.
        if before != .absent {
            if let old = state.values, !object.isFault {
                for slot in old.indices where slot < object.values.count && old[slot] != object.values[slot] {
                    attributes.append(AttributeChange(slot: slot, old: old[slot], new: object.values[slot]))
                }
            }
            if let old = state.toOne, !object.isFault {
                for slot in old.indices where slot < object.toOne.count && old[slot] != object.toOne[slot] {
                    toOnes.append(ToOneChange(slot: slot, old: old[slot], new: object.toOne[slot]))
                }
            }
            for slot in object.toMany.indices where slot < state.added.count {
                let now = object.toMany[slot]
                let (addedBefore, removedBefore) = (state.added[slot], state.removed[slot])
                if now.added == addedBefore && now.removed == removedBefore { continue }
                let gained = now.added.subtracting(addedBefore).union(removedBefore.subtracting(now.removed))
                let lost = now.removed.subtracting(removedBefore).union(addedBefore.subtracting(now.added))
                if !gained.isEmpty || !lost.isEmpty { toManys.append(ToManyChange(slot: slot, gained: gained, lost: lost)) }
            }
        }
        if isEmpty { return nil }
    }
}

/// A closed group: its parts in the order they were made (a save cuts a group in parts).
struct UndoGroup {
    var parts: [[ObjectChange]]
    var actionName: String
}

/// The group being recorded: the state of each object before the group first touched it.
final class OpenUndoGroup {
    /// True for a group a change opened by itself (`groupsByEvent`), false for an explicit one.
    let isEvent: Bool
    var actionName = ""
    /// Parts cut so far (at saves and merges).
    private(set) var parts: [[ObjectChange]] = []
    /// The objects touched since the last cut, in the order first touched, with their states.
    private var touched: [(object: ManagedObject, state: UndoObjectState)] = []
    private var positions: [ObjectIdentifier: Int] = [:]

    init(isEvent: Bool) {
        self.isEvent = isEvent
    }

    func copy() -> OpenUndoGroup {
        let copy = OpenUndoGroup(isEvent: isEvent)
        copy.actionName = actionName
        copy.parts = parts
        copy.touched = touched
        copy.positions = positions
        return copy
    }

    /// Takes `object`'s state before the change about to be made, when this part has none yet.
    func note(_ object: ManagedObject, in context: ObjectContext) {
        if let position = positions[ObjectIdentifier(object)] {
            // Taken while a fault: the values are the committed ones until the first change.
            if touched[position].state.values == nil && !object.isFault {
                touched[position].state.values = object.values
                touched[position].state.toOne = object.toOne
            }
            return
        }
        positions[ObjectIdentifier(object)] = touched.count
        touched.append((object, UndoObjectState(of: object, in: context)))
    }

    /// Ends the current part: what its objects changed since they were first touched
    /// (`deletionsSaved`: see `ObjectChange.init`).
    func cut(in context: ObjectContext, deletionsSaved: Bool = false) {
        guard !touched.isEmpty else { return }
        let changes = touched.compactMap { ObjectChange(object: $0.object, from: $0.state, in: context, deletionSaved: deletionsSaved) }
        touched.removeAll()
        positions.removeAll()
        if !changes.isEmpty { parts.append(changes) }
    }

    func close(in context: ObjectContext) -> UndoGroup {
        cut(in: context)
        return UndoGroup(parts: parts, actionName: actionName)
    }

    func hasChanges(_ context: ObjectContext) -> Bool {
        !parts.isEmpty || touched.contains { ObjectChange(object: $0.object, from: $0.state, in: context) != nil }
    }
}

extension ContextUndoManager {
    /// Records `object`'s state before the context changes it.
    func noteWillChange(_ object: ManagedObject, in context: ObjectContext) {
        guard isRecording, let group = groupForChange() else { return }
        group.note(object, in: context)
    }

    /// Ends the current part of the open group (before a merge changes what the context's
    /// bookkeeping means).
    func cutOpenGroup() {
        guard let context else { return }
        openGroup?.cut(in: context)
    }

    /// Ends the current part before a save commits (a save clears the to-manys' added and
    /// removed members, and takes deleted objects out of the context): every object marked
    /// deleted, in this group or an earlier one, leaves the context in this part, so that
    /// undoing it brings the object back (still marked deleted) before earlier groups undo
    /// the deletion itself.
    func cutOpenGroupForSave() {
        guard let context else { return }
        if isRecording, !context.deleted.isEmpty, let group = groupForChange() {
            for object in context.deleted.values { group.note(object, in: context) }
        }
        openGroup?.cut(in: context, deletionsSaved: true)
    }
}
