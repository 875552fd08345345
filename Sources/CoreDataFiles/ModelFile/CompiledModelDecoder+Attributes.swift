import Foundation

/// Attributes: the type code, the flags word `NSFlagsKey`, the default value, limits and
/// patterns (`NSMinValueName`/`NSMaxValueName`, or the validation predicates older compilers
/// write), derivations.
extension CompiledModelDecoder {
    /// `NSFlagsKey` bits, as `-[NSAttributeDescription encodeWithCoder:]` sets them.
    enum AttributeFlag {
        static let hasMaximum: Int64 = 0x1
        static let hasMinimum: Int64 = 0x2
        static let storesBinaryDataExternally: Int64 = 0x4
        static let preservesValueOnDeletion: Int64 = 0x10
    }

    /// Xcode's type name for each `NSAttributeType` code. Composites (2100) are left out: how a
    /// compiled model archives a composite's elements is not seen in any file at hand, so such an
    /// attribute is refused as an unknown type rather than read without its elements.
    static let attributeTypeNames: [Int64: String] = Dictionary(
        XCAttribute.attributeTypeCodes.filter { $0.key != "Composite" }.map { (Int64($0.value), $0.key) },
        uniquingKeysWith: { first, _ in first })

    func decodeAttribute(_ object: KeyedArchive.Object, entity: String) throws -> XCAttribute {
        let name = try archive.string(object["NSPropertyName"], "an attribute of \(entity)") ?? ""
        let what = "attribute \(entity).\(name)"
        let flags = try PropertyFlags(object, archive: archive, what: what)
        let typeCode = try archive.integer(object["NSAttributeType"], "the type of \(what)") ?? 0
        guard let typeName = Self.attributeTypeNames[typeCode] else {
            throw XCDataModelError(.unknownAttributeType(entity: entity, attribute: name, type: "NSAttributeType \(typeCode)"),
                                   url: archive.url)
        }
        let attributeFlags = try archive.integer(object["NSFlagsKey"], "the flags of \(what)") ?? 0
        let renaming = try archive.string(object["NSRenamingIdentifier"], "the renaming identifier of \(what)")
        var attribute = XCAttribute(
            name: name, attributeType: typeName, isOptional: flags.isOptional, isTransient: flags.isTransient,
            isIndexed: try archive.flag(object["NSIsIndexed"], "the indexed flag of \(what)"),
            isIndexedBySpotlight: flags.isIndexedBySpotlight, isStoredInExternalRecord: flags.isStoredInExternalRecord,
            allowsExternalBinaryDataStorage: attributeFlags & AttributeFlag.storesBinaryDataExternally != 0,
            allowsCloudEncryption: flags.allowsCloudEncryption,
            preservesValueInHistoryOnDeletion: attributeFlags & AttributeFlag.preservesValueOnDeletion != 0,
            valueTransformerName: try nonEmpty(archive.string(object["NSValueTransformerName"], "the value transformer of \(what)")),
            renamingIdentifier: renaming == name ? nil : renaming,
            versionHashModifier: try nonEmpty(archive.string(object["NSVersionHashModifier"], "the version hash modifier of \(what)")),
            userInfo: try userInfo(object["NSUserInfo"], "the user info of \(what)"))
        if typeCode == 1800 {
            // Other types archive their Foundation class here (NSString, NSNumber…); a
            // transformable archives the custom class the app gave it, if any.
            attribute.customClassName = try nonEmpty(archive.string(object["NSAttributeValueClassName"], "the class of \(what)"))
        }
        try applyDefault(archive.value(object["NSDefaultValue"], "the default value of \(what)"), to: &attribute, typeCode: typeCode)
        try applyLimits(object, flags: attributeFlags, to: &attribute, typeCode: typeCode, what: what)
        if object.isKind(of: "NSDerivedAttributeDescription") {
            attribute.isDerived = true
            attribute.derivationExpression = try archive.expressionFormat(object["NSDerivationExpression"], "the derivation of \(what)")
        }
        return attribute
    }

    private static let integerTypes: Set<Int64> = [100, 200, 300]
    private static let floatingTypes: Set<Int64> = [400, 500, 600]

    /// The default as Xcode writes it: `YES`/`NO` for Booleans, `0` for integers, `0.0` for
    /// whole decimals and floating-point numbers, the text of strings, seconds for dates.
    /// Values no model file can spell (data, an app's archived object) are left out.
    private func applyDefault(_ value: ArchivedValue, to attribute: inout XCAttribute, typeCode: Int64) throws {
        func number(_ text: String, isWhole: Bool) -> String {
            Self.floatingTypes.contains(typeCode) && isWhole && !text.contains(".") && !text.contains("e") ? text + ".0" : text
        }
        switch value {
        case .null, .data, .object, .array, .dictionary:
            return
        case .date(let seconds):
            attribute.defaultDateTimeInterval = seconds
        case .bool(let flag):
            attribute.defaultValueString = typeCode == 800 ? (flag ? "YES" : "NO") : (flag ? "1" : "0")
        case .integer(let integer):
            attribute.defaultValueString = typeCode == 800 ? (integer != 0 ? "YES" : "NO") : number(String(integer), isWhole: true)
        case .real(let real):
            if typeCode == 800 {
                attribute.defaultValueString = real != 0 ? "YES" : "NO"
            } else {
                attribute.defaultValueString = number(ArchivedValue.shortest(real), isWhole: real == real.rounded())
            }
        case .decimal(let digits):
            attribute.defaultValueString = number(digits, isWhole: !digits.contains("."))
        case .string(let text), .url(let text):
            attribute.defaultValueString = text
        case .uuid(let uuid):
            attribute.defaultValueString = uuid.uuidString
        }
    }

    /// Minimum, maximum and pattern: `NSMinValueName`/`NSMaxValueName` when `NSFlagsKey` says
    /// they are there (integers for integer and string types, reals otherwise), else the
    /// validation predicates Xcode's compiler writes (`SELF >= 0`, `length <= 8`,
    /// `timeIntervalSinceReferenceDate >= …`, `SELF MATCHES "…"`). Other validation predicates
    /// (written in code) have no place in a model file and are left out.
    private func applyLimits(_ object: KeyedArchive.Object, flags: Int64, to attribute: inout XCAttribute,
                             typeCode: Int64, what: String) throws {
        let storedAsInteger = Self.integerTypes.contains(typeCode) || typeCode == 700
        func bound(_ key: String) throws -> ArchivedValue {
            storedAsInteger ? .integer(try archive.integer(object[key], "\(key) of \(what)") ?? 0)
                : .real(try archive.real(object[key], "\(key) of \(what)") ?? 0)
        }
        var minimum: ArchivedValue? = flags & AttributeFlag.hasMinimum != 0 ? try bound("NSMinValueName") : nil
        var maximum: ArchivedValue? = flags & AttributeFlag.hasMaximum != 0 ? try bound("NSMaxValueName") : nil
        for member in try archive.members(object["NSValidationPredicates"], "the validation predicates of \(what)") {
            guard let rule = try validationRule(member, what: what) else { continue }
            switch rule.kind {
            case .minimum: minimum = minimum ?? rule.value
            case .maximum: maximum = maximum ?? rule.value
            case .pattern: attribute.regularExpressionString = rule.value.text
            }
        }
        if typeCode == 900 {
            attribute.minDateTimeInterval = minimum.flatMap(Self.seconds)
            attribute.maxDateTimeInterval = maximum.flatMap(Self.seconds)
        } else {
            attribute.minValueString = minimum.map(\.text)
            attribute.maxValueString = maximum.map(\.text)
        }
    }

    private static func seconds(_ value: ArchivedValue) -> Double? {
        switch value {
        case .date(let seconds), .real(let seconds): return seconds
        case .integer(let seconds): return Double(seconds)
        default: return nil
        }
    }

    private enum RuleKind { case minimum, maximum, pattern }

    /// A validation predicate of the shapes Xcode's compiler writes, or nil for any other.
    private func validationRule(_ value: PlistValue, what: String) throws -> (kind: RuleKind, value: ArchivedValue)? {
        guard let predicate = try archive.object(value, kindOf: "NSPredicate", "a validation predicate of \(what)"),
              predicate.className == "NSComparisonPredicate",
              let operatorObject = try archive.object(predicate["NSPredicateOperator"], kindOf: "NSPredicateOperator", "a validation operator of \(what)"),
              try archive.integer(operatorObject["NSModifier"], "a validation modifier of \(what)") ?? 0 == 0,
              let right = try archive.object(predicate["NSRightExpression"], kindOf: "NSExpression", "a validation bound of \(what)"),
              right.className == "NSConstantValueExpression",
              let left = try archive.expressionFormat(predicate["NSLeftExpression"], "a validated value of \(what)"),
              ["SELF", "length", "timeIntervalSinceReferenceDate"].contains(left) else { return nil }
        let bound = try archive.value(right["NSConstantValue"], "a validation bound of \(what)")
        switch try archive.integer(operatorObject["NSOperatorType"], "a validation operator of \(what)") {
        case 3?: return (.minimum, bound)
        case 1?: return (.maximum, bound)
        case 6? where left == "SELF": return (.pattern, bound)
        default: return nil
        }
    }
}
