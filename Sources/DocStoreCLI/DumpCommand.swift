import Foundation
import CommandLineKit
import CoreDataFiles
import ObjectGraph
import SQLiteDB

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
        var coreDataEntities: [CoreDataEntityTable]
        do {
            coreDataEntities = try source.inferred?.coreDataEntities ?? StoreModelInference.coreDataEntities(fromStoreAt: location.storeURL)
        } catch {
            throw DocStoreError.from(error, path: location.path)
        }
        var entities = model.entities
        if let entityName {
            if let entity = model.entity(named: entityName) {
                entities = entity.hierarchy.compactMap { model.entity(number: $0) }
                coreDataEntities = []
            } else if let entity = coreDataEntities.first(where: { $0.name == entityName }) {
                entities = []
                coreDataEntities = [entity]
            } else {
                throw DocStoreError("no such entity: \(entityName)",
                                    hint: "The store's entities: " + (model.entities.map(\.name) + coreDataEntities.map(\.name)).joined(separator: ", "),
                                    exitCode: ExitCode.notFound)
            }
        }
        let order: StoredOrder
        do {
            order = try StoredOrder(coordinator: coordinator)
        } catch {
            throw DocStoreError.from(error, path: location.path)
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
                    let json = try Self.json(of: object, uri: uri, order: order)
                    // A relationship that failed to load read as empty: never print it as such.
                    try context.throwIfLoadFailed()
                    output.write(isFirst ? "\n  " : ",\n  ")
                    isFirst = false
                    json.write(to: &output, indent: 1)
                }
                context.reset()
            }
            for entity in coreDataEntities {
                for object in try Self.rows(of: entity, coordinator: coordinator) {
                    output.write(isFirst ? "\n  " : ",\n  ")
                    isFirst = false
                    object.write(to: &output, indent: 1)
                }
            }
        } catch {
            throw DocStoreError.from(error, path: location.path)
        }
        output.write(isFirst ? "]\n" : "\n]\n")
    }

    /// The rows of one of Core Data's own entities (history, CloudKit), read column by column:
    /// `entity`, `uri`, then each column's value by the name and type it reads as.
    static func rows(of entity: CoreDataEntityTable, coordinator: StoreCoordinator) throws -> [JSONValue] {
        let columns = entity.columns.sorted { $0.property < $1.property }
        let select = (["Z_PK"] + columns.map(\.column)).map(quoteIdentifier).joined(separator: ", ")
        let rows = try coordinator.withConnection { connection in
            try connection.rows("SELECT \(select) FROM \(quoteIdentifier(entity.table)) WHERE Z_ENT = ? ORDER BY Z_PK",
                                [.integer(Int64(entity.number))]) { row in (0...columns.count).map { row.value(at: $0) } }
        }
        return rows.map { values in
            let key = values.first?.integerValue ?? 0
            let uri = ObjectID(entityNumber: entity.number, primaryKey: key)
                .uriRepresentation(storeUUID: coordinator.storeUUID, entityName: entity.name)
            // `entity` and `uri` name the object; a column that reads as either keeps its own name (ZENTITY).
            let properties = zip(columns, values.dropFirst()).map { column, value in
                (["entity", "uri"].contains(column.property) ? column.column : column.property, StoredValueJSON.render(value, as: column.type))
            }
            return .object([("entity", .string(entity.name)), ("uri", .string(uri))] + properties)
        }
    }

    /// `entity`, `uri`, then the stored attributes and the relationships in name order;
    /// ordered to-many relationships in their stored order.
    static func json(of object: ManagedObject, uri: (ObjectID) -> JSONValue, order: StoredOrder) throws -> JSONValue {
        let entity = object.entity
        var properties: [(String, JSONValue)] = []
        for attribute in entity.attributes where attribute.column != nil {
            properties.append((attribute.name, StoredValueJSON.render(try object.storedValue(forKey: attribute.name), as: attribute.type)))
        }
        for relationship in entity.relationships {
            if relationship.isToMany {
                let members = order.sorted(try object.objects(forKey: relationship.name).map(\.objectID), of: relationship, source: object.objectID)
                properties.append((relationship.name, .array(members.map(uri))))
            } else {
                properties.append((relationship.name, try object.object(forKey: relationship.name).map { uri($0.objectID) } ?? .null))
            }
        }
        properties.sort { $0.0 < $1.0 }
        return .object([("entity", .string(entity.name)), ("uri", uri(object.objectID))] + properties)
    }
}
