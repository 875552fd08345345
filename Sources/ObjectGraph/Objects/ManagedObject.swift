import CObjectGraphSupport
import Foundation
import SQLiteDB

/// What the framework passes to a managed object's designated initializer.
///
/// You never make one; subclasses that declare their own designated initializer pass it on:
/// `required init(_ seed: ObjectSeed) { super.init(seed) }`.
public struct ObjectSeed {
    let entity: Entity
    let objectID: ObjectID
    let context: ObjectContext?
    let isFault: Bool
    /// The committed state to start from, for an object made from a fetched row.
    var snapshot: ObjectSnapshot?
}

/// `object as? T`, without the runtime's general cast when the object is exactly a `T` (the
/// common case: fetched objects, relationship targets). The general cast cost more than reading
/// the property it served.
@inlinable @inline(__always)
func downcast<T: ManagedObject>(_ object: ManagedObject, to type: T.Type) -> T? {
    if Swift.type(of: object) == T.self { return unsafeDowncast(object, to: T.self) }
    return object as? T
}

/// The state of a to-many relationship in one object.
struct ToManyState {
    /// The current members, when loaded; nil while the relationship is a fault.
    var members: Set<ObjectID>?
    /// Members added since the last save.
    var added: Set<ObjectID> = []
    /// Members removed since the last save.
    var removed: Set<ObjectID> = []

    var hasChanges: Bool { !added.isEmpty || !removed.isEmpty }

    // The empty checks spare a hash of the ID in the common case (nothing removed, or added).
    mutating func insert(_ id: ObjectID) {
        if removed.isEmpty || removed.remove(id) == nil { added.insert(id) }
        members?.insert(id)
    }

    mutating func reserveCapacity(_ count: Int) {
        if added.isEmpty { added.reserveCapacity(count) }
        if let current = members, current.count < count { members?.reserveCapacity(count) }
    }

    mutating func remove(_ id: ObjectID) {
        if added.isEmpty || added.remove(id) == nil { removed.insert(id) }
        members?.remove(id)
    }

    /// Installs the members read from the source, with this object's unsaved changes on top.
    mutating func load(_ base: some Sequence<ObjectID>) {
        var set = Set(base)
        set.subtract(removed)
        set.formUnion(added)
        members = set
    }
}

/// A managed object: one row of an entity, uniqued per context, faulted, change tracked.
///
/// Declare entities as subclasses with property wrappers:
///
/// ```swift
/// final class Place: ManagedObject {
///     @Attribute(unique: true) var name: String = ""
///     @Relationship(inverse: "place", deleteRule: .nullify) var photos: Set<Photo>
/// }
/// let place = Place(context: context)
/// place.name = "Lisbon"
/// try context.save()
/// ```
///
/// Objects are not `Sendable`: pass `objectID` between contexts instead.
open class ManagedObject: Hashable, CustomStringConvertible {
    /// The object's entity in its context's model.
    public let entity: Entity
    /// The object's identity; temporary until the object is first saved.
    public internal(set) var objectID: ObjectID
    weak var owningContext: ObjectContext?
    // The state below is read for every property access and written by every fetch and save.
    // A managed object is used by one thread at a time, and the framework never holds two
    // accesses to one of these at once, so the runtime's check of each access (which cost about
    // a twentieth of a large fetch) is turned off for them.
    @exclusivity(unchecked) var values: [SQLiteValue]
    @exclusivity(unchecked) var toOne: [ObjectID?]
    @exclusivity(unchecked) var toMany: [ToManyState]
    /// `Z_OPT` of the committed state this object was loaded from.
    @exclusivity(unchecked) var version: Int64 = 0
    /// Committed attribute values and to-one targets, for change tracking; nil while inserted.
    @exclusivity(unchecked) var committedValues: [SQLiteValue]?
    @exclusivity(unchecked) var committedToOne: [ObjectID?]?
    /// True while the attributes have not been loaded.
    @exclusivity(unchecked) package internal(set) var isFault: Bool
    /// True from insertion until the save that writes the object.
    public internal(set) var isInserted = false
    /// True from `delete(_:)` until the save that removes the row (or a rollback).
    public internal(set) var isDeleted = false
    /// True when the object is registered as changed (it may turn out to hold its old values).
    var isMarkedUpdated = false

    /// The designated initializer the framework calls; don't call it yourself.
    ///
    /// A fetch makes its objects while it reads the store, so a subclass that overrides this
    /// must not use the object's context (nor the store) from it.
    public required init(_ seed: ObjectSeed) {
        entity = seed.entity
        objectID = seed.objectID
        owningContext = seed.context
        if let snapshot = seed.snapshot {
            // A fetched row: its values are the object's, shared rather than copied.
            isFault = false
            values = snapshot.values
            toOne = snapshot.toOne
            committedValues = snapshot.values
            committedToOne = snapshot.toOne
            version = snapshot.version
        } else {
            isFault = seed.isFault
            values = seed.isFault ? [] : seed.entity.nullValues
            toOne = seed.entity.nilToOne
        }
        toMany = seed.entity.emptyToMany
        // Every wrapper of this instance has taken its ordinal by now; start afresh for the next.
        WrapperOrdinal.reset()
    }

    /// Creates an object of this class's entity and inserts it into `context`.
    ///
    /// The class must belong to the context's model (a programming error otherwise).
    public required convenience init(context: ObjectContext) {
        guard let entity = context.model.entity(for: Self.self) else {
            preconditionFailure("\(Self.self) is not an entity of this context's model")
        }
        self.init(ObjectSeed(entity: entity, objectID: .temporary(entityNumber: entity.number),
                             context: context, isFault: false))
        context.insertNew(self)
    }

    /// The context the object belongs to; nil once it has been removed from it.
    public var context: ObjectContext? { owningContext }

    /// The entity name a class declares; the class name unless overridden.
    // `_typeName(qualified: false)` is the text `String(describing:)` prints for a class, without
    // first asking whether the metatype conforms to the printing protocols: each such question
    // scans every conformance the process has, about 3 M instructions of a command's start.
    open class var entityName: String { _typeName(self, qualified: false) }

    /// Abstract entities have no instances of their own.
    open class var isAbstract: Bool { false }

    /// Uniqueness constraints over several attributes (single ones use `@Attribute(unique:)`).
    open class var uniquenessConstraints: [[String]] { [] }

    /// The names of the class's own `@Attribute` and `@Relationship` properties in the order
    /// they are declared, or nil (the default) to have the model read them by reflection.
    ///
    /// Reflection costs a process about a million instructions a property the first time a model
    /// is built (it looks up each property's type and its conformances at run time), which a
    /// command-line tool pays at every start. The lists are used when every managed-object class
    /// of a hierarchy gives its own (else all are read by reflection); a count that does not match
    /// the properties is a `ModelError`, and a test should hold the lists to what reflection reads:
    /// `#expect(ObjectModel.declaredPropertyNameMismatches(Photo.self, Tag.self).isEmpty)`.
    open class var declaredPropertyNames: [String]? { nil }

    /// True when the object has unsaved changes.
    public var hasChanges: Bool { isInserted || isDeleted || isMarkedUpdated }

    /// Identity: one instance per row and context.
    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }

    /// Hashes the instance's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// `<Entity p12>` (`t` for a temporary key, ` fault` while a fault), for messages; subclasses may say more.
    open var description: String {
        "<\(entity.name) \(objectID.isTemporary ? "t\(-objectID.primaryKey)" : "p\(objectID.primaryKey)")\(isFault ? " fault" : "")>"
    }

    // MARK: Faulting

    @inline(__always)
    final func fireFaultIfNeeded() {
        if isFault { owningContext?.fulfillFault(self) }
    }

    /// Loads the attributes now if the object is a fault.
    final func fireFault() { fireFaultIfNeeded() }

    /// Called when the object is turned back into a fault; unsaved changes are dropped.
    final func turnIntoFault() {
        values = []
        committedValues = nil
        committedToOne = nil
        toOne = Array(repeating: nil, count: entity.toOneCount)
        toMany = Array(repeating: ToManyState(), count: entity.toManyCount)
        isFault = true
        isMarkedUpdated = false
    }

    /// Installs a snapshot's values, keeping nothing of the previous state.
    final func install(_ snapshot: ObjectSnapshot) {
        values = snapshot.values
        toOne = snapshot.toOne
        committedValues = snapshot.values
        committedToOne = snapshot.toOne
        version = snapshot.version
        isFault = false
    }
}

/// Counts the property wrappers an instance initialises, in the order it initialises them, so
/// that each wrapper knows its place without storing its name. The count is per thread and is
/// reset by `ManagedObject.init`, which runs after the subclass's properties are set.
///
/// While the model reflects a class (`recordingDeclarations`), each wrapper's declaration is
/// kept by ordinal too; the rest of the time the declarations are never built.
@usableFromInline
enum WrapperOrdinal {
    private final class Recorder {
        var declarations: [Int32: WrapperDeclaration] = [:]
    }

    /// This thread's counter (C thread-local storage; see `CObjectGraphSupport`).
    @inlinable
    static var counter: UnsafeMutablePointer<ObjectGraphWrapperCounter> {
        objectgraph_current_wrapper_counter()
    }

    /// The next ordinal; `declaration` is called only while declarations are recorded.
    /// Inlined into each wrapper's initializer: it runs for every property of every object made.
    @inlinable
    static func next(_ declaration: () -> WrapperDeclaration) -> Int32 {
        let counter = counter
        let ordinal = counter.pointee.next
        counter.pointee.next = ordinal &+ 1
        if counter.pointee.recorder != nil { record(declaration(), at: ordinal) }
        return ordinal
    }

    @usableFromInline
    static func record(_ declaration: @escaping WrapperDeclaration, at ordinal: Int32) {
        guard let recorder = counter.pointee.recorder else { return }
        Unmanaged<Recorder>.fromOpaque(recorder).takeUnretainedValue().declarations[ordinal] = declaration
    }

    static func reset() { counter.pointee.next = 0 }

    /// Runs `body` (which makes one instance) and returns what it returns, with the declarations
    /// of the wrappers it initialised, by ordinal.
    static func recordingDeclarations<T>(_ body: () -> T) -> (T, [Int32: WrapperDeclaration]) {
        let counter = counter
        let saved = counter.pointee
        let recorder = Recorder()
        counter.pointee = ObjectGraphWrapperCounter(next: 0, recorder: Unmanaged.passUnretained(recorder).toOpaque())
        let result = withExtendedLifetime(recorder) { body() }
        counter.pointee = saved
        return (result, recorder.declarations)
    }
}
