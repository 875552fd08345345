import Foundation
import SQLiteDB

/// Sync's bookkeeping, kept in the vacation's own store in tables outside Core Data's names
/// (`Z…`), its history's (`A…`) and the search index's (`FTS_…`), so that it commits in the
/// same transaction as the changes it describes and travels with backups:
///
/// - `SYNC_REGISTER(ENTITY, KEY, FIELD, VALUE, COUNTER, DEVICE)`: every register's winning write
///   so far. It is also the state at the last sync, against which the next sync finds what
///   this library changed.
/// - `SYNC_APPLIED(DEVICE, SEQUENCE)`: the change files applied (this device's own included).
/// - `SYNC_OUTBOX(SEQUENCE, CONTENT)`: change files committed but not yet written to the folder.
/// - `SYNC_STATE(NAME, VALUE)`: the highest Lamport counter seen (`counter`).
struct SyncTables {
    let connection: Connection

    static let schema = [
        """
        CREATE TABLE IF NOT EXISTS SYNC_REGISTER (ENTITY TEXT NOT NULL, KEY TEXT NOT NULL, FIELD TEXT NOT NULL, \
        VALUE TEXT, COUNTER INTEGER NOT NULL, DEVICE TEXT NOT NULL, PRIMARY KEY (ENTITY, KEY, FIELD)) WITHOUT ROWID
        """,
        "CREATE TABLE IF NOT EXISTS SYNC_APPLIED (DEVICE TEXT NOT NULL, SEQUENCE INTEGER NOT NULL, PRIMARY KEY (DEVICE, SEQUENCE)) WITHOUT ROWID",
        "CREATE TABLE IF NOT EXISTS SYNC_OUTBOX (SEQUENCE INTEGER PRIMARY KEY, CONTENT BLOB NOT NULL)",
        "CREATE TABLE IF NOT EXISTS SYNC_STATE (NAME TEXT PRIMARY KEY, VALUE INTEGER NOT NULL) WITHOUT ROWID",
    ]

    func create() throws {
        for statement in Self.schema { try connection.execute(statement) }
    }

    func registers() throws -> [SyncRegisterKey: SyncWrite] {
        var result: [SyncRegisterKey: SyncWrite] = [:]
        let statement = try connection.cachedStatement("SELECT ENTITY, KEY, FIELD, VALUE, COUNTER, DEVICE FROM SYNC_REGISTER")
        try statement.forEachRow { row in
            guard let entity = row.string(at: 0).flatMap(SyncEntity.init(rawValue:)),
                  let key = row.string(at: 1), let field = row.string(at: 2), let device = row.string(at: 5) else { return }
            let register = SyncRegisterKey(entity, key, field)
            result[register] = SyncWrite(register, value: row.string(at: 3),
                                         clock: SyncClock(counter: row.int64(at: 4), device: device))
        }
        return result
    }

    func store(_ write: SyncWrite) throws {
        let statement = try connection.cachedStatement(
            "INSERT OR REPLACE INTO SYNC_REGISTER (ENTITY, KEY, FIELD, VALUE, COUNTER, DEVICE) VALUES (?, ?, ?, ?, ?, ?)")
        try statement.run([.text(write.register.entity.rawValue), .text(write.register.key), .text(write.register.field),
                           write.value.map(SQLiteValue.text) ?? .null, .integer(write.clock.counter), .text(write.clock.device)])
    }

    func applied() throws -> Set<FileKey> {
        Set(try connection.rows("SELECT DEVICE, SEQUENCE FROM SYNC_APPLIED") { FileKey(device: $0.string(at: 0) ?? "", sequence: $0.int64(at: 1)) })
    }

    func recordApplied(_ file: FileKey) throws {
        try connection.execute("INSERT OR IGNORE INTO SYNC_APPLIED (DEVICE, SEQUENCE) VALUES (?, ?)",
                               [.text(file.device), .integer(file.sequence)])
    }

    func highestSequence(of device: String) throws -> Int64 {
        try connection.scalar("SELECT max(SEQUENCE) FROM SYNC_APPLIED WHERE DEVICE = ?", [.text(device)])?.integerValue ?? 0
    }

    func counter() throws -> Int64 {
        try connection.scalar("SELECT VALUE FROM SYNC_STATE WHERE NAME = 'counter'")?.integerValue ?? 0
    }

    func setCounter(_ value: Int64) throws {
        try connection.execute("INSERT OR REPLACE INTO SYNC_STATE (NAME, VALUE) VALUES ('counter', ?)", [.integer(value)])
    }

    func outbox() throws -> [(sequence: Int64, content: Data)] {
        try connection.rows("SELECT SEQUENCE, CONTENT FROM SYNC_OUTBOX ORDER BY SEQUENCE") { ($0.int64(at: 0), $0.data(at: 1) ?? Data()) }
    }

    func addToOutbox(sequence: Int64, content: Data) throws {
        try connection.execute("INSERT OR REPLACE INTO SYNC_OUTBOX (SEQUENCE, CONTENT) VALUES (?, ?)", [.integer(sequence), .blob(content)])
    }

    func removeFromOutbox(sequence: Int64) throws {
        try connection.execute("DELETE FROM SYNC_OUTBOX WHERE SEQUENCE = ?", [.integer(sequence)])
    }
}

/// A change file's identity: the device that wrote it and its sequence number.
package struct FileKey: Hashable, Sendable, Comparable {
    package var device: String
    package var sequence: Int64

    package init(device: String, sequence: Int64) {
        self.device = device
        self.sequence = sequence
    }

    package static func < (left: Self, right: Self) -> Bool {
        (left.device, left.sequence) < (right.device, right.sequence)
    }
}
