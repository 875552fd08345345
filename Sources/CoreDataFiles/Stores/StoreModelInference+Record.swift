import Foundation
import ObjectGraph
import SQLiteDB

/// Stores this framework wrote keep a record of their model in their metadata (`ModelRecord`):
/// names as declared, attribute types, to-one destinations, to-many relationships, abstract
/// entities. When the record is there it wins over what the tables suggest, wherever a column
/// is spelled `Z` + the recorded name in capitals.
extension Inference {
    static func readRecord(_ connection: Connection) throws -> ModelRecord? {
        try StoreMetadata.readIfPresent(connection)?.modelRecord
    }

    /// The recorded property behind `column` of a table holding `hierarchy`, if any.
    func recordedProperty(column: String, hierarchy: Set<Int>) -> ModelRecord.Property? {
        guard let record else { return nil }
        let names = Set(hierarchy.compactMap { entry($0)?.name })
        return record.properties.first { names.contains($0.entity) && "Z" + $0.name.uppercased() == column }
    }

    /// `property` as the record declares it; nil when the record does not know the column.
    func applyRecord(to property: Property, columnType: String, hierarchy: Set<Int>, companion: String?) -> (owner: Int, property: Property)? {
        guard let recorded = recordedProperty(column: property.column, hierarchy: hierarchy),
              let owner = entries.first(where: { $0.name == recorded.entity }) else { return nil }
        var result = property
        result.name = recorded.name
        if let type = AttributeType(rawValue: recorded.kind) {
            // A record that no longer fits the column (another tool changed the store) is ignored.
            guard type.sqlType == columnType else { return nil }
            result.role = .attribute(type)
            result.entityColumn = nil
            result.isIndexed = catalog.hasColumnIndex(table: StoreCatalog.tableName(ofRoot: entries[chain(owner.number)[0] - 1].name),
                                                      column: property.column)
        } else if recorded.kind.hasPrefix("to-one:") {
            let destination = String(recorded.kind.dropFirst("to-one:".count))
            guard columnType == "INTEGER", entries.contains(where: { $0.name == destination }) else { return nil }
            result.role = .toOne(destination: destination, evidence: .modelRecord)
            result.entityColumn = companion
            result.isIndexed = false
        } else {
            return nil
        }
        return (owner.number, result)
    }

    /// The recorded name of a to-many relationship of `entity` spelled `name` in capitals.
    func recordedToManyName(entity: String, capitalised name: String) -> String? {
        record?.properties.first { $0.entity == entity && $0.kind.hasPrefix("to-many:") && $0.name.uppercased() == name.uppercased() }?.name
    }

    /// Recorded to-many relationships that no join table holds, each paired with the one to-one
    /// of its destination that points back; one without exactly one such partner is left out.
    mutating func addRecordedToManys(to descriptions: inout [EntityDescription]) {
        guard let record else { return }
        for recorded in record.properties where recorded.kind.hasPrefix("to-many:") {
            let destinationName = String(recorded.kind.dropFirst("to-many:".count))
            guard let source = entries.first(where: { $0.name == recorded.entity }),
                  let destination = entries.first(where: { $0.name == destinationName }),
                  !descriptions[source.number - 1].relationships.contains(where: { $0.name == recorded.name }) else { continue }
            let partners = chain(destination.number).flatMap { number in
                descriptions[number - 1].relationships.enumerated().filter { !$0.element.isToMany && $0.element.destination == source.name }
                    .map { (entity: number, index: $0.offset) }
            }
            guard partners.count == 1, let partner = partners.first else {
                ignored.append("to-many \(recorded.entity).\(recorded.name): no single to-one of \(destinationName) points back")
                continue
            }
            descriptions[partner.entity - 1].relationships[partner.index].inverse = recorded.name
            let inverseName = descriptions[partner.entity - 1].relationships[partner.index].name
            descriptions[source.number - 1].relationships.append(RelationshipDescription(
                name: recorded.name, destination: destinationName, inverse: inverseName, isToMany: true))
        }
        for (index, description) in descriptions.enumerated() {
            if let recorded = record.entities[description.name] { descriptions[index].isAbstract = recorded.isAbstract }
            let order = record.properties.filter { $0.entity == description.name }.map(\.name)
            func position(_ name: String) -> Int { order.firstIndex(of: name) ?? order.count }
            descriptions[index].attributes = description.attributes.enumerated()
                .sorted { (position($0.element.name), $0.offset) < (position($1.element.name), $1.offset) }.map(\.element)
            descriptions[index].relationships = description.relationships.enumerated()
                .sorted { (position($0.element.name), $0.offset) < (position($1.element.name), $1.offset) }.map(\.element)
        }
    }
}
