import Foundation

/// Checks a predicate's key paths against the model without compiling it, with the messages
/// the compiler gives; key paths from free variables are skipped (a template's variables are
/// substituted later).
struct PredicateKeyPathValidator {
    /// What a key path reaches, as far as the model tells.
    enum Target {
        case entity(Entity, origin: String)
        /// An attribute, reached as `reached` (for messages: "title, a String attribute of Photo",
        /// made only when one is needed).
        case attribute(EntityAttribute, of: Entity, reached: String)
        case constant
        /// Reached from a free variable: anything goes.
        case unknown
    }

    struct Scope {
        var current: Target
        var variables: [String: Target]
    }

    private let compilation: PredicateSQLCompilation

    init(entity: Entity, model: ObjectModel) {
        compilation = PredicateSQLCompilation(entity: entity, model: model)
    }

    func validate(_ predicate: ObjectPredicate, in scope: Scope) throws {
        switch predicate {
        case .true, .false:
            return
        case .and(let operands), .or(let operands):
            for operand in operands { try validate(operand, in: scope) }
        case .not(let operand):
            try validate(operand, in: scope)
        case .comparison(let comparison):
            _ = try target(of: comparison.lhs, in: scope)
            _ = try target(of: comparison.rhs, in: scope)
        }
    }

    private func target(of expression: ObjectExpression, in scope: Scope) throws -> Target {
        switch expression {
        case .constant:
            return .constant
        case .keyPath(let path):
            return try resolve(path, from: scope.current, fullPath: expression.description)
        case .variable(let name):
            return scope.variables[name] ?? .unknown
        case .member(let base, let path):
            return try resolve(path, from: target(of: base, in: scope), fullPath: expression.description)
        case .aggregate(let elements):
            for element in elements { _ = try target(of: element, in: scope) }
            return .constant
        case .collectionOperator(_, let base, let path):
            _ = try resolve(path, from: target(of: base, in: scope), fullPath: expression.description)
            return .constant
        case .subquery(let collection, let variable, let predicate):
            var element = try target(of: collection, in: scope)
            if case .entity(let entity, _) = element { element = .entity(entity, origin: "$" + variable) }
            var inner = scope
            inner.current = element
            inner.variables[variable] = element
            try validate(predicate, in: inner)
            return element
        }
    }

    /// `fullPath` is made only for an error's message: describing the expression cost most of
    /// validating a fetch request's predicate.
    private func resolve(_ path: [String], from start: Target, fullPath: @autoclosure () -> String) throws -> Target {
        var current = start
        var position = 0
        while position < path.count {
            switch current {
            case .unknown:
                return .unknown
            case .constant:
                throw FetchRequestError("Cannot follow '\(path[position])' from a constant (key path '\(fullPath())')")
            case .attribute(let attribute, let entity, let reached):
                let origin = "\(reached), a \(attribute.type.coreDataName) attribute of \(entity.name)"
                throw FetchRequestError("Cannot follow '\(path[position])' from \(origin) (key path '\(fullPath())')")
            case .entity(let entity, let origin):
                let key = entity.key(in: path, at: &position)
                let reached = PredicateSQLCompilation.appending(key, to: origin)
                switch try compilation.property(key, of: entity, fullPath: fullPath()) {
                case .attribute(let attribute, _):
                    current = .attribute(attribute, of: entity, reached: reached)
                case .relationship(_, let destination):
                    current = .entity(destination, origin: reached)
                }
            }
        }
        return current
    }
}
