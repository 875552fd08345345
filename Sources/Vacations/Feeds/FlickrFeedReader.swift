import Foundation

/// Reads Flickr feeds — REST XML, JSON and JSONP, told apart by their first bytes — as a
/// stream: records are handed over one at a time, in document order, and only one chunk
/// of the input is held in memory, whatever its size.
///
/// ```swift
/// let summary = try FlickrFeedReader.read(contentsOf: feedURL, photo: { photo in
///     try library.visit(photo)
/// }, place: { place in
///     placeNames[place.placeID ?? ""] = place.name
/// })
/// print("\(summary.photoCount) photos, \(summary.problems.count) skipped")
/// ```
///
/// A record that cannot be used (no id, an id that is not a number) is skipped and listed
/// in ``FeedSummary/problems``; anything wrong with the feed as a whole throws a
/// ``FeedError``, and so does a Flickr response of a kind not read (``FeedError/Kind-swift.enum/unclaimed``:
/// `places.find`, `photos.geo.getLocation`, `people.getInfo`, …). Records may have been delivered before the error is found (a truncated
/// file is only known at its end), so import a feed in one transaction.
package enum FlickrFeedReader {
    /// Deepest nesting of elements, objects or arrays accepted; Flickr's own go to 5.
    package static let maximumDepth = 64
    /// Longest text (a title, a description) accepted, in bytes.
    static let maximumTextLength = 8 * 1024 * 1024

    /// The format of a feed from its first bytes: after an optional UTF-8 byte order mark
    /// and whitespace, `<` is XML, `{` or `[` is JSON, and a name followed by `(` is JSONP.
    /// `nil` when the prefix says none of these, or is too short to say.
    ///
    /// ```swift
    /// FlickrFeedReader.sniff(Array("jsonFlickrApi({".utf8))  // .jsonp
    /// ```
    package static func sniff(_ prefix: some Sequence<UInt8>) -> FeedFormat? {
        if case let .format(format) = sniffPrefix(Array(prefix)) { return format }
        return nil
    }

    /// Reads the feed in a file.
    /// - Parameters:
    ///   - photo: called for each good photo record, in document order.
    ///   - place: called for each entry of a top-places list.
    /// - Returns: the format, the content and the counts, with the records that were skipped.
    /// - Throws: ``FeedError`` when the feed cannot be read, is not a Flickr feed or is
    ///   Flickr's failure response; whatever `photo` or `place` throw, unchanged.
    @discardableResult
    package static func read(
        contentsOf url: URL,
        photo: (FlickrPhoto) throws -> Void,
        place: (FlickrPlace) throws -> Void = { _ in }
    ) throws -> FeedSummary {
        try read(FeedInput(contentsOf: url), photo: photo, place: place)
    }

    /// Reads a feed from an open file handle, such as standard input for `-`. The handle is
    /// read to its end and left open.
    @discardableResult
    package static func read(
        fileHandle: FileHandle,
        photo: (FlickrPhoto) throws -> Void,
        place: (FlickrPlace) throws -> Void = { _ in }
    ) throws -> FeedSummary {
        try read(FeedInput(fileHandle: fileHandle), photo: photo, place: place)
    }

    /// Reads a feed held in memory.
    @discardableResult
    package static func read(
        data: Data,
        photo: (FlickrPhoto) throws -> Void,
        place: (FlickrPlace) throws -> Void = { _ in }
    ) throws -> FeedSummary {
        try read(FeedInput(data: data), photo: photo, place: place)
    }

    static func read(
        _ input: FeedInput,
        photo: (FlickrPhoto) throws -> Void,
        place: (FlickrPlace) throws -> Void
    ) throws -> FeedSummary {
        let format = try sniff(input)
        return try withoutActuallyEscaping(photo) { photo in
            try withoutActuallyEscaping(place) { place in
                var sink = FeedSink(photo: photo, place: place)
                let content: FeedContent
                switch format {
                case .xml: content = try XMLFeedParser.parse(input, into: &sink)
                case .json, .jsonp: content = try JSONFeedParser.parse(input, format: format, into: &sink)
                }
                return FeedSummary(format: format, content: content, photoCount: sink.photoCount,
                                   placeCount: sink.placeCount, problems: sink.problems, paging: sink.paging)
            }
        }
    }

    // MARK: Sniffing

    enum SniffResult: Equatable {
        case format(FeedFormat)
        case needMore
        /// Not a feed: the offending byte and its offset.
        case unknown(UInt8, Int)
    }

    /// Fills the input's window until its first bytes tell the format; nothing is consumed.
    private static func sniff(_ input: FeedInput) throws -> FeedFormat {
        while true {
            let result = sniffPrefix(input.window)
            switch result {
            case let .format(format):
                return format
            case let .unknown(byte, offset):
                throw FeedError(.malformed, at: .byteOffset(offset),
                                "not a Flickr feed: expected XML, JSON or JSONP, found \(JSONTokenizer.describe(byte))")
            case .needMore:
                if try !input.fill() {
                    if input.reachedEnd {
                        let window = input.window
                        let blank = window.allSatisfy { FlickrNames.isASCIIWhitespace($0) }
                            || (window.starts(with: [0xEF, 0xBB, 0xBF])
                                && window.dropFirst(3).allSatisfy { FlickrNames.isASCIIWhitespace($0) })
                        if blank {
                            throw FeedError(.truncated, at: .byteOffset(window.count), "the input is empty")
                        }
                        throw FeedError(.malformed, at: .byteOffset(0),
                                        "not a Flickr feed: expected XML, JSON or JSONP")
                    }
                    throw FeedError(.malformed, at: .byteOffset(0), "not a Flickr feed: no content in the first \(FeedInput.chunkSize) bytes")
                }
            }
        }
    }

    static func sniffPrefix<C: Collection>(_ bytes: C) -> SniffResult where C.Element == UInt8, C.Index == Int {
        var index = bytes.startIndex
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        while index < bytes.endIndex, index - bytes.startIndex < 3, bytes[index] == bom[index - bytes.startIndex] {
            index += 1
        }
        if index > bytes.startIndex, index - bytes.startIndex < 3 {
            // A partial mark: either more is coming, or this is not UTF-8 text.
            return index == bytes.endIndex ? .needMore : .unknown(bytes[index], index - bytes.startIndex)
        }
        while index < bytes.endIndex, FlickrNames.isASCIIWhitespace(bytes[index]) { index += 1 }
        guard index < bytes.endIndex else { return .needMore }
        let first = bytes[index]
        switch first {
        case UInt8(ascii: "<"): return .format(.xml)
        case UInt8(ascii: "{"), UInt8(ascii: "["): return .format(.json)
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"), UInt8(ascii: "$"):
            while index < bytes.endIndex {
                switch bytes[index] {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                     UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "."):
                    index += 1
                default:
                    while index < bytes.endIndex, FlickrNames.isASCIIWhitespace(bytes[index]) { index += 1 }
                    guard index < bytes.endIndex else { return .needMore }
                    return bytes[index] == UInt8(ascii: "(") ? .format(.jsonp)
                        : .unknown(bytes[index], index - bytes.startIndex)
                }
            }
            return .needMore
        default:
            return .unknown(first, index - bytes.startIndex)
        }
    }
}
