import Foundation

/// A context's identity map, object ID → object: a table per entity, each an open-addressing
/// table with linear probing keyed by primary key.
///
/// A fetch of 100,000 objects looks each one up three times (registering it, registering its
/// to-one targets, reading a to-one), and `Dictionary` spent most of those lookups in
/// `Hasher`. Here a key hashes with one multiplication. Deletion shifts the following entries
/// back, so the tables never hold tombstones. A table per entity keeps the lookups of a few
/// objects that many others point to (100,000 photos' 500 places) in a small table that stays
/// in the processor's caches, where one shared table spread them over megabytes. A value type,
/// as `Dictionary` is: a save's journal keeps a copy to roll back to.
struct ObjectRegistry {
    /// Tables by entity number; made as objects of an entity first arrive.
    private var tables: [KeyTable] = []
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Every registered object (in no particular order), as a list made now: callers may
    /// change the registry while they go through it.
    var values: [ManagedObject] {
        var result: [ManagedObject] = []
        result.reserveCapacity(count)
        for table in tables { table.appendObjects(to: &result) }
        return result
    }

    subscript(id: ObjectID) -> ManagedObject? {
        get {
            guard id.entityNumber >= 0, id.entityNumber < tables.count else { return nil }
            return tables[id.entityNumber].object(forKey: id.primaryKey)
        }
        set {
            guard let newValue else {
                removeValue(forKey: id)
                return
            }
            makeTable(for: id.entityNumber)
            if tables[id.entityNumber].insert(newValue, forKey: id.primaryKey) { count += 1 }
        }
    }

    @discardableResult
    mutating func removeValue(forKey id: ObjectID) -> ManagedObject? {
        guard id.entityNumber >= 0, id.entityNumber < tables.count,
              let removed = tables[id.entityNumber].removeObject(forKey: id.primaryKey) else { return nil }
        count -= 1
        return removed
    }

    mutating func removeAll() {
        self = ObjectRegistry()
    }

    /// Room for `additional` more objects of entity `entityNumber` without growing again.
    mutating func reserveCapacity(additional: Int, forEntity entityNumber: Int) {
        makeTable(for: entityNumber)
        tables[entityNumber].reserveCapacity(tables[entityNumber].count + additional)
    }

    private mutating func makeTable(for entityNumber: Int) {
        // Entity numbers are a model's (1 and up); an ID's entity is always one of them.
        precondition(entityNumber >= 0, "an object ID's entity number is never negative")
        if entityNumber >= tables.count {
            tables.append(contentsOf: repeatElement(KeyTable(), count: entityNumber + 1 - tables.count))
        }
    }
}

/// One entity's objects by primary key (temporary keys are negative).
private struct KeyTable {
    /// Slot keys; `free` marks a free slot. The key that is `free` itself (a store's row may
    /// have any key) has its own place, `objectForFreeKey`.
    private var keys: ContiguousArray<Int64>
    private var objects: ContiguousArray<ManagedObject?>
    private var objectForFreeKey: ManagedObject?
    private(set) var count = 0
    /// `keys.count - 1`; the capacity is a power of two.
    private var mask: Int

    private static let free = Int64.min

    init() {
        keys = ContiguousArray(repeating: Self.free, count: 8)
        objects = ContiguousArray(repeating: nil, count: 8)
        mask = 7
    }

    func appendObjects(to result: inout [ManagedObject]) {
        guard count > 0 else { return }
        for object in objects { if let object { result.append(object) } }
        if let objectForFreeKey { result.append(objectForFreeKey) }
    }

    @inline(__always)
    private func home(of key: Int64) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    /// The slot holding `key`, or the free slot where it would go.
    @inline(__always)
    private func slot(of key: Int64) -> (index: Int, found: Bool) {
        var index = home(of: key)
        while true {
            let slotKey = keys[index]
            if slotKey == key { return (index, true) }
            if slotKey == Self.free { return (index, false) }
            index = (index + 1) & mask
        }
    }

    func object(forKey key: Int64) -> ManagedObject? {
        guard key != Self.free else { return objectForFreeKey }
        let (index, found) = slot(of: key)
        return found ? objects[index] : nil
    }

    /// Sets the object for `key`; true when the key was not there before.
    mutating func insert(_ object: ManagedObject, forKey key: Int64) -> Bool {
        guard key != Self.free else {
            defer { objectForFreeKey = object }
            if objectForFreeKey == nil { count += 1 }
            return objectForFreeKey == nil
        }
        let (index, found) = slot(of: key)
        if found {
            objects[index] = object
            return false
        }
        // At most half full: probes stay short.
        if (count + 1) * 2 > keys.count {
            grow(toHold: count + 1)
            return insert(object, forKey: key)
        }
        keys[index] = key
        objects[index] = object
        count += 1
        return true
    }

    mutating func removeObject(forKey key: Int64) -> ManagedObject? {
        guard key != Self.free else {
            defer { objectForFreeKey = nil }
            if objectForFreeKey != nil { count -= 1 }
            return objectForFreeKey
        }
        let (index, found) = slot(of: key)
        guard found else { return nil }
        let removed = objects[index]
        // Backward shift: move up each following entry that the gap separates from its home.
        var gap = index
        var next = (index + 1) & mask
        while keys[next] != Self.free {
            let wanted = home(of: keys[next])
            // The entry may fill the gap unless its home lies after the gap, up to it.
            let distanceToEntry = (next - wanted) & mask
            let distanceToGap = (next - gap) & mask
            if distanceToEntry >= distanceToGap {
                keys[gap] = keys[next]
                objects[gap] = objects[next]
                gap = next
            }
            next = (next + 1) & mask
        }
        keys[gap] = Self.free
        objects[gap] = nil
        count -= 1
        return removed
    }

    /// Room for `capacity` objects without growing again.
    mutating func reserveCapacity(_ capacity: Int) {
        if capacity * 2 > keys.count { grow(toHold: capacity) }
    }

    /// Moves the entries into tables of twice the size (or more) without retaining and
    /// releasing the objects again: a table that grows while a large fetch registers its rows
    /// would otherwise reach back into every object registered so far, long out of the
    /// processor's caches. (A table shared with a copy of the registry, a save's journal, is
    /// copied first, as any array.)
    private mutating func grow(toHold capacity: Int) {
        var size = keys.count
        while capacity * 2 > size { size *= 2 }
        let oldKeys = keys
        var oldObjects = objects
        objects = []
        var newKeys = ContiguousArray(repeating: Self.free, count: size)
        var newObjects = ContiguousArray<ManagedObject?>(repeating: nil, count: size)
        let newMask = size - 1
        mask = newMask
        newKeys.withUnsafeMutableBufferPointer { newKeys in
            newObjects.withUnsafeMutableBufferPointer { newObjects in
                oldObjects.withUnsafeMutableBufferPointer { oldObjects in
                    for index in oldKeys.indices where oldKeys[index] != Self.free {
                        var slot = home(of: oldKeys[index])
                        while newKeys[slot] != Self.free { slot = (slot + 1) & newMask }
                        newKeys[slot] = oldKeys[index]
                        // A swap with the new table's nil moves the reference: no retain, no release.
                        swap(&newObjects[slot], &oldObjects[index])
                    }
                }
            }
        }
        keys = newKeys
        objects = newObjects
    }
}
