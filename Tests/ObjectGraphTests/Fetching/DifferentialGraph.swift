import ObjectGraphTestModels
import Foundation
@testable import ObjectGraph
import SQLiteDB
import Testing

/// Values that make SQL and memory disagree if either gets bytes, folding, nulls or types wrong.
enum DifferentialValues {
    /// Titles and note texts: ASCII, accents in NFC and NFD, CJK, emoji, case variants, the
    /// empty string, wildcard characters.
    static let texts: [String] = [
        "", "Lisbon", "lisbon", "LISBON", "Lisbon at night", "Crème brûlée", "Cre\u{300}me bru\u{302}le\u{301}e",
        "crème", "CREME", "École", "E\u{301}cole", "ecole", "東京", "東京タワー", "🏖️ beach", "beach 🏖", "Straße",
        "STRASSE", "İstanbul", "istanbul", "IMG_0042.jpg", "img_42.JPG", "IMG 9", "IMG 10", "a*b?c", "100%", "naïve",
        "nai\u{308}ve", "x", "X", "ß", "Zoë", "zoe", " leading", "trailing ", "tab\there", "Ａ full width", "𝒜 script",
        "Sea", "sea", "sunset", "Sunset over the sea", "café", "cafe\u{301}", "Ωmega", "ωmega", "a", "ab", "abc", "b",
    ]

    /// Tag and place names (unique attributes): no two canonically equivalent.
    static let names: [String] = [
        "sea", "Sea", "SEA", "sunset", "Sunset", "café", "Crème", "creme", "東京", "🏖️", "Straße", "strasse",
        "İstanbul", "istanbul", "IMG 9", "IMG 10", "a*b", "Zoë", "", "x", "Lisbon", "lisbon", "beach", "Ωmega",
    ]

    /// Seconds since 2001: before and after, whole and fractional.
    static let dates: [Double] = [-978_307_200, -86_400.5, -1, 0, 0.25, 1, 86_400, 726_000_000, 726_000_000.5, 800_000_000]

    /// Doubles whose sums and means are exact, so SQLite and Swift add them alike.
    static let doubles: [Double] = [-90, -12.5, -1, -0.25, 0, 0.5, 1, 2, 12.5, 38.75, 90]

    static let integers: [Int64] = [-3, -1, 0, 1, 2, 3, 5, 10]

    static let likePatterns: [String] = ["*", "?", "", "L*", "l*", "*a*", "*e", "IMG*", "IMG ?", "IMG ??", "*\\*b*",
                                         "a\\*b?c", "?a*", "*é*", "*e\u{301}*", "東*", "*🏖*", "*ß*", "c?f?", "Cr?me*",
                                         "École", "E\u{301}cole"]

    /// A title that no MATCHES can compile as a pattern.
    static let invalidRegularExpression = "(unclosed [group"

    static let regularExpressions: [String] = [".*", "", ".", "[a-z]+", ".*é.*", "(?i)lis.*", "\\w+", "I.*", ".*\\d+.*",
                                               "[^ ]*", "x|X", "..", "Cr.me.*", "東.*", "\\p{Lu}.*", "s.a",
                                               // Canonically equivalent patterns, different to ICU (and to every cache).
                                               ".*e\u{301}.*", "École", "E\u{301}cole", "école", "e\u{301}cole"]
}

/// What one back end made of a predicate: the photos it selects, or how it failed.
enum DifferentialOutcome: Equatable, CustomStringConvertible {
    /// The primary keys of the photos selected.
    case matches(Set<Int64>)
    /// A predicate a fetch refuses before it runs (`FetchRequestError`), with its message.
    case refused(String)
    /// A failure while running, with its message: SQLite's error from a store function is the
    /// evaluator's `ObjectPredicateError` text (an invalid MATCHES pattern read from a row).
    case failed(String)

    init(_ body: () throws -> Set<Int64>) {
        do {
            self = .matches(try body())
        } catch let error as FetchRequestError {
            self = .refused(error.message)
        } catch let error as ObjectPredicateError {
            self = .failed(error.description)
        } catch let error as SQLiteError {
            self = .failed(error.message)
        } catch {
            self = .failed("\(type(of: error)): \(error)")
        }
    }

    var description: String {
        switch self {
        case .matches(let keys): return "\(keys.count) photos"
        case .refused(let message): return "refused: \(message)"
        case .failed(let message): return "failed: \(message)"
        }
    }
}

/// A random photo library saved in a temporary store, loaded back into a fresh context.
struct DifferentialGraph {
    let store: TestStore
    let context: ObjectContext
    let photos: [ManagedObject]
    let tags: [ManagedObject]
    let places: [ManagedObject]
    let photoEntity: Entity

    init(seed: UInt64, photoCount: Int = 200) throws {
        var random = SeededGenerator(state: seed)
        store = try TestStore()
        let writer = store.context()
        var places: [Place] = []
        var photos: [Photo] = []
        for (index, name) in DifferentialValues.names.prefix(12).enumerated() {
            let place = Place(context: writer)
            place.name = name
            place.firstVisited = index % 4 == 0 ? nil : Date(timeIntervalSinceReferenceDate: DifferentialValues.dates.randomElement(using: &random) ?? 0)
            places.append(place)
        }
        var tags: [Tag] = []
        for name in DifferentialValues.names.shuffled(using: &random).prefix(20) {
            let tag = Tag(context: writer)
            tag.name = name
            tag.count = DifferentialValues.integers.randomElement(using: &random) ?? 0
            tags.append(tag)
        }
        for index in 0..<photoCount {
            let photo = Photo(context: writer)
            photos.append(photo)
            photo.unique = "p\(index)"
            photo.title = Int.random(in: 0..<8, using: &random) == 0 ? nil : DifferentialValues.texts.randomElement(using: &random)
            photo.dateTaken = Bool.random(using: &random) && Bool.random(using: &random) ? nil
                : Date(timeIntervalSinceReferenceDate: DifferentialValues.dates.randomElement(using: &random) ?? 0)
            photo.latitude = Int.random(in: 0..<4, using: &random) == 0 ? nil : DifferentialValues.doubles.randomElement(using: &random)
            photo.place = Int.random(in: 0..<4, using: &random) == 0 ? nil : places.randomElement(using: &random)
            photo.tags = Set(tags.shuffled(using: &random).prefix(Int.random(in: 0...4, using: &random)))
            for _ in 0..<Int.random(in: 0...2, using: &random) {
                let note = Note(context: writer)
                note.text = DifferentialValues.texts.randomElement(using: &random) ?? ""
                note.photo = photo
            }
        }
        // One title is no regular expression: MATCHES reading its pattern from the row fails alike.
        if photos.indices.contains(photoCount / 2) { photos[photoCount / 2].title = DifferentialValues.invalidRegularExpression }
        try writer.save()
        let photoIDs = writer.registeredObjects.filter { $0 is Photo }.map(\.objectID).sorted()
        let reader = store.context()
        context = reader
        self.photos = try photoIDs.map { try reader.existingObject(with: $0) }
        self.tags = try tags.map { try reader.existingObject(with: $0.objectID) }
        self.places = try places.map { try reader.existingObject(with: $0.objectID) }
        photoEntity = try #require(TestModels.travel.entity(named: "Photo"))
    }

    /// The primary keys of the photos the predicate selects in SQL, checked and compiled as a
    /// fetch does.
    func sqlMatches(_ predicate: ObjectPredicate) throws -> Set<Int64> {
        try PredicateSQLCompiler.validate(predicate: predicate, sortDescriptors: [], entity: photoEntity, model: TestModels.travel)
        let query = try PredicateSQLCompiler.compile(predicate: predicate, sortDescriptors: [], entity: photoEntity,
                                                     model: TestModels.travel)
        let sql = "SELECT t0.Z_PK FROM \(query.from)" + (query.whereClause.map { " WHERE " + $0 } ?? "")
        return try store.coordinator.withConnection { connection in
            let statement = try connection.prepare(sql)
            statement.bind(query.arguments)
            var keys = Set<Int64>()
            try statement.forEachRow { keys.insert($0.int64(at: 0)) }
            return keys
        }
    }

    /// The primary keys of the photos the predicate selects in memory.
    func memoryMatches(_ predicate: ObjectPredicate) throws -> Set<Int64> {
        let evaluator = PredicateEvaluator(predicate)
        var keys = Set<Int64>()
        for photo in photos where try evaluator.evaluate(with: photo) { keys.insert(photo.objectID.primaryKey) }
        return keys
    }

    /// The primary keys of every photo in the store's order for the descriptors.
    func sqlOrder(_ descriptors: [ObjectSortDescriptor]) throws -> [Int64] {
        let query = try PredicateSQLCompiler.compile(predicate: nil, sortDescriptors: descriptors, entity: photoEntity,
                                                     model: TestModels.travel)
        let sql = "SELECT t0.Z_PK FROM \(query.from)" + (query.orderBy.map { " ORDER BY " + $0 } ?? "")
        return try store.coordinator.withConnection { connection in
            let statement = try connection.prepare(sql)
            statement.bind(query.arguments)
            var keys: [Int64] = []
            try statement.forEachRow { keys.append($0.int64(at: 0)) }
            return keys
        }
    }
}
