import Foundation
import SQLiteDB

/// Sorting objects in memory in exactly the order the store's `ORDER BY` gives.
///
/// - Values order as SQLite orders a column: NULL first (last when descending), then numbers
///   and dates numerically, strings by UTF-8 bytes, data by bytes. A NaN double reads as NULL,
///   as SQLite stores it.
/// - `.caseInsensitive` compares strings folded with `[c]`'s folding; `.localized` compares
///   `localizedSortKey(_:)`, which the store computes with the same Swift code.
/// - Ties are broken by the objects' IDs, the store's final `t0.Z_PK`: saved objects first, by
///   primary key; then unsaved ones (temporary IDs), in the order they were created.
///
/// ```swift
/// let descriptors = [ObjectSortDescriptor("place.name", comparison: .localized), ObjectSortDescriptor("dateTaken", ascending: false)]
/// let ordered = ObjectSortDescriptor.sorted(photos, by: descriptors)
/// ```
extension ObjectSortDescriptor {
    /// Whether `lhs` comes before `rhs` (`areInIncreasingOrder`).
    public static func compare(_ lhs: ManagedObject, _ rhs: ManagedObject, by descriptors: [ObjectSortDescriptor]) -> Bool {
        for descriptor in descriptors {
            let order = descriptor.order(descriptor.sortValue(of: lhs), descriptor.sortValue(of: rhs))
            if order != 0 { return order < 0 }
        }
        return tiebreak(lhs.objectID, rhs.objectID) < 0
    }

    /// `objects` in the order of `descriptors`, reading each object's sort values once.
    package static func sorted(_ objects: [ManagedObject], by descriptors: [ObjectSortDescriptor]) -> [ManagedObject] {
        let keyed = objects.map { object in (object, descriptors.map { $0.sortValue(of: object) }) }
        return keyed.sorted { lhs, rhs in
            for (index, descriptor) in descriptors.enumerated() {
                let order = descriptor.order(lhs.1[index], rhs.1[index])
                if order != 0 { return order < 0 }
            }
            return tiebreak(lhs.0.objectID, rhs.0.objectID) < 0
        }.map(\.0)
    }

    /// The order of two objects' IDs when every descriptor ties: -1, 0 or 1.
    static func tiebreak(_ lhs: ObjectID, _ rhs: ObjectID) -> Int {
        switch (lhs.isTemporary, rhs.isTemporary) {
        case (false, true): return -1
        case (true, false): return 1
        case (false, false): if lhs.primaryKey != rhs.primaryKey { return lhs.primaryKey < rhs.primaryKey ? -1 : 1 }
        case (true, true): if lhs.primaryKey != rhs.primaryKey { return lhs.primaryKey > rhs.primaryKey ? -1 : 1 }
        }
        if lhs.entityNumber != rhs.entityNumber { return lhs.entityNumber < rhs.entityNumber ? -1 : 1 }
        return 0
    }

    /// A value as its column sorts it.
    enum SortValue {
        case null
        case number(PredicateEvaluator.Number)
        /// Text (rank 2) or a blob (rank 3), compared by bytes.
        case bytes(rank: Int, [UInt8])

        var rank: Int {
            switch self {
            case .null: return 0
            case .number: return 1
            case .bytes(let rank, _): return rank
            }
        }
    }

    /// The value this descriptor sorts `object` by; NULL for a key path that reaches nothing.
    func sortValue(of object: ManagedObject) -> SortValue {
        var keys = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if keys.first?.uppercased() == "SELF" { keys.removeFirst() }
        var current = object
        for (position, key) in keys.enumerated() {
            if let slot = current.entity.attributeSlots[key], position == keys.count - 1 {
                let attribute = current.entity.attributes[slot]
                return sortValue(ManagedObject.predicateValue(current.storedValue(slot: slot), type: attribute.type))
            }
            guard let index = current.entity.relationshipIndexes[key], !current.entity.relationships[index].isToMany,
                  let next = current.toOneObject(index: index) else { return .null }
            current = next
        }
        return .null
    }

    private func sortValue(_ value: PredicateValue) -> SortValue {
        switch value {
        case .bool, .int, .double:
            guard let number = PredicateEvaluator.Number(value), !number.doubleValue.isNaN else { return .null }
            return .number(number)
        case .date(let date):
            return .number(.double(date.timeIntervalSinceReferenceDate))
        case .string(let text):
            switch comparison {
            case .binary: return .bytes(rank: 2, Array(text.utf8))
            case .caseInsensitive: return .bytes(rank: 2, Array(PredicateStringFolding.fold(text, options: .caseInsensitive).utf8))
            case .localized: return .bytes(rank: 2, Self.localizedSortKey(text))
            }
        case .data(let data):
            return .bytes(rank: 3, Array(data))
        case .null, .array, .object:
            return .null
        }
    }

    /// -1, 0 or 1 in this descriptor's direction.
    func order(_ lhs: SortValue, _ rhs: SortValue) -> Int {
        let ascending: Int
        switch (lhs, rhs) {
        case (.number(let left), .number(let right)):
            ascending = PredicateEvaluator.Number.compare(left, right) ?? 0
        case (.bytes(let leftRank, let left), .bytes(let rightRank, let right)) where leftRank == rightRank:
            ascending = left == right ? 0 : (left.lexicographicallyPrecedes(right) ? -1 : 1)
        default:
            ascending = lhs.rank == rhs.rank ? 0 : (lhs.rank < rhs.rank ? -1 : 1)
        }
        return self.ascending ? ascending : -ascending
    }

    /// The bytes whose order is the localized order: case and diacritics folded (`[cd]`), and
    /// each run of ASCII digits compared as a number ("IMG 9" before "img 10").
    ///
    /// A digit run becomes `0x30`, its count of significant digits as four big-endian bytes,
    /// then those digits: a longer number sorts after a shorter one, equal lengths by digits.
    /// No other byte of the key is `0x30`–`0x39`, so two keys with the same prefix are at the
    /// same place in their structure. Numbers that differ only in leading zeros tie.
    static func localizedSortKey(_ text: String) -> [UInt8] {
        let folded = PredicateStringFolding.fold(text, caseInsensitive: true, diacriticInsensitive: true)
        var key: [UInt8] = []
        key.reserveCapacity(folded.utf8.count + 8)
        var digits: [UInt8] = []
        func flushDigits() {
            guard !digits.isEmpty else { return }
            let significant = digits.drop { $0 == 0x30 }
            let count = UInt32(truncatingIfNeeded: significant.count)
            key.append(0x30)
            key.append(contentsOf: [UInt8(count >> 24), UInt8((count >> 16) & 0xFF), UInt8((count >> 8) & 0xFF), UInt8(count & 0xFF)])
            key.append(contentsOf: significant)
            digits.removeAll(keepingCapacity: true)
        }
        for byte in folded.utf8 {
            if byte >= 0x30 && byte <= 0x39 {
                digits.append(byte)
            } else {
                flushDigits()
                key.append(byte)
            }
        }
        flushDigits()
        return key
    }
}
