import CSQLite
import Foundation
import ObjectGraph
import Vacations

/// The baseline's persistent history, written by hand as the framework writes it (README.md,
/// "Persistent history"), so that the import figures still compare equal work once vacations
/// track history: one `ATRANSACTION` row for the import with its process name interned in
/// `ATRANSACTIONSTRING`, one `ACHANGE` row per photo, tag and place inserted, updated or
/// deleted (an update with the bit vector of the properties the baseline writes), keys from
/// `Z_PRIMARYKEY` 16001–16003.
final class BaselineHistory {
    private let database: RawDatabase
    private let insertChange: RawStatement
    private let transaction: Int64
    private var nextChange: Int64
    private static let changeEntity: Int64 = 16001
    private static let transactionEntity: Int64 = 16002
    private static let stringEntity: Int64 = 16003

    /// History for the store behind `database`, or nil when it keeps none; takes its keys from
    /// `keys` (`Z_PRIMARYKEY`'s maxima), which `finish` leaves updated for the caller to write.
    init?(database: RawDatabase, keys: inout [Int64: Int64]) throws {
        guard try database.integer("SELECT count(*) FROM sqlite_master WHERE name = 'ACHANGE'") > 0 else { return nil }
        self.database = database
        let highest = try database.integer("SELECT coalesce(max(Z_PK), 0) FROM ATRANSACTION")
        transaction = max(keys[Self.transactionEntity] ?? 0, highest) + 1
        keys[Self.transactionEntity] = transaction
        nextChange = max(keys[Self.changeEntity] ?? 0, try database.integer("SELECT coalesce(max(Z_PK), 0) FROM ACHANGE")) + 1
        insertChange = try database.prepare(
            "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) VALUES (?, 16001, NULL, ?, ?, ?, ?, ?)")
    }

    /// Writes one change row; `columns` for updates.
    func record(_ type: HistoryChangeType, entity: Int64, key: Int64, columns: [UInt8]? = nil) throws {
        insertChange.bind(nextChange, 0)
        insertChange.bind(type.rawValue, 1)
        insertChange.bind(entity, 2)
        insertChange.bind(key, 3)
        insertChange.bind(transaction, 4)
        if let columns {
            _ = columns.withUnsafeBytes { bytes in
                sqlite3_bind_blob(insertChange.handle, 6, bytes.baseAddress, Int32(bytes.count), unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self))
            }
        } else {
            insertChange.bindNull(5)
        }
        try insertChange.run()
        nextChange += 1
    }

    /// Writes the transaction row and leaves the history keys' maxima in `keys`.
    func finish(keys: inout [Int64: Int64]) throws {
        let process = ProcessInfo.processInfo.processName
        let find = try database.prepare("SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?")
        find.bind(process, 0)
        var string: Int64
        if try find.step() {
            string = find.int64(0)
        } else {
            let highest = try database.integer("SELECT coalesce(max(Z_PK), 0) FROM ATRANSACTIONSTRING")
            string = max(keys[Self.stringEntity] ?? 0, highest) + 1
            keys[Self.stringEntity] = string
            let insert = try database.prepare("INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, 16003, NULL, ?)")
            insert.bind(string, 0)
            insert.bind(process, 1)
            try insert.run()
        }
        find.reset()
        let insert = try database.prepare("""
            INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZBUNDLEIDTS, ZPROCESSIDTS, ZTIMESTAMP) VALUES (?, 16002, NULL, ?, ?, ?)
            """)
        insert.bind(transaction, 0)
        insert.bind(string, 1)
        insert.bind(string, 2)
        insert.bind(Date().timeIntervalSinceReferenceDate, 3)
        try insert.run()
        keys[Self.changeEntity] = nextChange - 1
    }

    /// The bit vector naming `properties` of `entity`, by the framework's rule: one bit per
    /// property, most significant first; attributes, to-ones, to-manys, each by name.
    static func columns(entity name: String, properties: Set<String>) -> [UInt8] {
        guard let entity = VacationModel.model.entity(named: name) else { return [] }
        let sorted = { (names: [String]) in
            names.sorted { ($0.lowercased(), $0) < ($1.lowercased(), $1) }
        }
        let order = sorted(entity.attributes.map(\.name)) + sorted(entity.relationships.filter { !$0.isToMany }.map(\.name))
            + sorted(entity.relationships.filter(\.isToMany).map(\.name))
        var bytes = [UInt8](repeating: 0, count: (order.count + 7) / 8)
        for (index, property) in order.enumerated() where properties.contains(property) {
            bytes[index / 8] |= UInt8(0x80) >> UInt8(index % 8)
        }
        return bytes
    }
}
