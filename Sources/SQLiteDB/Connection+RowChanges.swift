import CSQLite
import Foundation

/// One row about to change, as SQLite's pre-update hook reports it. Valid only inside the
/// handler that receives it (its values are read from SQLite while the change is under way).
package struct RowChange: ~Copyable {
    package enum Kind: Sendable, Equatable {
        case insert, update, delete
    }

    package let kind: Kind
    /// The table's name (in the main database; attached databases are not reported).
    package let table: String
    /// A number for `table` that stays its own for as long as one `observeRowChanges` call observes (the same name
    /// always gets the same number), so that a handler can keep what it knows of a table in an
    /// array rather than hash the name at every row; -1 when the connection has seen too many
    /// names to number them all.
    package let tableNumber: Int
    /// The rowid before the change (updates and deletes) and after it (inserts and updates).
    package let oldKey: Int64
    package let newKey: Int64
    fileprivate let handle: OpaquePointer

    /// How many columns the table has.
    package var columnCount: Int { Int(sqlite3_preupdate_count(handle)) }

    /// A column's value before an update or a delete.
    package func oldValue(at column: Int) -> SQLiteValue {
        var value: OpaquePointer?
        guard sqlite3_preupdate_old(handle, Int32(column), &value) == SQLITE_OK else { return .null }
        return sqliteValue(value)
    }

    /// A column's value after an insert or an update.
    package func newValue(at column: Int) -> SQLiteValue {
        var value: OpaquePointer?
        guard sqlite3_preupdate_new(handle, Int32(column), &value) == SQLITE_OK else { return .null }
        return sqliteValue(value)
    }
}

/// What happened to a transaction or savepoint that `Connection`'s own methods ran.
package enum TransactionEvent: Sendable, Equatable {
    case savepointBegan, savepointReleased, savepointRolledBack
    case committed
    /// The whole transaction rolled back (SQLite's rollback hook: also a rollback SQLite made by
    /// itself, or one of a commit refused).
    case rolledBack
}

final class RowChangeBox {
    var handler: ((borrowing RowChange) -> Void)?
    /// Runs just before this connection's `transaction`, `commitTransaction` or `savepoint`
    /// commits or releases a savepoint: the last moment to write inside it.
    var willCommit: (() throws -> Void)?
    var transactionEvent: ((TransactionEvent) -> Void)?
    /// Table names seen, each with the pointer SQLite last passed for it and its bytes: the hook
    /// runs for every row written, and a name compared in place (`strcmp`) costs no allocation
    /// and no hashing. A name's index here is its `RowChange.tableNumber`, so entries are never
    /// replaced: a pointer SQLite reuses for another name fails the comparison, and that name
    /// is found (or added) by its bytes.
    private var names: [(pointer: UnsafePointer<CChar>, bytes: ContiguousArray<CChar>, name: String)] = []
    private static let numberedNames = 64

    func name(at pointer: UnsafePointer<CChar>) -> (name: String, number: Int) {
        for index in names.indices where names[index].pointer == pointer {
            if Self.same(names[index].bytes, pointer) { return (names[index].name, index) }
        }
        for index in names.indices where Self.same(names[index].bytes, pointer) {
            names[index].pointer = pointer
            return (names[index].name, index)
        }
        let name = String(cString: pointer)
        guard names.count < Self.numberedNames else { return (name, -1) }
        var bytes = ContiguousArray(name.utf8CString)
        if bytes.last != 0 { bytes.append(0) }
        names.append((pointer, bytes, name))
        return (name, names.count - 1)
    }

    private static func same(_ bytes: ContiguousArray<CChar>, _ pointer: UnsafePointer<CChar>) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in buffer.baseAddress.map { strcmp($0, pointer) == 0 } ?? false }
    }
    /// Asked by SQLite's commit hook: false turns the commit into a rollback (a commit that
    /// `willCommit` did not see, such as a statement run outside any transaction).
    var mayCommit: (() -> Bool)?
}

extension Connection {
    /// Observes every row change this connection makes to a rowid table of the main database
    /// (SQLite's pre-update hook: also changes made by triggers; not WITHOUT ROWID tables), the
    /// moment before each commit or savepoint release, and how transactions end. `handler` must not use the connection; `willCommit` may
    /// (it writes inside the transaction about to commit); `mayCommit` returning false makes a
    /// commit fail (SQLITE_CONSTRAINT_COMMITHOOK) and roll back. nil for all three stops it.
    ///
    /// ```swift
    /// var inserted = 0
    /// connection.observeRowChanges({ change in if change.kind == .insert { inserted += 1 } },
    ///                              willCommit: nil, mayCommit: nil)
    /// ```
    package func observeRowChanges(_ handler: ((borrowing RowChange) -> Void)?, willCommit: (() throws -> Void)?,
                                  mayCommit: (() -> Bool)?, transactionEvent: ((TransactionEvent) -> Void)? = nil) {
        guard handler != nil || willCommit != nil || mayCommit != nil || transactionEvent != nil else {
            sqlite3_preupdate_hook(handle, nil, nil)
            sqlite3_commit_hook(handle, nil, nil)
            sqlite3_rollback_hook(handle, nil, nil)
            rowChangeBox = nil
            return
        }
        let box = RowChangeBox()
        box.handler = handler
        box.willCommit = willCommit
        box.mayCommit = mayCommit
        box.transactionEvent = transactionEvent
        rowChangeBox = box
        let context = Unmanaged.passUnretained(box).toOpaque()
        sqlite3_preupdate_hook(handle, { context, database, operation, databaseName, tableName, oldKey, newKey in
            guard let context, let database, let tableName, let databaseName,
                  isMain(databaseName) else { return }
            let box = Unmanaged<RowChangeBox>.fromOpaque(context).takeUnretainedValue()
            guard let handler = box.handler else { return }
            let kind: RowChange.Kind
            switch operation {
            case SQLITE_INSERT: kind = .insert
            case SQLITE_DELETE: kind = .delete
            default: kind = .update
            }
            let table = box.name(at: tableName)
            handler(RowChange(kind: kind, table: table.name, tableNumber: table.number, oldKey: oldKey, newKey: newKey, handle: database))
        }, context)
        sqlite3_commit_hook(handle, { context in
            guard let context else { return 0 }
            let box = Unmanaged<RowChangeBox>.fromOpaque(context).takeUnretainedValue()
            return box.mayCommit?() == false ? 1 : 0
        }, context)
        sqlite3_rollback_hook(handle, { context in
            guard let context else { return }
            Unmanaged<RowChangeBox>.fromOpaque(context).takeUnretainedValue().transactionEvent?(.rolledBack)
        }, context)
    }
}

/// True for "main" (compared in place: the hook runs for every row written).
private func isMain(_ name: UnsafePointer<CChar>) -> Bool {
    name[0] == 0x6D && name[1] == 0x61 && name[2] == 0x69 && name[3] == 0x6E && name[4] == 0
}
