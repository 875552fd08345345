import Foundation

/// Why a feed could not be read. A feed that throws must change nothing: callers import a
/// feed in one transaction and roll it back on any of these.
///
/// ```swift
/// do {
///     try FlickrFeedReader.read(contentsOf: url, photo: { _ in })
/// } catch let error as FeedError {
///     print("Error: \(error)")   // Error: Flickr error 112: Method "flickr.fakeMethod" not found
/// }
/// ```
package struct FeedError: Error, CustomStringConvertible, Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// Not well-formed XML or JSON, or not a feed format at all.
        case malformed
        /// The input ends in the middle of the document (or is empty).
        case truncated
        /// A byte sequence that is not UTF-8.
        case notUTF8
        /// More data after the end of the document.
        case trailingGarbage
        /// Well-formed, but not a Flickr response this reader knows (`<html>`, `{"foo":1}`).
        case wrongRoot
        /// Flickr's own failure response (`stat="fail"`).
        case flickrFailure(code: Int, message: String)
        /// A Flickr response of a kind the importer does not take, such as `places.find` or
        /// `photos.geo.getLocation`: refused whole. The detail says what it holds.
        case unclaimed
        /// A DOCTYPE, entity declaration or entity reference: never sent by Flickr, and the
        /// way to XXE and billion-laughs attacks.
        case forbidden
        /// Nested deeper than ``FlickrFeedReader/maximumDepth``.
        case tooDeep
        /// The feed could not be opened or read.
        case io
    }

    /// Where in the input the problem was found.
    package enum Position: Sendable, Equatable, CustomStringConvertible {
        /// 1-based line and column (XML).
        case lineColumn(line: Int, column: Int)
        /// 1-based line (XML, where libxml2 knows no column for an element it has read).
        case line(Int)
        /// 0-based offset in bytes from the start of the input (JSON, UTF-8 checks).
        case byteOffset(Int)

        package var description: String {
            switch self {
            case let .lineColumn(line, column): return "line \(line), column \(column)"
            case let .line(line): return "line \(line)"
            case let .byteOffset(offset): return "byte offset \(offset)"
            }
        }
    }

    package var kind: Kind
    /// The format being read when it failed, when known.
    package var format: FeedFormat?
    package var position: Position?
    /// The details, such as libxml2's message or "expected ':' after an object key".
    package var detail: String

    package init(_ kind: Kind, format: FeedFormat? = nil, at position: Position? = nil, _ detail: String = "") {
        self.kind = kind
        self.format = format
        self.position = position
        self.detail = detail
    }

    /// The error that refuses a response of a kind the importer does not take; `what` says what
    /// it holds, such as "a flickr.places.find response (places matching a search)".
    static func unclaimed(_ what: String, format: FeedFormat) -> FeedError {
        FeedError(.unclaimed, format: format, "\(what), not photos or places")
    }

    /// Flickr's error code for a failure response, else `nil`.
    var flickrCode: Int? {
        if case let .flickrFailure(code, _) = kind { return code }
        return nil
    }

    /// One line: control characters quoted from the feed (libxml2's excerpts of the input,
    /// Flickr's own message) show as `\u{…}`, so that they neither break the line nor reach a
    /// terminal.
    package var description: String {
        let text = unquotedDescription
        guard text.unicodeScalars.contains(where: Self.isControl) else { return text }
        return text.unicodeScalars.map { scalar in
            Self.isControl(scalar) ? "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}" : String(scalar)
        }.joined()
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    private var unquotedDescription: String {
        let formatName = format.map { " \($0)" } ?? " input"
        let place = position.map { " at \($0)" } ?? ""
        let tail = detail.isEmpty ? "" : ": \(detail)"
        switch kind {
        case let .flickrFailure(code, message):
            return "Flickr error \(code): \(message)"
        case .malformed:
            return "malformed\(formatName)\(place)\(tail)"
        case .truncated:
            return "truncated\(formatName)\(place)\(tail)"
        case .notUTF8:
            return "invalid UTF-8\(place)\(tail)"
        case .trailingGarbage:
            return "unexpected data after the end of the\(formatName) document\(place)\(tail)"
        case .wrongRoot:
            return "not a Flickr response\(place)\(tail)"
        case .unclaimed:
            return "holds \(detail)"
        case .forbidden:
            return "refused\(formatName)\(place)\(tail)"
        case .tooDeep:
            return "\(format.map { "\($0) " } ?? "")nested deeper than \(FlickrFeedReader.maximumDepth) levels\(place)"
        case .io:
            return detail.isEmpty ? "cannot read the feed" : detail
        }
    }
}
