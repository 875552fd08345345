import Foundation
import SQLiteDB

/// A point in a store's persistent history: one transaction, by its key in `ATRANSACTION` and
/// the store's UUID (Core Data's `NSPersistentHistoryToken`).
///
/// Its text form, `"<transaction>:<store UUID>"`, is what the command line shows and takes back.
public struct HistoryToken: Sendable, Hashable, Comparable, Codable, CustomStringConvertible, LosslessStringConvertible {
    /// The transaction's `Z_PK`.
    public let transactionNumber: Int64
    /// The store's `Z_UUID`.
    public let storeUUID: String

    /// The token of transaction `transactionNumber` of the store whose `Z_UUID` is `storeUUID`.
    public init(transactionNumber: Int64, storeUUID: String) {
        self.transactionNumber = transactionNumber
        self.storeUUID = storeUUID
    }

    /// Reads the text form; nil when `description` is not one.
    public init?(_ description: String) {
        guard let colon = description.firstIndex(of: ":"),
              let number = Int64(description[..<colon]), number >= 0 else { return nil }
        let uuid = String(description[description.index(after: colon)...])
        guard !uuid.isEmpty else { return nil }
        self.init(transactionNumber: number, storeUUID: uuid)
    }

    /// The text form, `"<transaction>:<store UUID>"`.
    public var description: String { "\(transactionNumber):\(storeUUID)" }

    /// Earlier transactions first (tokens of one store compare by transaction).
    public static func < (lhs: HistoryToken, rhs: HistoryToken) -> Bool {
        lhs.transactionNumber != rhs.transactionNumber ? lhs.transactionNumber < rhs.transactionNumber : lhs.storeUUID < rhs.storeUUID
    }
}

/// `NSPersistentHistoryChangeType`, with Core Data's stored numbers.
public enum HistoryChangeType: Int64, Sendable, Codable, CaseIterable {
    /// The object was inserted.
    case insert = 0
    /// Properties of the object changed (`HistoryChange.updatedProperties`).
    case update = 1
    /// The object was deleted (`HistoryChange.tombstone`).
    case delete = 2
}

/// One object's change in a history transaction.
public struct HistoryChange: Sendable, Equatable {
    /// Insert, update or delete.
    public var changeType: HistoryChangeType
    /// The object's permanent ID (`ZENTITY`, `ZENTITYPK`).
    public var objectID: ObjectID
    /// The name of the object's entity.
    public var entityName: String
    /// For an update: the properties it changed, decoded from `ZCOLUMNS`; empty otherwise.
    public var updatedProperties: Set<String>
    /// For a delete: the values of the attributes its entity preserves after deletion, by name
    /// (stored form); empty otherwise.
    public var tombstone: [String: SQLiteValue]

    /// A change as `fetchHistory` reads it.
    public init(changeType: HistoryChangeType, objectID: ObjectID, entityName: String,
                updatedProperties: Set<String> = [], tombstone: [String: SQLiteValue] = [:]) {
        self.changeType = changeType
        self.objectID = objectID
        self.entityName = entityName
        self.updatedProperties = updatedProperties
        self.tombstone = tombstone
    }
}

/// One committed save or batch operation, as its history records it.
public struct HistoryTransaction: Sendable, Equatable {
    /// The transaction's token: fetch after it to read what came next.
    public var token: HistoryToken
    /// When the transaction was written (`ZTIMESTAMP`).
    public var timestamp: Date
    /// The saving context's `transactionAuthor` (or the coordinator's).
    public var author: String?
    /// The saving context's name.
    public var contextName: String?
    /// The name of the process that wrote it.
    public var processName: String?
    /// The writing app's bundle identifier (the process name where there is none, as on Linux).
    public var bundleIdentifier: String?
    /// In the order they were written.
    public var changes: [HistoryChange]

    /// The change set this transaction describes, as a context would receive it.
    public var changeSet: ChangeSet {
        var changeSet = ChangeSet()
        changeSet.author = contextName
        for change in changes {
            switch change.changeType {
            case .insert: changeSet.inserted.insert(change.objectID)
            case .update:
                changeSet.updated.insert(change.objectID)
                changeSet.changedKeys[change.objectID, default: []].formUnion(change.updatedProperties)
            case .delete: changeSet.deleted.insert(change.objectID)
            }
        }
        return changeSet
    }
}

extension StoreCoordinator {
    /// True when the store keeps persistent history (it was opened with `tracksHistory`, or it
    /// already had Core Data's history tables).
    public var tracksHistory: Bool {
        withStore { $0.history != nil }
    }

    /// The author written to history for saves whose context names none and for batch
    /// operations; nil writes none.
    public var transactionAuthor: String? {
        get { withStore { $0.history?.defaultAuthor } }
        set { withStore { $0.history?.defaultAuthor = newValue } }
    }

    /// The token of the newest transaction in the store's history; nil when it has none (or no
    /// history at all).
    public func currentHistoryToken() throws -> HistoryToken? {
        try withStore { store in
            guard store.history != nil,
                  let newest = try store.connection.scalar("SELECT max(Z_PK) FROM ATRANSACTION")?.integerValue else { return nil }
            return HistoryToken(transactionNumber: newest, storeUUID: store.uuid)
        }
    }

    /// The transactions after `token` (all of them for nil), oldest first, each with its
    /// changes; only those by `author` when one is given; only changes of `entityNames` (and
    /// transactions that have some) when given.
    ///
    /// ```swift
    /// for transaction in try coordinator.fetchHistory(after: lastToken) {
    ///     context.merge(transaction.changeSet)
    ///     lastToken = transaction.token
    /// }
    /// ```
    ///
    /// - Throws: `StoreError` when the store keeps no history, the token is another store's, or
    ///   a change names an entity the model does not have; `SQLiteError`.
    public func fetchHistory(after token: HistoryToken? = nil, author: String? = nil,
                             entityNames: Set<String>? = nil) throws -> [HistoryTransaction] {
        try withStore { store in
            try store.readHistory(after: try store.checked(token), author: author, entityNames: entityNames)
        }
    }

    /// Deletes every transaction before `token` (not the one it names) with its changes, as
    /// Core Data's `deleteHistory(before:)` does; returns how many transactions went.
    ///
    /// - Throws: `StoreError` when the store keeps no history, is read-only, or the token is
    ///   another store's; `SQLiteError`.
    @discardableResult
    public func deleteHistory(before token: HistoryToken) throws -> Int {
        guard !isReadOnly else { throw StoreError("the store is open read-only") }
        return try withStore { store in
            let number = try store.checked(token) ?? 0
            return try store.connection.transaction(.immediate) {
                try store.connection.execute("DELETE FROM ACHANGE WHERE ZTRANSACTIONID < ?", [.integer(number)])
                try store.connection.execute("DELETE FROM ATRANSACTION WHERE Z_PK < ?", [.integer(number)])
                return store.connection.changes
            }
        }
    }
}

extension SQLiteStore {
    /// The transaction number of `token`, checked to be this store's.
    func checked(_ token: HistoryToken?) throws -> Int64? {
        guard history != nil else { throw StoreError("the store keeps no persistent history") }
        guard let token else { return nil }
        guard token.storeUUID == uuid else {
            throw StoreError("the history token \(token) is another store's (this one is \(uuid))")
        }
        return token.transactionNumber
    }

    /// History transactions with keys above `after`, oldest first.
    func readHistory(after: Int64?, author: String?, entityNames: Set<String>?) throws -> [HistoryTransaction] {
        guard let history else { throw StoreError("the store keeps no persistent history") }
        var entityNumbers: Set<Int>?
        if let entityNames {
            var numbers = Set<Int>()
            for name in entityNames {
                guard let entity = model.entity(named: name) else { throw StoreError("the model has no entity named \(name)") }
                numbers.insert(entity.number)
            }
            entityNumbers = numbers
        }
        var conditions = ["t.Z_PK > ?"]
        var arguments: [SQLiteValue] = [.integer(after ?? 0)]
        if let author {
            conditions.append("(a.ZNAME = ? OR (t.ZAUTHORTS IS NULL AND t.ZAUTHOR = ?))")
            arguments += [.text(author), .text(author)]
        }
        // The …TS columns point at interned strings; the VARCHAR columns are read when a writer
        // filled those instead.
        let transactions = try connection.rows(
            "SELECT t.Z_PK, t.ZTIMESTAMP, coalesce(a.ZNAME, t.ZAUTHOR), coalesce(c.ZNAME, t.ZCONTEXTNAME), "
                + "coalesce(p.ZNAME, t.ZPROCESSID), coalesce(b.ZNAME, t.ZBUNDLEID) FROM ATRANSACTION t "
                + "LEFT JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS LEFT JOIN ATRANSACTIONSTRING c ON c.Z_PK = t.ZCONTEXTNAMETS "
                + "LEFT JOIN ATRANSACTIONSTRING p ON p.Z_PK = t.ZPROCESSIDTS LEFT JOIN ATRANSACTIONSTRING b ON b.Z_PK = t.ZBUNDLEIDTS "
                + "WHERE \(conditions.joined(separator: " AND ")) ORDER BY t.Z_PK", arguments) { row in
            HistoryTransaction(token: HistoryToken(transactionNumber: row.int64(at: 0), storeUUID: uuid),
                               timestamp: Date(timeIntervalSinceReferenceDate: row.double(at: 1)),
                               author: row.string(at: 2), contextName: row.string(at: 3),
                               processName: row.string(at: 4), bundleIdentifier: row.string(at: 5), changes: [])
        }
        guard !transactions.isEmpty else { return [] }
        let tombstoneColumns = try HistorySchema.storedTombstoneCount(on: connection)
        let statement = try connection.cachedStatement(
            "SELECT ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS" + (0..<tombstoneColumns).map { ", ZTOMBSTONE\($0)" }.joined()
                + " FROM ACHANGE WHERE ZTRANSACTIONID = ? ORDER BY Z_PK")
        var result: [HistoryTransaction] = []
        result.reserveCapacity(transactions.count)
        for var transaction in transactions {
            statement.bind(transaction.token.transactionNumber, at: 0)
            try statement.forEachRow { row in
                let entityNumber = row.int(at: 1)
                if let entityNumbers, !entityNumbers.contains(entityNumber) { return }
                guard let entity = model.entity(number: entityNumber), let layout = history.layout(of: entityNumber) else {
                    throw StoreError("history transaction \(transaction.token.transactionNumber) names entity \(entityNumber), which the model does not have")
                }
                guard let type = HistoryChangeType(rawValue: row.int64(at: 0)) else {
                    throw StoreError("history transaction \(transaction.token.transactionNumber) has a change of unknown type \(row.int64(at: 0))")
                }
                var change = HistoryChange(changeType: type, objectID: ObjectID(entityNumber: entityNumber, primaryKey: row.int64(at: 2)),
                                           entityName: entity.name, updatedProperties: [], tombstone: [:])
                if type == .update, let columns = row.data(at: 3) { change.updatedProperties = layout.names(in: Array(columns)) }
                if type == .delete {
                    for (index, slot) in layout.tombstoneSlots.enumerated() where index < tombstoneColumns {
                        let value = row.value(at: 4 + index)
                        if !value.isNull { change.tombstone[entity.attributes[slot].name] = value }
                    }
                }
                transaction.changes.append(change)
            }
            if entityNumbers != nil && transaction.changes.isEmpty { continue }
            result.append(transaction)
        }
        return result
    }
}
