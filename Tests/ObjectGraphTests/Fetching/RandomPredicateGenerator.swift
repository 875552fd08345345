import Foundation
@testable import ObjectGraph
import SQLiteDB

/// Random predicates over the travel model's Photo: every operator, option and modifier,
/// to-one and to-many paths, collection operators, SUBQUERY, IN, BETWEEN, nil, constants of
/// the wrong type, and NOT/AND/OR nesting. Some hold a part that a fetch refuses (a key path
/// the model does not have, an operator that does not apply, a pattern that is no regular
/// expression) anywhere in the tree, and some, alone at the top, read a MATCHES pattern from a
/// row that holds an invalid one: the store and memory must then fail alike.
struct RandomPredicateGenerator {
    var random: SeededGenerator
    let photos: [ObjectID]
    let tags: [ObjectID]
    let places: [ObjectID]

    enum Kind: CaseIterable { case string, number, date }

    /// A key path of the photo, the kind of its values, and whether it is a collection.
    private static let photoPaths: [(path: String, kind: Kind, isCollection: Bool)] = [
        ("title", .string, false), ("unique", .string, false), ("dateTaken", .date, false), ("latitude", .number, false),
        ("place.name", .string, false), ("place.firstVisited", .date, false),
        ("tags.name", .string, true), ("tags.count", .number, true), ("notes.text", .string, true),
        ("tags.@count", .number, false), ("notes.@count", .number, false),
        ("tags.@sum.count", .number, false), ("tags.@avg.count", .number, false), ("tags.@min.count", .number, false),
        ("tags.@max.name", .string, false), ("notes.@min.text", .string, false), ("tags.@sum.name", .number, false),
        ("tags.@avg.name", .number, false), ("notes.photo.place.name", .string, true),
    ]

    /// Paths that visit many objects per photo, drawn less often to keep the test fast.
    private static let longPaths: [(path: String, kind: Kind, isCollection: Bool)] = [
        ("tags.photos.title", .string, true), ("tags.photos.dateTaken", .date, true), ("place.photos.title", .string, true),
        ("place.photos.latitude", .number, true), ("place.photos.@count", .number, false), ("tags.photos.@count", .number, false),
        ("place.photos.@max.dateTaken", .date, false), ("place.photos.@avg.latitude", .number, false),
        ("notes.photo.tags.name", .string, true), ("tags.photos.place.name", .string, true),
    ]

    private static let tagPaths: [(path: String, kind: Kind, isCollection: Bool)] = [
        ("name", .string, false), ("count", .number, false), ("photos.title", .string, true),
        ("photos.@count", .number, false), ("photos.latitude", .number, true), ("photos.place.name", .string, true),
    ]

    init(seed: UInt64, photos: [ObjectID], tags: [ObjectID], places: [ObjectID]) {
        random = SeededGenerator(state: seed)
        self.photos = photos
        self.tags = tags
        self.places = places
    }

    mutating func chance(_ oneIn: Int) -> Bool { Int.random(in: 0..<oneIn, using: &random) == 0 }

    mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &random)] }

    // MARK: Predicates

    mutating func predicate(depth: Int = 0, variable: String? = nil) -> ObjectPredicate {
        if depth < 3 && chance(3) {
            switch Int.random(in: 0..<5, using: &random) {
            case 0: return .not(predicate(depth: depth + 1, variable: variable))
            case 1, 2: return .and((0..<Int.random(in: 2...3, using: &random)).map { _ in predicate(depth: depth + 1, variable: variable) })
            default: return .or((0..<Int.random(in: 2...3, using: &random)).map { _ in predicate(depth: depth + 1, variable: variable) })
            }
        }
        if depth == 0 && variable == nil && chance(60) { return patternFromRow() }
        if chance(24) { return invalid(variable: variable) }
        if let variable { return tagComparison(variable) }
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return objectComparison()
        case 1: return keyAgainstKey()
        case 2 where depth < 2: return subquery(depth: depth)
        case 3: return constantOnTheLeft()
        case 4: return chance(8) ? (chance(2) ? .true : .false) : inList()
        case 5 where chance(2): return exotic()
        default: return comparison(chance(8) ? Self.longPaths : Self.photoPaths)
        }
    }

    /// A key path against a constant, mostly of its own kind.
    private mutating func comparison(_ paths: [(path: String, kind: Kind, isCollection: Bool)], prefix: String = "") -> ObjectPredicate {
        let (path, kind, isCollection) = pick(paths)
        let key = Self.expression(prefix + path)
        let modifier: ComparisonModifier = isCollection || chance(10) ? pick(ComparisonModifier.allCases) : .direct
        let options = stringOptions()
        var operators: [ComparisonOperator] = [.equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan,
                                               .greaterThanOrEqualTo, .in, .between]
        if kind == .string && !path.contains("@") { operators += [.beginsWith, .endsWith, .contains, .like, .matches, .beginsWith] }
        let comparisonOperator = pick(operators)
        let value: PredicateValue
        switch comparisonOperator {
        case .between:
            value = .array([constant(kind), constant(kind)].sorted { $0.description < $1.description })
        case .in:
            value = .array((0..<Int.random(in: 0...4, using: &random)).map { _ in constant(kind) })
        case .like:
            value = chance(6) ? constant(kind) : .string(pick(DifferentialValues.likePatterns))
        case .matches:
            value = .string(pick(DifferentialValues.regularExpressions))
        case .beginsWith, .endsWith, .contains:
            value = chance(8) ? constant(pick(Kind.allCases)) : .string(fragment())
        default:
            value = constant(kind)
        }
        return .comparison(PredicateComparison(key, comparisonOperator, .constant(value), modifier: modifier, options: options))
    }

    /// Relationships compared with objects, nil, and each other.
    private mutating func objectComparison() -> ObjectPredicate {
        let place = PredicateValue.object(PredicateObjectReference(pick(places)))
        let tag = PredicateValue.object(PredicateObjectReference(pick(tags)))
        let photo = PredicateValue.object(PredicateObjectReference(pick(photos)))
        let options: [ObjectPredicate] = [
            .key("place", pick([.equalTo, .notEqualTo]), chance(3) ? .null : place),
            .key("place", .in, .array([place, chance(2) ? .null : place, tag])),
            .key("tags", pick([.equalTo, .notEqualTo]), tag, modifier: pick(ComparisonModifier.allCases)),
            .compare(.constant(tag), .in, .key("tags")),
            .compare(.constant(chance(4) ? .null : place), .in, .key("tags.photos.place")),
            .key("SELF", pick([.equalTo, .notEqualTo]), photo),
            .key("SELF", .in, .array((0..<3).map { _ in .object(PredicateObjectReference(pick(photos))) })),
            .compare(.key("notes.photo"), .equalTo, .key("SELF"), modifier: pick(ComparisonModifier.allCases)),
            .compare(.key("SELF"), .in, .key("place.photos")),
            .key("tags", .equalTo, .null, modifier: pick(ComparisonModifier.allCases)),
            .key("place", .equalTo, .string("Lisbon")),
            .compare(.key("place"), pick([.equalTo, .notEqualTo]), .key("tags.photos.place")),
            .key("tags.photos", pick([.equalTo, .notEqualTo]), photo, modifier: pick(ComparisonModifier.allCases)),
        ]
        return pick(options)
    }

    /// Two key paths compared.
    private mutating func keyAgainstKey() -> ObjectPredicate {
        let strings = ["title", "unique", "place.name", "tags.name", "notes.text", "tags.@max.name"]
        let dates = ["dateTaken", "place.firstVisited", "tags.photos.dateTaken"]
        let numbers = ["latitude", "tags.@count", "notes.@count", "tags.count", "tags.@sum.count"]
        let all = strings + dates + numbers
        let family = pick([strings, dates, numbers, all])
        let lhs = pick(family)
        var rhs = pick(family.filter { !["tags.name", "notes.text", "tags.count", "tags.photos.dateTaken"].contains($0) || chance(3) })
        if rhs == lhs && chance(2) { rhs = pick(all) }
        var operators: [ComparisonOperator] = [.equalTo, .notEqualTo, .lessThan, .greaterThanOrEqualTo, .in]
        let lhsIsString = strings.contains(lhs) && !lhs.contains("@")
        let rhsIsString = strings.contains(rhs)
        if lhsIsString && rhsIsString { operators += [.beginsWith, .contains, .endsWith, .like] }
        let modifier: ComparisonModifier = chance(3) ? pick(ComparisonModifier.allCases) : .direct
        return .compare(.key(lhs), pick(operators), .key(rhs), modifier: modifier, options: stringOptions())
    }

    /// A constant compared with a key path on the right.
    private mutating func constantOnTheLeft() -> ObjectPredicate {
        let kind = pick(Kind.allCases)
        let path: String
        switch kind {
        case .string: path = pick(["title", "tags.name", "place.name", "notes.text"])
        case .number: path = pick(["latitude", "tags.count", "tags.@count"])
        case .date: path = pick(["dateTaken", "place.photos.dateTaken"])
        }
        var operators: [ComparisonOperator] = [.in, .equalTo, .notEqualTo, .lessThan, .greaterThan]
        if kind == .string && !path.contains("@") { operators += [.beginsWith, .contains, .like] }
        let value = chance(6) ? .null : constant(chance(5) ? pick(Kind.allCases) : kind)
        return .compare(.constant(value), pick(operators), .key(path), options: stringOptions())
    }

    /// IN with longer lists, some long enough for json_each.
    private mutating func inList() -> ObjectPredicate {
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
            let uniques = (0..<Int.random(in: 10...40, using: &random)).map { _ in PredicateValue.string("p\(Int.random(in: 0..<250, using: &random))") }
            return .key("unique", .in, .array(uniques + (chance(3) ? [.null, .int(1)] : [])))
        case 1:
            let texts = (0..<Int.random(in: 5...25, using: &random)).map { _ in constant(.string) }
            return .key(pick(["title", "tags.name", "notes.text"]), .in, .array(texts), modifier: pick(ComparisonModifier.allCases),
                        options: stringOptions())
        case 2:
            let numbers = (0..<Int.random(in: 5...25, using: &random)).map { _ in constant(.number) }
            return .key(pick(["latitude", "tags.count", "tags.@count"]), .in, .array(numbers))
        default:
            let dates = (0..<Int.random(in: 2...20, using: &random)).map { _ in constant(.date) }
            return .key(pick(["dateTaken", "place.firstVisited"]), .in, .array(dates))
        }
    }

    /// Rarer shapes: aggregates of key paths, constant collections on the left, a key path
    /// read from SUBQUERY's elements, nested SUBQUERYs using the outer variable, operators on
    /// a to-one relationship.
    private mutating func exotic() -> ObjectPredicate {
        let modifier = pick(ComparisonModifier.allCases)
        let options = stringOptions()
        let text = ObjectExpression.constant(constant(.string))
        let titleAndPlace = ObjectExpression.aggregate([.key("title"), .key("place.name")])
        let subquery = ObjectExpression.subquery(collection: .key("tags"), variable: "t",
                                                 predicate: .compare(Self.expression("$t.count"), .greaterThan, .constant(constant(.number))))
        let nested = ObjectExpression.subquery(
            collection: .key("tags"), variable: "t",
            predicate: .compare(.collectionOperator(.count, of: .subquery(
                collection: Self.expression("$t.photos"), variable: "p",
                predicate: .compare(Self.expression("$p.title"), pick([.equalTo, .beginsWith, .lessThan]), Self.expression("$t.name"),
                                    options: options)), keyPath: []), .greaterThan, .constant(.int(0))))
        let choices: [ObjectPredicate] = [
            .compare(text, .in, titleAndPlace, options: options),
            .compare(titleAndPlace, pick([.equalTo, .notEqualTo, .beginsWith, .lessThan]), text, modifier: modifier, options: options),
            .compare(.key("latitude"), .between, .aggregate([.key("tags.@min.count"), .key("tags.@max.count")])),
            .compare(.key("latitude"), .between, .aggregate([.constant(constant(.number)), .key("place.photos.@avg.latitude")])),
            .compare(.constant(.array([constant(.number), constant(.number)])), pick([.equalTo, .lessThan, .in]), .key("latitude"),
                     modifier: modifier),
            .compare(.member(of: subquery, keyPath: ["name"]), pick([.equalTo, .notEqualTo, .contains]), text, modifier: modifier,
                     options: options),
            .compare(.collectionOperator(.count, of: nested, keyPath: []), pick([.equalTo, .greaterThan]),
                     .constant(.int(Int64.random(in: 0...2, using: &random)))),
            .compare(.key(pick(["place.@count", "place.@sum", "place.@min"])), pick([.equalTo, .notEqualTo]),
                     .constant(chance(3) ? .null : .int(Int64.random(in: 0...1, using: &random)))),
            .compare(.collectionOperator(pick([.count, .sum, .max]), of: .key("place"), keyPath: ["name"]), pick([.equalTo, .notEqualTo]),
                     .constant(chance(2) ? .int(1) : constant(.string))),
            .compare(.key("title"), pick([.equalTo, .notEqualTo, .lessThan]), .constant(.array([constant(.string)]))),
            .compare(.key("notes.text"), pick([.equalTo, .notEqualTo]), .key("place.photos.title"), modifier: modifier, options: options),
        ]
        return pick(choices)
    }

    /// A comparison that a fetch refuses, so memory must refuse it too, wherever it sits.
    private mutating func invalid(variable: String?) -> ObjectPredicate {
        let place = PredicateValue.object(PredicateObjectReference(pick(places)))
        let text = ObjectExpression.constant(constant(.string))
        if let variable, chance(2) {
            let key = pick(["colour", "name.length", "photos.colour", "count.x"])
            return .compare(Self.expression("$\(variable).\(key)"), pick([.equalTo, .notEqualTo]), text)
        }
        let choices: [ObjectPredicate] = [
            // Keys the model does not have, and keys after an attribute.
            .key(pick(["colour", "place.colour", "tags.colour", "notes.photo.colour", "tags.photos.place.colour"]),
                 pick([.equalTo, .notEqualTo]), .null, modifier: pick(ComparisonModifier.allCases)),
            .key(pick(["latitude.latitude", "title.length", "place.name.x", "tags.name.x", "dateTaken.year"]),
                 .equalTo, pick([.null, constant(.number)])),
            .compare(.collectionOperator(pick([.count, .sum]), of: .key("tags"), keyPath: ["colour"]), .greaterThan, .constant(.int(0))),
            // Operators that do not apply to their operands.
            .key(pick(["dateTaken", "latitude", "tags.count", "place.firstVisited"]),
                 pick([.beginsWith, .endsWith, .contains, .like, .matches]), .string("a"), modifier: pick([.direct, .any])),
            .key(pick(["place", "tags"]), pick([.lessThan, .greaterThanOrEqualTo, .between]),
                 pick([place, .array([place, place])]), modifier: pick([.direct, .any])),
            .key("title", .matches, .string(pick(["(", "[a-", "*x", "a{2,1}"])), options: stringOptions()),
            .compare(.key("latitude"), .between, .key(pick(["tags.count", "place.firstVisited", "title"]))),
            // Shapes a fetch cannot run.
            .compare(.member(of: text, keyPath: ["name"]), .equalTo, text),
            .compare(.collectionOperator(.count, of: .subquery(collection: .key(pick(["title", "latitude"])), variable: "x",
                                                              predicate: .true), keyPath: []), .greaterThan, .constant(.int(0))),
            .compare(.key("tags.name"), .contains, .key(pick(["notes.text", "place.photos.title"]))),
            .compare(.key("title"), .in, .aggregate([.key("tags.name"), text])),
            .compare(.aggregate([.key("notes.text"), .key("title")]), .equalTo, text),
        ]
        return pick(choices)
    }

    /// MATCHES with its pattern read from each photo: the graph holds a title that is no regular
    /// expression, so both back ends fail with its message whenever they reach it. Only alone at
    /// the top: there both read every row, while under AND or OR which rows each one reaches
    /// first is theirs to choose.
    private mutating func patternFromRow() -> ObjectPredicate {
        let comparison = ObjectPredicate.compare(.key(pick(["unique", "title", "place.name"])), .matches, .key("title"),
                                                 options: stringOptions())
        return chance(3) ? .not(comparison) : comparison
    }

    /// `SUBQUERY(tags, $t, …).@count` and friends.
    private mutating func subquery(depth: Int) -> ObjectPredicate {
        let (collection, variable) = pick([("tags", "t"), ("notes", "n"), ("place.photos", "p")])
        let inner: ObjectPredicate
        switch variable {
        case "t": inner = predicate(depth: depth + 1, variable: "t")
        case "n": inner = .compare(Self.expression("$n.text"), pick([.equalTo, .beginsWith, .like, .notEqualTo]),
                                   .constant(constant(.string)), options: stringOptions())
        default: inner = .compare(Self.expression("$p.title"), pick([.equalTo, .lessThan, .contains]), .key("title"), options: stringOptions())
        }
        let subquery = ObjectExpression.subquery(collection: .key(collection), variable: variable, predicate: inner)
        if chance(5) {
            return .comparison(PredicateComparison(subquery, .notEqualTo, .constant(.null), modifier: pick(ComparisonModifier.allCases)))
        }
        let count = ObjectExpression.collectionOperator(.count, of: subquery, keyPath: [])
        return .compare(count, pick([.equalTo, .greaterThan, .lessThanOrEqualTo, .notEqualTo]),
                        .constant(.int(Int64.random(in: 0...3, using: &random))))
    }

    /// A comparison inside `SUBQUERY(tags, $t, …)`, through `$t` or plain key paths.
    private mutating func tagComparison(_ variable: String) -> ObjectPredicate {
        if chance(6) {
            let photo = PredicateValue.object(PredicateObjectReference(pick(photos)))
            return .compare(.constant(photo), .in, Self.expression("$\(variable).photos"))
        }
        return comparison(Self.tagPaths, prefix: chance(2) ? "$\(variable)." : "")
    }

    /// A key path that may start with a variable: `"$t.photos.@count"`.
    static func expression(_ text: String) -> ObjectExpression {
        guard text.hasPrefix("$") else { return .key(text) }
        let parts = text.dropFirst().split(separator: ".", maxSplits: 1)
        let variable = ObjectExpression.variable(String(parts.first ?? ""))
        return rebase(parts.count > 1 ? .key(String(parts[1])) : .keyPath([]), on: variable)
    }

    private static func rebase(_ expression: ObjectExpression, on base: ObjectExpression) -> ObjectExpression {
        switch expression {
        case .keyPath(let path): return base.appending(path)
        case .collectionOperator(let collectionOperator, let inner, let path):
            return .collectionOperator(collectionOperator, of: rebase(inner, on: base), keyPath: path)
        default: return expression
        }
    }

    // MARK: Constants

    private mutating func stringOptions() -> StringComparisonOptions {
        pick([[], [], [.caseInsensitive], [.diacriticInsensitive], [.caseInsensitive, .diacriticInsensitive]])
    }

    /// A constant of `kind`, sometimes nil or of another kind.
    mutating func constant(_ kind: Kind) -> PredicateValue {
        if chance(12) { return .null }
        if chance(10) {
            return pick([.int(1), .double(0.5), .bool(true), .string("1"), .date(Date(timeIntervalSinceReferenceDate: 0)),
                         .data(Data([1])), .double(.infinity), .double(.nan)])
        }
        switch kind {
        case .string:
            return .string(chance(3) ? fragment() : pick(DifferentialValues.texts + DifferentialValues.names))
        case .number:
            return chance(2) ? .int(pick(DifferentialValues.integers)) : (chance(8) ? .bool(chance(2)) : .double(pick(DifferentialValues.doubles)))
        case .date:
            return .date(Date(timeIntervalSinceReferenceDate: pick(DifferentialValues.dates) + (chance(4) ? 0.5 : 0)))
        }
    }

    /// A piece of a pool string: a prefix, a suffix or a middle, sometimes with its case changed.
    private mutating func fragment() -> String {
        let scalars = Array(pick(DifferentialValues.texts + DifferentialValues.names).unicodeScalars)
        guard !scalars.isEmpty else { return "" }
        let start = chance(2) ? 0 : Int.random(in: 0..<scalars.count, using: &random)
        let end = chance(2) ? scalars.count : Int.random(in: start...scalars.count, using: &random)
        var text = String(String.UnicodeScalarView(scalars[start..<end]))
        if chance(4) { text = chance(2) ? text.uppercased() : text.lowercased() }
        return text
    }
}
