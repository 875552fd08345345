import Foundation

/// SHA-256 (FIPS 180-4) in pure Swift, one-shot or incremental.
///
/// Core Data keys its stores to a model by SHA-256 version hashes (see `CoreDataVersionHash`);
/// Foundation on Linux has no CommonCrypto, so we carry our own.
///
/// ```swift
/// let digest = SHA256.hash(Array("abc".utf8))        // 32 bytes
/// var hasher = SHA256()
/// hasher.update(Array("a".utf8)); hasher.update(Array("bc".utf8))
/// let same = hasher.finalize()                         // == digest
/// ```
package struct SHA256: Sendable {
    /// The length of a digest in bytes.
    static let digestByteCount = 32
    static let blockByteCount = 64

    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a,
        0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    /// Bytes of a block not yet compressed; always fewer than 64.
    private var pending: [UInt8] = []
    private var totalByteCount: UInt64 = 0

    /// A hasher with nothing fed in yet.
    init() {
        pending.reserveCapacity(Self.blockByteCount)
    }

    /// The digest of `data` in one call.
    static func hash(_ data: some Sequence<UInt8>) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data)
        return hasher.finalize()
    }

    /// The digest of `data` in one call, as `Data` (sync's change files check their content with it).
    package static func hash(data: Data) -> Data {
        Data(hash(data))
    }

    /// Feeds more bytes; any split of the input gives the same digest.
    mutating func update(_ data: some Sequence<UInt8>) {
        let handled: Void? = data.withContiguousStorageIfAvailable { buffer in
            update(buffer: UnsafeRawBufferPointer(buffer))
        }
        if handled == nil {
            let bytes = Array(data)
            bytes.withUnsafeBytes { update(buffer: $0) }
        }
    }

    /// Feeds the bytes of `data`.
    mutating func update(data: Data) {
        data.withUnsafeBytes { update(buffer: $0) }
    }

    /// Feeds raw bytes.
    mutating func update(buffer: UnsafeRawBufferPointer) {
        guard buffer.count > 0 else { return }
        totalByteCount &+= UInt64(buffer.count)
        var offset = 0
        if !pending.isEmpty {
            let take = min(Self.blockByteCount - pending.count, buffer.count)
            pending.append(contentsOf: buffer[0..<take])
            offset = take
            guard pending.count == Self.blockByteCount else { return }
            pending.withUnsafeBytes { compress(UnsafeRawBufferPointer(rebasing: $0[0..<Self.blockByteCount])) }
            pending.removeAll(keepingCapacity: true)
        }
        while buffer.count - offset >= Self.blockByteCount {
            compress(UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + Self.blockByteCount)]))
            offset += Self.blockByteCount
        }
        if offset < buffer.count {
            pending.append(contentsOf: buffer[offset...])
        }
    }

    /// Pads, compresses the last block and returns the 32-byte digest.
    ///
    /// The hasher is consumed: call it once.
    mutating func finalize() -> [UInt8] {
        let bitCount = totalByteCount &* 8
        var tail = pending
        tail.append(0x80)
        while tail.count % Self.blockByteCount != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            tail.append(UInt8(truncatingIfNeeded: bitCount >> UInt64(shift)))
        }
        tail.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                compress(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + Self.blockByteCount)]))
                offset += Self.blockByteCount
            }
        }
        pending.removeAll()
        let words = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
        var digest: [UInt8] = []
        digest.reserveCapacity(Self.digestByteCount)
        for word in words {
            digest.append(UInt8(truncatingIfNeeded: word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        return digest
    }

    /// Compresses one 64-byte block into the state.
    private mutating func compress(_ block: UnsafeRawBufferPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
            for index in 0..<16 {
                let base = index * 4
                schedule[index] = UInt32(block[base]) << 24 | UInt32(block[base + 1]) << 16
                    | UInt32(block[base + 2]) << 8 | UInt32(block[base + 3])
            }
            for index in 16..<64 {
                let early = schedule[index - 15], late = schedule[index - 2]
                let sigma0 = early.rotatedRight(7) ^ early.rotatedRight(18) ^ (early >> 3)
                let sigma1 = late.rotatedRight(17) ^ late.rotatedRight(19) ^ (late >> 10)
                schedule[index] = schedule[index - 16] &+ sigma0 &+ schedule[index - 7] &+ sigma1
            }
            var (a, b, c, d, e, f, g, h) = state
            Self.roundConstants.withUnsafeBufferPointer { constants in
                for index in 0..<64 {
                    let sum1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                    let choice = (e & f) ^ (~e & g)
                    let temp1 = h &+ sum1 &+ choice &+ constants[index] &+ schedule[index]
                    let sum0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let temp2 = sum0 &+ majority
                    h = g; g = f; f = e; e = d &+ temp1
                    d = c; c = b; b = a; a = temp1 &+ temp2
                }
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d,
                     state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h)
        }
    }

    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
}

extension SHA256 {
    /// Lower-case hexadecimal, two digits a byte: how digests are usually written.
    ///
    /// ```swift
    /// SHA256.hex(SHA256.hash(Array("abc".utf8)))  // "ba7816bf…"
    /// ```
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var characters: [UInt8] = []
        for byte in bytes {
            characters.append(digits[Int(byte >> 4)])
            characters.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: characters, as: UTF8.self)
    }
}

fileprivate extension UInt32 {
    @inline(__always)
    func rotatedRight(_ count: UInt32) -> UInt32 {
        (self >> count) | (self << (32 - count))
    }
}
