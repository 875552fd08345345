import Foundation

/// A fetch index an entity declares, resolved to its table's columns: Core Data stores it as
/// `CREATE INDEX Z_<Entity>_<name> ON <TABLE> (<COLUMN> COLLATE BINARY ASC, …)`.
///
/// ```swift
/// // Car declares byMakerAndNumberPlate on maker, numberPlate:
/// model.entity(named: "Car")?.fetchIndexes.first?.name      // "byMakerAndNumberPlate"
/// ```
package struct FetchIndex: Sendable, Equatable {
    package struct Element: Sendable, Equatable {
        /// The attribute or to-one relationship indexed.
        package let property: String
        package let column: String
        package let isAscending: Bool

        package init(property: String, column: String, isAscending: Bool = true) {
            self.property = property
            self.column = column
            self.isAscending = isAscending
        }
    }

    /// The index's name in the model (the store's index is `Z_<Entity>_<name>`).
    package let name: String
    package let elements: [Element]

    package init(name: String, elements: [Element]) {
        self.name = name
        self.elements = elements
    }

    /// The name of the `position`th index an entity lists without names (`indexes`: Xcode's old
    /// compound indexes): `compoundIndex`, `compoundIndex1`, `compoundIndex2`…, the names Xcode
    /// gives them when it converts a model to fetch indexes (Apple's Photos store keeps
    /// `Z_AssetAnalysisState_compoundIndex` and `…_compoundIndex1`).
    package static func unnamedIndexName(position: Int) -> String {
        position == 0 ? "compoundIndex" : "compoundIndex\(position)"
    }

    /// Resolves an entity's named fetch indexes, then its unnamed compound indexes (lists of
    /// property names, named `compoundIndex…`), against its attributes and to-one relationships.
    /// A fetch index with an R-tree or expression element has no B-tree index of that name (Core
    /// Data keeps an R-tree in `Z_RT_…` tables of its own) and is left out.
    ///
    /// - Throws: `ModelError` for a name that is not a property; an index over a to-many is left
    ///   out (it has no column here).
    static func resolve(named: [FetchIndexDescription], unnamed lists: [[String]], entity: String, attributes: [EntityAttribute],
                        relationships: [EntityRelationship]) throws -> [FetchIndex] {
        var result: [FetchIndex] = []
        for index in named where index.elements.allSatisfy({ $0.type == .binary && $0.property != nil }) {
            let resolved = try resolve([index.elements.compactMap(\.property)], entity: entity, attributes: attributes,
                                       relationships: relationships)
            guard let elements = resolved.first?.elements else { continue }
            result.append(FetchIndex(name: index.name, elements: zip(elements, index.elements).map {
                Element(property: $0.property, column: $0.column, isAscending: $1.isAscending)
            }))
        }
        // `indexes` lists the named fetch indexes' properties too (for older readers): those are done.
        let unnamed = lists.filter { list in !named.contains { $0.elements.compactMap(\.property) == list } }
        return result + (try resolve(unnamed, entity: entity, attributes: attributes, relationships: relationships))
    }

    static func resolve(_ lists: [[String]], entity: String, attributes: [EntityAttribute],
                        relationships: [EntityRelationship]) throws -> [FetchIndex] {
        var result: [FetchIndex] = []
        for (position, names) in lists.enumerated() {
            var elements: [Element] = []
            for name in names {
                if let column = attributes.first(where: { $0.name == name })?.column {
                    elements.append(Element(property: name, column: column))
                } else if let relationship = relationships.first(where: { $0.name == name }) {
                    guard case .foreignKey(let column, _) = relationship.storage else { break }
                    elements.append(Element(property: name, column: column))
                } else {
                    throw ModelError("index of \(entity) names \(name), which is not one of its stored attributes or to-one relationships")
                }
            }
            // An index over a to-many has no column in the entity's table: Core Data indexes the
            // join table instead (as Photos' cached model shows, `AlbumList.albums`), as we do.
            guard elements.count == names.count else { continue }
            result.append(FetchIndex(name: unnamedIndexName(position: position), elements: elements))
        }
        return result
    }
}
