import CLibXML2
import Foundation
import ObjectGraph

/// The first error libxml2 reports while parsing one document.
private final class FirstError {
    var message: String?
    var line = 0
}

/// An XML element copied out of libxml2's tree, so the decoder works on Swift values and
/// the C document can be freed at once.
struct XCDataModelXMLElement: Sendable {
    var name: String
    var attributes: [String: String]
    var children: [XCDataModelXMLElement]
    /// 1-based line of the start tag.
    var line: Int

    func children(named name: String) -> [XCDataModelXMLElement] {
        children.filter { $0.name == name }
    }
}

/// libxml2 parsing of a model's `contents`: no network, no DTD loading, no entity
/// substitution, no messages on stderr (errors come back as `XCDataModelError`).
enum XCDataModelXMLDocument {
    /// libxml2 is loaded, and `xmlInitParser` called as it wants before threads race to parse,
    /// by the first model a process reads. Nil when it is ready, else why it cannot be loaded.
    private static let libxml2Failure: String? = vacations_libxml2_load().map { String(cString: $0) }

    static func parse(_ data: Data, url: URL?) throws -> XCDataModelXMLElement {
        if let failure = libxml2Failure { throw XCDataModelError(.unreadable(reason: failure), url: url) }
        guard !data.isEmpty else {
            throw XCDataModelError(.malformedXML(message: "the file is empty"), url: url)
        }
        guard data.count < Int(Int32.max) else {
            throw XCDataModelError(.malformedXML(message: "the file is too large"), url: url)
        }
        guard let context = xmlNewParserCtxt() else {
            throw XCDataModelError(.unreadable(reason: "libxml2 could not allocate a parser"), url: url)
        }
        defer { xmlFreeParserCtxt(context) }
        // libxml2 goes on after the first error and `lastError` keeps the last one, which is
        // often a consequence ("Premature end of data"); collect the first instead.
        let firstError = FirstError()
        context.pointee._private = Unmanaged.passUnretained(firstError).toOpaque()
        context.pointee.sax.pointee.serror = { userData, error in
            guard let userData, let error else { return }
            let context = userData.assumingMemoryBound(to: xmlParserCtxt.self)
            guard let box = context.pointee._private else { return }
            let collector = Unmanaged<FirstError>.fromOpaque(box).takeUnretainedValue()
            guard collector.message == nil, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
            collector.message = error.pointee.message.map { String(cString: $0) }?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            collector.line = Int(error.pointee.line)
        }
        let options = Int32(bitPattern: XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue
                                | XML_PARSE_NOWARNING.rawValue)
        let document = withExtendedLifetime(firstError) {
            data.withUnsafeBytes { bytes -> xmlDocPtr? in
                guard let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) else { return nil }
                return xmlCtxtReadMemory(context, base, Int32(bytes.count), nil, nil, options)
            }
        }
        context.pointee._private = nil
        let wellFormed = context.pointee.wellFormed != 0
        guard let document, wellFormed else {
            if let document { xmlFreeDoc(document) }
            let lastError = context.pointee.lastError
            let message = firstError.message
                ?? lastError.message.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) }
                ?? "libxml2 could not parse it"
            let line = firstError.message != nil ? firstError.line : Int(lastError.line)
            throw XCDataModelError(.malformedXML(message: message), url: url, line: line > 0 ? line : nil)
        }
        defer { xmlFreeDoc(document) }
        guard let root = xmlDocGetRootElement(document) else {
            throw XCDataModelError(.malformedXML(message: "no root element"), url: url)
        }
        return copy(root, in: document)
    }

    /// Copies an element and its element descendants; text and comments are not used by
    /// the model format. libxml2 caps nesting at 256 levels, which bounds the recursion.
    private static func copy(_ node: xmlNodePtr, in document: xmlDocPtr) -> XCDataModelXMLElement {
        var attributes: [String: String] = [:]
        var property = node.pointee.properties
        while let attribute = property {
            if let rawName = attribute.pointee.name {
                let name = String(cString: rawName)
                if let rawValue = xmlNodeListGetString(document, attribute.pointee.children, 1) {
                    attributes[name] = String(cString: rawValue)
                    vacations_xml_free(rawValue)
                } else {
                    attributes[name] = ""
                }
            }
            property = attribute.pointee.next
        }
        var children: [XCDataModelXMLElement] = []
        var child = node.pointee.children
        while let current = child {
            if current.pointee.type == XML_ELEMENT_NODE {
                children.append(copy(current, in: document))
            }
            child = current.pointee.next
        }
        let name = node.pointee.name.map { String(cString: $0) } ?? ""
        return XCDataModelXMLElement(name: name, attributes: attributes, children: children,
                                     line: Int(xmlGetLineNo(node)))
    }
}
