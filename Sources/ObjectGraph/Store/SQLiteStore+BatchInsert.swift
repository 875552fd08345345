import Foundation
import SQLiteDB

extension SQLiteStore {
    /// Writes a batch insert's rows, their join rows and `Z_PRIMARYKEY`; the caller runs it in
    /// a transaction, so that a row refused halfway leaves nothing behind.
    func write(_ insert: BatchInsert) throws -> BatchInsertResult {
        let entity = insert.entity
        let plan = try insertPlan(for: entity)
        let firstKey = try reserveKeys(root: entity.root, count: insert.rows.count)
        let manyToMany = try entity.relationships.filter { $0.isToMany }.compactMap { relationship -> ManyToManyWrite? in
            guard case .joinTable(let table, _, _) = relationship.storage else { return nil }
            return ManyToManyWrite(relationship: relationship, link: try linkPlan(for: table),
                                   isOwner: model.ownsJoinTable(entity: entity.number, relationship: relationship.index))
        }
        // The search index is written once for the whole batch, after its rows (`SearchIndexSuspension`).
        let suspendedIndex = try SearchIndexSuspension.begin(for: entity, in: self)
        var ids: [ObjectID] = []
        ids.reserveCapacity(insert.rows.count)
        // Every related object is checked once, after the rows: one query per table.
        var related = Array(repeating: Set<ObjectID>(), count: entity.relationships.count)
        for (index, row) in insert.rows.enumerated() {
            let id = ObjectID(entityNumber: entity.number, primaryKey: firstKey + Int64(index))
            let values = try checkedValues(of: row, index, in: insert)
            try checkRelationships(of: row, index, in: insert, collecting: &related)
            do {
                try insertRow(id: id, values: values, toOne: row.toOne, plan: plan)
            } catch let error as SQLiteError where error.isUniqueConstraintViolation {
                throw uniqueViolation(from: error, row: index, values: values, in: insert) ?? error
            }
            for write in manyToMany {
                let targets = row.toMany[write.relationship.slot]
                guard !targets.isEmpty else { continue }
                for target in targets {
                    write.link.insert.bind(write.isOwner ? id.primaryKey : target.primaryKey, at: 0)
                    write.link.insert.bind(write.isOwner ? target.primaryKey : id.primaryKey, at: 1)
                    try write.link.insert.run()
                }
            }
            ids.append(id)
        }
        try suspendedIndex?.end(indexing: insert, firstKey: firstKey, in: self)
        var changeSet = ChangeSet()
        changeSet.inserted = Set(ids)
        for (index, targets) in related.enumerated() where !targets.isEmpty {
            let missing = try self.missing(targets)
            if let absent = missing.first {
                throw BatchInsertError(entityName: entity.name, property: entity.relationships[index].name,
                                       detail: "names \(model[absent.entityNumber].name) p\(absent.primaryKey), which is not in the store")
            }
            // The related objects' inverses gained members: contexts holding them refresh.
            guard let inverse = insert.inverse(of: entity.relationships[index]) else { continue }
            for target in targets {
                changeSet.updated.insert(target)
                changeSet.changedKeys[target, default: []].insert(inverse.name)
            }
        }
        return BatchInsertResult(objectIDs: ids, changeSet: changeSet)
    }

    private struct ManyToManyWrite {
        let relationship: EntityRelationship
        /// The join table's statements, found once for the batch.
        let link: WritePlans.LinkPlan
        /// Whether the new object's key goes in the join table's source column.
        let isOwner: Bool
    }

    /// The row's attribute values as they are stored; throws at the first value that does not
    /// suit its attribute. Values already in stored form are taken as they are.
    private func checkedValues(of row: BatchInsert.Row, _ index: Int, in insert: BatchInsert) throws -> [SQLiteValue] {
        var values = row.values
        for attribute in insert.entity.attributes where attribute.column != nil {
            let value = values[attribute.slot]
            guard let stored = Self.batchStored(value, for: attribute.type) else {
                throw BatchInsertError(entityName: insert.entity.name, row: index, property: attribute.name,
                                       detail: "holds \(value), which is not a \(attribute.type.coreDataName)")
            }
            if case .real(let number) = stored, number.isNaN {
                throw BatchInsertError(entityName: insert.entity.name, row: index, property: attribute.name,
                                       detail: "is NaN, which cannot be stored")
            }
            if stored.isNull && !attribute.declaration.isOptional {
                throw BatchInsertError(entityName: insert.entity.name, row: index, property: attribute.name, detail: "is required")
            }
            if !Self.isSameKind(stored, value) { values[attribute.slot] = stored }
        }
        return values
    }

    /// A value in the stored form of `type`: as given when it is already, converted when it is
    /// a number for a number (or a UUID's text), nil when it does not suit the type.
    static func batchStored(_ value: SQLiteValue, for type: AttributeType) -> SQLiteValue? {
        switch (type, value) {
        case (_, .null),
             (.string, .text), (.uri, .text),
             (.boolean, .integer), (.integer16, .integer), (.integer32, .integer), (.integer64, .integer),
             (.double, .real), (.float, .real), (.date, .real),
             (.binary, .blob), (.transformable, .blob):
            return value
        case (.double, .integer), (.float, .integer), (.date, .integer),
             (.integer16, .real), (.integer32, .real), (.integer64, .real),
             (.decimal, .text), (.decimal, .integer), (.decimal, .real),
             (.uuid, .blob), (.uuid, .text):
            return SQLiteValue.coerce(value, to: type)
        default:
            return nil
        }
    }

    private static func isSameKind(_ left: SQLiteValue, _ right: SQLiteValue) -> Bool {
        switch (left, right) {
        case (.null, .null), (.integer, .integer), (.real, .real), (.text, .text), (.blob, .blob): true
        default: false
        }
    }

    private func checkRelationships(of row: BatchInsert.Row, _ index: Int, in insert: BatchInsert,
                                    collecting related: inout [Set<ObjectID>]) throws {
        let entity = insert.entity
        for relationship in entity.relationships {
            if relationship.isToMany {
                let targets = row.toMany[relationship.slot]
                let declaration = relationship.declaration
                let count = targets.count
                let minimum = max(declaration.minCount, declaration.isOptional ? 0 : 1)
                if count < minimum || (declaration.maxCount > 0 && count > declaration.maxCount) {
                    let bound = count < minimum ? "fewer than the minimum \(minimum)" : "more than the maximum \(declaration.maxCount)"
                    throw BatchInsertError(entityName: entity.name, row: index, property: relationship.name,
                                           detail: "has \(count) objects, \(bound)")
                }
                for (position, target) in targets.enumerated() {
                    try check(target, of: relationship, row: index, in: insert)
                    // A row's list is short: a look back costs less than a set.
                    if targets[..<position].contains(target) {
                        throw BatchInsertError(entityName: entity.name, row: index, property: relationship.name,
                                               detail: "names one object twice")
                    }
                    related[relationship.index].insert(target)
                }
            } else if let target = row.toOne[relationship.slot] {
                try check(target, of: relationship, row: index, in: insert)
                related[relationship.index].insert(target)
            } else if !relationship.declaration.isOptional {
                throw BatchInsertError(entityName: entity.name, row: index, property: relationship.name, detail: "is required")
            }
        }
    }

    /// A related object must be saved, and of the relationship's destination.
    private func check(_ target: ObjectID, of relationship: EntityRelationship, row: Int, in insert: BatchInsert) throws {
        let destination = model[relationship.destination]
        if !target.isTemporary && destination.includes(target.entityNumber) { return }
        let kind = model.entity(number: target.entityNumber)?.name ?? "entity \(target.entityNumber)"
        throw BatchInsertError(entityName: insert.entity.name, row: row, property: relationship.name,
                               detail: target.isTemporary ? "names an unsaved \(kind): save it first"
                                                          : "names a \(kind), not a \(destination.name)")
    }

    /// The objects of `ids` that have no row (or a row of another entity).
    private func missing(_ ids: Set<ObjectID>) throws -> [ObjectID] {
        let stored = try versions(of: Array(ids))
        return ids.filter { stored[$0] == nil }.sorted { $0.primaryKey < $1.primaryKey }
    }

    private func uniqueViolation(from error: SQLiteError, row: Int, values: [SQLiteValue], in insert: BatchInsert) -> BatchInsertError? {
        let columns = Self.constraintColumns(in: error)
        let entity = insert.entity
        for constraint in entity.uniquenessConstraints where constraint.compactMap({ entity.attributes[$0].column }) == columns {
            let pairs = constraint.map { "\(entity.attributes[$0].name) = \(values[$0])" }.joined(separator: ", ")
            return BatchInsertError(entityName: entity.name, row: row,
                                    detail: "breaks the uniqueness of \(constraint.map { entity.attributes[$0].name }.joined(separator: ", ")): "
                                        + "another object already has \(pairs)")
        }
        return nil
    }
}
