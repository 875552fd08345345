/// A cache of at most `capacity` values that, when full, lets go of the value used least
/// recently. Lookups and insertions are O(1): a dictionary finds an entry, and the entries
/// form a doubly linked list from the most to the least recently used, kept in an array.
///
/// Both of the framework's caches use it, so both evict by one rule (ARCHITECTURE.md, "Caches"):
/// a connection's prepared statements and a store's compiled predicates.
///
/// ```swift
/// var cache = LeastRecentlyUsedCache<String, Int>(capacity: 2)
/// cache.insert(1, forKey: "a"); cache.insert(2, forKey: "b")
/// _ = cache.value(forKey: "a")          // "a" is now the most recently used
/// cache.insert(3, forKey: "c")          // lets go of "b"
/// ```
package struct LeastRecentlyUsedCache<Key: Hashable, Value> {
    private struct Entry {
        var key: Key
        var value: Value
        /// Index of the entry used just after this one (nearer the newest), or -1.
        var newer: Int
        /// Index of the entry used just before this one (nearer the oldest), or -1.
        var older: Int
    }

    /// The most values the cache keeps (at least 1).
    package let capacity: Int
    private var entries: [Entry] = []
    private var indexes: [Key: Int] = [:]
    private var newest = -1
    private var oldest = -1

    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// How many values the cache holds.
    package var count: Int { entries.count }

    /// The value for `key`, which becomes the most recently used; nil when the cache has none.
    package mutating func value(forKey key: Key) -> Value? {
        guard let index = indexes[key] else { return nil }
        moveToNewest(index)
        return entries[index].value
    }

    /// Keeps `value` for `key` as the most recently used, replacing a value the key had; when
    /// the cache is full, the least recently used value makes room and is returned.
    @discardableResult
    package mutating func insert(_ value: Value, forKey key: Key) -> Value? {
        if let index = indexes[key] {
            entries[index].value = value
            moveToNewest(index)
            return nil
        }
        guard entries.count >= capacity else {
            entries.append(Entry(key: key, value: value, newer: -1, older: newest))
            let index = entries.count - 1
            if newest >= 0 { entries[newest].newer = index }
            newest = index
            if oldest < 0 { oldest = index }
            indexes[key] = index
            return nil
        }
        // Full: the oldest entry's slot takes the new value.
        let index = oldest
        let evicted = entries[index].value
        indexes[entries[index].key] = nil
        entries[index].key = key
        entries[index].value = value
        indexes[key] = index
        moveToNewest(index)
        return evicted
    }

    /// Lets go of every value.
    package mutating func removeAll() {
        entries.removeAll()
        indexes.removeAll()
        newest = -1
        oldest = -1
    }

    private mutating func moveToNewest(_ index: Int) {
        guard index != newest else { return }
        let newer = entries[index].newer, older = entries[index].older
        // Unlink: `index` is not the newest, so it has a newer neighbour.
        entries[newer].older = older
        if older >= 0 { entries[older].newer = newer } else { oldest = newer }
        // Link in front.
        entries[index].older = newest
        entries[index].newer = -1
        entries[newest].newer = index
        newest = index
    }
}
