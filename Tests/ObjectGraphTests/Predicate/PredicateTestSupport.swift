import Foundation
import ObjectGraph
import TestSupport

/// Parses or records the failure, so tests can compare exact messages.
func parseResult(_ format: String, _ arguments: [any PredicateArgument] = []) -> Result<ObjectPredicate, ObjectPredicateError> {
    Result { () throws(ObjectPredicateError) -> ObjectPredicate in try ObjectPredicate(format: format, arguments: arguments) }
}

/// The error message for a format that must not parse, or a marker when it parses.
func errorMessage(_ format: String, _ arguments: [any PredicateArgument] = []) -> String {
    switch parseResult(format, arguments) {
    case .success(let predicate): return "parsed as \(predicate)"
    case .failure(let error): return error.description
    }
}

func key(_ components: String...) -> ObjectExpression {
    .keyPath(components)
}

func compare(
    _ lhs: ObjectExpression, _ comparisonOperator: ComparisonOperator, _ rhs: ObjectExpression,
    _ modifier: ComparisonModifier = .direct, _ options: StringComparisonOptions = []
) -> ObjectPredicate {
    .comparison(PredicateComparison(lhs, comparisonOperator, rhs, modifier: modifier, options: options))
}

/// A small photo library for evaluator tests.
final class TestTag: PredicateKeyValueReadable {
    var name: String?
    var count: Int64
    var photos: [TestPhoto] = []

    init(_ name: String?, count: Int64 = 1) {
        self.name = name
        self.count = count
    }

    func predicateValue(forKey key: String) -> PredicateEvaluationValue {
        switch key {
        case "name": return .init(name)
        case "count": return .init(count)
        case "photos": return .objects(photos)
        default: return .null
        }
    }
}

final class TestPlace: PredicateKeyValueReadable {
    var name: String?
    var photos: [TestPhoto] = []

    init(_ name: String?) {
        self.name = name
    }

    func predicateValue(forKey key: String) -> PredicateEvaluationValue {
        switch key {
        case "name": return .init(name)
        case "photos": return .objects(photos)
        default: return .null
        }
    }
}

final class TestPhoto: PredicateKeyValueReadable {
    var unique: String
    var title: String?
    var rating: Double?
    var views: Int?
    var visited: Bool
    var dateTaken: Date?
    var thumbnail: Data?
    var place: TestPlace?
    var tags: [TestTag]

    init(
        _ unique: String, title: String? = nil, rating: Double? = nil, views: Int? = nil, visited: Bool = false,
        dateTaken: Date? = nil, thumbnail: Data? = nil, place: TestPlace? = nil, tags: [TestTag] = []
    ) {
        self.unique = unique
        self.title = title
        self.rating = rating
        self.views = views
        self.visited = visited
        self.dateTaken = dateTaken
        self.thumbnail = thumbnail
        self.place = place
        self.tags = tags
        place?.photos.append(self)
        for tag in tags { tag.photos.append(self) }
    }

    func predicateValue(forKey key: String) -> PredicateEvaluationValue {
        switch key {
        case "unique": return .init(unique)
        case "title": return .init(title)
        case "rating": return .init(rating)
        case "views": return .init(views)
        case "visited": return .init(visited)
        case "dateTaken": return .init(dateTaken)
        case "thumbnail": return .init(thumbnail)
        case "place": return .object(place)
        case "tags": return .objects(tags)
        default: return .null
        }
    }
}

/// An object whose every read fails, to check that evaluation passes errors through.
struct FailingObject: PredicateKeyValueReadable {
    struct ReadError: Error, Equatable {}

    func predicateValue(forKey key: String) throws -> PredicateEvaluationValue {
        throw ReadError()
    }

    var predicateObjectReference: PredicateObjectReference { PredicateObjectReference("failing") }
}

/// A value-type object with an explicit identity.
struct Record: PredicateKeyValueReadable {
    var id: Int
    var values: [String: PredicateEvaluationValue]

    func predicateValue(forKey key: String) -> PredicateEvaluationValue {
        values[key] ?? .null
    }

    var predicateObjectReference: PredicateObjectReference { PredicateObjectReference(id) }
}

/// Evaluates a format on an object, for compact expectations.
func matches(_ format: String, _ object: any PredicateKeyValueReadable, _ arguments: any PredicateArgument...) throws -> Bool {
    try ObjectPredicate(format: format, arguments: arguments).evaluate(with: object)
}

/// SplitMix64, seeded (TestSupport).
typealias SeededGenerator = SplitMix64
