import Foundation
import SQLiteDB

extension SQLiteStore {
    /// Writes one save in one IMMEDIATE transaction: optimistic-locking checks settled by
    /// `policy`, uniqueness checks, key allocation, rows, join rows and `Z_PRIMARYKEY`.
    ///
    /// Nothing is written when it throws.
    func commit(_ payload: CommitPayload, policy: MergePolicy) throws -> CommitOutcome {
        do {
            return try connection.transaction(.immediate) { try write(payload, policy: policy) }
        } catch let error as SQLiteError where error.isUniqueConstraintViolation {
            throw uniqueViolation(from: error, payload: payload)
        }
    }

    private func write(_ payload: CommitPayload, policy: MergePolicy) throws -> CommitOutcome {
        var outcome = CommitOutcome()
        outcome.changeSet.author = payload.author
        var inserts = payload.inserts
        var updates = try settleConflicts(payload.updates, deletes: payload.deletes, policy: policy,
                                          reinserts: &inserts, outcome: &outcome)
        var idMap: [ObjectID: ObjectID] = [:]
        var mergedInserts = try settleUniqueness(&inserts, deleting: Set(payload.deletes.map(\.id)),
                                                 policy: policy, idMap: &idMap, outcome: &outcome)
        try allocateKeys(for: inserts, idMap: &idMap)
        func final(_ id: ObjectID) -> ObjectID {
            // A new object merged into another new one maps through it to its permanent key.
            var current = id
            while let next = idMap[current], next != current { current = next }
            return current
        }
        func finalToOne(_ targets: [ObjectID?]) -> [ObjectID?] { targets.map { $0.map(final) } }

        for insert in inserts {
            let id = final(insert.id)
            try insertRow(id: id, values: insert.values, toOne: finalToOne(insert.toOne))
            outcome.versions[id] = 1
            outcome.changeSet.inserted.insert(id)
        }
        for temporary in idMap.keys { outcome.changeSet.permanentIDs[temporary] = final(temporary) }
        // Inserts merged into existing rows by a uniqueness constraint become updates of them.
        for index in mergedInserts.indices {
            mergedInserts[index].toOne = finalToOne(mergedInserts[index].toOne)
            mergedInserts[index].id = final(mergedInserts[index].id)
        }
        updates += mergedInserts
        for update in updates {
            let id = final(update.id)
            let version = try updateRow(id: id, update: update, toOne: finalToOne(update.toOne))
            outcome.versions[id] = version
            if outcome.resolved[id] != nil || outcome.resolved[update.id] != nil {
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
            try connection.execute(linkSQL(link.table, insert: false),
                                   [.integer(final(link.source).primaryKey), .integer(final(link.destination).primaryKey)])
        }
        let deleted = Set(payload.deletes.map(\.id))
        for link in payload.addedLinks where !deleted.contains(link.source) && !deleted.contains(link.destination) {
            try connection.execute(linkSQL(link.table, insert: true),
                                   [.integer(final(link.source).primaryKey), .integer(final(link.destination).primaryKey)])
        }
        return outcome
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
        let root = model[entity.root]
        let columns = constraint.compactMap { entity.attributes[$0].column }
        guard columns.count == constraint.count else { return nil }
        let sql = "SELECT Z_PK, Z_ENT FROM \(root.table) WHERE " + columns.map { "\($0) = ?" }.joined(separator: " AND ")
        let statement = try connection.cachedStatement(sql)
        statement.bind(values)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return ObjectID(entityNumber: statement.int(at: 1), primaryKey: statement.int64(at: 0))
    }

    private func uniqueViolation(from error: SQLiteError, payload: CommitPayload) -> Error {
        // SQLite says "UNIQUE constraint failed: ZTAG.ZNAME"; name it in model terms.
        let detail = error.message.components(separatedBy: ": ").last ?? ""
        let columns = detail.components(separatedBy: ", ").compactMap { $0.split(separator: ".").last.map(String.init) }
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
            let current = try connection.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(Int64(root))])?.integerValue ?? 0
            // Never reuse a key that is in the table, even when Z_MAX lags behind it.
            let highest = try connection.scalar("SELECT max(Z_PK) FROM \(model[root].table)")?.integerValue ?? 0
            var next = max(current, highest)
            for record in records {
                next += 1
                idMap[record.id] = ObjectID(entityNumber: record.id.entityNumber, primaryKey: next)
            }
            try connection.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.integer(next), .integer(Int64(root))])
        }
    }

    // MARK: Rows

    private func propertyColumns(of entity: Entity) -> (attributes: [(slot: Int, column: String)], toOne: [(slot: Int, column: String, entityColumn: String?)]) {
        let attributes = entity.attributes.compactMap { attribute in attribute.column.map { (attribute.slot, $0) } }
        let toOne = entity.relationships.compactMap { relationship -> (Int, String, String?)? in
            guard case .foreignKey(let column, let entityColumn) = relationship.storage else { return nil }
            return (relationship.slot, column, entityColumn)
        }
        return (attributes, toOne)
    }

    private func insertRow(id: ObjectID, values: [SQLiteValue], toOne: [ObjectID?]) throws {
        let entity = model[id.entityNumber]
        let (attributes, relationships) = propertyColumns(of: entity)
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"] + attributes.map(\.column)
        for relationship in relationships {
            columns.append(relationship.column)
            if let entityColumn = relationship.entityColumn { columns.append(entityColumn) }
        }
        let sql = "INSERT INTO \(entity.table) (\(columns.joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        let statement = try connection.cachedStatement(sql)
        statement.bind(id.primaryKey, at: 0)
        statement.bind(Int64(id.entityNumber), at: 1)
        statement.bind(Int64(1), at: 2)
        var index = 3
        for attribute in attributes {
            statement.bind(values[attribute.slot], at: index)
            index += 1
        }
        for relationship in relationships {
            bindTarget(toOne[relationship.slot], relationship.entityColumn != nil, statement, &index)
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

    /// Writes the changed columns and bumps `Z_OPT`; returns the new `Z_OPT`.
    private func updateRow(id: ObjectID, update: UpdateRecord, toOne: [ObjectID?]) throws -> Int64 {
        let entity = model[id.entityNumber]
        var assignments = ["Z_OPT = Z_OPT + 1"]
        var attributeSlots: [Int] = []
        for slot in update.changedSlots {
            guard let column = entity.attributes[slot].column else { continue }
            assignments.append("\(column) = ?")
            attributeSlots.append(slot)
        }
        var relationshipSlots: [(Int, Bool)] = []
        for relationship in entity.relationships where !relationship.isToMany && update.changedToOne.contains(relationship.slot) {
            guard case .foreignKey(let column, let entityColumn) = relationship.storage else { continue }
            assignments.append("\(column) = ?")
            if let entityColumn { assignments.append("\(entityColumn) = ?") }
            relationshipSlots.append((relationship.slot, entityColumn != nil))
        }
        let sql = "UPDATE \(entity.table) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = ? RETURNING Z_OPT"
        let statement = try connection.cachedStatement(sql)
        var index = 0
        for slot in attributeSlots {
            statement.bind(update.values[slot], at: index)
            index += 1
        }
        for (slot, withEntity) in relationshipSlots { bindTarget(toOne[slot], withEntity, statement, &index) }
        statement.bind(id.primaryKey, at: index)
        defer { statement.reset() }
        guard try statement.step() else { return 0 }
        return statement.int64(at: 0)
    }

    private func deleteRow(id: ObjectID) throws {
        guard !id.isTemporary else { return }
        let entity = model[id.entityNumber]
        try connection.execute("DELETE FROM \(entity.table) WHERE Z_PK = ?", [.integer(id.primaryKey)])
        for relationship in entity.relationships {
            guard case .joinTable(let table, let sourceColumn, _) = relationship.storage else { continue }
            try connection.execute("DELETE FROM \(table) WHERE \(sourceColumn) = ?", [.integer(id.primaryKey)])
        }
    }

    private func linkSQL(_ table: String, insert: Bool) -> String {
        let joinTable = model.joinTables.first { $0.name == table }
        let source = joinTable?.sourceColumn ?? "?"
        let destination = joinTable?.destinationColumn ?? "?"
        return insert
            ? "INSERT OR IGNORE INTO \(table) (\(source), \(destination)) VALUES (?, ?)"
            : "DELETE FROM \(table) WHERE \(source) = ? AND \(destination) = ?"
    }
}
