import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

/// `BinaryPropertyList` reads store metadata without Foundation: whatever it reads must be
/// exactly what Foundation's decoding, converted by `PropertyListValue.sendable`, gives.
@Suite("Store metadata read without Foundation")
struct StoreMetadataReaderTests {
    /// Foundation's reading, as `StoreMetadata` did it before (and does when the reader declines).
    private func foundation(_ data: Data) -> [String: any Sendable]? {
        guard let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil),
              let dictionary = plist as? [String: Any] else { return nil }
        return dictionary.compactMapValues { PropertyListValue.sendable($0) }
    }

    /// A value with its type spelled out, so that `true` and `1`, `"1"` and `1` differ.
    private func canonical(_ value: any Sendable) -> String {
        switch value {
        // Scalar by scalar: "é" and "e\u{301}" are equal Strings, but not the same text.
        case let value as String: return "s" + value.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: ".")
        case let value as Data: return "d" + value.map { String($0, radix: 16) }.joined(separator: ".")
        case let value as Date: return "t\(value.timeIntervalSinceReferenceDate.bitPattern)"
        case let value as Bool: return "b\(value)"
        case let value as Int: return "i\(value)"
        case let value as Double: return "r\(value.bitPattern)"
        case let value as [any Sendable]: return "[" + value.map(canonical).joined(separator: ",") + "]"
        case let value as [String: any Sendable]:
            let keys = value.keys.map { (key: $0, text: canonical($0)) }.sorted { $0.text < $1.text }
            return "{" + keys.map { $0.text + ":" + canonical(value[$0.key] ?? "") }.joined(separator: ",") + "}"
        default: return "?\(type(of: value))"
        }
    }

    private func holdsOnlyReadKinds(_ value: any Sendable) -> Bool {
        switch value {
        case is String, is Data, is Date, is Bool, is Int: return true
        case let value as [any Sendable]: return value.allSatisfy(holdsOnlyReadKinds)
        case let value as [String: any Sendable]: return value.values.allSatisfy(holdsOnlyReadKinds)
        default: return false
        }
    }

    private func canonical(_ dictionary: [String: any Sendable]?) -> String? {
        dictionary.map { canonical($0 as any Sendable) }
    }

    private func storeMetadata(_ url: URL) throws -> Data? {
        let connection = try Connection(path: url.path, configuration: .init(readOnly: true, journalMode: nil))
        guard case .blob(let data)? = try connection.scalar("SELECT Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1") else { return nil }
        return data
    }

    @Test("every Apple-made fixture store's metadata reads as Foundation reads it")
    func appleStores() throws {
        var readDirectly = 0
        for store in CompiledModelFixtures.storesWithCache {
            let directory = try TemporaryDirectory()
            guard let data = try storeMetadata(try CompiledModelFixtures.copy(store, into: directory)) else {
                Issue.record("\(store) has no metadata")
                continue
            }
            let direct = BinaryPropertyList.dictionary(from: data)
            if direct != nil { readDirectly += 1 }
            #expect(direct == nil || canonical(direct) == canonical(foundation(data)), "\(store)")
        }
        for path in ["moneywell/Test.moneywell/StoreContent/persistentStore", "bsmanageddocument/version1MRC.bstest/StoreContent/persistentStore"] {
            let directory = try TemporaryDirectory()
            let copy = directory.path("store")
            try FileManager.default.copyItem(at: try CoreDataFixtures.url(path), to: copy)
            let data = try #require(try storeMetadata(copy))
            let direct = BinaryPropertyList.dictionary(from: data)
            #expect(direct != nil, "\(path)")
            #expect(canonical(direct) == canonical(foundation(data)), "\(path)")
        }
        // Their metadata holds what the reader reads: it must not decline them all.
        #expect(readDirectly == CompiledModelFixtures.storesWithCache.count)
    }

    @Test("a store this framework made: its metadata, the model record included, reads as Foundation reads it")
    func ownStore() throws {
        let directory = try TemporaryDirectory()
        let url = directory.path("store.sqlite")
        let model = try ObjectModel(contentsOf: CoreDataFixtures.url("bsmanageddocument/Model.xcdatamodeld/Model 1.xcdatamodel"))
        _ = try StoreCoordinator(url: url, model: model)
        let data = try #require(try storeMetadata(url))
        let direct = try #require(BinaryPropertyList.dictionary(from: data))
        #expect(canonical(direct) == canonical(foundation(data)))
        #expect(direct["NSStoreType"] as? String == "SQLite")
    }

    /// A random property list of what store metadata holds, and sometimes what it does not.
    private func randomValue(_ generator: inout SplitMix64, depth: Int, unusual: Bool) -> Any {
        // Past depth 3 only leaves (kinds 0 to 5); kind 8, a real, only in unusual lists.
        var kinds = Array(0..<(depth >= 3 ? 6 : 8))
        if unusual { kinds.append(8) }
        switch kinds[Int.random(in: 0..<kinds.count, using: &generator)] {
        case 0: return randomString(&generator)
        case 1: return Data((0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        case 2: return Date(timeIntervalSinceReferenceDate: Double(Int.random(in: -1_000_000_000...1_000_000_000, using: &generator)) / 8)
        case 3: return Bool.random(using: &generator)
        case 4:
            let ranges: [ClosedRange<Int>] = [0...1, -1...300, 200...70_000, 60_000...5_000_000_000, Int.min...Int.max]
            return Int.random(in: ranges[Int.random(in: 0..<ranges.count, using: &generator)], using: &generator)
        case 5: return randomString(&generator)
        case 6:
            return (0..<Int.random(in: 0...20, using: &generator)).map { _ in randomValue(&generator, depth: depth + 1, unusual: unusual) }
        case 7:
            var dictionary: [String: Any] = [:]
            for _ in 0..<Int.random(in: 0...20, using: &generator) {
                dictionary[randomString(&generator)] = randomValue(&generator, depth: depth + 1, unusual: unusual)
            }
            return dictionary
        default:
            return Double(Int.random(in: -1000...1000, using: &generator)) / 4
        }
    }

    private func randomString(_ generator: inout SplitMix64) -> String {
        let pieces = ["a", "Z", "NSStore", "é", "e\u{301}", "東京", "😀", " ", "0", "\u{0}", "VacationsModel", "ß"]
        return (0..<Int.random(in: 0...30, using: &generator)).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &generator)] }.joined()
    }

    @Test("random property lists read as Foundation reads them; reals and damage are left to Foundation")
    func randomLists() throws {
        // STORE_METADATA_SEED=N replays a run.
        let seed = ProcessInfo.processInfo.environment["STORE_METADATA_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        print("StoreMetadataReaderTests.randomLists seed \(seed)")
        var generator = SplitMix64(seed: seed)
        var declined = 0
        for round in 0..<300 {
            let unusual = round % 3 == 0
            var top: [String: Any] = [:]
            for _ in 0..<Int.random(in: 0...12, using: &generator) {
                top[randomString(&generator)] = randomValue(&generator, depth: 0, unusual: unusual)
            }
            let data = try PropertyListSerialization.data(fromPropertyList: top, format: .binary, options: 0)
            let direct = BinaryPropertyList.dictionary(from: data)
            if direct == nil { declined += 1 }
            #expect(unusual || direct != nil, "seed \(seed) round \(round)")
            let expected = canonical(foundation(data))
            #expect(direct == nil || canonical(direct) == expected,
                    "seed \(seed) round \(round): \(canonical(direct) ?? "nil") against \(expected ?? "nil")")

            // Damage: cut short, or one byte changed. Never a crash (Foundation's reader can
            // crash on such data, so it is not asked), and only values of the kinds read.
            var damaged = data
            if Bool.random(using: &generator) {
                damaged = data.prefix(Int.random(in: 0..<data.count, using: &generator))
            } else {
                damaged[Int.random(in: 0..<data.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if let read = BinaryPropertyList.dictionary(from: damaged) {
                #expect(holdsOnlyReadKinds(read), "seed \(seed) round \(round), damaged")
            }
        }
        // Reals come only in the unusual rounds, and not in every one of them.
        #expect(declined <= 100)
    }

    @Test("what is not a binary property list, or not a dictionary, is declined")
    func declined() throws {
        let xml = try PropertyListSerialization.data(fromPropertyList: ["a": 1], format: .xml, options: 0)
        let array = try PropertyListSerialization.data(fromPropertyList: [1, 2], format: .binary, options: 0)
        for data in [Data(), Data("bplist00".utf8), xml, array, Data(repeating: 0, count: 64)] {
            #expect(BinaryPropertyList.dictionary(from: data) == nil)
        }
    }
}
