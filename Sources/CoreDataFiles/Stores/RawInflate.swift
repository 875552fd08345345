import Foundation

/// Why compressed bytes could not be inflated; `reason` is one line.
struct InflateError: Error, Sendable {
    var reason: String
}

/// Decompresses raw DEFLATE (RFC 1951, no zlib or gzip wrapper), the form in which Core Data
/// keeps a store's model in `Z_MODELCACHE.Z_CONTENT`.
///
/// Written here rather than linked from zlib so that the only system libraries stay SQLite and
/// libxml2; the caches are small (MoneyWell's 30 KB inflate to 60 KB, Photos' 123 KB to 255 KB).
/// Every length, distance and code is checked: truncated or hostile input is an error, and the
/// output never grows past `maximumOutput`.
///
/// ```swift
/// let archive = try RawInflate.inflate(blob)
/// ```
enum RawInflate {
    /// 256 MiB: far beyond any model, well short of exhausting memory.
    static let defaultMaximumOutput = 256 << 20

    static func inflate(_ data: Data, maximumOutput: Int = defaultMaximumOutput) throws(InflateError) -> Data {
        var state = Inflater(input: [UInt8](data), maximumOutput: maximumOutput)
        try state.run()
        return Data(state.output)
    }
}

/// A canonical Huffman code: how many codes of each length, and the symbols in code order.
private struct HuffmanCode {
    var counts = [Int](repeating: 0, count: 16)
    var symbols: [Int] = []

    /// Builds the code from each symbol's code length (0: unused). Over-subscribed codes are
    /// refused; incomplete ones are allowed where RFC 1951 allows them (a lone distance code).
    init(lengths: [Int]) throws(InflateError) {
        for length in lengths { counts[length] += 1 }
        var left = 1
        for length in 1...15 {
            left <<= 1
            left -= counts[length]
            guard left >= 0 else { throw InflateError(reason: "an over-subscribed Huffman code") }
        }
        var offsets = [Int](repeating: 0, count: 16)
        for length in 1..<15 { offsets[length + 1] = offsets[length] + counts[length] }
        symbols = [Int](repeating: 0, count: lengths.count)
        for (symbol, length) in lengths.enumerated() where length != 0 {
            symbols[offsets[length]] = symbol
            offsets[length] += 1
        }
        counts[0] = 0
    }
}

private struct Inflater {
    let input: [UInt8]
    let maximumOutput: Int
    var output: [UInt8] = []
    var position = 0
    var bitBuffer: UInt64 = 0
    var bitCount = 0

    init(input: [UInt8], maximumOutput: Int) {
        self.input = input
        self.maximumOutput = maximumOutput
        output.reserveCapacity(min(input.count * 4, maximumOutput))
    }

    static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
                               2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]
    /// The order in which a dynamic block lists the code lengths of the code-length code.
    static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    mutating func bits(_ count: Int) throws(InflateError) -> Int {
        while bitCount < count {
            guard position < input.count else { throw InflateError(reason: "the compressed data ends too soon") }
            bitBuffer |= UInt64(input[position]) << UInt64(bitCount)
            position += 1
            bitCount += 8
        }
        let value = Int(bitBuffer & ((1 << UInt64(count)) - 1))
        bitBuffer >>= UInt64(count)
        bitCount -= count
        return value
    }

    mutating func run() throws(InflateError) {
        var isLast = false
        while !isLast {
            isLast = try bits(1) == 1
            switch try bits(2) {
            case 0: try storedBlock()
            case 1: try compressedBlock(literals: Self.fixedLiterals, distances: Self.fixedDistances)
            case 2:
                let (literals, distances) = try dynamicCodes()
                try compressedBlock(literals: literals, distances: distances)
            default: throw InflateError(reason: "a block of the reserved type 3")
            }
        }
    }

    private mutating func storedBlock() throws(InflateError) {
        bitBuffer = 0
        bitCount = 0
        guard position + 4 <= input.count else { throw InflateError(reason: "the compressed data ends too soon") }
        let length = Int(input[position]) | Int(input[position + 1]) << 8
        let complement = Int(input[position + 2]) | Int(input[position + 3]) << 8
        position += 4
        guard length == ~complement & 0xFFFF else { throw InflateError(reason: "a stored block whose length does not match its complement") }
        guard position + length <= input.count else { throw InflateError(reason: "the compressed data ends too soon") }
        try reserve(length)
        output.append(contentsOf: input[position..<(position + length)])
        position += length
    }

    private mutating func reserve(_ count: Int) throws(InflateError) {
        guard output.count + count <= maximumOutput else {
            throw InflateError(reason: "the data inflates to more than \(maximumOutput) bytes")
        }
    }

    private mutating func decode(_ code: HuffmanCode) throws(InflateError) -> Int {
        var value = 0, first = 0, index = 0
        for length in 1...15 {
            value |= try bits(1)
            let count = code.counts[length]
            if value - first < count { return code.symbols[index + value - first] }
            index += count
            first += count
            first <<= 1
            value <<= 1
        }
        throw InflateError(reason: "a code that is not in its Huffman table")
    }

    private mutating func compressedBlock(literals: HuffmanCode, distances: HuffmanCode) throws(InflateError) {
        while true {
            let symbol = try decode(literals)
            if symbol < 256 {
                try reserve(1)
                output.append(UInt8(symbol))
            } else if symbol == 256 {
                return
            } else {
                let lengthIndex = symbol - 257
                guard lengthIndex < Self.lengthBase.count else { throw InflateError(reason: "the invalid length code \(symbol)") }
                let length = Self.lengthBase[lengthIndex] + (try bits(Self.lengthExtra[lengthIndex]))
                let distanceIndex = try decode(distances)
                guard distanceIndex < Self.distanceBase.count else { throw InflateError(reason: "the invalid distance code \(distanceIndex)") }
                let distance = Self.distanceBase[distanceIndex] + (try bits(Self.distanceExtra[distanceIndex]))
                guard distance <= output.count else { throw InflateError(reason: "a distance of \(distance) bytes back from \(output.count)") }
                try reserve(length)
                let start = output.count - distance
                for offset in 0..<length { output.append(output[start + offset]) }
            }
        }
    }

    private mutating func dynamicCodes() throws(InflateError) -> (HuffmanCode, HuffmanCode) {
        let literalCount = try bits(5) + 257
        let distanceCount = try bits(5) + 1
        let codeLengthCount = try bits(4) + 4
        guard literalCount <= 286, distanceCount <= 30 else { throw InflateError(reason: "a dynamic block with too many codes") }
        var codeLengthLengths = [Int](repeating: 0, count: 19)
        for index in 0..<codeLengthCount { codeLengthLengths[Self.codeLengthOrder[index]] = try bits(3) }
        let codeLengthCode = try HuffmanCode(lengths: codeLengthLengths)
        var lengths: [Int] = []
        while lengths.count < literalCount + distanceCount {
            let symbol = try decode(codeLengthCode)
            switch symbol {
            case 0...15:
                lengths.append(symbol)
            case 16:
                guard let previous = lengths.last else { throw InflateError(reason: "a repeat with no length before it") }
                lengths += [Int](repeating: previous, count: 3 + (try bits(2)))
            case 17:
                lengths += [Int](repeating: 0, count: 3 + (try bits(3)))
            default:
                lengths += [Int](repeating: 0, count: 11 + (try bits(7)))
            }
        }
        guard lengths.count == literalCount + distanceCount else { throw InflateError(reason: "code lengths that run past their count") }
        guard lengths[256] != 0 else { throw InflateError(reason: "a dynamic block without an end-of-block code") }
        return (try HuffmanCode(lengths: Array(lengths[0..<literalCount])),
                try HuffmanCode(lengths: Array(lengths[literalCount...])))
    }

    static let fixedLiterals: HuffmanCode = {
        let lengths = [Int](repeating: 8, count: 144) + [Int](repeating: 9, count: 112)
            + [Int](repeating: 7, count: 24) + [Int](repeating: 8, count: 8)
        // The fixed code is complete by construction: building it cannot fail.
        return (try? HuffmanCode(lengths: lengths)) ?? HuffmanCode.empty
    }()

    static let fixedDistances: HuffmanCode = {
        // Complete by construction too (30 codes of 5 bits): building it cannot fail.
        (try? HuffmanCode(lengths: [Int](repeating: 5, count: 30))) ?? HuffmanCode.empty
    }()
}

private extension HuffmanCode {
    /// A code with no symbols, which decodes nothing.
    static var empty: HuffmanCode {
        var code = HuffmanCode()
        code.symbols = []
        return code
    }

    init() {}
}
