import ObjectGraphTestModels
import Foundation
@testable import ObjectGraph
import SQLiteDB
import Testing

/// Five photos, with and without places, tags, titles and coordinates; each case runs as a fetch
/// (SQL), as a fetch that merges pending changes (the evaluator, inside the context) and through
/// the evaluator on every photo, and the three must give the exact expected photos or error.
private final class GrammarGraph {
    let store: TestStore
    let sea: ObjectID
    let lisbon: ObjectID
    let photoIDs: [String: ObjectID]

    init() throws {
        store = try TestStore()
        let context = store.context()
        let lisbon = Place(context: context)
        lisbon.name = "Lisbon"
        let porto = Place(context: context)
        porto.name = "Porto"
        var tags: [String: Tag] = [:]
        for name in ["sea", "sun", "Café", "night"] {
            let tag = Tag(context: context)
            tag.name = name
            tags[name] = tag
        }
        let rows: [(String, String?, Double?, Place?, [String])] = [
            ("1", "Sunset over the sea", 38.7, lisbon, ["sea", "sun"]),
            ("2", "Café at night", 41.1, porto, ["Café", "night"]),
            ("3", nil, nil, nil, []),
            ("4", "sea", -1, lisbon, ["sea"]),
            ("5", "%@", 0, nil, ["sun"]),
        ]
        var photos: [Photo] = []
        for (unique, title, latitude, place, tagNames) in rows {
            let photo = Photo(context: context)
            photo.unique = unique
            photo.title = title
            photo.latitude = latitude
            photo.place = place
            photo.tags = Set(tagNames.compactMap { tags[$0] })
            photos.append(photo)
        }
        let note = Note(context: context)
        note.text = "first"
        note.photo = photos[0]
        try context.save()
        sea = try #require(tags["sea"]).objectID
        self.lisbon = lisbon.objectID
        photoIDs = Dictionary(uniqueKeysWithValues: photos.map { ($0.unique, $0.objectID) })
    }

    /// What a back end gave: the uniques of the photos selected, sorted, or the error.
    enum Outcome: Equatable, CustomStringConvertible {
        case photos([String])
        case failure(String)

        var description: String {
            switch self {
            case .photos(let uniques): return "photos \(uniques)"
            case .failure(let message): return "error \(message)"
            }
        }

        init(_ body: () throws -> [Photo]) {
            do {
                self = .photos(try body().map(\.unique).sorted())
            } catch {
                self = .failure("\(type(of: error)): \(error)")
            }
        }
    }

    /// The outcomes of a fetch, a fetch through pending changes, and evaluating each photo.
    func outcomes(_ predicate: ObjectPredicate) -> (fetch: Outcome, pending: Outcome, memory: Outcome) {
        let fetch = Outcome { try store.context().fetch(FetchRequest<Photo>(predicate: predicate)) }
        let pending = Outcome {
            let context = store.context()
            // An unsaved change makes the fetch judge every candidate in memory.
            Tag(context: context).name = "unsaved"
            return try context.fetch(FetchRequest<Photo>(predicate: predicate))
        }
        let memory = Outcome {
            let context = store.context()
            let photos = try context.fetch(FetchRequest<Photo>())
            let evaluator = PredicateEvaluator(predicate)
            return try photos.filter { try evaluator.evaluate(with: $0) }
        }
        return (fetch, pending, memory)
    }

    /// Checks that all three back ends give `expected`.
    func expect(_ format: String, _ arguments: [any PredicateArgument] = [], _ expected: Outcome,
                sourceLocation: SourceLocation = #_sourceLocation) {
        let predicate: ObjectPredicate
        do {
            predicate = try ObjectPredicate(format: format, arguments: arguments)
        } catch {
            Issue.record("\(format) does not parse: \(error)", sourceLocation: sourceLocation)
            return
        }
        let (fetch, pending, memory) = outcomes(predicate)
        #expect(fetch == expected, "fetch: \(format)", sourceLocation: sourceLocation)
        #expect(pending == expected, "fetch with pending changes: \(format)", sourceLocation: sourceLocation)
        #expect(memory == expected, "in memory: \(format)", sourceLocation: sourceLocation)
    }
}

private func photos(_ uniques: String...) -> GrammarGraph.Outcome { .photos(uniques) }

private func fetchError(_ message: String) -> GrammarGraph.Outcome { .failure("FetchRequestError: " + message) }

@Suite("Apple's predicate grammar, the same in a fetch and in memory")
struct AppleGrammarTests {
    @Test("%K stands for any key of a key path, also in ANY, SUBQUERY and before @count")
    func keySpecifierAnywhere() throws {
        let graph = try GrammarGraph()
        graph.expect("%K.%K BEGINSWITH 'L'", ["place", "name"], photos("1", "4"))
        graph.expect("%K.%K BEGINSWITH 'a'", ["place", "name"], photos())
        graph.expect("place.%K BEGINSWITH %@", ["name", "P"], photos("2"))
        graph.expect("%K.name == %@", ["place", "Porto"], photos("2"))
        graph.expect("%K == %@", ["place.name", "Porto"], photos("2"))
        graph.expect("ANY %K.name == %@", ["tags", "sea"], photos("1", "4"))
        graph.expect("ANY %K.%K ==[c] %@", ["tags", "name", "CAFÉ"], photos("2"))
        graph.expect("NONE %K.%K == %@", ["tags", "name", "sun"], photos("2", "3", "4"))
        graph.expect("%K.@count == 2", ["tags"], photos("1", "2"))
        graph.expect("%K.%K.@count == 2", ["place", "photos"], photos("1", "4"))
        graph.expect("place.%K >= 2", ["photos.@count"], photos("1", "4"))
        graph.expect("SUBQUERY(%K, $t, $t.%K BEGINSWITH %@).@count > 0", ["tags", "name", "s"], photos("1", "4", "5"))
        graph.expect("%@ IN %K.%K", ["night", "tags", "name"], photos("2"))
        graph.expect("%K.%K == 'x'", ["latitude", "latitude"],
                     fetchError("Cannot follow 'latitude' from latitude, a Double attribute of Photo (key path 'latitude.latitude')"))
    }

    @Test("arguments beyond the specifiers are ignored, and a quoted %@ is a literal")
    func extraArguments() throws {
        let graph = try GrammarGraph()
        graph.expect("%K like '%@'", ["title", "Adam"], photos("5"))
        graph.expect("%K == %@", ["unique", "2", "3", 4], photos("2"))
        graph.expect("TRUEPREDICATE", ["unused"], photos("1", "2", "3", "4", "5"))
    }

    @Test("IN with a string on the right is a substring test, with the options")
    func substringIn() throws {
        let graph = try GrammarGraph()
        graph.expect("'sea' IN title", [], photos("1", "4"))
        graph.expect("%@ IN title", ["night"], photos("2"))
        graph.expect("title IN 'Sunset over the sea, and more'", [], photos("1", "4"))
        graph.expect("title IN[c] 'the CAFÉ AT NIGHT'", [], photos("2"))
        graph.expect("title IN[cd] 'a cafe at night'", [], photos("2"))
        graph.expect("title IN 'a cafe at night'", [], photos())
        graph.expect("'' IN title", [], photos())
        graph.expect("nil IN title", [], photos())
        graph.expect("title IN nil", [], photos())
        graph.expect("latitude IN '38.7'", [], photos())
        graph.expect("place.name IN 'Lisbon and Porto'", [], photos("1", "2", "4"))
        graph.expect("ANY tags.name IN 'seaside sunny'", [], photos("1", "4", "5"))
        graph.expect("place.name IN title", [], photos())
        graph.expect("'Sun' IN title AND NOT 'x' IN title", [], photos("1"))
        // A collection on the right is still membership, and a number equality.
        graph.expect("title IN %@", [["sea", "Café"]], photos("4"))
        graph.expect("latitude IN -1", [], photos("4"))
        graph.expect("ANY tags.name IN {'sea', 'night'}", [], photos("1", "2", "4"))
    }

    @Test("CONTAINS with a collection on the left and no modifier asks for a member")
    func containsOnCollections() throws {
        let graph = try GrammarGraph()
        graph.expect("tags CONTAINS %@", [graph.sea], photos("1", "4"))
        graph.expect("NOT tags CONTAINS %@", [graph.sea], photos("2", "3", "5"))
        graph.expect("tags.name CONTAINS 'sea'", [], photos("1", "4"))
        graph.expect("tags.name CONTAINS 'se'", [], photos())
        graph.expect("tags.name CONTAINS[c] 'café'", [], photos("2"))
        graph.expect("tags.name CONTAINS nil", [], photos())
        graph.expect("place.photos CONTAINS SELF", [], photos("1", "2", "4"))
        graph.expect("place.photos.title CONTAINS 'sea'", [], photos("1", "4"))
        graph.expect("{1, 2} CONTAINS 2", [], photos("1", "2", "3", "4", "5"))
        graph.expect("{'sea', 'sun'} CONTAINS title", [], photos("4"))
        graph.expect("{'sea', 'sun'} CONTAINS[c] 'SUN'", [], photos("1", "2", "3", "4", "5"))
        graph.expect("{title, 'Sunset over the sea'} CONTAINS 'sea'", [], photos("4"))
        // With a modifier, each element is a string: CONTAINS is a substring test again.
        graph.expect("ANY tags.name CONTAINS 'se'", [], photos("1", "4"))
        graph.expect("ALL tags.name CONTAINS 'n'", [], photos("3", "5"))
        graph.expect("title CONTAINS 'sea'", [], photos("1", "4"))
        graph.expect("tags.name CONTAINS tags.name", [],
                     fetchError("tags.name CONTAINS tags.name is not supported in a fetch: CONTAINS looks for one value in a collection"))
    }

    @Test("Apple's octal, hex and \\U escapes in strings")
    func stringEscapes() throws {
        let graph = try GrammarGraph()
        graph.expect(#"title == "Caf\xe9 at night""#, [], photos("2"))
        graph.expect(#"title == 'Caf\351 at night'"#, [], photos("2"))
        graph.expect(#"title == "Caf\U00E9 at night""#, [], photos("2"))
        graph.expect(#"title == "\x25\100""#, [], photos("5"))
    }

    @Test("SELF, IN with an array argument, BETWEEN, variables and options as Apple's guide writes them")
    func guideExamples() throws {
        let graph = try GrammarGraph()
        let one = try #require(graph.photoIDs["1"])
        let four = try #require(graph.photoIDs["4"])
        graph.expect("SELF == %@", [one], photos("1"))
        graph.expect("SELF IN %@", [[one, four]], photos("1", "4"))
        graph.expect("NOT SELF IN %@", [[one, four]], photos("2", "3", "5"))
        graph.expect("latitude BETWEEN %@", [[0, 40]], photos("1", "5"))
        graph.expect("latitude BETWEEN {-1, 0}", [], photos("4", "5"))
        graph.expect("title ==[c] 'SEA'", [], photos("4"))
        graph.expect("title ==[cd] 'cafe AT NIGHT'", [], photos("2"))
        graph.expect("title !=[c] 'SEA'", [], photos("1", "2", "3", "5"))
        graph.expect("title like[cd] 'cafe*'", [], photos("2"))
        graph.expect("title LIKE[c] '*SEA'", [], photos("1", "4"))
        graph.expect("title LIKE '?@'", [], photos("5"))
        graph.expect("place == %@ AND ANY tags == %@", [graph.lisbon, graph.sea], photos("1", "4"))
        graph.expect("place.name == nil", [], photos("3", "5"))
        graph.expect("tags.@count == 0", [], photos("3"))
        let template = try ObjectPredicate(format: "latitude BETWEEN {$LOW, $HIGH} AND title BEGINSWITH[c] $START")
        let (fetch, pending, memory) = graph.outcomes(try template.substituting(["LOW": 30, "HIGH": 45, "START": "s"]))
        #expect([fetch, pending, memory] == [photos("1"), photos("1"), photos("1")])
    }
}
