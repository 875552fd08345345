import Foundation
import ObjectGraph
import SQLiteDB

/// A `docstore` failure: one line for standard error, an optional hint, and the exit code.
///
/// The codes are the `vacation` command's: 1 the operation failed, 65 bad input (not a Core
/// Data store, a malformed model, a model that does not fit the store), 66 no such file or
/// entity. Usage errors (64) are `CLIUsageError`s.
///
/// ```swift
/// throw DocStoreError.noSuchFile("/tmp/missing.sqlite")   // Error: no such file: /tmp/missing.sqlite
/// ```
public struct DocStoreError: Error, Equatable, CustomStringConvertible, Sendable {
    public var message: String
    /// What to do about it, printed on the next line when there is something to say.
    public var hint: String?
    public var exitCode: Int32

    public init(_ message: String, hint: String? = nil, exitCode: Int32) {
        self.message = message
        self.hint = hint
        self.exitCode = exitCode
    }

    public var description: String {
        "Error: \(message)" + (hint.map { "\n" + $0 } ?? "")
    }

    public static let failureCode: Int32 = 1
    public static let badInputCode: Int32 = 65
    public static let noSuchInputCode: Int32 = 66

    static func noSuchFile(_ path: String) -> DocStoreError {
        DocStoreError("no such file: \(path)", exitCode: noSuchInputCode)
    }

    static func badInput(_ message: String, hint: String? = nil) -> DocStoreError {
        DocStoreError(message, hint: hint, exitCode: badInputCode)
    }

    static func failed(_ message: String, hint: String? = nil) -> DocStoreError {
        DocStoreError(message, hint: hint, exitCode: failureCode)
    }

    /// Classifies what the lower layers throw.
    static func from(_ error: any Error, path: String) -> DocStoreError {
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
