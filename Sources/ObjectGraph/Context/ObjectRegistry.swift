import Foundation

/// A context's identity map, object ID → object: an open-addressing table with linear probing.
///
/// A fetch of 100,000 objects looks each one up three times (registering it, registering its
/// to-one targets, reading a to-one), and `Dictionary` spent most of those lookups in
/// `Hasher`. Here an ID hashes with one multiplication. Deletion shifts the following entries
/// back, so the table never holds tombstones. A value type, as `Dictionary` is: a save's
/// journal keeps a copy to roll back to.
struct ObjectRegistry {
    /// Slot keys; entity number 0 (no entity has it) marks a free slot.
    private var keys: ContiguousArray<ObjectID>
    private var objects: ContiguousArray<ManagedObject?>
    private(set) var count = 0
    /// `keys.count - 1`; the capacity is a power of two.
    private var mask: Int

    private static let free = ObjectID(entityNumber: 0, primaryKey: 0)

    init() {
        keys = ContiguousArray(repeating: Self.free, count: 16)
        objects = ContiguousArray(repeating: nil, count: 16)
        mask = 15
    }

    var isEmpty: Bool { count == 0 }

    /// Every registered object (in no particular order), as a list made now: callers may
    /// change the registry while they go through it.
    var values: [ManagedObject] {
        var result: [ManagedObject] = []
        result.reserveCapacity(count)
        for object in objects { if let object { result.append(object) } }
        return result
    }

    @inline(__always)
    private func home(of id: ObjectID) -> Int {
        let mixed = (UInt64(bitPattern: id.primaryKey) ^ (UInt64(truncatingIfNeeded: id.entityNumber) &<< 48)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> 32) & mask
    }

    /// The slot holding `id`, or the free slot where it would go.
    @inline(__always)
    private func slot(of id: ObjectID) -> (index: Int, found: Bool) {
        var index = home(of: id)
        while true {
            let key = keys[index]
            if key == id { return (index, true) }
            if key.entityNumber == 0 { return (index, false) }
            index = (index + 1) & mask
        }
    }

    subscript(id: ObjectID) -> ManagedObject? {
        get {
            let (index, found) = slot(of: id)
            return found ? objects[index] : nil
        }
        set {
            guard let newValue else {
                removeValue(forKey: id)
                return
            }
            let (index, found) = slot(of: id)
            if found {
                objects[index] = newValue
                return
            }
            // At most half full: probes stay short.
            if (count + 1) * 2 > keys.count {
                grow(toHold: count + 1)
                self[id] = newValue
                return
            }
            keys[index] = id
            objects[index] = newValue
            count += 1
        }
    }

    @discardableResult
    mutating func removeValue(forKey id: ObjectID) -> ManagedObject? {
        let (index, found) = slot(of: id)
        guard found else { return nil }
        let removed = objects[index]
        // Backward shift: move up each following entry that the gap separates from its home.
        var gap = index
        var next = (index + 1) & mask
        while keys[next].entityNumber != 0 {
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

    mutating func removeAll() {
        self = ObjectRegistry()
    }

    /// Room for `capacity` objects without growing again.
    mutating func reserveCapacity(_ capacity: Int) {
        if capacity * 2 > keys.count { grow(toHold: capacity) }
    }

    private mutating func grow(toHold capacity: Int) {
        var size = keys.count
        while capacity * 2 > size { size *= 2 }
        let oldKeys = keys
        let oldObjects = objects
        keys = ContiguousArray(repeating: Self.free, count: size)
        objects = ContiguousArray(repeating: nil, count: size)
        mask = size - 1
        for index in oldKeys.indices where oldKeys[index].entityNumber != 0 {
            var slot = home(of: oldKeys[index])
            while keys[slot].entityNumber != 0 { slot = (slot + 1) & mask }
            keys[slot] = oldKeys[index]
            objects[slot] = oldObjects[index]
        }
    }
}
