/// Checks UTF-8 as the bytes stream past, across chunk boundaries, so that every parser
/// downstream may assume valid UTF-8 and an error can name the byte offset.
struct UTF8Validator {
    /// Continuation bytes still expected for the sequence in progress.
    private var remaining = 0
    /// The range the next continuation byte must fall in (narrower after E0, ED, F0, F4).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF
    /// Absolute offset of the first byte of the sequence in progress.
    private var sequenceStart = 0

    /// Checks `bytes`, which start at absolute offset `offset`; returns the offset of the
    /// first byte of an invalid sequence, or `nil` when all is well so far.
    mutating func check(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        var index = 0
        while index < count {
            if remaining == 0 {
                // Feeds are mostly ASCII: skip eight bytes at a time while no high bit is set.
                while index + 8 <= count,
                      base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                    index += 8
                }
                if index == count { break }
                let byte = base.load(fromByteOffset: index, as: UInt8.self)
                if byte < 0x80 { index += 1; continue }
                sequenceStart = offset + index
                switch byte {
                case 0xC2...0xDF: remaining = 1; lower = 0x80; upper = 0xBF
                case 0xE0: remaining = 2; lower = 0xA0; upper = 0xBF
                case 0xE1...0xEC, 0xEE...0xEF: remaining = 2; lower = 0x80; upper = 0xBF
                case 0xED: remaining = 2; lower = 0x80; upper = 0x9F
                case 0xF0: remaining = 3; lower = 0x90; upper = 0xBF
                case 0xF1...0xF3: remaining = 3; lower = 0x80; upper = 0xBF
                case 0xF4: remaining = 3; lower = 0x80; upper = 0x8F
                default: return sequenceStart
                }
                index += 1
            } else {
                let byte = base.load(fromByteOffset: index, as: UInt8.self)
                guard byte >= lower, byte <= upper else { return sequenceStart }
                remaining -= 1
                lower = 0x80
                upper = 0xBF
                index += 1
            }
        }
        return nil
    }

    /// At the end of the input: the offset of a sequence left unfinished, if any.
    func unfinishedSequence() -> Int? {
        remaining == 0 ? nil : sequenceStart
    }
}
