import Foundation
import ObjectGraph
import Testing
import TestSupport
@testable import Vacations

/// Change files are untrusted input (README.md, "Sync between machines"): anything cut short is left for later, anything
/// else that is not a good file is refused whole with its reason, and nothing crashes.
@Suite("Change files")
struct ChangeFileTests {
    static let device = testDevice(7)

    static func write(_ entity: SyncEntity = .photo, _ key: String = "42", _ field: String = "title", _ value: String? = "Sunset",
                      counter: Int64 = 3, device: String = device) -> SyncWrite {
        SyncWrite(SyncRegisterKey(entity, key, field), value: value, clock: SyncClock(counter: counter, device: device))
    }

    static let sample = ChangeFile(device: device, sequence: 5, vacation: "Lisbon", writes: [
        write(), write(.photo, "42", "tags", "beach sea"), write(.photo, "42", "place", nil),
        write(.photo, "42", "latitude", "38.7"), write(.photo, "42", "present", "true"),
        write(.place, "Lisbon, Portugal", "placeID", "abc"), write(.album, "Sea", "predicate", "ANY tags.name == 'sea'"),
    ])

    @Test("a file reads back as written")
    func roundTrip() throws {
        #expect(ChangeFile.read(try Self.sample.encoded(), device: Self.device, sequence: 5) == .complete(Self.sample))
    }

    @Test("every prefix of a file is incomplete, never applied and never refused")
    func everyPrefixIsIncomplete() throws {
        let data = try Self.sample.encoded()
        for length in 0..<data.count {
            let reading = ChangeFile.read(data.prefix(length), device: Self.device, sequence: 5)
            guard case .incomplete = reading else {
                Issue.record("a prefix of \(length) of \(data.count) bytes reads as \(reading)")
                continue
            }
        }
    }

    @Test("damaged, foreign and newer files are refused with their reason")
    func refusedFiles() throws {
        let data = try Self.sample.encoded()
        let text = String(decoding: data, as: UTF8.self)
        var flipped = data
        flipped[flipped.count - 3] ^= 0x01
        let cases: [(String, Data, String)] = [
            ("garbage", Data("hello world\n".utf8), "it is not a change file"),
            ("garbage without a line", Data("PK\u{3}\u{4}".utf8), "it is not a change file"),
            ("a version that is no number", Data("VACATION-SYNC one\n{}\n".utf8), "it is not a change file"),
            ("a newer format", Data(text.replacingOccurrences(of: "VACATION-SYNC 1", with: "VACATION-SYNC 2").utf8),
             "it is of format version 2, newer than this vacation understands (1); upgrade vacation to apply it"),
            ("version 0", Data(text.replacingOccurrences(of: "VACATION-SYNC 1", with: "VACATION-SYNC 0").utf8),
             "it is of an unknown format version 0"),
            ("a header that is not JSON", Data("VACATION-SYNC 1\n{bytes: 2}\n[]".utf8), "its header is not valid"),
            ("a flipped byte", flipped, "its checksum does not match its content"),
            ("bytes after the end", data + Data("x".utf8), "it holds 1 bytes more than its header says"),
        ]
        for (what, bytes, reason) in cases {
            #expect(ChangeFile.read(bytes, device: Self.device, sequence: 5) == .refused(reason), "\(what)")
        }
        #expect(ChangeFile.read(data, device: testDevice(8), sequence: 5)
                == .refused("it says it is from device \(Self.device), but it lies in \(testDevice(8))'s folder"))
        #expect(ChangeFile.read(data, device: Self.device, sequence: 6) == .refused("it says it is number 5, but its name says 6"))
    }

    @Test("a write that breaks a domain rule refuses its whole file, naming the change and the rule")
    func ruleBreakingWrites() throws {
        let cases: [(SyncWrite, String)] = [
            (Self.write(.photo, "12a"), "'12a' is not a Flickr photo id"),
            (Self.write(.photo, "042"), "'042' is not a Flickr photo id"),
            (Self.write(.photo, "42", "Z_PK", "1"), "photo '42' has no field 'Z_PK'"),
            (Self.write(.photo, "42", "tags", "sea beach"), "photo '42''s tags 'sea beach' are not tag names, sorted, each once"),
            (Self.write(.photo, "42", "tags", "Sea"), "photo '42''s tags 'Sea' are not tag names, sorted, each once"),
            (Self.write(.photo, "42", "tags", "geo:lat=1"), "photo '42''s tags 'geo:lat=1' are not tag names, sorted, each once"),
            (Self.write(.photo, "42", "tags", "sea sea"), "photo '42''s tags 'sea sea' are not tag names, sorted, each once"),
            (Self.write(.photo, "42", "tags", nil), "photo '42''s tags cannot be null"),
            (Self.write(.photo, "42", "place", " Lisbon"), "photo '42''s place ' Lisbon' is not a place name"),
            (Self.write(.photo, "42", "latitude", "91.0"), "photo '42''s latitude '91.0' is not a number from -90 to 90"),
            (Self.write(.photo, "42", "longitude", "1.50"), "photo '42''s longitude '1.50' is not a number from -180 to 180"),
            (Self.write(.photo, "42", "dateTaken", "yesterday"), "photo '42''s dateTaken 'yesterday' is not a date"),
            (Self.write(.photo, "42", "visited", "nan"), "photo '42''s visited 'nan' is not a date"),
            (Self.write(.photo, "42", "present", "maybe"), "photo '42''s present must be true or false"),
            (Self.write(counter: 0), "its counter 0 is out of range"),
            (Self.write(counter: 1 << 60), "its counter \(1 << 60) is out of range"),
            (Self.write(device: "ABC"), "its device 'ABC' is not a device id"),
            (Self.write(device: testDevice(1).uppercased().replacingOccurrences(of: "0000-4000", with: "0000-4ABC")),
             "its device '\(testDevice(1).uppercased().replacingOccurrences(of: "0000-4000", with: "0000-4ABC"))' is not a device id"),
            (Self.write(.place, "Lisbon\n", "placeID", "1"), "'Lisbon\n' is not a place name"),
            (Self.write(.album, "", "present", "true"), "'' is not an album name"),
            (Self.write(.album, "Sea", "present", nil), "album 'Sea''s present must be true or false"),
            (Self.write(.album, "Sea", "predicate", nil), "album 'Sea''s predicate cannot be null"),
        ]
        for (write, reason) in cases {
            let file = ChangeFile(device: Self.device, sequence: 1, vacation: "Lisbon", writes: [Self.write(), write])
            let reading = ChangeFile.read(try file.encoded(), device: Self.device, sequence: 1)
            #expect(reading == .refused("change 2: " + reason))
        }
        let twice = ChangeFile(device: Self.device, sequence: 1, vacation: "Lisbon", writes: [Self.write(), Self.write(counter: 4)])
        #expect(ChangeFile.read(try twice.encoded(), device: Self.device, sequence: 1)
                == .refused("change 2 writes photo 42's title a second time"))
        let counter = "\"counter\":1,\"device\":\"\(Self.device)\""
        let raw: [(String, Int, String)] = [
            ("[{\(counter),\"entity\":\"tag\",\"field\":\"count\",\"key\":\"sea\",\"value\":\"9\"}]", 1,
             "change 1 names an unknown kind of thing 'tag'"),
            ("{\"changes\":[]}", 0, "its changes are not valid JSON of the expected form"),
            ("[{\(counter),\"entity\":\"photo\",\"key\":\"1\",\"value\":\"x\"}]", 1, "its changes are not valid JSON of the expected form"),
            ("[{\(counter),\"entity\":\"photo\",\"field\":\"title\",\"key\":\"1\",\"value\":7}]", 1, "its changes are not valid JSON of the expected form"),
            ("[]", 2, "it holds 0 changes, but its header says 2"),
            (String(repeating: "[", count: 100_000), 0, "its changes are not valid JSON of the expected form"),
        ]
        for (body, count, reason) in raw {
            #expect(ChangeFile.read(Self.file(body: body, count: count), device: Self.device, sequence: 1) == .refused(reason))
        }
    }

    /// A file around a body written by hand, with a true length and checksum.
    static func file(body: String, count: Int) -> Data {
        let bytes = Data(body.utf8)
        let sha = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
        let header = "{\"bytes\":\(bytes.count),\"count\":\(count),\"device\":\"\(device)\",\"sequence\":1,\"sha256\":\"\(sha)\",\"vacation\":\"V\"}"
        return Data("VACATION-SYNC 1\n\(header)\n".utf8) + bytes
    }

    @Test("only a change file's own names are read: temporary, conflict and stray copies are not")
    func fileNames() {
        let names: [(String, Int64?)] = [
            ("1.change", 1), ("42.change", 42), ("999999999999999.change", 999_999_999_999_999),
            ("0.change", nil), ("01.change", nil), ("-1.change", nil), ("+1.change", nil), (".1.change.tmp", nil),
            (".syncthing.1.change.tmp", nil), ("1.sync-conflict-20261201-1.change", nil), ("1.change.part", nil),
            ("1.change~", nil), ("../1.change", nil), ("1 .change", nil), ("١.change", nil), (".change", nil),
            ("1000000000000000.change", nil), ("1.CHANGE", nil),
        ]
        for (name, sequence) in names {
            #expect(ChangeFile.sequence(fromFileName: name) == sequence, "\(name)")
        }
    }

    @Test("random bytes, and random damage to a good file's changes, never read as a good file and never crash")
    func randomBytes() throws {
        let seed = ProcessInfo.processInfo.environment["CHANGE_FILE_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64(UInt32.max))
        print("ChangeFileTests seed: \(seed) (CHANGE_FILE_SEED=\(seed) replays it)")
        var generator = SplitMix64(seed: seed)
        let good = try Self.sample.encoded()
        let bodyStart = try #require(good.indices.filter { good[$0] == 0x0A }.dropFirst().first) + 1
        for _ in 0..<2_000 {
            var data = good
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                // The body: what the checksum covers (the header's fields are checked one by one above).
                let index = Int.random(in: bodyStart..<data.count, using: &generator)
                data[index] = UInt8.random(in: 0...255, using: &generator)
            }
            if data != good, case .complete = ChangeFile.read(data, device: Self.device, sequence: 5) {
                Issue.record("seed \(seed): damaged bytes read as a good file")
            }
            let noise = Data((0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            if case .complete = ChangeFile.read(Data("VACATION-SYNC 1\n".utf8) + noise, device: Self.device, sequence: 5) {
                Issue.record("seed \(seed): noise read as a good file")
            }
        }
    }
}

@Suite("Change file fuzz seeds")
struct ChangeFileSeedTests {
    @Test("the fuzz corpus's seeds read as they were written to: whole, refused or incomplete")
    func seeds() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus/change")
        func read(_ name: String) throws -> ChangeFile.Reading {
            ChangeFile.read(try Data(contentsOf: folder.appendingPathComponent(name)), device: testDevice(7), sequence: 1)
        }
        guard case .complete(let photo) = try read("photo.change") else { Issue.record("photo.change is not whole"); return }
        #expect(photo.writes.count == 8 && photo.vacation == "Lisbon")
        guard case .complete(let places) = try read("place-album.change") else { Issue.record("place-album.change is not whole"); return }
        #expect(places.writes.count == 4)
        #expect(try read("newer.change")
                == .refused("it is of format version 2, newer than this vacation understands (1); upgrade vacation to apply it"))
        #expect(try read("rule-broken.change") == .refused("change 1: photo '1''s tags 'Sea beach' are not tag names, sorted, each once"))
        #expect(try read("truncated.change") == .incomplete("it holds 116 of its 120 bytes"))
    }
}
