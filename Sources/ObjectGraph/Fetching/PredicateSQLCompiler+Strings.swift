import Foundation
import SQLiteDB

extension PredicateSQLCompilation {
    /// BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES between two single values, at least one
    /// of them a key path of strings.
    ///
    /// Without options, BEGINSWITH a constant is a range on the column (which an index serves)
    /// and CONTAINS a constant is `instr`, both exact on UTF-8 bytes; everything else calls
    /// `vacations_match`, which runs the evaluator's `PredicateStringMatching`.
    func stringOperator(_ lhs: SQLOperand, _ comparisonOperator: ComparisonOperator, _ rhs: SQLOperand,
                        options: StringComparisonOptions) throws -> SQLCondition {
        for case .constant(let value) in [lhs, rhs] {
            guard case .string = value else { return .false }
        }
        if case .expression(let subject) = lhs, case .constant(.string(let pattern)) = rhs {
            let folding = PredicateStringMatching.foldingOptions(for: comparisonOperator, options)
            let folded = PredicateStringFolding.fold(pattern, options: folding)
            switch comparisonOperator {
            case .beginsWith, .endsWith, .contains:
                if folded.isEmpty { return .false }
            case .matches:
                do {
                    _ = try PredicateRegularExpression(folded, caseInsensitive: options.contains(.caseInsensitive))
                } catch {
                    throw FetchRequestError(error.description)
                }
            default:
                break
            }
            if options.isEmpty, comparisonOperator == .beginsWith, let upper = Self.prefixUpperBound(pattern) {
                let range = subject.fragment + " >= " + .bind(.text(pattern)) + " AND " + subject.fragment + " < " + .bind(.text(upper))
                return .sql(range, .and, nullable: subject.nullable)
            }
            if options.isEmpty, comparisonOperator == .contains {
                return .comparison("instr(" + subject.fragment + ", " + .bind(.text(pattern)) + ") > 0", nullable: subject.nullable)
            }
        }
        guard let code = StoreFunctions.operatorCode(comparisonOperator) else {
            throw FetchRequestError("\(comparisonOperator) is not a string operator")
        }
        let left = try sql(lhs)
        let right = try sql(rhs)
        let call = "\(StoreFunctions.match)(\(code), \(StoreFunctions.optionsCode(options)), " + left + ", " + right + ")"
        return .sql(call, .atom, nullable: false)
    }

    private func sql(_ operand: SQLOperand) throws -> SQLFragment {
        switch operand {
        case .constant(let value):
            guard case .string(let text) = value else { throw FetchRequestError("\(value) is not a string") }
            return .bind(.text(text))
        case .expression(let scalar):
            return scalar.fragment
        }
    }

    /// The least string greater than every string that starts with `prefix`, by UTF-8 bytes:
    /// `prefix` with its last scalar replaced by the next one. UTF-8 keeps the order of scalars
    /// and no scalar's encoding is a prefix of another's, so for valid strings
    /// `prefix <= s < bound` holds exactly when `s` starts with `prefix`. Nil for an empty prefix
    /// or one ending in U+10FFFF.
    static func prefixUpperBound(_ prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        guard let last = scalars.popLast() else { return nil }
        var next = last.value + 1
        if next == 0xD800 { next = 0xE000 }
        guard let successor = Unicode.Scalar(next) else { return nil }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars)
        result.append(successor)
        return String(result)
    }
}
