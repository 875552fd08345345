import CSQLite

/// One row about to change, as SQLite's pre-update hook reports it. Valid only inside the
/// handler that receives it (its values are read from SQLite while the change is under way).
package struct RowChange: ~Copyable {
    package enum Kind: Sendable, Equatable {
        case insert, update, delete
    }

    package let kind: Kind
    /// The table's name (in the main database; attached databases are not reported).
    package let table: String
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
    /// Table names seen, by the pointer SQLite passed: the hook runs for every row written, and
    /// a name compared in place costs no allocation. (A pointer SQLite reuses for another name
    /// fails the comparison and is replaced.)
    private var names: [(pointer: UnsafePointer<CChar>, name: String)] = []

    func name(at pointer: UnsafePointer<CChar>) -> String {
        for index in names.indices where names[index].pointer == pointer {
            if equals(names[index].name, pointer) { return names[index].name }
            let name = String(cString: pointer)
            names[index].name = name
            return name
        }
        let name = String(cString: pointer)
        if names.count < 64 { names.append((pointer, name)) }
        return name
    }

    private func equals(_ name: String, _ pointer: UnsafePointer<CChar>) -> Bool {
        var offset = 0
        for byte in name.utf8 {
            guard UInt8(bitPattern: pointer[offset]) == byte else { return false }
            offset += 1
        }
        return pointer[offset] == 0
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
            handler(RowChange(kind: kind, table: box.name(at: tableName), oldKey: oldKey, newKey: newKey, handle: database))
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
