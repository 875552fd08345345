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

    /// Registers objects none of which is registered yet (a fetch's rows in a context that held
    /// none of them), in one tight loop, taking over the references `entries` hold (each is
    /// left nil) instead of retaining the objects again: the loop touches the tables alone, not
    /// the objects, and its lookups, independent of one another, overlap in the processor.
    mutating func insertNew(_ entries: inout [(id: ObjectID, object: ManagedObject?)]) {
        entries.withUnsafeMutableBufferPointer { entries in
            for index in entries.indices {
                guard let object = entries[index].object.take() else { continue }
                let id = entries[index].id
                makeTable(for: id.entityNumber)
                if tables[id.entityNumber].insert(consume object, forKey: id.primaryKey) { count += 1 }
            }
        }
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
    /// A slot: its key and object side by side, so that finding a key and storing its object
    /// touch one cache line (a large fetch registers its objects in an order that is random to
    /// the table, and kept apart the two halves of a slot cost a cache miss each).
    private struct Slot {
        var key: Int64
        var object: ManagedObject?
    }

    /// `free` as a slot's key marks a free slot. The key that is `free` itself (a store's row may
    /// have any key) has its own place, `objectForFreeKey`.
    private var slots: ContiguousArray<Slot>
    private var objectForFreeKey: ManagedObject?
    private(set) var count = 0
    /// `slots.count - 1`; the capacity is a power of two.
    private var mask: Int

    private static let free = Int64.min

    init() {
        slots = ContiguousArray(repeating: Slot(key: Self.free, object: nil), count: 8)
        mask = 7
    }

    func appendObjects(to result: inout [ManagedObject]) {
        guard count > 0 else { return }
        for slot in slots { if let object = slot.object { result.append(object) } }
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
            let slotKey = slots[index].key
            if slotKey == key { return (index, true) }
            if slotKey == Self.free { return (index, false) }
            index = (index + 1) & mask
        }
    }

    func object(forKey key: Int64) -> ManagedObject? {
        guard key != Self.free else { return objectForFreeKey }
        let (index, found) = slot(of: key)
        return found ? slots[index].object : nil
    }

    /// Sets the object for `key`; true when the key was not there before.
    mutating func insert(_ object: consuming ManagedObject, forKey key: Int64) -> Bool {
        guard key != Self.free else {
            let isNew = objectForFreeKey == nil
            if isNew { count += 1 }
            objectForFreeKey = object
            return isNew
        }
        let (index, found) = slot(of: key)
        if found {
            slots[index].object = object
            return false
        }
        // At most half full: probes stay short.
        if (count + 1) * 2 > slots.count {
            grow(toHold: count + 1)
            return insert(object, forKey: key)
        }
        slots[index] = Slot(key: key, object: object)
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
        let removed = slots[index].object
        // Backward shift: move up each following entry that the gap separates from its home.
        var gap = index
        var next = (index + 1) & mask
        while slots[next].key != Self.free {
            let wanted = home(of: slots[next].key)
            // The entry may fill the gap unless its home lies after the gap, up to it.
            let distanceToEntry = (next - wanted) & mask
            let distanceToGap = (next - gap) & mask
            if distanceToEntry >= distanceToGap {
                slots[gap] = slots[next]
                gap = next
            }
            next = (next + 1) & mask
        }
        slots[gap] = Slot(key: Self.free, object: nil)
        count -= 1
        return removed
    }

    /// Room for `capacity` objects without growing again.
    mutating func reserveCapacity(_ capacity: Int) {
        if capacity * 2 > slots.count { grow(toHold: capacity) }
    }

    /// Moves the entries into a table of twice the size (or more) without retaining and
    /// releasing the objects again: a table that grows while a large fetch registers its rows
    /// would otherwise reach back into every object registered so far, long out of the
    /// processor's caches. (A table shared with a copy of the registry, a save's journal, is
    /// copied first, as any array.)
    private mutating func grow(toHold capacity: Int) {
        var size = slots.count
        while capacity * 2 > size { size *= 2 }
        var oldSlots = slots
        slots = []
        var newSlots = ContiguousArray(repeating: Slot(key: Self.free, object: nil), count: size)
        let newMask = size - 1
        mask = newMask
        newSlots.withUnsafeMutableBufferPointer { newSlots in
            oldSlots.withUnsafeMutableBufferPointer { oldSlots in
                for index in oldSlots.indices where oldSlots[index].key != Self.free {
                    var slot = home(of: oldSlots[index].key)
                    while newSlots[slot].key != Self.free { slot = (slot + 1) & newMask }
                    newSlots[slot].key = oldSlots[index].key
                    // A swap with the new table's nil moves the reference: no retain, no release.
                    swap(&newSlots[slot].object, &oldSlots[index].object)
                }
            }
        }
        slots = newSlots
    }
}
