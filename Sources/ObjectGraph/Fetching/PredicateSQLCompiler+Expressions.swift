import Foundation
import SQLiteDB

extension PredicateSQLCompilation {
    /// Compiles an operand of a comparison.
    func value(of expression: ObjectExpression, in scope: SQLLexicalScope) throws -> SQLCompiledValue {
        switch expression {
        case .constant(.array(let items)):
            return .constantArray(items)
        case .constant(let value):
            return .scalar(.constant(value))
        case .keyPath(let path):
            return try follow(path, from: scope.current, fullPath: expression.description)
        case .variable(let name):
            guard let bound = scope.variables[name] else {
                throw FetchRequestError("Unsubstituted variable $\(name): substitute the predicate's variables before fetching")
            }
            return bound
        case .member(let base, let path):
            switch base {
            case .variable, .subquery:
                return try follow(path, from: value(of: base, in: scope), fullPath: expression.description)
            default:
                throw FetchRequestError("\(expression) is not supported in a fetch: key paths start from SELF or a SUBQUERY variable")
            }
        case .aggregate(let elements):
            return .aggregate(try elements.map { try value(of: $0, in: scope) })
        case .collectionOperator(let collectionOperator, let base, let path):
            return try aggregate(collectionOperator, of: value(of: base, in: scope), path: path,
                                 origin: expression.description)
        case .subquery(let collection, let variable, let predicate):
            return try subquery(collection, variable: variable, predicate: predicate, in: scope,
                                origin: expression.description)
        }
    }

    // MARK: SUBQUERY

    /// The elements of `collection` for which `predicate` holds: the collection's sub-select
    /// with the predicate, compiled with the element as `SELF` and as `$variable`, added to it.
    private func subquery(_ collection: ObjectExpression, variable: String, predicate: ObjectPredicate,
                          in scope: SQLLexicalScope, origin: String) throws -> SQLCompiledValue {
        var elements: SQLCollection
        switch try value(of: collection, in: scope) {
        case .collection(let compiled):
            elements = compiled
        case .object(let handle):
            elements = self.collection(of: handle)
        default:
            throw FetchRequestError("\(origin) is not supported in a fetch: SUBQUERY needs a relationship")
        }
        let element: SQLCompiledValue
        switch elements.element {
        case .object(var handle):
            handle.origin = "$" + variable
            element = .object(handle)
        case .scalar(var scalar):
            scalar.origin = "$" + variable + scalar.origin.drop { $0 != "," }
            element = .scalar(.expression(scalar))
        }
        var inner = scope
        inner.current = element
        inner.variables[variable] = element
        elements.scope.conditions.append(try condition(predicate, in: inner))
        elements.prefixNull = nil
        elements.origin = origin
        return .collection(elements)
    }

    // MARK: Collection operators

    /// `@count`, `@sum`, `@avg`, `@min`, `@max` of `base`'s elements, each followed by `path`.
    private func aggregate(_ collectionOperator: PredicateCollectionOperator, of base: SQLCompiledValue,
                           path: [String], origin: String) throws -> SQLCompiledValue {
        switch base {
        case .constantArray(let items) where path.isEmpty:
            return .scalar(.constant(PredicateEvaluator.apply(collectionOperator, to: items.map(PredicateEvaluationValue.value))))
        case .scalar(.constant(let value)) where path.isEmpty:
            return .scalar(.constant(PredicateEvaluator.apply(collectionOperator, to: PredicateEvaluator.elements(of: .value(value)))))
        case .aggregate(let items) where path.isEmpty && collectionOperator == .count:
            return .scalar(.constant(.int(Int64(items.count))))
        case .collection:
            guard case .collection(let elements) = try follow(path, from: base, fullPath: origin) else {
                throw FetchRequestError("\(origin) is not supported in a fetch")
            }
            return aggregate(collectionOperator, over: elements, origin: origin)
        case .object(let handle):
            // One element (none when NULL), read through `path`.
            let present = SQLCondition.comparison(SQLFragment("\(handle.key) IS NOT NULL"), nullable: false)
            switch try follow(path, from: base, fullPath: origin) {
            case .collection(let elements):
                return aggregate(collectionOperator, over: elements, origin: origin)
            case .object(let target):
                return singleAggregate(collectionOperator, of: target.scalar, present: present, origin: origin)
            case .scalar(.expression(let scalar)):
                return singleAggregate(collectionOperator, of: scalar, present: present, origin: origin)
            default:
                throw FetchRequestError("\(origin) is not supported in a fetch")
            }
        case .scalar(.expression(let scalar)) where path.isEmpty:
            let present = SQLCondition.comparison(scalar.fragment + " IS NOT NULL", nullable: false)
            return singleAggregate(collectionOperator, of: scalar, present: present, origin: origin)
        default:
            throw FetchRequestError("\(origin) is not supported in a fetch: collection operators apply to relationships and attributes")
        }
    }

    /// An aggregate sub-select over a collection's rows.
    private func aggregate(_ collectionOperator: PredicateCollectionOperator, over elements: SQLCollection,
                           origin: String) -> SQLCompiledValue {
        let element = elements.elementScalar
        let value = element.fragment.text
        let scope = elements.scope
        func result(_ columns: String, kind: SQLValueKind, nullable: Bool) -> SQLCompiledValue {
            .scalar(.expression(SQLScalar(fragment: scope.subselect(columns), kind: kind, nullable: nullable,
                                          origin: "\(origin), \(kind.phrase)")))
        }
        switch (collectionOperator, element.kind) {
        case (.count, _):
            return result("count(*)", kind: .number, nullable: false)
        case (.sum, .number):
            return result("coalesce(sum(\(value)), 0)", kind: .number, nullable: false)
        case (.sum, _):
            // The evaluator's sum is null as soon as one value is not a number, and 0 for none.
            return result("CASE WHEN count(\(value)) > 0 THEN NULL ELSE 0 END", kind: .number, nullable: true)
        case (.avg, .number):
            return result("avg(\(value))", kind: .number, nullable: true)
        case (.avg, _), (.min, .object), (.max, .object):
            return .scalar(.constant(.null))
        case (.min, let kind):
            return result("min(\(value))", kind: kind, nullable: true)
        case (.max, let kind):
            return result("max(\(value))", kind: kind, nullable: true)
        }
    }

    /// The aggregate of at most one element: `value` when `present` holds (it may be NULL).
    private func singleAggregate(_ collectionOperator: PredicateCollectionOperator, of value: SQLScalar,
                                 present: SQLCondition, origin: String) -> SQLCompiledValue {
        func result(_ fragment: SQLFragment, kind: SQLValueKind, nullable: Bool) -> SQLCompiledValue {
            .scalar(.expression(SQLScalar(fragment: fragment, kind: kind, nullable: nullable, origin: "\(origin), \(kind.phrase)")))
        }
        switch (collectionOperator, value.kind) {
        case (.count, _):
            return result(present.rendered(for: .atom), kind: .number, nullable: false)
        case (.sum, .number):
            return result("coalesce(" + value.fragment + ", 0)", kind: .number, nullable: false)
        case (.sum, _):
            return result("(CASE WHEN " + value.fragment + " IS NULL THEN 0 END)", kind: .number, nullable: true)
        case (.avg, .number), (.min, .number), (.max, .number):
            return result(value.fragment, kind: .number, nullable: true)
        case (.avg, _), (.min, .object), (.max, .object):
            return .scalar(.constant(.null))
        case (.min, let kind), (.max, let kind):
            return result(value.fragment, kind: kind, nullable: true)
        }
    }
}
