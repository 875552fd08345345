import Foundation

/// An `NSKeyedArchiver` archive read without `NSKeyedUnarchiver` (which cannot make Apple's
/// Core Data classes on Linux): the flat table `$objects`, where every object is a dictionary
/// of its keys with `$class` naming its class, and objects refer to one another by `UID`.
///
/// Every reference is checked against the table, every class against what the caller expects;
/// a failure is an `XCDataModelError` of kind `malformedArchive` that says which object and key.
///
/// ```swift
/// let archive = try KeyedArchive(data: Data(contentsOf: momURL), url: momURL)
/// let root = try archive.object(archive.root)        // NSManagedObjectModel
/// ```
struct KeyedArchive {
    /// One archived object: its class and keys.
    struct Object {
        let uid: Int
        /// `$classname`.
        let className: String
        /// `$classes`: the class and its superclasses, most derived first.
        let classChain: [String]
        let fields: [String: PlistValue]

        func isKind(of name: String) -> Bool { classChain.contains(name) || className == name }

        subscript(key: String) -> PlistValue? { fields[key] }
    }

    let objects: [PlistValue]
    /// The UID of `$top.root`.
    let root: Int
    /// Where the archive came from, for error messages.
    let url: URL?

    /// - Throws: `XCDataModelError` (`malformedArchive`) when `data` is not a keyed archive.
    init(data: Data, url: URL?) throws {
        let plist: PlistValue
        do {
            plist = try BinaryPropertyListReader.read(data)
        } catch {
            throw XCDataModelError(.malformedArchive(reason: error.reason), url: url)
        }
        func fail(_ reason: String) -> XCDataModelError {
            XCDataModelError(.malformedArchive(reason: reason), url: url)
        }
        guard case .dictionary(let top) = plist else { throw fail("the property list is not a dictionary") }
        guard top["$archiver"]?.stringValue == "NSKeyedArchiver" else {
            throw fail("not a keyed archive ($archiver is not NSKeyedArchiver)")
        }
        switch top["$version"] {
        case .integer(100_000)?: break
        case .integer(let version)?: throw fail("keyed archive version \(version), expected 100000")
        case nil: throw fail("no keyed archive version")
        default: throw fail("the keyed archive version is not an integer")
        }
        guard case .array(let objects)? = top["$objects"], objects.first == .string("$null") else {
            throw fail("no $objects table starting with $null")
        }
        guard case .dictionary(let roots)? = top["$top"], case .uid(let root)? = roots["root"] else {
            throw fail("no $top.root reference")
        }
        guard root > 0, root < objects.count else { throw fail("$top.root refers to object \(root) of \(objects.count)") }
        self.objects = objects
        self.root = root
        self.url = url
    }

    func error(_ reason: String) -> XCDataModelError {
        XCDataModelError(.malformedArchive(reason: reason), url: url)
    }

    /// The UID `value` holds; nil for none (absent, or a reference to `$null`).
    ///
    /// - Throws: for a value that is not a reference, or one out of range.
    func reference(_ value: PlistValue?, _ what: @autoclosure () -> String) throws -> Int? {
        guard let value else { return nil }
        guard case .uid(let uid) = value else { throw error("\(what()) is not an object reference") }
        guard uid < objects.count else { throw error("\(what()) refers to object \(uid) of \(objects.count)") }
        return uid == 0 ? nil : uid
    }

    /// The object `uid` refers to, which must be an archived object (a dictionary with `$class`).
    func object(_ uid: Int) throws -> Object {
        guard uid > 0, uid < objects.count else { throw error("reference to object \(uid) of \(objects.count)") }
        guard case .dictionary(let fields) = objects[uid] else { throw error("object \(uid) is a value where an object was expected") }
        guard let classUID = try reference(fields["$class"], "the class of object \(uid)"),
              case .dictionary(let classInfo) = objects[classUID],
              let className = classInfo["$classname"]?.stringValue else {
            throw error("object \(uid) has no class")
        }
        var chain: [String] = []
        if case .array(let classes)? = classInfo["$classes"] { chain = classes.compactMap(\.stringValue) }
        return Object(uid: uid, className: className, classChain: chain, fields: fields)
    }

    /// The object `value` refers to, which must be of class `expected` (or a subclass); nil for none.
    func object(_ value: PlistValue?, kindOf expected: String, _ what: @autoclosure () -> String) throws -> Object? {
        guard let uid = try reference(value, what()) else { return nil }
        let object = try self.object(uid)
        guard object.isKind(of: expected) else {
            throw error("\(what()) is an \(object.className), not an \(expected)")
        }
        return object
    }

    // MARK: - Foundation values

    /// A string: inline, a reference to one, or an `NSString`/`NSMutableString` object; nil for none.
    func string(_ value: PlistValue?, _ what: @autoclosure () -> String) throws -> String? {
        guard let value else { return nil }
        if case .string(let text) = value { return text }
        guard let uid = try reference(value, what()) else { return nil }
        if case .string(let text) = objects[uid] { return text }
        let object = try self.object(uid)
        if let text = object["NS.string"]?.stringValue { return text }
        if case .data(let bytes)? = object["NS.bytes"] { return String(decoding: bytes, as: UTF8.self) }
        throw error("\(what()) is an \(object.className), not a string")
    }

    /// An integer stored inline (keyed archives store numbers in place); nil when absent.
    func integer(_ value: PlistValue?, _ what: @autoclosure () -> String) throws -> Int64? {
        switch value {
        case nil: return nil
        case .integer(let number)?: return number
        case .bool(let flag)?: return flag ? 1 : 0
        default: throw error("\(what()) is not an integer")
        }
    }

    /// A Boolean stored inline (as a Boolean or an integer); false when absent.
    func flag(_ value: PlistValue?, _ what: @autoclosure () -> String) throws -> Bool {
        switch value {
        case nil: return false
        case .bool(let flag)?: return flag
        case .integer(let number)?: return number != 0
        default: throw error("\(what()) is not a Boolean")
        }
    }

    /// A number stored inline, integer or real; nil when absent.
    func real(_ value: PlistValue?, _ what: @autoclosure () -> String) throws -> Double? {
        switch value {
        case nil: return nil
        case .integer(let number)?: return Double(number)
        case .real(let number)?: return number
        default: throw error("\(what()) is not a number")
        }
    }

    /// The members of an `NSArray`, `NSSet` or `NSOrderedSet` (or a subclass) that `value` refers
    /// to, as the references and inline values they are; empty for none.
    func members(_ value: PlistValue?, _ what: @autoclosure () -> String) throws -> [PlistValue] {
        guard let uid = try reference(value, what()) else { return [] }
        let object = try self.object(uid)
        guard ["NSArray", "NSSet", "NSOrderedSet"].contains(where: object.isKind(of:)) else {
            throw error("\(what()) is an \(object.className), not an array or a set")
        }
        guard case .array(let members)? = object["NS.objects"] else { throw error("\(what()) has no NS.objects") }
        return members
    }

    /// The entries of an `NSDictionary` (or a subclass, such as the `NSKnownKeysDictionary1` of
    /// a store's cache) that `value` refers to, in archive order; empty for none.
    func entries(_ value: PlistValue?, _ what: @autoclosure () -> String) throws -> [(key: PlistValue, value: PlistValue)] {
        guard let uid = try reference(value, what()) else { return [] }
        let object = try self.object(uid)
        if object.isKind(of: "NSKnownKeysDictionary") {
            guard let mapping = try self.object(object["searchMapping"], kindOf: "NSKnownKeysMappingStrategy", "the keys of \(what())") else {
                throw error("\(what()) has no keys")
            }
            let keys = try members(mapping["keys"], "the keys of \(what())")
            let values = try members(object["values"], "the values of \(what())")
            guard keys.count == values.count else { throw error("\(what()) has \(keys.count) keys for \(values.count) values") }
            let empty = object["emptyToken"]
            return zip(keys, values).filter { empty == nil || $0.1 != empty }.map { (key: $0.0, value: $0.1) }
        }
        guard object.isKind(of: "NSDictionary") else { throw error("\(what()) is an \(object.className), not a dictionary") }
        guard case .array(let keys)? = object["NS.keys"], case .array(let values)? = object["NS.objects"] else {
            throw error("\(what()) has no NS.keys and NS.objects")
        }
        guard keys.count == values.count else { throw error("\(what()) has \(keys.count) keys for \(values.count) values") }
        return zip(keys, values).map { (key: $0.0, value: $0.1) }
    }

    /// The entries of a dictionary whose keys are strings.
    func stringKeyedEntries(_ value: PlistValue?, _ what: @autoclosure () -> String) throws -> [(key: String, value: PlistValue)] {
        let what = what()
        return try entries(value, what).map { entry in
            guard let key = try string(entry.key, "a key of \(what)") else { throw error("\(what) has a key that is not a string") }
            return (key: key, value: entry.value)
        }
    }
}
