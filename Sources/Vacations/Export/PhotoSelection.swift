import Foundation
import ObjectGraph
import SQLiteDB

/// Which photos a trip list or an export covers: every photo, or those matching a predicate
/// of the format language against Photo. `export --where` makes one from its text; a saved
/// album can make one from its stored predicate.
///
/// ```swift
/// let selection = try PhotoSelection(format: "ANY tags.name == 'sea'")
/// let keys = try selection.resolve(in: context)          // checked against the model, then run
/// ```
package struct PhotoSelection: Sendable, Equatable {
    package var predicate: ObjectPredicate?

    package static let all = PhotoSelection(predicate: nil)

    package init(predicate: ObjectPredicate?) {
        self.predicate = predicate
    }

    /// A selection from predicate text; nil or empty text selects every photo.
    ///
    /// - Throws: `QueryError` when the text does not parse (with the position).
    package init(format: String?) throws(QueryError) {
        guard let format else {
            self.init(predicate: nil)
            return
        }
        do {
            self.init(predicate: try ObjectPredicate(format: format))
        } catch {
            throw QueryError(message: "invalid predicate: \(error)")
        }
    }

    /// Runs the selection: every photo, or the primary keys of the matching photos.
    ///
    /// - Throws: `QueryError` for a predicate the model or the store refuses (an unknown key
    ///   path, a type mismatch, an expression too deep for SQLite).
    package func resolve(in context: ObjectContext) throws -> ResolvedSelection {
        guard let predicate else { return .all }
        do {
            let ids = try context.fetchObjectIDs(FetchRequest<Photo>(predicate: predicate))
            return ResolvedSelection(keys: ids.map(\.primaryKey))
        } catch let error as FetchRequestError {
            throw QueryError(message: "invalid predicate: \(error)")
        } catch let error as ObjectPredicateError {
            throw QueryError(message: "invalid predicate: \(error)")
        } catch let error as SQLiteError where error.resultCode == 1 || error.resultCode == 18 {
            // SQLITE_ERROR or SQLITE_TOOBIG from a predicate that parses but that SQLite cannot
            // run (too deep, too many values): the predicate's fault, as `photos --where` says.
            throw QueryError(message: "invalid predicate: the store cannot run it: \(error.message)")
        }
    }
}

/// A selection run against a store: every photo, or a set of primary keys (8 bytes a
/// matching photo, sorted, looked up by binary search as rows stream by).
package struct ResolvedSelection: Sendable, Equatable {
    private let keys: [Int64]?

    package static let all = ResolvedSelection(allPhotos: ())

    private init(allPhotos: Void) { keys = nil }

    package init(keys: [Int64]) {
        self.keys = keys.sorted()
    }

    var isAll: Bool { keys == nil }

    package func contains(_ key: Int64) -> Bool {
        guard let keys else { return true }
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < keys.count && keys[low] == key
    }
}
