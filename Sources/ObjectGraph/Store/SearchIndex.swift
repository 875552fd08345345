import Foundation

/// The full-text search index of one table: an SQLite FTS5 table holding, for every row of the
/// table, the text of its entity's searchable attributes and of the searchable attributes it
/// reaches through relationships (a photo's title, its place's name, its tags' names).
///
/// The model makes one for each table whose entities declare something searchable
/// (`@Attribute(searchable: true)`, `@Relationship(inverse:searchable:)`); the store creates it
/// with triggers that keep it in step with every write, whoever makes it (ARCHITECTURE.md §2,
/// "The search index").
///
/// Its name is `FTS_<TABLE>_SEARCH` (`FTS_ZPHOTO_SEARCH`): outside Core Data's namespaces (its
/// tables start with `Z`, its history and mirroring tables with `A`, its ubiquity tables with
/// `Y_`), so that neither Core Data nor the migration planner, which drops `Z` tables the model
/// does not name, mistakes it for one of theirs. The `_SEARCH` suffix keeps two indexes apart
/// from each other's FTS5 shadow tables (`<name>_data`, `_idx`, `_content`, `_docsize`,
/// `_config`): no index name ends like a shadow table's.
///
/// ```swift
/// let index = model.searchIndex(for: model.entity(named: "Photo")!)
/// index?.name                      // "FTS_ZPHOTO_SEARCH"
/// index?.columns.map(\.name)       // ["title", "subtitle", "owner", "place", "tags"]
/// ```
package struct SearchIndex: Sendable, Hashable {
    /// The FTS5 table.
    package let name: String
    /// The table whose rows it indexes (a root entity's, holding its whole hierarchy).
    package let table: String
    /// One FTS5 column per searchable source, in the order the entities declare them.
    package let columns: [Column]

    /// A column of the index and where its text comes from.
    package struct Column: Sendable, Hashable {
        /// The FTS5 column: the property's name (made unique within the index).
        package let name: String
        package let source: Source
    }

    /// Where a column's text comes from, for a row `R` of `table`.
    package enum Source: Sendable, Hashable {
        /// `R.<column>`.
        case attribute(column: String)
        /// The `column` of the `table` row that `R.<key>` points at.
        case toOne(key: String, table: String, column: String)
        /// The `column` of every `table` row that `joinTable` pairs with `R` (`own` holds R's
        /// key, `other` the destination's), space-separated in key order.
        case toMany(joinTable: String, own: String, other: String, table: String, column: String)
    }

    /// The tokenizer: words of letters, digits and marks, case and diacritics folded.
    package static let tokenizer = "unicode61 remove_diacritics 2"

    /// `FTS_<TABLE>_SEARCH`.
    package static func name(forTable table: String) -> String { "FTS_" + table + "_SEARCH" }

    /// What every index name and trigger name of ours begins with, and what an index name ends
    /// with: how the store tells its own search objects from anything else in a database.
    static let namePrefix = "FTS_"
    static let nameSuffix = "_SEARCH"

    /// The search indexes a model's entities declare, one per table with searchable sources.
    ///
    /// - Throws: `ModelError` for a searchable attribute that is not a stored string, or a
    ///   searchable relationship that is not a to-one or a many-to-many, or that names an
    ///   attribute of its destination that is not a stored string.
    static func indexes(of entities: [Entity]) throws -> [SearchIndex] {
        let byNumber = Dictionary(uniqueKeysWithValues: entities.map { ($0.number, $0) })
        var indexes: [SearchIndex] = []
        for root in entities where root.parent == nil {
            let indexName = name(forTable: root.table)
            var columns: [Column] = []
            // FTS5 also has a hidden column named after its table.
            var usedNames: Set<String> = [indexName.lowercased()]
            func add(_ property: String, in entity: Entity, _ source: Source) {
                var name = property
                if usedNames.contains(name.lowercased()) { name += "_" + entity.name }
                while reservedColumnNames.contains(name.lowercased()) || usedNames.contains(name.lowercased()) { name += "_" }
                usedNames.insert(name.lowercased())
                columns.append(Column(name: name, source: source))
            }
            for number in root.hierarchy.sorted() {
                guard let entity = byNumber[number] else { continue }
                for attribute in entity.attributes where attribute.declaringEntity == number && attribute.declaration.isSearchable {
                    guard attribute.type == .string, let column = attribute.column else {
                        throw ModelError("attribute \(entity.name).\(attribute.name) is searchable, but only stored String attributes can be")
                    }
                    add(attribute.name, in: entity, .attribute(column: column))
                }
                for relationship in entity.relationships where relationship.declaringEntity == number {
                    guard let attributeName = relationship.declaration.searchableAttribute else { continue }
                    guard let destination = byNumber[relationship.destination],
                          let target = destination.attribute(named: attributeName),
                          target.type == .string, let targetColumn = target.column else {
                        throw ModelError("relationship \(entity.name).\(relationship.name) searches \(relationship.declaration.destination)."
                            + "\(attributeName), which is not a stored String attribute")
                    }
                    let destinationTable = byNumber[destination.root]?.table ?? destination.table
                    switch relationship.storage {
                    case .foreignKey(let key, _):
                        add(relationship.name, in: entity, .toOne(key: key, table: destinationTable, column: targetColumn))
                    case .joinTable(let joinTable, let own, let other):
                        add(relationship.name, in: entity, .toMany(joinTable: joinTable, own: own, other: other,
                                                                   table: destinationTable, column: targetColumn))
                    case .inverseForeignKey:
                        throw ModelError("relationship \(entity.name).\(relationship.name) is searchable, but only to-one and "
                            + "many-to-many relationships can be")
                    }
                }
            }
            if !columns.isEmpty {
                indexes.append(SearchIndex(name: indexName, table: root.table, columns: columns))
            }
        }
        return indexes
    }

    /// FTS5's hidden columns and SQLite's names for the row id.
    private static let reservedColumnNames: Set<String> = ["rank", "rowid", "oid", "_rowid_"]
}

extension ObjectModel {
    /// The search index holding `entity`'s rows, if its table has one.
    package func searchIndex(for entity: Entity) -> SearchIndex? {
        searchIndexes.first { $0.table == entity.table }
    }
}
