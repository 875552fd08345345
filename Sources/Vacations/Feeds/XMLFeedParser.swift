import CLibXML2
import Foundation

/// State that libxml2's C callbacks reach through their context pointer.
private final class XMLInputContext {
    struct ParserMessage {
        var code: Int32
        var message: String
        var line: Int
        var column: Int
        /// Whether the input had ended when libxml2 raised it: then the parser was
        /// finishing (libxml2's `terminate`), and the error is about what is missing.
        var afterEndOfInput: Bool
        /// The element libxml2 was inside (innermost open one), `nil` outside the root.
        var openElement: String?
    }

    let input: FeedInput
    var prolog = XMLPrologScanner()
    /// An error from our side of the input callback (I/O, UTF-8, DOCTYPE), which wins over
    /// the error libxml2 reports when the callback fails.
    var inputError: (any Error)?
    /// libxml2's first error.
    var parserMessage: ParserMessage?

    init(input: FeedInput) {
        self.input = input
    }
}

private let elementNode = Int32(XML_READER_TYPE_ELEMENT.rawValue)
private let endElementNode = Int32(XML_READER_TYPE_END_ELEMENT.rawValue)
private let textNode = Int32(XML_READER_TYPE_TEXT.rawValue)
private let cdataNode = Int32(XML_READER_TYPE_CDATA.rawValue)
private let whitespaceNode = Int32(XML_READER_TYPE_WHITESPACE.rawValue)
private let significantWhitespaceNode = Int32(XML_READER_TYPE_SIGNIFICANT_WHITESPACE.rawValue)
private let documentTypeNode = Int32(XML_READER_TYPE_DOCUMENT_TYPE.rawValue)
private let entityReferenceNode = Int32(XML_READER_TYPE_ENTITY_REFERENCE.rawValue)
private let entityNode = Int32(XML_READER_TYPE_ENTITY.rawValue)

/// Reads Flickr REST XML with libxml2's streaming `xmlTextReader`: one node at a time,
/// the previous ones freed, so memory stays flat on any size of feed.
///
/// Options: `XML_PARSE_NONET` and neither `XML_PARSE_NOENT` nor `XML_PARSE_DTDLOAD`; on top
/// of that the prolog scanner refuses a DOCTYPE before libxml2 reads it, so only the five
/// predefined entities and character references are ever expanded.
struct XMLFeedParser {
    private let reader: OpaquePointer
    private let context: XMLInputContext
    private var text: [UInt8] = []
    private var content: FeedContent?
    private var failed = false
    /// The first element of `<rsp>` that is none of the kinds read, to name what the response holds.
    private var otherElement: String?

    /// Reads a whole XML feed, delivering records to `sink`.
    static func parse(_ input: FeedInput, into sink: inout FeedSink) throws -> FeedContent {
        if let failure = libxml2Failure { throw XMLLibraryUnavailable(reason: failure) }
        let context = XMLInputContext(input: input)
        return try withExtendedLifetime(context) {
            let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOWARNING.rawValue | XML_PARSE_COMPACT.rawValue
                                | XML_PARSE_BIG_LINES.rawValue)
            let pointer = Unmanaged.passUnretained(context).toOpaque()
            guard let reader = xmlReaderForIO(readCallback, nil, pointer, nil, "UTF-8", options) else {
                throw context.inputError ?? FeedError(.io, format: .xml, "libxml2 could not start reading \(input.name)")
            }
            defer { xmlFreeTextReader(reader) }
            xmlTextReaderSetStructuredErrorHandler(reader, errorCallback, pointer)
            var parser = XMLFeedParser(reader: reader, context: context)
            return try parser.readDocument(into: &sink)
        }
    }

    private init(reader: OpaquePointer, context: XMLInputContext) {
        self.reader = reader
        self.context = context
    }

    // MARK: Document structure

    private mutating func readDocument(into sink: inout FeedSink) throws -> FeedContent {
        var sawRoot = false
        while try advance() {
            guard nodeType == elementNode else { continue }
            // libxml2 itself refuses a second root element, so this runs once.
            sawRoot = true
            try readResponse(into: &sink)
        }
        guard sawRoot, let content else {
            if let otherElement {
                throw FeedError.unclaimed(UnclaimedResponses.named(otherElement, format: .xml), format: .xml)
            }
            throw FeedError(.wrongRoot, format: .xml, "<rsp> holds no photos, photo or places")
        }
        return content
    }

    /// `<rsp stat="ok">` with one content element, or `<rsp stat="fail"><err …/></rsp>`.
    private mutating func readResponse(into sink: inout FeedSink) throws {
        let name = localName
        guard name == "rsp" else {
            throw FeedError(.wrongRoot, format: .xml, at: position,
                            "the root element is <\(name)>, where Flickr sends <rsp>")
        }
        let stat = attribute("stat")
        switch stat {
        case nil, "ok": break
        case "fail": failed = true
        case let other?:
            throw FeedError(.wrongRoot, format: .xml, at: position, "<rsp stat=\"\(other)\">: expected \"ok\" or \"fail\"")
        }
        if !isEmptyElement {
            try forEachChild { parser in
                try parser.readResponseChild(into: &sink)
            }
        }
        if failed {
            throw FeedError(.flickrFailure(code: 0, message: "Flickr reported a failure without a message"), format: .xml)
        }
    }

    /// One element of `<rsp>`: the kinds the importer takes are read, any other kind is refused
    /// whole (ARCHITECTURE.md §3), by what Flickr documents of it.
    private mutating func readResponseChild(into sink: inout FeedSink) throws {
        let name = localName
        if failed {
            if name == "err" {
                let code = attribute("code").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 0
                let message = attribute("msg") ?? attribute("message") ?? "Flickr gave no message"
                throw FeedError(.flickrFailure(code: code, message: message), format: .xml, at: position)
            }
            return try skipElement()
        }
        switch name {
        case "photos":
            content = content ?? .photos
            try readPhotoList(into: &sink)
        case "photoset", "gallery":
            // photosets.getPhotos pages its photos; photosets.getInfo and galleries.getInfo hold
            // the same element with a title and description and no photos.
            let paged = !attributeNames().isDisjoint(with: UnclaimedResponses.pagingNames)
            let photos = try readPhotoList(into: &sink)
            guard paged || photos > 0 else {
                let info = name == "photoset" ? UnclaimedResponses.photosetInfo : UnclaimedResponses.galleryInfo
                throw FeedError.unclaimed(info, format: .xml)
            }
            content = content ?? .photos
        case "photo":
            let record = try readPhoto()
            guard record.hasInfoStructure else { throw FeedError.unclaimed(record.otherKind, format: .xml) }
            content = content ?? .singlePhoto
            try sink.deliver(record)
        case "places":
            if let refusal = UnclaimedResponses.topPlacesRefusal(attributeNames()) {
                throw FeedError.unclaimed(refusal, format: .xml)
            }
            content = content ?? .places
            if isEmptyElement { return }
            try forEachChild { parser in
                if parser.localName == "place" {
                    try sink.deliver(parser.readPlace())
                } else {
                    try parser.skipElement()
                }
            }
        default:
            otherElement = otherElement ?? name
            try skipElement()
        }
    }

    /// The `<photo>` elements of a list; returns how many there were.
    @discardableResult
    private mutating func readPhotoList(into sink: inout FeedSink) throws -> Int {
        if sink.paging == nil {
            let names = attributeNames().intersection(UnclaimedResponses.pagingNames)
            if !names.isEmpty {
                var paging = FeedPaging()
                for name in names.sorted() { if let value = attribute(name) { paging.set(name, value) } }
                sink.paging = paging
            }
        }
        if isEmptyElement { return 0 }
        var count = 0
        try forEachChild { parser in
            if parser.localName == "photo" {
                count += 1
                try sink.deliver(parser.readPhoto())
            } else {
                try parser.skipElement()
            }
        }
        return count
    }

    // MARK: Records

    /// A `<photo>`: attributes (search extras) and, in getInfo, child elements.
    private mutating func readPhoto() throws -> PhotoRecord {
        var record = PhotoRecord()
        readAttributes(FlickrKeys.photo) { record.set($0, $1) }
        if isEmptyElement { return record }
        try forEachChild { parser in
            let key = parser.localNameBytes.flatMap(FlickrKeys.photo.lookup)
            if let key { record.noteContainer(key) }
            switch key {
            case .title?: try parser.readText { record.set(.title, $0) }
            case .description?: try parser.readText { record.set(.description, $0) }
            case .owner?:
                parser.readAttributes(FlickrKeys.owner) { record.set($0, $1) }
                try parser.skipElement()
            case .dates?:
                parser.readAttributes(FlickrKeys.dates) { record.set($0, $1) }
                try parser.skipElement()
            case .tags?:
                if parser.isEmptyElement { return }
                try parser.forEachChild { parser in
                    if parser.localName == "tag" {
                        try parser.readText { record.set(.tag, $0) }
                    } else {
                        try parser.skipElement()
                    }
                }
            case .location?:
                parser.readAttributes(FlickrKeys.location) { record.set($0, $1) }
                if parser.isEmptyElement { return }
                try parser.forEachChild { parser in
                    switch parser.localNameBytes.flatMap(FlickrKeys.location.lookup) {
                    case let field? where field == .locality || field == .region || field == .country:
                        try parser.readText { record.set(field, $0) }
                    default:
                        try parser.skipElement()
                    }
                }
            default:
                try parser.skipElement()
            }
        }
        return record
    }

    /// `<place place_id=… woeid=…>New York, US, United States</place>`.
    private mutating func readPlace() throws -> PlaceRecord {
        var record = PlaceRecord()
        readAttributes(FlickrKeys.place) { record.set($0, $1) }
        try readText { record.set(.content, $0) }
        return record
    }

    // MARK: Reader primitives

    /// Moves to the next node. - Returns: `false` at the end of the document.
    private mutating func advance() throws -> Bool {
        let status = xmlTextReaderRead(reader)
        if status == 1, context.parserMessage == nil {
            let type = nodeType
            if type == elementNode {
                if xmlTextReaderDepth(reader) >= FlickrFeedReader.maximumDepth {
                    throw FeedError(.tooDeep, format: .xml, at: position)
                }
            } else if type == documentTypeNode || type == entityReferenceNode || type == entityNode {
                throw FeedError(.forbidden, format: .xml, at: position, "a DOCTYPE or entity reference")
            }
            return true
        }
        if status == 0, context.parserMessage == nil, context.inputError == nil { return false }
        throw currentError()
    }

    /// Calls `body` on each child element of the current element (not empty), then leaves
    /// the reader on the element's end tag. Text and comments between children are skipped.
    private mutating func forEachChild(_ body: (inout XMLFeedParser) throws -> Void) throws {
        let depth = xmlTextReaderDepth(reader)
        while try advance() {
            let type = nodeType
            if type == endElementNode, xmlTextReaderDepth(reader) == depth { return }
            if type == elementNode { try body(&self) }
        }
        throw currentError()
    }

    /// Skips the current element and everything in it.
    private mutating func skipElement() throws {
        if isEmptyElement { return }
        try forEachChild { parser in try parser.skipElement() }
    }

    /// Hands `body` the text inside the current element (nested elements' text included),
    /// entities decoded, then moves past the element.
    private mutating func readText(_ body: (UnsafeRawBufferPointer) -> Void) throws {
        text.removeAll(keepingCapacity: true)
        if !isEmptyElement {
            let depth = xmlTextReaderDepth(reader)
            while try advance() {
                let type = nodeType
                if type == endElementNode, xmlTextReaderDepth(reader) == depth { break }
                if type == textNode || type == cdataNode || type == significantWhitespaceNode || type == whitespaceNode,
                   let value = xmlTextReaderConstValue(reader) {
                    let bytes = Self.bytes(value)
                    guard text.count + bytes.count <= FlickrFeedReader.maximumTextLength else {
                        throw FeedError(.malformed, format: .xml, at: position,
                                        "a text longer than \(FlickrFeedReader.maximumTextLength) bytes")
                    }
                    text.append(contentsOf: bytes)
                }
            }
        }
        text.withUnsafeBytes(body)
    }

    /// Hands each attribute of the current element that `keys` knows to `body`, as bytes
    /// owned by libxml2 (no copy, nothing to free).
    private func readAttributes(_ keys: KeyTable<FeedKey>, _ body: (FeedKey, UnsafeRawBufferPointer) -> Void) {
        while xmlTextReaderMoveToNextAttribute(reader) == 1 {
            guard let name = xmlTextReaderConstLocalName(reader),
                  let field = keys.lookup(Self.bytes(name)),
                  let value = xmlTextReaderConstValue(reader) else { continue }
            body(field, Self.bytes(value))
        }
        xmlTextReaderMoveToElement(reader)
    }

    /// The names of the current element's attributes.
    private func attributeNames() -> Set<String> {
        var names: Set<String> = []
        while xmlTextReaderMoveToNextAttribute(reader) == 1 {
            if let name = xmlTextReaderConstLocalName(reader) { names.insert(String(decoding: Self.bytes(name), as: UTF8.self)) }
        }
        xmlTextReaderMoveToElement(reader)
        return names
    }

    /// One attribute by name, as a `String` (libxml2's copy is freed).
    private func attribute(_ name: String) -> String? {
        guard let value = xmlTextReaderGetAttribute(reader, name) else { return nil }
        defer { vacations_xml_free(value) }
        return String(decoding: Self.bytes(value), as: UTF8.self)
    }

    private var nodeType: Int32 { xmlTextReaderNodeType(reader) }
    private var isEmptyElement: Bool { xmlTextReaderIsEmptyElement(reader) == 1 }

    private var localNameBytes: UnsafeRawBufferPointer? {
        xmlTextReaderConstLocalName(reader).map(Self.bytes)
    }

    private var localName: String {
        localNameBytes.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// The line of the current node. (libxml2's parser position runs ahead of the reader,
    /// so its column would point past the node.)
    private var position: FeedError.Position? {
        guard let node = xmlTextReaderCurrentNode(reader) else { return nil }
        let line = xmlGetLineNo(node)
        return line > 0 ? .line(Int(line)) : nil
    }

    private static func bytes(_ pointer: UnsafePointer<xmlChar>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: pointer, count: strlen(UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self)))
    }

    /// The error to throw after the reader failed (or stopped before the end of an element).
    private func currentError() -> any Error {
        if let error = context.inputError { return error }
        guard let message = context.parserMessage else {
            return FeedError(.truncated, format: .xml, "the document ends before its root element is closed")
        }
        let at = FeedError.Position.lineColumn(line: message.line, column: message.column)
        if message.code == Int32(XML_ERR_DOCUMENT_EMPTY.rawValue) {
            return FeedError(.truncated, format: .xml, at: at, "the input has no root element")
        }
        if message.afterEndOfInput, let element = message.openElement {
            return FeedError(.truncated, format: .xml, at: at, "the input ends inside <\(element)>")
        }
        if message.code == Int32(XML_ERR_DOCUMENT_END.rawValue) {
            return FeedError(.trailingGarbage, format: .xml, at: at, message.message)
        }
        if message.message.hasPrefix("Excessive depth") {
            return FeedError(.tooDeep, format: .xml, at: at)
        }
        if message.afterEndOfInput {
            return FeedError(.truncated, format: .xml, at: at, message.message)
        }
        return FeedError(.malformed, format: .xml, at: at, message.message)
    }
}

/// libxml2 could not be loaded (it is loaded on first use, not linked): the machine lacks it,
/// which says nothing of the feed (exit 1, not 65).
package struct XMLLibraryUnavailable: Error, CustomStringConvertible {
    package let reason: String
    package var description: String { reason + ", which reading XML feeds needs" }
}

/// libxml2 is loaded (and `xmlInitParser` called, as it wants before readers run on several
/// threads) by the first XML feed a process reads; a global is initialised once, whatever the
/// thread. Nil when it is ready, else why it cannot be loaded.
private let libxml2Failure: String? = vacations_libxml2_load().map { String(cString: $0) }

/// libxml2's input callback: copies the next bytes of the feed, after the UTF-8 check (in
/// `FeedInput`) and the DOCTYPE check. Returns -1 to make libxml2 stop.
private let readCallback: xmlInputReadCallback = { pointer, buffer, length in
    guard let pointer, let buffer, length > 0 else { return -1 }
    let context = Unmanaged<XMLInputContext>.fromOpaque(pointer).takeUnretainedValue()
    if context.inputError != nil { return -1 }
    do {
        let target = UnsafeMutableRawBufferPointer(start: buffer, count: Int(length))
        let count = try context.input.read(into: target)
        if !context.prolog.isFinished {
            try context.prolog.scan(UnsafeRawBufferPointer(rebasing: target[0..<count]))
        }
        return Int32(count)
    } catch {
        context.inputError = error
        return -1
    }
}

/// The innermost element open in the parser that raised `error`: what tells a document
/// cut short (libxml2 then says "Premature end of data" or even "Extra content at the end")
/// from one with data after its root.
private func openElementName(_ error: xmlError) -> String? {
    guard error.domain == Int32(XML_FROM_PARSER.rawValue),
          let parser = error.ctxt?.assumingMemoryBound(to: xmlParserCtxt.self),
          parser.pointee.nameNr > 0, let name = parser.pointee.name else { return nil }
    return String(cString: UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self))
}

/// Keeps libxml2's first error (warnings aside) instead of printing it to stderr.
private let errorCallback: xmlStructuredErrorFunc = { pointer, error in
    guard let pointer, let error else { return }
    let context = Unmanaged<XMLInputContext>.fromOpaque(pointer).takeUnretainedValue()
    guard context.parserMessage == nil, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
    let text = error.pointee.message.map { String(cString: $0) } ?? "XML error \(error.pointee.code)"
    context.parserMessage = .init(
        code: error.pointee.code,
        message: text.trimmingCharacters(in: .whitespacesAndNewlines),
        line: Int(error.pointee.line),
        column: Int(error.pointee.int2),
        afterEndOfInput: context.input.reachedEnd,
        openElement: openElementName(error.pointee))
}
