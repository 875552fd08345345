import Foundation
import ObjectGraph

/// A change file: the register writes one device made in one sync, as it lies in the shared
/// folder at `DIR/<vacation>/<device>/<sequence>.change`.
///
/// ```text
/// VACATION-SYNC 1
/// {"bytes":215,"count":2,"device":"…","sequence":3,"sha256":"…","vacation":"Lisbon"}
/// [{"counter":7,"device":"…","entity":"photo","field":"title","key":"7093101501","value":"Belém"}, …]
/// ```
///
/// The first line names the format version; the second, a JSON header, gives the body's length
/// in bytes and its SHA-256, so that a file still being copied (or cut short) is told apart
/// from a damaged one: the first is left for a later sync, the second refused.
package struct ChangeFile: Sendable, Equatable {
    package static let formatVersion = 1
    package static let magic = "VACATION-SYNC"
    package static let fileExtension = "change"
    /// Larger files are refused unread: no honest sync writes one.
    package static let largestFile = 256 << 20
    /// The highest counter accepted: far above any honest count, far below overflow.
    package static let largestCounter: Int64 = 1 << 48

    package var device: String
    package var sequence: Int64
    package var vacation: String
    package var writes: [SyncWrite]

    package init(device: String, sequence: Int64, vacation: String, writes: [SyncWrite]) {
        self.device = device
        self.sequence = sequence
        self.vacation = vacation
        self.writes = writes
    }

    /// The file name of sequence `sequence`.
    package static func fileName(_ sequence: Int64) -> String { "\(sequence).\(fileExtension)" }

    /// The sequence a file name stands for, or nil for a name that is not a change file's (a sync
    /// engine's temporary copy, a conflict copy, a stray file).
    package static func sequence(fromFileName name: String) -> Int64? {
        guard name.hasSuffix("." + fileExtension) else { return nil }
        let digits = name.dropLast(fileExtension.count + 1)
        guard !digits.isEmpty, digits.count <= 15, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              digits.first != "0", let sequence = Int64(digits) else { return nil }
        return sequence
    }

    // MARK: Writing

    private struct Header: Codable {
        var device: String
        var sequence: Int64
        var vacation: String
        var count: Int
        var bytes: Int
        var sha256: String
    }

    private struct Entry: Codable {
        var entity: String
        var key: String
        var field: String
        var value: String?
        var counter: Int64
        var device: String

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(entity, forKey: .entity)
            try container.encode(key, forKey: .key)
            try container.encode(field, forKey: .field)
            // A nil value is written as null, not left out: "no value" is a value here.
            try container.encode(value, forKey: .value)
            try container.encode(counter, forKey: .counter)
            try container.encode(device, forKey: .device)
        }
    }

    /// The file's bytes.
    package func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = try encoder.encode(writes.map { write in
            Entry(entity: write.register.entity.rawValue, key: write.register.key, field: write.register.field,
                  value: write.value, counter: write.clock.counter, device: write.clock.device)
        })
        let header = Header(device: device, sequence: sequence, vacation: vacation, count: writes.count, bytes: body.count,
                            sha256: Self.hex(SHA256.hash(data: body)))
        var data = Data("\(Self.magic) \(Self.formatVersion)\n".utf8)
        data.append(try encoder.encode(header))
        data.append(0x0A)
        data.append(body)
        return data
    }

    private static func hex(_ data: Data) -> String {
        data.map { String(format: "%02x", $0) }.joined()
    }

    // MARK: Reading

    /// What reading a file found.
    package enum Reading: Sendable, Equatable {
        case complete(ChangeFile)
        /// Shorter than its header says (a copy in progress, a cut): left for a later sync.
        case incomplete(String)
        /// Refused whole, with the reason.
        case refused(String)
    }

    /// Reads a change file's bytes, checking its form and every write against the domain's rules
    /// (`SyncValidation`). `device` and `sequence` are what the file's place in the folder says.
    package static func read(_ data: Data, device: String, sequence: Int64) -> Reading {
        if data.count > largestFile { return .refused("it is larger than \(largestFile >> 20) MiB") }
        let bytes = [UInt8](data)
        let prefix = Array("\(magic) ".utf8)
        guard let firstEnd = bytes.firstIndex(of: 0x0A) else {
            let shared = min(bytes.count, prefix.count)
            return Array(bytes[0..<shared]) == Array(prefix[0..<shared]) ? .incomplete("it ends before its header")
                : .refused("it is not a change file")
        }
        let firstLine = bytes[0..<firstEnd]
        guard firstLine.starts(with: prefix) else { return .refused("it is not a change file") }
        let versionText = String(decoding: firstLine.dropFirst(prefix.count), as: UTF8.self)
        guard !versionText.isEmpty, versionText.utf8.count <= 9, versionText.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let version = Int(versionText) else {
            return .refused("it is not a change file")
        }
        if version > formatVersion {
            return .refused("it is of format version \(version), newer than this vacation understands (\(formatVersion)); upgrade vacation to apply it")
        }
        if version < 1 { return .refused("it is of an unknown format version \(version)") }
        guard let headerEnd = bytes[(firstEnd + 1)...].firstIndex(of: 0x0A) else { return .incomplete("it ends inside its header") }
        let decoder = JSONDecoder()
        guard let header = try? decoder.decode(Header.self, from: Data(bytes[(firstEnd + 1)..<headerEnd])) else {
            // Why `try?`: the decoder's message describes Swift types, not the file; the line is enough.
            return .refused("its header is not valid")
        }
        let body = Data(bytes[(headerEnd + 1)...])
        if header.bytes < 0 || header.count < 0 { return .refused("its header is not valid") }
        if body.count < header.bytes { return .incomplete("it holds \(body.count) of its \(header.bytes) bytes") }
        if body.count > header.bytes { return .refused("it holds \(body.count - header.bytes) bytes more than its header says") }
        if hex(SHA256.hash(data: body)) != header.sha256.lowercased() { return .refused("its checksum does not match its content") }
        if header.device != device { return .refused("it says it is from device \(header.device), but it lies in \(device)'s folder") }
        if header.sequence != sequence { return .refused("it says it is number \(header.sequence), but its name says \(sequence)") }
        guard let entries = try? decoder.decode([Entry].self, from: body) else {
            // Why `try?`: as for the header.
            return .refused("its changes are not valid JSON of the expected form")
        }
        if entries.count != header.count { return .refused("it holds \(entries.count) changes, but its header says \(header.count)") }
        var writes: [SyncWrite] = []
        writes.reserveCapacity(entries.count)
        var seen = Set<SyncRegisterKey>()
        for (index, entry) in entries.enumerated() {
            guard let entity = SyncEntity(rawValue: entry.entity) else {
                return .refused("change \(index + 1) names an unknown kind of thing '\(entry.entity)'")
            }
            let write = SyncWrite(SyncRegisterKey(entity, entry.key, entry.field), value: entry.value,
                                  clock: SyncClock(counter: entry.counter, device: entry.device))
            if let problem = SyncValidation.problem(with: write) { return .refused("change \(index + 1): \(problem)") }
            if !seen.insert(write.register).inserted { return .refused("change \(index + 1) writes \(entry.entity) \(entry.key)'s \(entry.field) a second time") }
            writes.append(write)
        }
        return .complete(ChangeFile(device: header.device, sequence: header.sequence, vacation: header.vacation, writes: writes))
    }
}
