/// "The rows of an entity", one meaning everywhere (ARCHITECTURE.md §2): the rows whose `Z_ENT`
/// is the entity's own number or one of its subentities', as Core Data's fetch with
/// `includesSubentities = true` returns them.
///
/// Fetches, counts, searches, batch requests, predicates through relationships, the library's
/// listing and `docstore info` (`StoreSummary`) select or count an entity's rows through here, so
/// that an abstract parent such as MoneyWell's `Activity` never counts 0 in one place and its
/// subentities' rows in another.
package enum EntityRowFilter {
    /// The SQL condition on `column` (a `Z_ENT` column) that keeps the rows of the entities
    /// numbered `numbers`, out of a table holding the rows of `tableEntities` entities.
    ///
    /// Nil when `numbers` are every entity of the table: the whole table needs no filter.
    package static func condition(_ numbers: [Int], tableEntities: Int, column: String = "t0.Z_ENT") -> String? {
        guard numbers.count < tableEntities else { return nil }
        return "\(column) IN (\(numbers.map(String.init).joined(separator: ", ")))"
    }

    /// The number of rows of the entity whose hierarchy (itself and its subentities, at any depth)
    /// is `hierarchy`, from its table's row count per `Z_ENT`.
    package static func count(of hierarchy: some Sequence<Int>, countsByEntity: [Int: Int]) -> Int {
        hierarchy.reduce(0) { $0 + (countsByEntity[$1] ?? 0) }
    }
}

extension Entity {
    /// The SQL condition that selects this entity's rows, its own and its subentities', in its
    /// table (`EntityRowFilter`); nil when the table holds no other entity's rows.
    package func rowsCondition(in model: ObjectModel, column: String = "t0.Z_ENT") -> String? {
        EntityRowFilter.condition(hierarchy, tableEntities: model[root].hierarchy.count, column: column)
    }
}
