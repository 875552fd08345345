import CommandLineKit
import Foundation
import CoreDataFiles
import ObjectGraph
import SQLiteDB

/// A `docstore` failure: one line for standard error, an optional hint, and the exit code.
///
/// The codes are the `vacation` command's: 1 the operation failed, 65 bad input (not a Core
/// Data store, a malformed model, a model that does not fit the store), 66 no such file or
/// entity. Usage errors (64) are `CLIUsageError`s. It is the command-line kit's `CommandFailure`,
/// classified from what the layers below throw by `from(_:path:)`.
///
/// ```swift
/// throw DocStoreError.noSuchFile("/tmp/missing.sqlite")   // Error: no such file: /tmp/missing.sqlite
/// ```
typealias DocStoreError = CommandFailure

extension CommandFailure {
    static func noSuchFile(_ path: String) -> CommandFailure {
        .notFound("no such file: \(path)")
    }

    /// Classifies what the lower layers throw.
    static func from(_ error: any Error, path: String) -> CommandFailure {
        switch error {
        case let error as DocStoreError:
            return error
        case let error as XCDataModelError:
            return badInput("\(error)")
        case let error as ModelError:
            return badInput("\(error)")
        case let error as MigrationError:
            return failed("\(error)", hint: "Only lightweight migrations are possible: added or removed properties and entities, renames through renaming identifiers.")
        case let error as StoreError:
            // The store's bookkeeping is not what Core Data writes: bad input.
            return badInput("\(path): \(error)")
        case let error as SQLiteError where error.resultCode == 26:  // SQLITE_NOTADB
            return badInput("\(path) is not a Core Data store (not a SQLite database)")
        case let error as SQLiteError where [14, 8].contains(error.resultCode):  // SQLITE_CANTOPEN, SQLITE_READONLY
            return failed("cannot open \(path): \(error.message)",
                          hint: "A store in WAL mode needs its folder to be writable, even to be read: copy the document somewhere writable.")
        default:
            return failed("\(path): \(error)")
        }
    }
}
