import Foundation

/// Splits a results controller's objects into sections by a key path's value: plain code,
/// whatever the controller's result class (see `FetchedResultsController`).
enum ResultsSectioning {
    /// Each section's name ("" for none) and how many objects it holds, in order: a new
    /// section wherever the name differs from the previous object's. `objects` come sorted by
    /// the key path.
    static func runs(of objects: [ManagedObject], keyPath: String) -> [(name: String, count: Int)] {
        var result: [(name: String, count: Int)] = []
        let parts = keyPath.split(separator: ".").map(String.init)
        // Objects come sorted by the section key, so neighbours mostly point to the same
        // object for the key path's first step (the photos of one place): the name is worked
        // out once per run of them, from the to-one's key alone.
        // The first step's to-one slot, for the entity of the previous object (mostly all one).
        var firstStep: (entity: Entity, slot: Int?)?
        var last: (target: ObjectID, name: String)?
        for object in objects {
            let name: String
            var sameTarget = false
            let slot: Int?
            if parts.count < 2 {
                slot = nil
            } else if let firstStep, firstStep.entity === object.entity {
                slot = firstStep.slot
            } else {
                let relationship = object.entity.relationship(named: parts[0])
                slot = relationship.flatMap { $0.isToMany ? nil : $0.slot }
                firstStep = (object.entity, slot)
            }
            if let slot {
                object.fireFaultIfNeeded()
                let target = object.toOne[slot]
                if let target, let last, last.target == target {
                    name = last.name
                    sameTarget = true
                } else {
                    name = sectionName(of: object, parts: parts[...])
                    last = target.map { ($0, name) }
                }
            } else {
                name = sectionName(of: object, parts: parts[...])
            }
            // The same target as the previous object names the same section.
            if let end = result.indices.last, sameTarget || result[end].name == name {
                result[end].count += 1
            } else {
                result.append((name, 1))
            }
        }
        return result
    }

    private static func sectionName(of object: ManagedObject, parts: ArraySlice<String>) -> String {
        var current: ManagedObject? = object
        for (index, part) in zip(parts.indices, parts) {
            guard let node = current else { return "" }
            if index == parts.endIndex - 1 {
                // Only a key the entity lacks throws here, and the fetch has checked the key path
                // against the model already; a value that fails to load is recorded in the context.
                guard let value = try? node.storedValue(forKey: part) else { return "" }
                switch value {
                case .null: return ""
                case .text(let text): return text
                case .integer(let integer): return String(integer)
                case .real(let real): return String(real)
                case .blob(let data): return data.base64EncodedString()
                }
            }
            // As above: the key path was checked, and a load failure is recorded, not thrown.
            current = try? node.object(forKey: part)
        }
        return ""
    }
}
