import CommandLineKit
import CoreDataFiles
import DocStoreCLI
import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

/// Apple stores' own entities, sentinel dates and plans, through docstore.
@Suite("docstore on Apple's stores: history and CloudKit entities counted, sentinel dates as stored, plans in a fixed order")
struct DocStoreAppleStoreTests {
    static let photos = "coredata-more/openhouse__osxphotos/tests/Test-10.15.1.photoslibrary/database/Photos.sqlite"
    static let sampleModel3 = "coredata-more/alemar11__CoreDataPlus/Tests/Resources/SampleModel3/Fixtures/SampleModel3_V1.sqlite"

    private func json(_ run: DocStoreRun) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(run.output.utf8))
    }

    @Test("info counts the rows of Core Data's history entities in their A<NAME> tables; no entity has rows null")
    func historyCounted() async throws {
        let directory = try TemporaryDirectory()
        let (_, store) = try DocStoreDumpComparisonTests.copy(Self.photos, into: directory)
        let path = store.path
        let (infoRun, textRun) = try await onOwnThread { (docstore("info", path, "--json"), docstore("info", path)) }
        let info = try #require(try json(infoRun) as? [String: Any])
        let entities = try #require(info["entities"] as? [[String: Any]])
        #expect(entities.count == 56)
        #expect(entities.allSatisfy { !($0["rows"] is NSNull) })
        let history = entities.filter { ($0["number"] as? Int ?? 0) > 16000 }.map {
            "\($0["name"] ?? "") \($0["table"] ?? "") \($0["rows"] ?? "")"
        }
        #expect(history == ["CHANGE ACHANGE 566", "TRANSACTION ATRANSACTION 113", "TRANSACTIONSTRING ATRANSACTIONSTRING 21"])
        let text = textRun.output
        #expect(text.contains("\nCHANGE                             16001                   566\n"))
    }

    @Test("CloudKit's entities are counted and dumped like history's, from ANSCK… tables")
    func cloudKitCounted() throws {
        let directory = try TemporaryDirectory()
        let (_, store) = try DocStoreDumpComparisonTests.copy(Self.sampleModel3, into: directory)
        try Connection(path: store.path, configuration: .init(journalMode: nil)).execute("""
            INSERT INTO Z_PRIMARYKEY VALUES (16004, 'NSCKRecordMetadata', 0, 2), (16005, 'NSCKRecordZoneMetadata', 0, 0);
            CREATE TABLE ANSCKRECORDMETADATA ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZENTITYID INTEGER, ZENTITYPK INTEGER, ZCKRECORDNAME VARCHAR, ZENCODEDRECORD BLOB );
            CREATE TABLE ANSCKRECORDZONEMETADATA ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCKOWNERNAME VARCHAR );
            INSERT INTO ANSCKRECORDMETADATA VALUES (1, 16004, 1, 1, 3, 'A1', X'00FF'), (2, 16004, 1, 1, 4, 'B2', NULL);
            """)
        let info = try #require(try json(docstore("info", store.path, "--json")) as? [String: Any])
        let rows = try #require(info["entities"] as? [[String: Any]]).map { "\($0["name"] ?? "") \($0["table"] ?? "") \($0["rows"] ?? "")" }
        #expect(rows == ["User ZUSER 12", "NSCKRecordMetadata ANSCKRECORDMETADATA 2", "NSCKRecordZoneMetadata ANSCKRECORDZONEMETADATA 0"])
        let dump = try #require(try json(docstore("dump", store.path, "--entity", "NSCKRecordMetadata")) as? [[String: Any]])
        #expect(dump.count == 2)
        #expect(dump.first?["entity"] as? String == "NSCKRecordMetadata")
        #expect((dump.first?["uri"] as? String)?.hasSuffix("/NSCKRecordMetadata/p1") == true)
        #expect(dump.first?.values.contains { $0 as? String == "AP8=" } == true)
        #expect(dump.last?.values.contains { $0 as? String == "B2" } == true)
    }

    @Test("dates outside any calendar's four-digit years dump as the number stored; others as ISO 8601 of the proleptic calendar")
    func sentinelDates() async throws {
        let directory = try TemporaryDirectory()
        let (_, store) = try DocStoreDumpComparisonTests.copy(Self.photos, into: directory)
        try Connection(path: store.path, configuration: .init(journalMode: nil)).execute("""
            UPDATE ZGENERICASSET SET ZDATECREATED = 123456789012345, ZADDEDDATE = -63114076800,
                ZMODIFICATIONDATE = 63113904000, ZLASTSHAREDDATE = -63113904000.5 WHERE Z_PK = 1;
            UPDATE ZGENERICASSET SET ZDATECREATED = 123456789012345.5, ZADDEDDATE = 'not a date' WHERE Z_PK = 2;
            """)
        let path = store.path
        let run = try await onOwnThread { docstore("dump", path, "--entity", "GenericAsset") }
        let dump = try #require(try json(run) as? [[String: Any]])
        let assets = Dictionary(uniqueKeysWithValues: dump.compactMap { object in
            (object["uri"] as? String).map { (String($0.split(separator: "/").last ?? ""), object) }
        })
        let first = try #require(assets["p1"])
        func value(_ object: [String: Any], _ name: String) -> Any? {
            object.first { $0.key.lowercased() == name }?.value
        }
        #expect((value(first, "datecreated") as? NSNumber)?.int64Value == 123_456_789_012_345)
        #expect((value(first, "addeddate") as? NSNumber)?.int64Value == -63_114_076_800)
        #expect(value(first, "modificationdate") as? String == "4001-01-01T00:00:00Z")
        // Half a second before 0001-01-01: no four-digit year of ISO 8601 and Python's datetime.
        #expect((value(first, "lastshareddate") as? NSNumber)?.doubleValue == -63_113_904_000.5)
        let second = try #require(assets["p2"])
        #expect((value(second, "datecreated") as? NSNumber)?.doubleValue == 123_456_789_012_345.5)
        #expect(value(second, "addeddate") as? String == "not a date")
        // The text shows the stored number (a REAL), not a reformatted date.
        let text = run.output
        #expect(text.contains(": 123456789012345.0,\n") && text.contains(": 123456789012345.5,\n"))
    }

    @Test("a migration's statements come in the same order in every process")
    func deterministicPlans() async throws {
        // Swift seeds its hashing per process: a plan built from sets or dictionaries would differ.
        let sampleModel = DocStoreDumpComparisonTests.fixtures.appendingPathComponent(
            "coredata-more/alemar11__CoreDataPlus/Tests/Resources/SampleModel")
        let model = sampleModel.appendingPathComponent("SampleModel.xcdatamodeld/SampleModel2.xcdatamodel").path
        let directory = try TemporaryDirectory()
        var stores: [String] = []
        for run in 0..<3 {
            let folder = directory.path("run\(run)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for suffix in ["", "-wal", "-shm"] {
                try FileManager.default.copyItem(at: sampleModel.appendingPathComponent("Fixtures/SampleModel_V1.sqlite" + suffix),
                                                 to: folder.appendingPathComponent("store.sqlite" + suffix))
            }
            stores.append(folder.appendingPathComponent("store.sqlite").path)
        }
        let paths = stores
        let runs = try await onOwnThread { try paths.map { try DocStoreEndToEndTests.run(["migrate", $0, "--model", model]) } }
        #expect(runs.allSatisfy { $0.code == 0 })
        let plans = runs.enumerated().map { index, run in run.output.replacingOccurrences(of: paths[index], with: "STORE") }
        #expect(Set(plans).count == 1)
        #expect(plans[0].split(separator: "\n").count > 10)
    }
}
