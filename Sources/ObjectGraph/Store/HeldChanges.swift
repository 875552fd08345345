import Foundation

/// The change sets that a transaction of several saves holds back until it commits, kept
/// small however many saves it makes: one per saving context (saves of contexts that have
/// since gone are merged into one, as nobody is left to skip), and past `limit` objects a
/// change set is abridged (see `ChangeSet.isAbridged`), so that memory stays flat through an
/// import of any size.
struct HeldChanges {
    /// Most objects a held change set names before it is abridged.
    let limit: Int
    private(set) var entries: [(changeSet: ChangeSet, origin: WeakInbox?)] = []

    init(limit: Int) {
        self.limit = limit
    }

    mutating func add(_ changeSet: ChangeSet, from origin: ChangeInbox?) {
        foldGoneOrigins()
        if let index = entries.firstIndex(where: { entry in
            origin.map { origin in entry.origin?.inbox === origin } ?? (entry.origin == nil)
        }) {
            entries[index].changeSet.absorb(changeSet)
            if entries[index].changeSet.listedCount > limit { entries[index].changeSet.abridge() }
        } else {
            var changeSet = changeSet
            if changeSet.listedCount > limit { changeSet.abridge() }
            entries.append((changeSet, origin.map(WeakInbox.init)))
        }
    }

    /// Merges the entries whose saving context has gone into one, delivered to everybody.
    private mutating func foldGoneOrigins() {
        guard entries.contains(where: { $0.origin != nil && $0.origin?.inbox == nil }) else { return }
        var kept: [(changeSet: ChangeSet, origin: WeakInbox?)] = []
        var orphaned: ChangeSet?
        for entry in entries {
            if let origin = entry.origin, origin.inbox != nil {
                kept.append(entry)
            } else if orphaned == nil {
                orphaned = entry.changeSet
            } else {
                orphaned?.absorb(entry.changeSet)
            }
        }
        if var orphaned {
            if orphaned.listedCount > limit { orphaned.abridge() }
            kept.insert((orphaned, nil), at: 0)
        }
        entries = kept
    }
}

extension ChangeSet {
    /// How many objects the change set names (what holding it costs).
    var listedCount: Int { inserted.count + updated.count + deleted.count + permanentIDs.count }

    /// Takes in a later save of the same transaction: the result is what both did together.
    mutating func absorb(_ later: ChangeSet) {
        author = later.author ?? author
        // Deletions are always listed: contexts must let go of those objects.
        inserted.subtract(later.deleted)
        updated.subtract(later.deleted)
        for id in later.deleted { changedKeys.removeValue(forKey: id) }
        deleted.formUnion(later.deleted)
        if isAbridged || later.isAbridged {
            abridge()
            return
        }
        inserted.formUnion(later.inserted)
        for id in later.updated where !inserted.contains(id) {
            updated.insert(id)
            changedKeys[id, default: []].formUnion(later.changedKeys[id] ?? [])
        }
        permanentIDs.merge(later.permanentIDs) { _, new in new }
    }

    /// Forgets which objects were inserted and updated (and their permanent IDs), keeping the
    /// deletions: what a transaction too large to list delivers.
    mutating func abridge() {
        isAbridged = true
        inserted = []
        updated = []
        changedKeys = [:]
        permanentIDs = [:]
    }
}
