import Foundation

/// Turns the keyed archive of an `NSManagedObjectModel` (a `.mom`, or a store's `Z_MODELCACHE`)
/// into the `XCDataModelFile` values the XML reader makes, so both meet in one conversion to
/// the object graph's model.
///
/// The keys are Core Data's own (`NSEntities`, `NSEntityName`, `NSSuperentity`, `NSProperties`,
/// `NSAttributeType`, `_NSDestinationEntityName`, `NSInverseRelationship`, `NSMinCount`, …), as
/// `-[NSEntityDescription encodeWithCoder:]` and its kin write them. What a compiled model does
/// not keep (Xcode's bookkeeping, `usesScalarValueType`, a transformable's custom class name,
/// diagram positions) stays empty. Entities and each kind of property come out sorted by name,
/// as Xcode writes them; an entity's inherited properties, which a store's cache repeats in
/// every subentity, are left to the entity that declares them.
struct CompiledModelDecoder {
    let archive: KeyedArchive
    /// Every entity of the model: UID → name.
    private var entityNames: [Int: String] = [:]

    init(archive: KeyedArchive) {
        self.archive = archive
    }

    mutating func decode() throws -> XCDataModelFile {
        let root = try archive.object(archive.root)
        guard root.isKind(of: "NSManagedObjectModel") else {
            throw archive.error("the archive holds an \(root.className), not an NSManagedObjectModel")
        }
        var entityObjects: [(name: String, object: KeyedArchive.Object)] = []
        for entry in try archive.stringKeyedEntries(root["NSEntities"], "the model's entities") {
            guard let entity = try archive.object(entry.value, kindOf: "NSEntityDescription", "entity \(entry.key)") else {
                throw archive.error("entity \(entry.key) is missing")
            }
            let name = try archive.string(entity["NSEntityName"], "the name of entity \(entry.key)") ?? ""
            guard name == entry.key, !name.isEmpty else {
                throw archive.error("the model lists entity \(entry.key) under the name \(name.debugDescription)")
            }
            guard entityNames.updateValue(name, forKey: entity.uid) == nil else {
                throw archive.error("entity \(name) is listed twice")
            }
            entityObjects.append((name, entity))
        }
        var model = XCDataModelFile()
        model.entities = try entityObjects.sorted { Self.precedes($0.name, $1.name) }.map { try decodeEntity($0.object, name: $0.name) }
        let identifiers = try archive.members(root["NSVersionIdentifiers"], "the model's version identifiers").map {
            try archive.value($0, "a version identifier").text
        }
        model.versionIdentifier = identifiers.sorted().first
        for entry in try archive.stringKeyedEntries(root["NSConfigurations"], "the model's configurations") {
            let members = try archive.members(entry.value, "configuration \(entry.key)").map {
                try entityName($0, "an entity of configuration \(entry.key)")
            }
            model.configurations.append(XCConfiguration(name: entry.key, entityNames: members.sorted(by: Self.precedes)))
        }
        model.configurations.sort { Self.precedes($0.name, $1.name) }
        for entry in try archive.stringKeyedEntries(root["NSFetchRequestTemplates"], "the model's fetch request templates") {
            model.fetchRequests.append(try fetchRequest(entry.value, name: entry.key, entityName: nil, "fetch request template \(entry.key)"))
        }
        model.fetchRequests.sort { Self.precedes($0.name, $1.name) }
        return model
    }

    /// Xcode's order: names compared ignoring case, then as they are.
    static func precedes(_ left: String, _ right: String) -> Bool {
        let folded = (left.lowercased(), right.lowercased())
        return folded.0 == folded.1 ? left < right : folded.0 < folded.1
    }

    /// The name of the entity `value` refers to, which must be one of the model's.
    func entityName(_ value: PlistValue?, _ what: @autoclosure () -> String) throws -> String {
        guard let uid = try archive.reference(value, what()) else { throw archive.error("\(what()) is missing") }
        guard let name = entityNames[uid] else {
            let object = try archive.object(uid)
            throw archive.error("\(what()) is \(object.isKind(of: "NSEntityDescription") ? "an entity the model does not list" : "an \(object.className), not an entity")")
        }
        return name
    }

    // MARK: - Entities

    private func decodeEntity(_ object: KeyedArchive.Object, name: String) throws -> XCEntity {
        var entity = XCEntity(name: name)
        let className = try archive.string(object["NSClassNameForEntity"], "the class of entity \(name)")
        entity.representedClassName = className == "NSManagedObject" ? nil : className
        if try archive.reference(object["NSSuperentity"], "the superentity of \(name)") != nil {
            entity.parentEntity = try entityName(object["NSSuperentity"], "the superentity of \(name)")
        }
        entity.isAbstract = try archive.flag(object["NSIsAbstract"], "the abstract flag of \(name)")
        let renaming = try archive.string(object["NSRenamingIdentifier"], "the renaming identifier of \(name)")
        entity.renamingIdentifier = renaming == name ? nil : renaming
        entity.versionHashModifier = try nonEmpty(archive.string(object["NSVersionHashModifier"], "the version hash modifier of \(name)"))
        entity.userInfo = try userInfo(object["NSUserInfo"], "the user info of \(name)")

        let inherited = try inheritedPropertyNames(of: object, name: name)
        for entry in try archive.stringKeyedEntries(object["NSProperties"], "the properties of \(name)") where !inherited.contains(entry.key) {
            let what = "property \(name).\(entry.key)"
            guard let property = try archive.object(entry.value, kindOf: "NSPropertyDescription", what) else {
                throw archive.error("\(what) is missing")
            }
            let propertyName = try archive.string(property["NSPropertyName"], "the name of \(what)") ?? ""
            guard propertyName == entry.key, !propertyName.isEmpty else {
                throw archive.error("entity \(name) lists property \(entry.key) under the name \(propertyName.debugDescription)")
            }
            if property.isKind(of: "NSRelationshipDescription") {
                entity.relationships.append(try decodeRelationship(property, entity: name))
            } else if property.isKind(of: "NSFetchedPropertyDescription") {
                entity.fetchedProperties.append(try decodeFetchedProperty(property, entity: name))
            } else if property.isKind(of: "NSAttributeDescription") {
                entity.attributes.append(try decodeAttribute(property, entity: name))
            } else {
                throw archive.error("\(what) is an \(property.className), which an entity cannot hold")
            }
        }
        entity.attributes.sort { Self.precedes($0.name, $1.name) }
        entity.relationships.sort { Self.precedes($0.name, $1.name) }
        entity.fetchedProperties.sort { Self.precedes($0.name, $1.name) }

        entity.uniquenessConstraints = try archive.members(object["NSUniqueTuples"], "the uniqueness constraints of \(name)").map {
            try archive.members($0, "a uniqueness constraint of \(name)").map { try propertyName($0, "a uniqueness constraint of \(name)") }
        }
        let fetchIndexes = try archive.members(object["NSFetchIndexDescriptions"], "the fetch indexes of \(name)")
        entity.indexes = try fetchIndexes.map { try decodeIndex($0, entity: name) }
        // Core Data writes NSCompoundIndexes as well, derived from the fetch indexes, for older
        // readers: they are the model's own only when there are no fetch index descriptions.
        if fetchIndexes.isEmpty {
            entity.compoundIndexes = try archive.members(object["NSCompoundIndexes"], "the compound indexes of \(name)").map {
                try archive.members($0, "a compound index of \(name)").map { try propertyName($0, "a compound index of \(name)") }
            }
        }
        return entity
    }

    /// Names of the properties of every superentity of `object`: a store's cache lists them
    /// again in each subentity, where Xcode's model declares them only once.
    private func inheritedPropertyNames(of object: KeyedArchive.Object, name: String) throws -> Set<String> {
        var names: Set<String> = []
        var seen: Set<Int> = [object.uid]
        var current = object
        while let parentUID = try archive.reference(current["NSSuperentity"], "the superentity of \(name)") {
            guard seen.insert(parentUID).inserted else { throw archive.error("entity \(name) inherits from itself") }
            _ = try entityName(current["NSSuperentity"], "the superentity of \(name)")
            current = try archive.object(parentUID)
            for entry in try archive.stringKeyedEntries(current["NSProperties"], "the properties of \(name)'s superentity") {
                names.insert(entry.key)
            }
        }
        return names
    }

    /// A property's name: a string, or a reference to a string or to a property description.
    private func propertyName(_ value: PlistValue, _ what: @autoclosure () -> String) throws -> String {
        if case .uid(let uid) = value, uid > 0, uid < archive.objects.count, case .dictionary = archive.objects[uid] {
            let object = try archive.object(uid)
            if object.isKind(of: "NSPropertyDescription") {
                guard let name = try archive.string(object["NSPropertyName"], what()) else { throw archive.error("\(what()) has no name") }
                return name
            }
        }
        guard let name = try archive.string(value, what()), !name.isEmpty else { throw archive.error("\(what()) names no property") }
        return name
    }

    private func decodeIndex(_ value: PlistValue, entity: String) throws -> XCIndex {
        guard let index = try archive.object(value, kindOf: "NSFetchIndexDescription", "a fetch index of \(entity)") else {
            throw archive.error("a fetch index of \(entity) is missing")
        }
        let name = try archive.string(index["NSIndexName"], "the name of a fetch index of \(entity)") ?? ""
        let what = "fetch index \(entity).\(name)"
        let elements = try archive.members(index["NSIndexElements"], "the elements of \(what)").map { member in
            guard let element = try archive.object(member, kindOf: "NSFetchIndexElementDescription", "an element of \(what)") else {
                throw archive.error("an element of \(what) is missing")
            }
            let type = try archive.integer(element["NSFetchIndexElementType"], "the type of an element of \(what)") ?? 0
            guard type == 0 || type == 1 else { throw archive.error("an element of \(what) has the index type \(type)") }
            let ascending = element["NSAscending"] == nil ? true : try archive.flag(element["NSAscending"], "the order of an element of \(what)")
            if let described = try archive.object(element["NSIndexedProperty"], kindOf: "NSPropertyDescription", "the property of an element of \(what)"),
               described.isKind(of: "NSExpressionDescription") {
                guard let expression = try archive.expressionFormat(described["NSExpression"], "the expression of an element of \(what)") else {
                    throw archive.error("an expression element of \(what) has no expression")
                }
                return XCIndexElement(property: nil, expression: expression, type: type == 0 ? "Binary" : "RTree", isAscending: ascending)
            }
            let property = try archive.string(element["NSPropertyName"], "the property of an element of \(what)")
            guard let property, !property.isEmpty else { throw archive.error("an element of \(what) names no property") }
            return XCIndexElement(property: property, type: type == 0 ? "Binary" : "RTree", isAscending: ascending)
        }
        return XCIndex(name: name, elements: elements)
    }

    // MARK: - Relationships and fetched properties

    private func decodeRelationship(_ object: KeyedArchive.Object, entity: String) throws -> XCRelationship {
        let name = try archive.string(object["NSPropertyName"], "a relationship of \(entity)") ?? ""
        let what = "relationship \(entity).\(name)"
        let flags = try PropertyFlags(object, archive: archive, what: what)
        let destination: String
        if try archive.reference(object["NSDestinationEntity"], "the destination of \(what)") != nil {
            destination = try entityName(object["NSDestinationEntity"], "the destination of \(what)")
        } else if let named = try archive.string(object["_NSDestinationEntityName"], "the destination of \(what)"), !named.isEmpty {
            destination = named
        } else {
            throw archive.error("\(what) has no destination")
        }
        var inverseName: String?
        if let inverse = try archive.object(object["NSInverseRelationship"], kindOf: "NSRelationshipDescription", "the inverse of \(what)") {
            inverseName = try archive.string(inverse["NSPropertyName"], "the name of the inverse of \(what)")
        } else {
            inverseName = try nonEmpty(archive.string(object["_NSInverseRelationshipName"], "the inverse of \(what)"))
        }
        let minCount = try count(object["NSMinCount"], "the minimum count of \(what)")
        // Core Data archives NSUIntegerMax (a limit set to .max in code) as -1, and hashes the
        // count's low 32 bits: kept as 2^32 - 1, which hashes alike and still means "to-many".
        let maxCount = try archive.integer(object["NSMaxCount"], "the maximum count of \(what)") == -1
            ? Int(UInt32.max) : try count(object["NSMaxCount"], "the maximum count of \(what)", limit: Int64(UInt32.max))
        let rules = [0: "No Action", 1: "Nullify", 2: "Cascade", 3: "Deny"]
        let ruleCode = try archive.integer(object["NSDeleteRule"], "the delete rule of \(what)") ?? 1
        guard let rule = rules[Int(clamping: ruleCode)] else { throw archive.error("\(what) has the delete rule \(ruleCode)") }
        let renaming = try archive.string(object["NSRenamingIdentifier"], "the renaming identifier of \(what)")
        return XCRelationship(
            name: name, destinationEntity: destination, inverseName: inverseName,
            inverseEntity: inverseName == nil ? nil : destination,
            isToMany: maxCount != 1, isOrdered: flags.isOrdered, isOptional: flags.isOptional,
            isTransient: flags.isTransient,
            isIndexed: try archive.flag(object["NSIsIndexed"], "the indexed flag of \(what)"),
            isIndexedBySpotlight: flags.isIndexedBySpotlight, deletionRule: rule, minCount: minCount, maxCount: maxCount,
            renamingIdentifier: renaming == name ? nil : renaming,
            versionHashModifier: try nonEmpty(archive.string(object["NSVersionHashModifier"], "the version hash modifier of \(what)")),
            userInfo: try userInfo(object["NSUserInfo"], "the user info of \(what)"))
    }

    private func decodeFetchedProperty(_ object: KeyedArchive.Object, entity: String) throws -> XCFetchedProperty {
        let name = try archive.string(object["NSPropertyName"], "a fetched property of \(entity)") ?? ""
        let what = "fetched property \(entity).\(name)"
        let flags = try PropertyFlags(object, archive: archive, what: what)
        let target = try nonEmpty(archive.string(object["_NSFetchRequestEntityName"], "the entity of \(what)"))
        let request = try archive.reference(object["NSFetchRequest"], "the fetch request of \(what)") == nil ? nil
            : try fetchRequest(object["NSFetchRequest"], name: "fetchedPropertyFetchRequest", entityName: target, "the fetch request of \(what)")
        return XCFetchedProperty(name: name, isOptional: flags.isOptional, fetchRequest: request,
                                 userInfo: try userInfo(object["NSUserInfo"], "the user info of \(what)"))
    }

    /// An `NSFetchRequest`, with the XML attributes Xcode writes for what it holds.
    private func fetchRequest(_ value: PlistValue?, name: String, entityName fallback: String?,
                              _ what: String) throws -> XCFetchRequest {
        guard let request = try archive.object(value, kindOf: "NSFetchRequest", what) else { throw archive.error("\(what) is missing") }
        var entity = fallback
        if try archive.reference(request["NSEntity"], "the entity of \(what)") != nil {
            entity = try entityName(request["NSEntity"], "the entity of \(what)")
        } else if let named = try nonEmpty(archive.string(request["NSEntityName"], "the entity of \(what)")) {
            entity = named
        }
        let predicate = try archive.predicateFormat(request["NSPredicate"], "the predicate of \(what)")
        var attributes = ["name": name]
        attributes["entity"] = entity
        attributes["predicateString"] = predicate
        for (key, attribute) in [("NSFetchLimit", "fetchLimit"), ("NSFetchOffset", "fetchOffset"), ("NSBatchSize", "fetchBatchSize")] {
            if let number = try archive.integer(request[key], "\(key) of \(what)"), number != 0 { attributes[attribute] = String(number) }
        }
        return XCFetchRequest(name: name, entity: entity, predicateString: predicate, attributes: attributes)
    }

    // MARK: - Values

    func count(_ value: PlistValue?, _ what: @autoclosure () -> String, limit: Int64 = Int64(Int32.max)) throws -> Int {
        let number = try archive.integer(value, what()) ?? 0
        guard number >= 0, number <= limit else { throw archive.error("\(what()) is \(number)") }
        return Int(number)
    }

    func nonEmpty(_ text: String?) -> String? {
        text.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A user-info dictionary as text: keys and values as strings.
    func userInfo(_ value: PlistValue?, _ what: @autoclosure () -> String) throws -> [String: String] {
        var result: [String: String] = [:]
        for entry in try archive.entries(value, what()) {
            result[try archive.value(entry.key, "a key of \(what())").text] = try archive.value(entry.value, "a value of \(what())").text
        }
        return result
    }
}

/// A property's flags: from `_P`, the compact form newer Core Data writes (and reads first),
/// else from the separate keys older archives hold.
struct PropertyFlags {
    var isOptional = false
    var isReadOnly = false
    var isTransient = false
    var isIndexedBySpotlight = false
    var isStoredInExternalRecord = false
    var isOrdered = false
    var allowsCloudEncryption = false

    init(_ object: KeyedArchive.Object, archive: KeyedArchive, what: String) throws {
        if let compact = try archive.integer(object["_P"], "the flags of \(what)"), compact != 0 {
            isOptional = compact & 0x2 != 0
            isReadOnly = compact & 0x4 != 0
            isTransient = compact & 0x8 != 0
            isIndexedBySpotlight = compact & 0x100 != 0
            isStoredInExternalRecord = compact & 0x200 != 0
            isOrdered = compact & 0x400 != 0
            allowsCloudEncryption = compact & 0x800 != 0
            return
        }
        isOptional = try archive.flag(object["NSIsOptional"], "the optional flag of \(what)")
        isReadOnly = try archive.flag(object["NSIsReadOnly"], "the read-only flag of \(what)")
        isTransient = try archive.flag(object["NSIsTransient"], "the transient flag of \(what)")
        isIndexedBySpotlight = try archive.flag(object["NSIndexedBySpotlight"], "the Spotlight flag of \(what)")
        isStoredInExternalRecord = try archive.flag(object["NSIsStoredInTruth"], "the external record flag of \(what)")
        isOrdered = try archive.flag(object["NSIsOrdered"], "the ordered flag of \(what)")
        allowsCloudEncryption = try archive.flag(object["NSAllowsCloudEncryption"], "the cloud encryption flag of \(what)")
    }
}
