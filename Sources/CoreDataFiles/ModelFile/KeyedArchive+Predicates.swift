import Foundation

/// Archived `NSPredicate` and `NSExpression` objects written back as the format strings Xcode
/// keeps in a model file (`NSPredicate.predicateFormat`): fetched properties' and fetch request
/// templates' predicates, derived attributes' expressions, fetch index expressions.
extension KeyedArchive {
    /// Nesting of predicates and expressions deeper than this is refused.
    static let maximumPredicateDepth = 64

    /// The format of the predicate `value` refers to; nil for none.
    ///
    /// - Throws: for a class that is not a predicate Core Data archives, or a malformed one.
    func predicateFormat(_ value: PlistValue?, _ what: @autoclosure () -> String) throws -> String? {
        guard let uid = try reference(value, what()) else { return nil }
        var formatter = PredicateFormatter(archive: self, what: what())
        return try formatter.predicate(uid, depth: 0)
    }

    /// The format of the expression `value` refers to; nil for none.
    func expressionFormat(_ value: PlistValue?, _ what: @autoclosure () -> String) throws -> String? {
        guard let uid = try reference(value, what()) else { return nil }
        var formatter = PredicateFormatter(archive: self, what: what())
        return try formatter.expression(uid, depth: 0)
    }
}

/// Walks one archived predicate or expression tree, refusing cycles and excessive depth.
private struct PredicateFormatter {
    let archive: KeyedArchive
    let what: String
    var visiting: Set<Int> = []

    init(archive: KeyedArchive, what: String) {
        self.archive = archive
        self.what = what
    }

    private func unsupported(_ object: KeyedArchive.Object) -> XCDataModelError {
        archive.error("\(what) holds an \(object.className) (object \(object.uid)), which is not a predicate or expression this reader knows")
    }

    private mutating func enter(_ uid: Int, depth: Int) throws -> KeyedArchive.Object {
        guard depth < KeyedArchive.maximumPredicateDepth else {
            throw archive.error("\(what) nests more than \(KeyedArchive.maximumPredicateDepth) deep")
        }
        guard visiting.insert(uid).inserted else { throw archive.error("\(what) contains itself (object \(uid))") }
        return try archive.object(uid)
    }

    mutating func predicate(_ uid: Int, depth: Int) throws -> String {
        let object = try enter(uid, depth: depth)
        defer { visiting.remove(uid) }
        switch object.className {
        case "NSTruePredicate": return "TRUEPREDICATE"
        case "NSFalsePredicate": return "FALSEPREDICATE"
        case "NSCompoundPredicate":
            let type = try archive.integer(object["NSCompoundPredicateType"], "the type of \(what)") ?? -1
            var parts: [String] = []
            for member in try archive.members(object["NSSubpredicates"], "the subpredicates of \(what)") {
                guard let memberUID = try archive.reference(member, "a subpredicate of \(what)") else {
                    throw archive.error("\(what) has a missing subpredicate")
                }
                let text = try predicate(memberUID, depth: depth + 1)
                parts.append(try archive.object(memberUID).className == "NSCompoundPredicate" ? "(\(text))" : text)
            }
            switch type {
            case 0:
                guard parts.count == 1 else { throw archive.error("\(what) negates \(parts.count) predicates") }
                return "NOT " + parts[0]
            case 1: return parts.isEmpty ? "TRUEPREDICATE" : parts.joined(separator: " AND ")
            case 2: return parts.isEmpty ? "FALSEPREDICATE" : parts.joined(separator: " OR ")
            default: throw archive.error("\(what) is a compound predicate of type \(type)")
            }
        case "NSComparisonPredicate":
            guard let operatorObject = try archive.object(object["NSPredicateOperator"], kindOf: "NSPredicateOperator", "the operator of \(what)") else {
                throw archive.error("\(what) is a comparison without an operator")
            }
            let left = try operand(object["NSLeftExpression"], "left", depth: depth)
            let right = try operand(object["NSRightExpression"], "right", depth: depth)
            let type = try archive.integer(operatorObject["NSOperatorType"], "the operator type of \(what)") ?? -1
            let modifier = try archive.integer(operatorObject["NSModifier"], "the modifier of \(what)") ?? 0
            let options = try archive.integer(operatorObject["NSOptions"] ?? operatorObject["NSFlags"], "the options of \(what)") ?? 0
            let names: [Int64: String] = [0: "<", 1: "<=", 2: ">", 3: ">=", 4: "==", 5: "!=", 6: "MATCHES", 7: "LIKE",
                                          8: "BEGINSWITH", 9: "ENDSWITH", 10: "IN", 99: "CONTAINS", 100: "BETWEEN"]
            guard let name = names[type] else { throw archive.error("\(what) compares with operator type \(type)") }
            let prefix: String
            switch modifier {
            case 0: prefix = ""
            case 1: prefix = "ALL "
            case 2: prefix = "ANY "
            default: throw archive.error("\(what) has the modifier \(modifier)")
            }
            var flags = ""
            if options & 1 != 0 { flags += "c" }
            if options & 2 != 0 { flags += "d" }
            if options & 4 != 0 { flags += "n" }
            return "\(prefix)\(left) \(name)\(flags.isEmpty ? "" : "[\(flags)]") \(right)"
        default:
            throw unsupported(object)
        }
    }

    private mutating func operand(_ value: PlistValue?, _ side: String, depth: Int) throws -> String {
        guard let uid = try archive.reference(value, "the \(side) side of \(what)") else {
            throw archive.error("\(what) has no \(side) side")
        }
        return try expression(uid, depth: depth + 1)
    }

    mutating func expression(_ uid: Int, depth: Int) throws -> String {
        let object = try enter(uid, depth: depth)
        defer { visiting.remove(uid) }
        switch object.className {
        case "NSSelfExpression":
            return "SELF"
        case "NSAnyKeyExpression":
            return "ANYKEY"
        case "NSVariableExpression":
            guard let name = try archive.string(object["NSVariable"], "the variable of \(what)") else {
                throw archive.error("\(what) has a variable without a name")
            }
            return "$" + name
        case "NSKeyPathSpecifierExpression":
            guard let path = try archive.string(object["NSKeyPath"], "the key path of \(what)") else {
                throw archive.error("\(what) has a key path without a path")
            }
            return path
        case "NSConstantValueExpression":
            return try constant(archive.value(object["NSConstantValue"], "a constant of \(what)"))
        case "NSKeyPathExpression":
            let path = try arguments(object, depth: depth).joined(separator: ".")
            guard let operandUID = try archive.reference(object["NSOperand"], "the operand of \(what)") else { return path }
            let operandObject = try archive.object(operandUID)
            if operandObject.className == "NSSelfExpression" { return path }
            return try expression(operandUID, depth: depth + 1) + "." + path
        case "NSFunctionExpression":
            guard let selector = try archive.string(object["NSSelectorName"], "the function of \(what)") else {
                throw archive.error("\(what) is a function without a name")
            }
            let arguments = try arguments(object, depth: depth)
            if let operandObject = try archive.object(object["NSOperand"], kindOf: "NSExpression", "the operand of \(what)"),
               operandObject.className == "NSConstantValueExpression",
               try archive.string(operandObject["NSConstantValueClassName"], "the operand class of \(what)") == "_NSPredicateUtilities" {
                return "\(selector)(\(arguments.joined(separator: ", ")))"
            }
            guard let operandUID = try archive.reference(object["NSOperand"], "the operand of \(what)") else {
                throw archive.error("\(what) is a function without an operand")
            }
            let target = try expression(operandUID, depth: depth + 1)
            let name = try constant(.string(selector))
            return "FUNCTION(\(([target, name] + arguments).joined(separator: ", ")))"
        default:
            throw unsupported(object)
        }
    }

    private mutating func arguments(_ object: KeyedArchive.Object, depth: Int) throws -> [String] {
        try archive.members(object["NSArguments"], "the arguments of \(what)").map { member in
            guard let uid = try archive.reference(member, "an argument of \(what)") else { return "nil" }
            return try expression(uid, depth: depth + 1)
        }
    }

    /// A constant as `predicateFormat` writes it: strings in double quotes, numbers as they
    /// are, `nil`, dates as `CAST(seconds, "NSDate")`, collections in braces.
    private func constant(_ value: ArchivedValue) throws -> String {
        switch value {
        case .null: return "nil"
        case .bool(let flag): return flag ? "1" : "0"
        case .integer(let number): return String(number)
        case .real(let number): return ArchivedValue.shortest(number)
        case .decimal(let digits): return digits
        case .string(let text), .url(let text):
            return "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case .uuid(let uuid): return "\"\(uuid.uuidString)\""
        case .date(let seconds): return "CAST(\(ArchivedValue.shortest(seconds)), \"NSDate\")"
        case .data(let bytes): return "<" + bytes.map { String(format: "%02x", $0) }.joined() + ">"
        case .array(let values): return "{" + (try values.map(constant)).joined(separator: ", ") + "}"
        case .dictionary, .object:
            throw archive.error("\(what) compares with a constant \(value.text) that a predicate format cannot write")
        }
    }
}
