import Foundation
import SQLiteDB

extension SQLiteStore {
    /// Writes one save in one IMMEDIATE transaction: optimistic-locking checks settled by
    /// `policy`, uniqueness checks, key allocation, rows, join rows and `Z_PRIMARYKEY`.
    ///
    /// Nothing is written when it throws.
    func commit(_ payload: CommitPayload, policy: MergePolicy) throws -> CommitOutcome {
        do {
            return try recordingHistory {
                try connection.transaction(.immediate) {
                    guard let history else { return try write(payload, policy: policy) }
                    // Tombstones are read before the rows go, in the same transaction.
                    let tombstones = try history.tombstones(of: payload.deletes.map(\.id))
                    let outcome = try write(payload, policy: policy)
                    try history.record(outcome.changeSet, tombstones: tombstones,
                                       author: payload.transactionAuthor ?? history.defaultAuthor, contextName: payload.author)
                    return outcome
                }
            }
        } catch let error as SQLiteError where error.isUniqueConstraintViolation {
            throw uniqueViolation(from: error, payload: payload)
        }
    }

    /// Runs a write; when it throws, its history rows were rolled back with it, and the
    /// transactions it noted as this store's own are forgotten.
    func recordingHistory<T>(_ body: () throws -> T) throws -> T {
        let mark = history?.writtenMark ?? 0
        do {
            return try body()
        } catch {
            history?.forgetWritten(since: mark)
            throw error
        }
    }

    private func write(_ payload: CommitPayload, policy: MergePolicy) throws -> CommitOutcome {
        var outcome = CommitOutcome()
        outcome.changeSet.author = payload.author
        var inserts = payload.inserts
        var updates = try settleConflicts(payload.updates, deletes: payload.deletes, policy: policy,
                                          reinserts: &inserts, outcome: &outcome)
        var idMap: [ObjectID: ObjectID] = [:]
        // Under `error` the unique indexes find collisions as rows go in (no query per insert);
        // the merging policies need them found first, to turn inserts into updates.
        var mergedInserts = policy.mergesUniqueConflicts
            ? try settleUniqueness(&inserts, deleting: Set(payload.deletes.map(\.id)), policy: policy, idMap: &idMap, outcome: &outcome)
            : []
        try allocateKeys(for: inserts, idMap: &idMap)
        // Permanent IDs are mapped only when a re-inserted row merged into another by a unique
        // value; otherwise one (an existing row, typically) needs no lookup.
        let mapsPermanentIDs = idMap.keys.contains { !$0.isTemporary }
        func final(_ id: ObjectID) -> ObjectID {
            // A new object merged into another new one maps through it to its permanent key.
            var current = id
            while current.isTemporary || mapsPermanentIDs, let next = idMap[current], next != current { current = next }
            return current
        }
        func finalToOne(_ targets: [ObjectID?]) -> [ObjectID?] {
            guard targets.contains(where: { $0?.isTemporary == true }) else { return targets }
            return targets.map { $0.map(final) }
        }

        outcome.versions.reserveCapacity(inserts.count + updates.count + mergedInserts.count)
        outcome.changeSet.inserted.reserveCapacity(inserts.count)
        let deleted = payload.deletes.isEmpty ? [] : Set(payload.deletes.map(\.id))
        func keeps(_ link: JoinLink) -> Bool {
            deleted.isEmpty || (!deleted.contains(link.source) && !deleted.contains(link.destination))
        }
        // Where a search index keeps its rows by triggers, a new object's join-table links go
        // in before its row (after the other new rows, their targets among them): its insert
        // trigger then indexes it once, whole, where each link's trigger would index it again.
        let linkedFirst = model.searchIndexes.isEmpty ? [] : Set(payload.addedLinks.lazy.filter { link in
            link.source.isTemporary && self.model.joinTables.contains { $0.name == link.table }
        }.map(\.source))
        func insert(_ insert: InsertRecord) throws {
            let id = final(insert.id)
            do {
                try insertRow(id: id, values: insert.values, toOne: finalToOne(insert.toOne))
            } catch let error as SQLiteError where error.isUniqueConstraintViolation {
                throw uniqueViolation(from: error, insert: insert) ?? error
            }
            outcome.versions[id] = 1
            outcome.changeSet.inserted.insert(id)
        }
        for record in inserts where linkedFirst.isEmpty || !linkedFirst.contains(record.id) { try insert(record) }
        if !linkedFirst.isEmpty {
            try insertLinks(payload.addedLinks.filter { linkedFirst.contains($0.source) && keeps($0) }, final)
            for record in inserts where linkedFirst.contains(record.id) { try insert(record) }
        }
        outcome.changeSet.permanentIDs.reserveCapacity(idMap.count)
        for temporary in idMap.keys { outcome.changeSet.permanentIDs[temporary] = final(temporary) }
        // Inserts merged into existing rows by a uniqueness constraint become updates of them.
        for index in mergedInserts.indices {
            mergedInserts[index].toOne = finalToOne(mergedInserts[index].toOne)
            mergedInserts[index].id = final(mergedInserts[index].id)
        }
        updates += mergedInserts
        for update in updates {
            let id = final(update.id)
            // The new Z_OPT is known without asking SQLite when the check above found the row at
            // the version the change was based on; a fault's is not needed (loading it reads it).
            // Only rows a merge policy settled need theirs read back.
            let isResolved = outcome.resolved[id] != nil || outcome.resolved[update.id] != nil
            let read = try updateRow(id: id, update: update, toOne: finalToOne(update.toOne), returningVersion: isResolved)
            let version = read ?? update.baseVersion.map { $0 + 1 } ?? 0
            if read != nil || update.baseVersion != nil { outcome.versions[id] = version }
            if isResolved {
                let base = outcome.resolved.removeValue(forKey: update.id) ?? outcome.resolved[id]
                if let base {
                    outcome.resolved[id] = ObjectSnapshot(id: id, version: version, values: base.values, toOne: finalToOne(base.toOne))
                }
            }
            if !outcome.changeSet.inserted.contains(id) {
                outcome.changeSet.updated.insert(id)
                outcome.changeSet.changedKeys[id, default: []].formUnion(update.changedKeys)
            }
        }
        for delete in payload.deletes {
            try deleteRow(id: delete.id)
            outcome.changeSet.deleted.insert(delete.id)
        }
        for link in payload.removedLinks {
            try writeLink(link.table, final(link.source), final(link.destination), insert: false)
        }
        try insertLinks(payload.addedLinks.filter { keeps($0) && (linkedFirst.isEmpty || !linkedFirst.contains($0.source)) }, final)
        return outcome
    }

    /// Inserts links, a join table's run of them in one statement (up to `linkBatchLimit`):
    /// each statement whose triggers write a search index opens a statement journal, and the
    /// index writes what it holds as a segment when that journal closes.
    private func insertLinks(_ links: [JoinLink], _ final: (ObjectID) -> ObjectID) throws {
        var start = 0
        while start < links.count {
            let table = links[start].table
            var end = start + 1
            while end < links.count && end - start < Self.linkBatchLimit && links[end].table == table { end += 1 }
            if end - start > 1, let statement = try linkInsert(into: table, rows: end - start) {
                for (index, link) in links[start..<end].enumerated() {
                    statement.bind(final(link.source).primaryKey, at: 2 * index)
                    statement.bind(final(link.destination).primaryKey, at: 2 * index + 1)
                }
                try statement.run()
            } else {
                for link in links[start..<end] { try writeLink(link.table, final(link.source), final(link.destination), insert: true) }
            }
            start = end
        }
    }

    private func writeLink(_ table: String, _ source: ObjectID, _ destination: ObjectID, insert: Bool) throws {
        let plan = try linkPlan(for: table)
        let statement = insert ? plan.insert : plan.delete
        statement.bind(source.primaryKey, at: 0)
        statement.bind(destination.primaryKey, at: 1)
        try statement.run()
    }

    // MARK: Optimistic locking

    private func settleConflicts(_ updates: [UpdateRecord], deletes: [DeleteRecord], policy: MergePolicy,
                                 reinserts: inout [InsertRecord], outcome: inout CommitOutcome) throws -> [UpdateRecord] {
        let checked = updates.filter { $0.baseVersion != nil }.map(\.id) + deletes.filter { $0.baseVersion != nil }.map(\.id)
        guard !checked.isEmpty else { return updates }
        let stored = try versions(of: checked)
        var conflicts: [MergeConflictError.Conflict] = []
        var result: [UpdateRecord] = []
        for var update in updates {
            guard let base = update.baseVersion, stored[update.id] != base else {
                result.append(update)
                continue
            }
            let snapshot = stored[update.id] == nil ? nil : try self.snapshot(of: update.id)
            let entity = model[update.id.entityNumber]
            switch policy {
            case .error:
                var storedValues: [String: SQLiteValue] = [:]
                var objectValues: [String: SQLiteValue] = [:]
                for slot in update.changedSlots {
                    let name = entity.attributes[slot].name
                    storedValues[name] = snapshot?.values[slot] ?? .null
                    objectValues[name] = update.values[slot]
                }
                conflicts.append(.init(objectID: update.id, entityName: entity.name, storedVersion: stored[update.id],
                                       baseVersion: base, storedValues: storedValues, objectValues: objectValues))
            case .rollback where snapshot == nil, .storeTrumps where snapshot == nil:
                outcome.deletedInStore.insert(update.id)
            case .rollback:
                if let snapshot { outcome.resolved[update.id] = snapshot }
            case .objectTrumps where snapshot == nil, .overwrite where snapshot == nil:
                reinserts.append(InsertRecord(id: update.id, values: update.values, toOne: update.toOne))
            case .storeTrumps, .objectTrumps, .overwrite:
                guard let snapshot else { continue }
                var values = snapshot.values
                var toOne = snapshot.toOne
                for slot in entity.attributes.indices {
                    let changedHere = update.values[slot] != update.originalValues[slot]
                    let changedThere = snapshot.values[slot] != update.originalValues[slot]
                    if policy == .overwrite || (changedHere && (policy == .objectTrumps || !changedThere)) {
                        values[slot] = update.values[slot]
                    }
                }
                for slot in toOne.indices {
                    let changedHere = update.toOne[slot] != update.originalToOne[slot]
                    let changedThere = snapshot.toOne[slot] != update.originalToOne[slot]
                    if policy == .overwrite || (changedHere && (policy == .objectTrumps || !changedThere)) {
                        toOne[slot] = update.toOne[slot]
                    }
                }
                update.changedSlots = entity.attributes.indices.filter { values[$0] != snapshot.values[$0] }
                update.changedToOne = toOne.indices.filter { toOne[$0] != snapshot.toOne[$0] }
                update.values = values
                update.toOne = toOne
                outcome.resolved[update.id] = ObjectSnapshot(id: update.id, version: snapshot.version, values: values, toOne: toOne)
                result.append(update)
            }
        }
        if policy == .error {
            for delete in deletes {
                guard let base = delete.baseVersion, stored[delete.id] != base, stored[delete.id] != nil else { continue }
                conflicts.append(.init(objectID: delete.id, entityName: model[delete.id.entityNumber].name,
                                       storedVersion: stored[delete.id], baseVersion: base, storedValues: [:], objectValues: [:]))
            }
        }
        if !conflicts.isEmpty { throw MergeConflictError(conflicts: conflicts) }
        return result
    }

    // MARK: Uniqueness

    /// Finds inserts that collide with stored rows (or each other) on a uniqueness constraint.
    /// Under `error` that throws; otherwise each colliding insert is removed from `inserts`,
    /// mapped to the existing row and returned as an update of it.
    private func settleUniqueness(_ inserts: inout [InsertRecord], deleting: Set<ObjectID>, policy: MergePolicy,
                                  idMap: inout [ObjectID: ObjectID], outcome: inout CommitOutcome) throws -> [UpdateRecord] {
        var merged: [UpdateRecord] = []
        var seen: [[SQLiteValue]: ObjectID] = [:]
        var kept: [InsertRecord] = []
        for insert in inserts {
            let entity = model[insert.id.entityNumber]
            var existing: ObjectID?
            var violated: [Int] = []
            for constraint in entity.uniquenessConstraints {
                let values = constraint.map { insert.values[$0] }
                if values.contains(where: \.isNull) { continue }
                let key = [SQLiteValue.text(entity.table)] + constraint.map { SQLiteValue.integer(Int64($0)) } + values
                if let earlier = seen[key] {
                    existing = earlier
                } else if let stored = try storedRow(matching: constraint, values: values, in: entity), !deleting.contains(stored) {
                    existing = stored
                }
                if existing != nil {
                    violated = constraint
                    break
                }
                seen[key] = insert.id
            }
            guard let target = existing else {
                kept.append(insert)
                continue
            }
            guard policy.mergesUniqueConflicts else {
                throw UniqueConstraintError(entityName: entity.name, attributes: violated.map { entity.attributes[$0].name },
                                            values: violated.map { insert.values[$0] }, objectID: insert.id)
            }
            if target.isTemporary {
                // Two new objects with one unique value: the later one becomes the earlier.
                idMap[insert.id] = target
                continue
            }
            idMap[insert.id] = target
            let stored = try snapshot(of: target)
            var values = stored?.values ?? insert.values
            var toOne = stored?.toOne ?? insert.toOne
            for slot in values.indices where policy != .storeTrumps || values[slot].isNull {
                if !insert.values[slot].isNull || policy == .overwrite { values[slot] = insert.values[slot] }
            }
            for slot in toOne.indices where policy != .storeTrumps || toOne[slot] == nil {
                if insert.toOne[slot] != nil || policy == .overwrite { toOne[slot] = insert.toOne[slot] }
            }
            let base = stored ?? ObjectSnapshot(id: target, version: 0, values: values, toOne: toOne)
            merged.append(UpdateRecord(
                id: target, baseVersion: nil,
                changedSlots: values.indices.filter { values[$0] != base.values[$0] },
                changedToOne: toOne.indices.filter { toOne[$0] != base.toOne[$0] },
                values: values, toOne: toOne, originalValues: base.values, originalToOne: base.toOne,
                changedKeys: Set(entity.attributes.map(\.name))))
            outcome.resolved[target] = ObjectSnapshot(id: target, version: base.version, values: values, toOne: toOne)
        }
        inserts = kept
        return merged
    }

    private func storedRow(matching constraint: [Int], values: [SQLiteValue], in entity: Entity) throws -> ObjectID? {
        let columns = constraint.compactMap { entity.attributes[$0].column }
        guard columns.count == constraint.count else { return nil }
        let statement = try uniqueLookup(table: model[entity.root].table, columns: columns)
        statement.bind(values)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return ObjectID(entityNumber: statement.int(at: 1), primaryKey: statement.int64(at: 0))
    }

    /// The constraint error for an insert the unique index refused, or nil when SQLite's
    /// message names no constraint of the insert's entity.
    private func uniqueViolation(from error: SQLiteError, insert: InsertRecord) -> UniqueConstraintError? {
        let columns = Self.constraintColumns(in: error)
        let entity = model[insert.id.entityNumber]
        for constraint in entity.uniquenessConstraints where constraint.compactMap({ entity.attributes[$0].column }) == columns {
            return UniqueConstraintError(entityName: entity.name, attributes: constraint.map { entity.attributes[$0].name },
                                         values: constraint.map { insert.values[$0] }, objectID: insert.id)
        }
        return nil
    }

    /// The columns SQLite names in "UNIQUE constraint failed: ZTAG.ZNAME, ZTAG.ZOTHER".
    static func constraintColumns(in error: SQLiteError) -> [String] {
        let detail = error.message.components(separatedBy: ": ").last ?? ""
        return detail.components(separatedBy: ", ").compactMap { $0.split(separator: ".").last.map(String.init) }
    }

    private func uniqueViolation(from error: SQLiteError, payload: CommitPayload) -> Error {
        // SQLite says "UNIQUE constraint failed: ZTAG.ZNAME"; name it in model terms.
        let columns = Self.constraintColumns(in: error)
        for update in payload.updates {
            let entity = model[update.id.entityNumber]
            for constraint in entity.uniquenessConstraints {
                let names = constraint.compactMap { entity.attributes[$0].column }
                if names == columns, constraint.contains(where: { update.changedSlots.contains($0) }) {
                    return UniqueConstraintError(entityName: entity.name, attributes: constraint.map { entity.attributes[$0].name },
                                                 values: constraint.map { update.values[$0] }, objectID: update.id)
                }
            }
        }
        return error
    }

    // MARK: Keys

    private func allocateKeys(for inserts: [InsertRecord], idMap: inout [ObjectID: ObjectID]) throws {
        var byRoot: [Int: [InsertRecord]] = [:]
        for insert in inserts where insert.id.isTemporary {
            byRoot[model[insert.id.entityNumber].root, default: []].append(insert)
        }
        for (root, records) in byRoot.sorted(by: { $0.key < $1.key }) {
            var next = try reserveKeys(root: root, count: records.count)
            for record in records {
                idMap[record.id] = ObjectID(entityNumber: record.id.entityNumber, primaryKey: next)
                next += 1
            }
        }
    }

    /// Hands out `count` new keys of a hierarchy, in a row, and returns the first: never a key
    /// already in its table, even when `Z_MAX` lags behind it.
    func reserveKeys(root: Int, count: Int) throws -> Int64 {
        let current = try connection.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(Int64(root))])?.integerValue ?? 0
        let highest = try connection.scalar("SELECT max(Z_PK) FROM \(model[root].table)")?.integerValue ?? 0
        let first = max(current, highest) + 1
        guard count > 0 else { return first }
        try connection.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.integer(first + Int64(count) - 1), .integer(Int64(root))])
        return first
    }

    // MARK: Rows

    func insertRow(id: ObjectID, values: [SQLiteValue], toOne: [ObjectID?], plan: WritePlans.InsertPlan? = nil) throws {
        let plan = try plan ?? insertPlan(for: model[id.entityNumber])
        let statement = plan.statement
        statement.bind(id.primaryKey, at: 0)
        statement.bind(Int64(id.entityNumber), at: 1)
        statement.bind(Int64(1), at: 2)
        var index = 3
        for slot in plan.attributeSlots {
            statement.bind(values[slot], at: index)
            index += 1
        }
        for (slot, withEntity) in plan.toOne {
            bindTarget(toOne[slot], withEntity, statement, &index)
        }
        try statement.run()
    }

    private func bindTarget(_ target: ObjectID?, _ withEntity: Bool, _ statement: Statement, _ index: inout Int) {
        if let target { statement.bind(target.primaryKey, at: index) } else { statement.bindNull(at: index) }
        index += 1
        if withEntity {
            if let target { statement.bind(Int64(target.entityNumber), at: index) } else { statement.bindNull(at: index) }
            index += 1
        }
    }

    /// Writes the changed columns and bumps `Z_OPT`; returns the new `Z_OPT` when asked to
    /// (`RETURNING` costs SQLite a temporary table per row).
    private func updateRow(id: ObjectID, update: UpdateRecord, toOne: [ObjectID?], returningVersion: Bool) throws -> Int64? {
        let entity = model[id.entityNumber]
        let layout = try insertPlan(for: entity).layout
        let shape = WritePlans.UpdateShape(
            entity: entity.number, returnsVersion: returningVersion,
            attributeSlots: update.changedSlots.filter { layout.attributeColumns[$0] != nil },
            toOneSlots: update.changedToOne.filter { $0 < layout.toOneColumns.count && layout.toOneColumns[$0] != nil }.sorted())
        let plan = try updatePlan(for: shape, layout: layout, table: entity.table)
        let statement = plan.statement
        var index = 0
        for slot in shape.attributeSlots {
            statement.bind(update.values[slot], at: index)
            index += 1
        }
        for (slot, withEntity) in plan.toOne { bindTarget(toOne[slot], withEntity, statement, &index) }
        statement.bind(id.primaryKey, at: index)
        guard returningVersion else {
            try statement.run()
            return nil
        }
        defer { statement.reset() }
        guard try statement.step() else { return 0 }
        return statement.int64(at: 0)
    }

    private func deleteRow(id: ObjectID) throws {
        guard !id.isTemporary else { return }
        let entity = model[id.entityNumber]
        try connection.execute("DELETE FROM \(entity.table) WHERE Z_PK = ?", [.integer(id.primaryKey)])
        for relationship in entity.relationships {
            switch relationship.storage {
            case .joinTable(let table, let sourceColumn, _):
                try connection.execute("DELETE FROM \(table) WHERE \(sourceColumn) = ?", [.integer(id.primaryKey)])
            case .inverseForeignKey(let column, true):
                // Members of a to-many without an inverse forget the deleted owner's key.
                let table = model[relationship.destination].table
                try connection.execute("UPDATE \(table) SET \(column) = NULL WHERE \(column) = ?", [.integer(id.primaryKey)])
            case .inverseForeignKey, .foreignKey:
                continue
            }
        }
    }
}
