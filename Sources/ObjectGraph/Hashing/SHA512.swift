import Foundation

/// SHA-512 (FIPS 180-4) in pure Swift, one-shot or incremental.
///
/// Core Data's store metadata carries `NSStoreModelVersionHashesDigest`, a SHA-512 over the
/// entity version hashes (see `CoreDataVersionHash.hashesDigest(_:)`).
///
/// ```swift
/// let digest = SHA512.hash(Array("abc".utf8))   // 64 bytes
/// ```
struct SHA512: Sendable {
    /// The length of a digest in bytes.
    static let digestByteCount = 64
    static let blockByteCount = 128

    private var state: [UInt64] = [
        0x6a09_e667_f3bc_c908, 0xbb67_ae85_84ca_a73b, 0x3c6e_f372_fe94_f82b, 0xa54f_f53a_5f1d_36f1,
        0x510e_527f_ade6_82d1, 0x9b05_688c_2b3e_6c1f, 0x1f83_d9ab_fb41_bd6b, 0x5be0_cd19_137e_2179,
    ]
    /// Bytes of a block not yet compressed; always fewer than 128.
    private var pending: [UInt8] = []
    private var totalByteCount: UInt64 = 0

    /// A hasher with nothing fed in yet.
    init() {
        pending.reserveCapacity(Self.blockByteCount)
    }

    /// The digest of `data` in one call.
    static func hash(_ data: some Sequence<UInt8>) -> [UInt8] {
        var hasher = SHA512()
        hasher.update(data)
        return hasher.finalize()
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

    /// Pads, compresses the last block and returns the 64-byte digest.
    ///
    /// The hasher is consumed: call it once.
    mutating func finalize() -> [UInt8] {
        var tail = pending
        tail.append(0x80)
        while tail.count % Self.blockByteCount != 112 { tail.append(0) }
        // The message length in bits is a 128-bit big-endian number.
        let highBits = totalByteCount >> 61
        let lowBits = totalByteCount &<< 3
        for word in [highBits, lowBits] {
            for shift in stride(from: 56, through: 0, by: -8) {
                tail.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        tail.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                compress(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + Self.blockByteCount)]))
                offset += Self.blockByteCount
            }
        }
        pending.removeAll()
        var digest: [UInt8] = []
        digest.reserveCapacity(Self.digestByteCount)
        for word in state {
            for shift in stride(from: 56, through: 0, by: -8) {
                digest.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        return digest
    }

    /// Compresses one 128-byte block into the state.
    private mutating func compress(_ block: UnsafeRawBufferPointer) {
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 80) { schedule in
            for index in 0..<16 {
                var word: UInt64 = 0
                for byte in 0..<8 { word = word << 8 | UInt64(block[index * 8 + byte]) }
                schedule[index] = word
            }
            for index in 16..<80 {
                let early = schedule[index - 15], late = schedule[index - 2]
                let sigma0 = early.rotatedRight(1) ^ early.rotatedRight(8) ^ (early >> 7)
                let sigma1 = late.rotatedRight(19) ^ late.rotatedRight(61) ^ (late >> 6)
                schedule[index] = schedule[index - 16] &+ sigma0 &+ schedule[index - 7] &+ sigma1
            }
            var a = state[0], b = state[1], c = state[2], d = state[3]
            var e = state[4], f = state[5], g = state[6], h = state[7]
            Self.roundConstants.withUnsafeBufferPointer { constants in
                for index in 0..<80 {
                    let sum1 = e.rotatedRight(14) ^ e.rotatedRight(18) ^ e.rotatedRight(41)
                    let choice = (e & f) ^ (~e & g)
                    let temp1 = h &+ sum1 &+ choice &+ constants[index] &+ schedule[index]
                    let sum0 = a.rotatedRight(28) ^ a.rotatedRight(34) ^ a.rotatedRight(39)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let temp2 = sum0 &+ majority
                    h = g; g = f; f = e; e = d &+ temp1
                    d = c; c = b; b = a; a = temp1 &+ temp2
                }
            }
            state[0] &+= a; state[1] &+= b; state[2] &+= c; state[3] &+= d
            state[4] &+= e; state[5] &+= f; state[6] &+= g; state[7] &+= h
        }
    }

    private static let roundConstants: [UInt64] = [
        0x428a_2f98_d728_ae22, 0x7137_4491_23ef_65cd, 0xb5c0_fbcf_ec4d_3b2f, 0xe9b5_dba5_8189_dbbc,
        0x3956_c25b_f348_b538, 0x59f1_11f1_b605_d019, 0x923f_82a4_af19_4f9b, 0xab1c_5ed5_da6d_8118,
        0xd807_aa98_a303_0242, 0x1283_5b01_4570_6fbe, 0x2431_85be_4ee4_b28c, 0x550c_7dc3_d5ff_b4e2,
        0x72be_5d74_f27b_896f, 0x80de_b1fe_3b16_96b1, 0x9bdc_06a7_25c7_1235, 0xc19b_f174_cf69_2694,
        0xe49b_69c1_9ef1_4ad2, 0xefbe_4786_384f_25e3, 0x0fc1_9dc6_8b8c_d5b5, 0x240c_a1cc_77ac_9c65,
        0x2de9_2c6f_592b_0275, 0x4a74_84aa_6ea6_e483, 0x5cb0_a9dc_bd41_fbd4, 0x76f9_88da_8311_53b5,
        0x983e_5152_ee66_dfab, 0xa831_c66d_2db4_3210, 0xb003_27c8_98fb_213f, 0xbf59_7fc7_beef_0ee4,
        0xc6e0_0bf3_3da8_8fc2, 0xd5a7_9147_930a_a725, 0x06ca_6351_e003_826f, 0x1429_2967_0a0e_6e70,
        0x27b7_0a85_46d2_2ffc, 0x2e1b_2138_5c26_c926, 0x4d2c_6dfc_5ac4_2aed, 0x5338_0d13_9d95_b3df,
        0x650a_7354_8baf_63de, 0x766a_0abb_3c77_b2a8, 0x81c2_c92e_47ed_aee6, 0x9272_2c85_1482_353b,
        0xa2bf_e8a1_4cf1_0364, 0xa81a_664b_bc42_3001, 0xc24b_8b70_d0f8_9791, 0xc76c_51a3_0654_be30,
        0xd192_e819_d6ef_5218, 0xd699_0624_5565_a910, 0xf40e_3585_5771_202a, 0x106a_a070_32bb_d1b8,
        0x19a4_c116_b8d2_d0c8, 0x1e37_6c08_5141_ab53, 0x2748_774c_df8e_eb99, 0x34b0_bcb5_e19b_48a8,
        0x391c_0cb3_c5c9_5a63, 0x4ed8_aa4a_e341_8acb, 0x5b9c_ca4f_7763_e373, 0x682e_6ff3_d6b2_b8a3,
        0x748f_82ee_5def_b2fc, 0x78a5_636f_4317_2f60, 0x84c8_7814_a1f0_ab72, 0x8cc7_0208_1a64_39ec,
        0x90be_fffa_2363_1e28, 0xa450_6ceb_de82_bde9, 0xbef9_a3f7_b2c6_7915, 0xc671_78f2_e372_532b,
        0xca27_3ece_ea26_619c, 0xd186_b8c7_21c0_c207, 0xeada_7dd6_cde0_eb1e, 0xf57d_4f7f_ee6e_d178,
        0x06f0_67aa_7217_6fba, 0x0a63_7dc5_a2c8_98a6, 0x113f_9804_bef9_0dae, 0x1b71_0b35_131c_471b,
        0x28db_77f5_2304_7d84, 0x32ca_ab7b_40c7_2493, 0x3c9e_be0a_15c9_bebc, 0x431d_67c4_9c10_0d4c,
        0x4cc5_d4be_cb3e_42b6, 0x597f_299c_fc65_7e2a, 0x5fcb_6fab_3ad6_faec, 0x6c44_198c_4a47_5817,
    ]
}

fileprivate extension UInt64 {
    @inline(__always)
    func rotatedRight(_ count: UInt64) -> UInt64 {
        (self >> count) | (self << (64 - count))
    }
}
