import Foundation
import ObjectGraph
import SQLiteDB
import Vacations

/// Persistent history checked against the data it describes (issue 18): the objects whose
/// latest history change is an insert or update are exactly the rows the store has, every
/// change belongs to a transaction that exists, and no history key is above its `Z_MAX`. A
/// commit cut short by a crash must leave both or neither.
enum HistoryConsistency {
    /// The first problem found in the store at `path`, or nil.
    static func problem(inStoreAt path: String) throws -> String? {
        let connection = try Connection(path: path, configuration: .init(readOnly: true, create: false, journalMode: nil, synchronous: nil))
        guard try connection.tableExists("ACHANGE") else { return "the store keeps no history" }
        var live = Set<[Int64]>()
        try connection.prepare("""
            SELECT ZENTITY, ZENTITYPK, ZCHANGETYPE FROM (SELECT ZENTITY, ZENTITYPK, ZCHANGETYPE,
            row_number() OVER (PARTITION BY ZENTITY, ZENTITYPK ORDER BY Z_PK DESC) AS newest FROM ACHANGE) WHERE newest = 1
            """).forEachRow { row in
            if row.int64(at: 2) != HistoryChangeType.delete.rawValue { live.insert([row.int64(at: 0), row.int64(at: 1)]) }
        }
        var rows = Set<[Int64]>()
        for entity in VacationModel.model.rootEntities {
            try connection.prepare("SELECT Z_ENT, Z_PK FROM \(entity.table)").forEachRow { rows.insert([$0.int64(at: 0), $0.int64(at: 1)]) }
        }
        if let missing = rows.subtracting(live).min(by: { $0.lexicographicallyPrecedes($1) }) {
            return "entity \(missing[0]) row \(missing[1]) has no history (\(rows.subtracting(live).count) rows without)"
        }
        if let extra = live.subtracting(rows).min(by: { $0.lexicographicallyPrecedes($1) }) {
            return "history says entity \(extra[0]) row \(extra[1]) exists, but it does not (\(live.subtracting(rows).count) such)"
        }
        let orphans = try connection.scalar(
            "SELECT count(*) FROM ACHANGE WHERE ZTRANSACTIONID NOT IN (SELECT Z_PK FROM ATRANSACTION)")?.integerValue ?? 0
        if orphans > 0 { return "\(orphans) history changes belong to no transaction" }
        for (entity, table) in [(16001, "ACHANGE"), (16002, "ATRANSACTION"), (16003, "ATRANSACTIONSTRING")] {
            let highest = try connection.scalar("SELECT coalesce(max(Z_PK), 0) FROM \(table)")?.integerValue ?? 0
            let handedOut = try connection.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = \(entity)")?.integerValue ?? -1
            if highest > handedOut { return "\(table) has key \(highest) above its Z_MAX \(handedOut)" }
        }
        return nil
    }
}
