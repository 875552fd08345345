import Foundation

extension PredicateParser {
    /// An expression and the keys, collection operators and member keys that follow it.
    mutating func parseExpression() throws(ObjectPredicateError) -> ObjectExpression {
        var nestedOperators = 0
        defer { depth -= nestedOperators }
        var expression: ObjectExpression
        if current.kind == .formatSpecifier("K") {
            // A key path from an argument: `%K`, `%K.name`, `%K.@count`.
            expression = .keyPath([])
            try appendKeyPathArgument(to: &expression, nestedOperators: &nestedOperators, first: true)
            try advance()
        } else {
            expression = try parsePrimaryExpression()
        }
        while isSymbol(.dot) {
            try advance()
            switch current.kind {
            case .identifier(let name, _):
                try append(key: name, to: &expression)
            case .collectionOperator(let name):
                try append(collectionOperator: name, to: &expression, nestedOperators: &nestedOperators)
            case .formatSpecifier("K"):
                // `%K` stands for any part of a key path, as in Apple's parser: `%K.%K`,
                // `record.%K`, `ANY %K.name`.
                try appendKeyPathArgument(to: &expression, nestedOperators: &nestedOperators, first: false)
            default:
                throw unexpected(expected: "a key")
            }
            try advance()
        }
        return expression
    }

    /// `expression.name`: a key after a key path, or after a collection operator's path.
    private func append(key name: String, to expression: inout ObjectExpression) throws(ObjectPredicateError) {
        if case .collectionOperator(.count, _, _) = expression {
            throw unexpected(expected: "a collection operator after @count")
        }
        if case .collectionOperator(let collectionOperator, let base, let path) = expression {
            expression = .collectionOperator(collectionOperator, of: base, keyPath: path + [name])
        } else {
            expression = expression.appending([name])
        }
    }

    /// `expression.@name`; each operator nests the tree one level deeper, so it counts
    /// towards the nesting limit (the caller leaves those levels when the expression ends).
    private mutating func append(
        collectionOperator name: String, to expression: inout ObjectExpression, nestedOperators: inout Int
    ) throws(ObjectPredicateError) {
        guard let collectionOperator = PredicateCollectionOperator(rawValue: name.lowercased()) else {
            throw .unknownCollectionOperator(name, at: current.position)
        }
        try enter(at: current.position)
        nestedOperators += 1
        expression = .collectionOperator(collectionOperator, of: expression, keyPath: [])
    }

    private mutating func parsePrimaryExpression() throws(ObjectPredicateError) -> ObjectExpression {
        let token = current
        switch token.kind {
        case .identifier(let name, let escaped):
            if !escaped, let keyword = currentKeyword {
                return try parseKeywordExpression(keyword)
            }
            try advance()
            return .keyPath([name])
        case .integer(let magnitude):
            try advance()
            return .constant(Self.integer(magnitude, negative: false))
        case .decimal(let value):
            try advance()
            return .constant(.double(value))
        case .string(let value):
            try advance()
            return .constant(.string(value))
        case .variable(let name):
            try advance()
            return .variable(name)
        case .formatSpecifier(let specifier):
            let expression = try argument(for: specifier, token: token)
            try advance()
            return expression
        case .symbol(.minus):
            try advance()
            switch current.kind {
            case .integer(let magnitude):
                try advance()
                return .constant(Self.integer(magnitude, negative: true))
            case .decimal(let value):
                try advance()
                return .constant(.double(-value))
            default:
                throw unexpected(expected: "a number")
            }
        case .symbol(.leftBrace):
            return try parseAggregate()
        default:
            throw unexpected(expected: "an expression")
        }
    }

    private mutating func parseKeywordExpression(_ keyword: String) throws(ObjectPredicateError) -> ObjectExpression {
        let value: PredicateValue
        switch keyword {
        case "NIL", "NULL": value = .null
        case "TRUE", "YES": value = .bool(true)
        case "FALSE", "NO": value = .bool(false)
        case "SELF":
            try advance()
            return .keyPath([])
        case "SUBQUERY":
            return try parseSubquery()
        case "CAST":
            return try parseCast()
        default:
            throw unexpected(expected: "an expression")
        }
        try advance()
        return .constant(value)
    }

    /// Integers that do not fit `Int64` become doubles, as SQLite would store them.
    private static func integer(_ magnitude: UInt64, negative: Bool) -> PredicateValue {
        if negative {
            if magnitude <= UInt64(Int64.max) { return .int(-Int64(magnitude)) }
            if magnitude == UInt64(Int64.max) + 1 { return .int(Int64.min) }
            return .double(-Double(magnitude))
        }
        if let value = Int64(exactly: magnitude) { return .int(value) }
        return .double(Double(magnitude))
    }

    /// `{a, b, …}`; all-constant aggregates fold into one array constant.
    private mutating func parseAggregate() throws(ObjectPredicateError) -> ObjectExpression {
        try enter(at: current.position)
        try advance()
        var elements: [ObjectExpression] = []
        if isSymbol(.rightBrace) {
            try advance()
        } else {
            while true {
                elements.append(try parseExpression())
                if isSymbol(.comma) {
                    try advance()
                } else if isSymbol(.rightBrace) {
                    try advance()
                    break
                } else {
                    throw unexpected(expected: "',' or '}'")
                }
            }
        }
        leave()
        var constants: [PredicateValue] = []
        for element in elements {
            guard case .constant(let value) = element else { return .aggregate(elements) }
            constants.append(value)
        }
        return .constant(.array(constants))
    }

    /// `SUBQUERY(collection, $variable, predicate)`.
    private mutating func parseSubquery() throws(ObjectPredicateError) -> ObjectExpression {
        try enter(at: current.position)
        try advance()
        try expect(.leftParenthesis)
        let collection = try parseExpression()
        try expect(.comma)
        guard case .variable(let variable) = current.kind else { throw unexpected(expected: "a variable") }
        try advance()
        try expect(.comma)
        let predicate = try parseOr()
        try expect(.rightParenthesis)
        leave()
        return .subquery(collection: collection, variable: variable, predicate: predicate)
    }

    /// `CAST(constant, "NSDate" | "NSNumber" | "NSString" | "NSData")`, folded into a constant.
    private mutating func parseCast() throws(ObjectPredicateError) -> ObjectExpression {
        let castPosition = current.position
        try enter(at: castPosition)
        try advance()
        try expect(.leftParenthesis)
        let valuePosition = current.position
        let expression = try parseExpression()
        try expect(.comma)
        guard case .string(let typeName) = current.kind else { throw unexpected(expected: "a class name string") }
        try advance()
        try expect(.rightParenthesis)
        leave()
        guard case .constant(let value) = expression else {
            throw .invalidCast("CAST needs a constant value", at: valuePosition)
        }
        guard let converted = try Self.cast(value, to: typeName, at: castPosition) else {
            throw .invalidCast("Cannot CAST \(value) to \(typeName)", at: castPosition)
        }
        return .constant(converted)
    }

    private static func cast(_ value: PredicateValue, to typeName: String, at position: Int) throws(ObjectPredicateError) -> PredicateValue? {
        switch (typeName, value) {
        case ("NSDate", .int(let seconds)): return .date(Date(timeIntervalSinceReferenceDate: Double(seconds)))
        case ("NSDate", .double(let seconds)): return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case ("NSDate", .date): return value
        case ("NSNumber", .int), ("NSNumber", .double), ("NSNumber", .bool): return value
        case ("NSNumber", .date(let date)): return .double(date.timeIntervalSinceReferenceDate)
        case ("NSNumber", .string(let text)):
            if let integer = Int64(text) { return .int(integer) }
            return Double(text).map(PredicateValue.double)
        case ("NSString", .string): return value
        case ("NSString", .int(let number)): return .string(String(number))
        case ("NSData", .string(let text)): return Data(base64Encoded: text).map(PredicateValue.data)
        case ("NSData", .data): return value
        case ("NSDate", _), ("NSNumber", _), ("NSString", _), ("NSData", _): return nil
        default: throw .invalidCast("Unsupported CAST to '\(typeName)'", at: position)
        }
    }

    /// Appends the keys and collection operators of the current `%K`'s argument (consumed here),
    /// e.g. `"place.name"` or `"tags.@count"`; a leading `SELF` is the object itself, as written.
    private mutating func appendKeyPathArgument(
        to expression: inout ObjectExpression, nestedOperators: inout Int, first: Bool
    ) throws(ObjectPredicateError) {
        let token = current
        guard argumentIndex < arguments.count else { throw .tooFewArguments(token.text, at: token.position) }
        let value = arguments[argumentIndex]
        argumentIndex += 1
        guard case .string(let path) = value, Self.isKeyPath(path) else {
            throw .invalidArgument(argumentIndex, for: token.text, at: token.position, expected: "a key path string", got: value)
        }
        var components = path.split(separator: ".").map(String.init)
        if first, components.first.map({ Self.asciiUppercased($0) == "SELF" }) == true { components.removeFirst() }
        for component in components {
            if component.hasPrefix("@") {
                try append(collectionOperator: String(component.dropFirst()), to: &expression, nestedOperators: &nestedOperators)
            } else {
                try append(key: component, to: &expression)
            }
        }
    }

    /// Whether `%K`'s argument is keys joined by single dots.
    private static func isKeyPath(_ path: String) -> Bool {
        !path.isEmpty && !path.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty)
    }

    /// The expression for one format specifier, consuming the next argument.
    private mutating func argument(for specifier: String, token: Token) throws(ObjectPredicateError) -> ObjectExpression {
        if specifier == "%" { return .constant(.string("%")) }
        guard argumentIndex < arguments.count else { throw .tooFewArguments(token.text, at: token.position) }
        let value = arguments[argumentIndex]
        argumentIndex += 1
        func invalid(_ expected: String) -> ObjectPredicateError {
            .invalidArgument(argumentIndex, for: token.text, at: token.position, expected: expected, got: value)
        }
        switch specifier.unicodeScalars.last {
        case "@":
            return .constant(value)
        case "d", "i", "u":
            switch value {
            case .int: return .constant(value)
            case .bool(let flag): return .constant(.int(flag ? 1 : 0))
            default: throw invalid("an integer")
            }
        case "f", "e", "g":
            switch value {
            case .double: return .constant(value)
            case .int(let number): return .constant(.double(Double(number)))
            default: throw invalid("a number")
            }
        default:
            guard case .string = value else { throw invalid("a string") }
            return .constant(value)
        }
    }
}
