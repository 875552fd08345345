import Foundation

extension ObjectPredicate {
    /// Every key path the predicate reads, from the evaluated object, in order of first use.
    ///
    /// Collection operators and subqueries contribute the path to the collection and the
    /// paths read from its elements, so a store can check each against the model:
    ///
    /// ```swift
    /// let predicate = try ObjectPredicate(format: "SUBQUERY(tags, $t, $t.name == 'sea').@count > 0 AND place.name == 'Lisbon'")
    /// predicate.keyPaths   // [["tags"], ["tags", "name"], ["place", "name"]]
    /// ```
    package var keyPaths: [[String]] {
        var collector = KeyPathCollector()
        collector.visit(self, bindings: [:])
        return collector.paths
    }

    /// The names of the variables not bound by a `SUBQUERY`, which `substituting(_:)` or
    /// the evaluator must supply.
    ///
    /// ```swift
    /// try ObjectPredicate(format: "title == $TITLE").variableNames   // ["TITLE"]
    /// ```
    package var variableNames: Set<String> {
        var names = Set<String>()
        forEachFreeVariable { names.insert($0) }
        return names
    }

    /// The predicate with each free `$VARIABLE` replaced by its value.
    ///
    /// ```swift
    /// let template = try ObjectPredicate(format: "unique == $ID")
    /// let predicate = try template.substituting(["ID": "123"])   // unique == "123"
    /// ```
    ///
    /// - Throws: `ObjectPredicateError` (`.missingVariable`) naming a variable with no value.
    public func substituting(_ values: [String: PredicateValue]) throws(ObjectPredicateError) -> ObjectPredicate {
        try substituting(values, bound: [])
    }

    func substituting(_ values: [String: PredicateValue], bound: Set<String>) throws(ObjectPredicateError) -> ObjectPredicate {
        switch self {
        case .true, .false:
            return self
        case .and(let operands):
            var result: [ObjectPredicate] = []
            for operand in operands { result.append(try operand.substituting(values, bound: bound)) }
            return .and(result)
        case .or(let operands):
            var result: [ObjectPredicate] = []
            for operand in operands { result.append(try operand.substituting(values, bound: bound)) }
            return .or(result)
        case .not(let operand):
            return .not(try operand.substituting(values, bound: bound))
        case .comparison(var comparison):
            comparison.lhs = try comparison.lhs.substituting(values, bound: bound)
            comparison.rhs = try comparison.rhs.substituting(values, bound: bound)
            return .comparison(comparison)
        }
    }

    private func forEachFreeVariable(bound: Set<String> = [], _ body: (String) -> Void) {
        switch self {
        case .true, .false:
            return
        case .and(let operands), .or(let operands):
            for operand in operands { operand.forEachFreeVariable(bound: bound, body) }
        case .not(let operand):
            operand.forEachFreeVariable(bound: bound, body)
        case .comparison(let comparison):
            comparison.lhs.forEachFreeVariable(bound: bound, body)
            comparison.rhs.forEachFreeVariable(bound: bound, body)
        }
    }

    fileprivate func forEachFreeVariableInSubquery(bound: Set<String>, _ body: (String) -> Void) {
        forEachFreeVariable(bound: bound, body)
    }
}

extension ObjectExpression {
    func substituting(_ values: [String: PredicateValue], bound: Set<String>) throws(ObjectPredicateError) -> ObjectExpression {
        switch self {
        case .constant, .keyPath:
            return self
        case .variable(let name):
            if bound.contains(name) { return self }
            guard let value = values[name] else { throw .missingVariable(name) }
            return .constant(value)
        case .member(let base, let path):
            return .member(of: try base.substituting(values, bound: bound), keyPath: path)
        case .aggregate(let elements):
            var result: [ObjectExpression] = []
            var constants: [PredicateValue] = []
            for element in elements {
                let substituted = try element.substituting(values, bound: bound)
                result.append(substituted)
                if case .constant(let value) = substituted { constants.append(value) }
            }
            return constants.count == result.count ? .constant(.array(constants)) : .aggregate(result)
        case .collectionOperator(let collectionOperator, let base, let path):
            return .collectionOperator(collectionOperator, of: try base.substituting(values, bound: bound), keyPath: path)
        case .subquery(let collection, let variable, let predicate):
            return .subquery(collection: try collection.substituting(values, bound: bound), variable: variable,
                             predicate: try predicate.substituting(values, bound: bound.union([variable])))
        }
    }

    fileprivate func forEachFreeVariable(bound: Set<String>, _ body: (String) -> Void) {
        switch self {
        case .constant, .keyPath:
            return
        case .variable(let name):
            if !bound.contains(name) { body(name) }
        case .member(let base, _), .collectionOperator(_, let base, _):
            base.forEachFreeVariable(bound: bound, body)
        case .aggregate(let elements):
            for element in elements { element.forEachFreeVariable(bound: bound, body) }
        case .subquery(let collection, let variable, let predicate):
            collection.forEachFreeVariable(bound: bound, body)
            predicate.forEachFreeVariableInSubquery(bound: bound.union([variable]), body)
        }
    }
}

/// Gathers key paths, resolving subquery variables to the path of their collection.
private struct KeyPathCollector {
    var paths: [[String]] = []
    private var seen = Set<[String]>()

    mutating func add(_ path: [String]) {
        guard !path.isEmpty, seen.insert(path).inserted else { return }
        paths.append(path)
    }

    mutating func visit(_ predicate: ObjectPredicate, bindings: [String: [String]]) {
        switch predicate {
        case .true, .false:
            return
        case .and(let operands), .or(let operands):
            for operand in operands { visit(operand, bindings: bindings) }
        case .not(let operand):
            visit(operand, bindings: bindings)
        case .comparison(let comparison):
            visit(comparison.lhs, bindings: bindings)
            visit(comparison.rhs, bindings: bindings)
        }
    }

    /// The path from the evaluated object that `expression` stands for, if it is one.
    private func resolve(_ expression: ObjectExpression, bindings: [String: [String]]) -> [String]? {
        switch expression {
        case .keyPath(let path): return path
        case .variable(let name): return bindings[name]
        case .member(let base, let path): return resolve(base, bindings: bindings).map { $0 + path }
        default: return nil
        }
    }

    mutating func visit(_ expression: ObjectExpression, bindings: [String: [String]]) {
        if let path = resolve(expression, bindings: bindings) {
            add(path)
            return
        }
        switch expression {
        case .constant, .keyPath, .variable:
            return
        case .member(let base, _):
            visit(base, bindings: bindings)
        case .aggregate(let elements):
            for element in elements { visit(element, bindings: bindings) }
        case .collectionOperator(_, let base, let path):
            if let basePath = resolve(base, bindings: bindings) {
                add(basePath)
                if !path.isEmpty { add(basePath + path) }
            } else {
                visit(base, bindings: bindings)
            }
        case .subquery(let collection, let variable, let predicate):
            var inner = bindings
            if let collectionPath = resolve(collection, bindings: bindings) {
                add(collectionPath)
                inner[variable] = collectionPath
            } else {
                visit(collection, bindings: bindings)
                inner[variable] = nil
            }
            visit(predicate, bindings: inner)
        }
    }
}
