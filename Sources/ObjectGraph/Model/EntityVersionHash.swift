import Foundation

/// Version hashes for entities: SHA-256 over a canonical text of everything that shapes the
/// entity's stored form, so that equal hashes mean equal schemas.
///
/// These are this framework's hashes, not Apple's: they are stable across runs and machines and
/// change whenever the schema changes, which is what migration decisions need.
enum EntityVersionHash {
    static func hash(of entity: EntityDescription, parentName: String?) -> Data {
        var text = "entity \(entity.name)\nabstract \(entity.isAbstract)\nparent \(parentName ?? "-")\n"
        for attribute in entity.attributes.sorted(by: { $0.name < $1.name }) {
            text += "attribute \(attribute.name) \(attribute.type.rawValue) optional=\(attribute.isOptional)"
            text += " transient=\(attribute.isTransient)\n"
        }
        for relationship in entity.relationships.sorted(by: { $0.name < $1.name }) {
            text += "relationship \(relationship.name) -> \(relationship.destination)"
            text += " toMany=\(relationship.isToMany) ordered=\(relationship.isOrdered) optional=\(relationship.isOptional)"
            text += " inverse=\(relationship.inverse ?? "-")\n"
        }
        for constraint in entity.uniquenessConstraints + entity.attributes.filter(\.isUnique).map({ [$0.name] }) {
            text += "unique \(constraint.joined(separator: ","))\n"
        }
        return Data(SHA256.hash(Array(text.utf8)))
    }
}
