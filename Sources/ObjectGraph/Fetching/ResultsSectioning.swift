import Foundation

/// Files a results controller's objects into sections as the fetch hands them over, one by
/// one: plain code, whatever the controller's result class (see `FetchedResultsController`).
///
/// Objects come sorted by the section key. When the key path starts with a to-one (a photo's
/// `place.name`), an object's section depends only on that to-one's target, which the object
/// holds: objects are filed in runs of one target as they arrive, while they are in the
/// processor's caches, and each run is named afterwards from its first object (firing the
/// targets' faults, a batch at a time, once the fetch has let go of the store). Neighbouring
/// runs with the same name (two places of one name, no place and a place named "") make one
/// section. Other key paths are named object by object after the fetch (`runs(of:keyPath:)`).
struct ResultsSectioner {
    private let parts: [String]
    /// Runs of objects with one first-step target, in order; `target` is nil for no target.
    private var runs: [(target: ObjectID?, objects: [ManagedObject])] = []
    /// The first step's to-one slot for the entity of the previous object (mostly all one);
    /// nil when the first step is not a to-one of that entity.
    private var firstStep: (entity: Entity, slot: Int?)?
    /// Objects that could not be filed by target (a key path of one step, or whose first step
    /// is not a to-one, or a fault): all of them are then named one by one after the fetch.
    private var namesEachObject: Bool
    /// The class every object so far is an instance of, exactly, while there is one.
    private(set) var commonClass: ObjectIdentifier?
    private var count = 0

    init(keyPath: String?) {
        parts = keyPath.map { $0.split(separator: ".").map(String.init) } ?? []
        namesEachObject = parts.count == 1
    }

    mutating func add(_ object: ManagedObject) {
        let objectClass = ObjectIdentifier(type(of: object))
        if count == 0 { commonClass = objectClass } else if commonClass != objectClass { commonClass = nil }
        count += 1
        var target: ObjectID?
        if !namesEachObject && !parts.isEmpty {
            let slot: Int?
            if let firstStep, firstStep.entity === object.entity {
                slot = firstStep.slot
            } else {
                let relationship = object.entity.relationship(named: parts[0])
                slot = relationship.flatMap { $0.isToMany ? nil : $0.slot }
                firstStep = (object.entity, slot)
            }
            // A fault cannot be read while the fetch holds the store (none arrives from one).
            if let slot, !object.isFault {
                target = object.toOne[slot]
            } else {
                namesEachObject = true
            }
        }
        if let last = runs.indices.last, runs[last].target == target {
            runs[last].objects.append(object)
        } else {
            runs.append((target, [object]))
        }
    }

    /// Every object filed, in order.
    var objects: [ManagedObject] { runs.count == 1 ? runs[0].objects : runs.flatMap(\.objects) }

    /// The sections: each one's name ("" for none) and objects, in order. Fires the faults of
    /// the targets that name them.
    func sections() -> [(name: String, objects: [ManagedObject])] {
        guard !parts.isEmpty else { return [("", objects)] }
        if namesEachObject {
            let all = objects
            var result: [(name: String, objects: [ManagedObject])] = []
            var start = 0
            for run in ResultsSectioning.runs(of: all, keyPath: parts.joined(separator: ".")) {
                result.append((run.name, Array(all[start..<start + run.count])))
                start += run.count
            }
            return result
        }
        var result: [(name: String, objects: [ManagedObject])] = []
        for run in runs {
            let name = run.target == nil ? "" : ResultsSectioning.sectionName(of: run.objects[0], parts: parts[...])
            if let last = result.indices.last, result[last].name == name {
                result[last].objects += run.objects
            } else {
                result.append((name, run.objects))
            }
        }
        return result
    }
}

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

    static func sectionName(of object: ManagedObject, parts: ArraySlice<String>) -> String {
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
