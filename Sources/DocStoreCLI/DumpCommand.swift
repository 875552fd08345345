import Foundation
import CommandLineKit
import ObjectGraph

/// `docstore dump PATH [--model M] [--entity E]`: every object as JSON, entity by entity in
/// entity-number order, each entity's objects in key order.
///
/// ```json
/// [
///   {
///     "entity": "Ebook",
///     "uri": "x-coredata://6B9BB6CC-F2A5-49EB-880B-A459EB7AC7F8/Ebook/p1",
///     "contents": "VGhpcyBJcyBKdXN0…",
///     "title": "This Is Just To Say.txt"
///   }
/// ]
/// ```
struct DumpCommand {
    let location: StoreLocation
    let source: ModelSource
    /// Only this entity and its subentities.
    let entityName: String?

    /// - Throws: `DocStoreError` 66 for an unknown entity, others as the store's errors classify.
    func run(output: inout some TextOutputStream) throws {
        let coordinator = try source.openForReading(location)
        let model = coordinator.model
        var entities = model.entities
        if let entityName {
            guard let entity = model.entity(named: entityName) else {
                throw DocStoreError("no such entity: \(entityName)",
                                    hint: "The store's entities: " + model.entities.map(\.name).joined(separator: ", "),
                                    exitCode: ExitCode.notFound)
            }
            entities = entity.hierarchy.compactMap { model.entity(number: $0) }
        }
        let context = ObjectContext(coordinator: coordinator)
        let names = Dictionary(uniqueKeysWithValues: model.entities.map { ($0.number, $0.name) })
        func uri(_ id: ObjectID) -> JSONValue {
            .string(id.uriRepresentation(storeUUID: coordinator.storeUUID, entityName: names[id.entityNumber] ?? "?"))
        }
        var isFirst = true
        output.write("[")
        do {
            for entity in entities {
                var request = FetchRequest<ManagedObject>(entityName: entity.name)
                request.includesSubentities = false
                let objects = try context.fetch(request).sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }
                for object in objects {
                    let json = try Self.json(of: object, uri: uri)
                    // A relationship that failed to load read as empty: never print it as such.
                    try context.throwIfLoadFailed()
                    output.write(isFirst ? "\n  " : ",\n  ")
                    isFirst = false
                    json.write(to: &output, indent: 1)
                }
                context.reset()
            }
        } catch {
            throw DocStoreError.from(error, path: location.path)
        }
        output.write(isFirst ? "]\n" : "\n]\n")
    }

    /// `entity`, `uri`, then the stored attributes and the relationships in name order.
    static func json(of object: ManagedObject, uri: (ObjectID) -> JSONValue) throws -> JSONValue {
        let entity = object.entity
        var properties: [(String, JSONValue)] = []
        for attribute in entity.attributes where attribute.column != nil {
            properties.append((attribute.name, StoredValueJSON.render(try object.storedValue(forKey: attribute.name), as: attribute.type)))
        }
        for relationship in entity.relationships {
            if relationship.isToMany {
                properties.append((relationship.name, .array(try object.objects(forKey: relationship.name).map { uri($0.objectID) })))
            } else {
                properties.append((relationship.name, try object.object(forKey: relationship.name).map { uri($0.objectID) } ?? .null))
            }
        }
        properties.sort { $0.0 < $1.0 }
        return .object([("entity", .string(entity.name)), ("uri", uri(object.objectID))] + properties)
    }
}
