import Foundation
import Locking

/// A resolved model: entities numbered, properties placed, tables and columns named exactly as
/// Core Data names them in its SQLite stores.
///
/// ```swift
/// let model = try ObjectModel(Photo.self, Tag.self, Place.self)
/// let photo = model.entity(named: "Photo")
/// ```
public final class ObjectModel: Sendable {
    /// Entities by number: `entities[n - 1]` has `Z_ENT` n.
    public let entities: [Entity]
    /// Many-to-many join tables, each once.
    public let joinTables: [JoinTable]
    /// The hidden key columns of to-many relationships without an inverse, in column order.
    let hiddenKeys: [HiddenKey]
    /// A name for this version of the model, written to store metadata.
    public let versionIdentifier: String
    /// The full-text search indexes its searchable properties ask for, one per table.
    package let searchIndexes: [SearchIndex]
    private let tableColumns: [String: [Column]]
    private let entityNumbers: [String: Int]
    private let classEntities: [ObjectIdentifier: Int]
    /// For each entity (by number - 1) and relationship index: whether the relationship's join
    /// table rows are written from its side (it is the join table's source).
    private let joinTableOwnership: [[Bool]]
    /// Stores this model found needing no migration, so that opening one again skips the plan.
    package let verifiedSchemas = VerifiedSchemas()
    /// What a store in this model's layout holds (`StoreLayout`), made at the first question.
    private let layout = Locked<StoreLayout?>(nil)

    /// A many-to-many join table: `Z_<n><RELATIONSHIP>`.
    public struct JoinTable: Sendable, Equatable {
        /// The join table's name, `Z_<n><RELATIONSHIP>`.
        public let name: String
        /// Holds the owning side's keys.
        package let sourceColumn: String
        /// Holds the other side's keys.
        package let destinationColumn: String
        let sourceEntity: Int
        package let relationship: String

        /// A join table's names, as a store has them.
        public struct Layout: Sendable, Equatable {
            /// The join table's name.
            public var name: String
            package var sourceColumn: String
            package var destinationColumn: String

            /// A layout with these names.
            public init(name: String, sourceColumn: String, destinationColumn: String) {
                self.name = name
                self.sourceColumn = sourceColumn
                self.destinationColumn = destinationColumn
            }
        }

        /// The destination column of a relationship that is its own inverse (Core Data's
        /// `Z_45MERGECANDIDATES (Z_45MERGECANDIDATES, REFLEXIVE)`): each pair is kept both ways.
        package static let reflexiveColumn = "REFLEXIVE"
    }

    /// The column Core Data adds to a destination's table for a to-many relationship without an
    /// inverse: each destination row holds the key of the object whose relationship holds it.
    ///
    /// For MagicalRecord's test model, `SingleEntityRelatedToManyMappedEntitiesUsingMappedPrimaryKey`
    /// (entity 6) has `mappedEntities`, to-many to `MappedEntity` without an inverse:
    /// `ZMAPPEDENTITY` gets `Z6MAPPEDENTITIES INTEGER` and the index
    /// `ZMAPPEDENTITY_Z6MAPPEDENTITIES_INDEX`.
    public struct HiddenKey: Sendable, Equatable {
        /// The destination hierarchy's table.
        public let table: String
        /// `Z<n><NAME>`.
        public let column: String
        /// The entity declaring the to-many relationship.
        let sourceEntity: Int
        package let relationship: String

        /// The name its links go by in a save (a join table's are its table's name).
        var linkName: String { table + "." + column }
    }

    /// A property column of a hierarchy table.
    public struct Column: Sendable, Equatable {
        /// The column's name, `Z<PROPERTY>`.
        public let name: String
        /// `INTEGER`, `FLOAT`, `TIMESTAMP`, `DECIMAL`, `VARCHAR` or `BLOB`.
        public let type: String
    }

    /// A table's property columns (after `Z_PK, Z_ENT, Z_OPT`) in Core Data's order.
    public func columns(ofTable table: String) -> [Column] { tableColumns[table] ?? [] }

    /// Builds a model from entity descriptions (the programmatic and `.xcdatamodel` path).
    ///
    /// - Throws: `ModelError` naming the entity and property at fault.
    public init(entities descriptions: [EntityDescription], versionIdentifier: String = "") throws {
        var builder = ModelBuilder(descriptions)
        let built = try builder.build()
        entities = built.entities
        joinTables = built.joinTables
        hiddenKeys = built.hiddenKeys
        tableColumns = built.tableColumns
        searchIndexes = try SearchIndex.indexes(of: built.entities)
        self.versionIdentifier = versionIdentifier
        entityNumbers = Dictionary(uniqueKeysWithValues: built.entities.map { ($0.name, $0.number) })
        var classes: [ObjectIdentifier: Int] = [:]
        for entity in built.entities where entity.objectClass != ManagedObject.self {
            classes[ObjectIdentifier(entity.objectClass)] = entity.number
        }
        classEntities = classes
        joinTableOwnership = built.entities.map { entity in
            entity.relationships.map { relationship in
                guard case .joinTable(let table, let sourceColumn, _) = relationship.storage else { return false }
                return built.joinTables.contains { $0.name == table && $0.sourceColumn == sourceColumn }
            }
        }
    }

    /// The name a save's links of `relationship` go by: its join table's, or for a to-many
    /// without an inverse its hidden key's (`ZTABLE.Z6NAME`); nil for relationships kept in the
    /// source's row or by an inverse to-one.
    func linkName(of relationship: EntityRelationship) -> String? {
        switch relationship.storage {
        case .joinTable(let table, _, _): return table
        case .inverseForeignKey(let column, true): return self[relationship.destination].table + "." + column
        case .inverseForeignKey, .foreignKey: return nil
        }
    }

    /// True when relationship `index` of entity `number` is the source side of its join table.
    func ownsJoinTable(entity number: Int, relationship index: Int) -> Bool {
        joinTableOwnership[number - 1][index]
    }

    /// Builds a model from `ManagedObject` subclasses declared with `@Attribute` and
    /// `@Relationship`; parent classes that are managed objects become parent entities.
    ///
    /// - Throws: `ModelError` naming the entity and property at fault.
    public convenience init(_ classes: ManagedObject.Type..., versionIdentifier: String = "") throws {
        try self.init(classes: classes, versionIdentifier: versionIdentifier)
    }

    /// A model of the entity classes `classes`, read by reflection, with `versionIdentifier` recorded in stores.
    public convenience init(classes: [ManagedObject.Type], versionIdentifier: String = "") throws {
        try self.init(classes: classes, versionIdentifier: versionIdentifier, byReflection: false)
    }

    /// With `byReflection`, every property's name is read by reflection, whatever the classes'
    /// `declaredPropertyNames` say (what tests compare the declared names' model with).
    package convenience init(classes: [ManagedObject.Type], versionIdentifier: String = "", byReflection: Bool) throws {
        var all: [ManagedObject.Type] = []
        for type in classes {
            // Include managed-object superclasses, which become parent entities.
            var chain: [ManagedObject.Type] = []
            var current: AnyClass? = type
            while let cls = current as? ManagedObject.Type, cls != ManagedObject.self {
                chain.append(cls)
                current = class_getSuperclassCompat(cls)
            }
            for cls in chain.reversed() where !all.contains(where: { $0 == cls }) { all.append(cls) }
        }
        try self.init(entities: all.map { try ModelReflection.entityDescription(of: $0, byReflection: byReflection) },
                      versionIdentifier: versionIdentifier)
    }

    /// For each class whose `declaredPropertyNames` differ from its properties as reflection
    /// reads them (names and order), a line naming the class and both lists; empty when they
    /// agree. A test of the model should expect it empty.
    public static func declaredPropertyNameMismatches(_ classes: ManagedObject.Type...) -> [String] {
        ModelReflection.declaredNameMismatches(classes)
    }

    /// The entity named `name`; nil when the model has none.
    public func entity(named name: String) -> Entity? {
        entityNumbers[name].map { entities[$0 - 1] }
    }

    /// The entity whose objects are instances of `type`.
    public func entity(for type: ManagedObject.Type) -> Entity? {
        classEntities[ObjectIdentifier(type)].map { entities[$0 - 1] }
    }

    /// The entity with `Z_ENT` equal to `number`.
    public func entity(number: Int) -> Entity? {
        number >= 1 && number <= entities.count ? entities[number - 1] : nil
    }

    subscript(number: Int) -> Entity { entities[number - 1] }

    /// The root entities, in number order.
    package var rootEntities: [Entity] { entities.filter { $0.parent == nil } }

    /// The layout a store the model needs no migration for is in, worked out once (the first
    /// asker computes it under a lock, and another thread asking meanwhile waits for it). Every
    /// store a process opens for the first time is compared with it, and making it costs about
    /// 1 M instructions (callgrind, a `photos` command): an app that opens its vacations one
    /// after another made it again for each.
    var storeLayout: StoreLayout {
        layout.withLock { known in
            if let known { return known }
            let made = StoreLayout(model: self)
            known = made
            return made
        }
    }

    /// Entity name → version hash, as `NSStoreModelVersionHashes` records them.
    package var versionHashes: [String: Data] {
        Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0.versionHash) })
    }
}

private func class_getSuperclassCompat(_ type: AnyClass) -> AnyClass? {
    Swift._getSuperclass(type)
}
