import ObjectGraphTestModels
import Foundation
import ObjectGraph
import Testing

/// Three photos: one with a place and two tags, one with nothing, one at a nameless place.
struct PhotoLibrary {
    let beach = TestTag("beach", count: 3)
    let sunset = TestTag("Sunset", count: 5)
    let cafe = TestTag("café", count: 1)
    let lisbon = TestPlace("Lisbon")
    let nameless = TestPlace(nil)
    let full: TestPhoto
    let empty: TestPhoto
    let other: TestPhoto

    init() {
        full = TestPhoto("1", title: "Alfama at night", rating: 4.5, views: 120, visited: true,
                         dateTaken: Date(timeIntervalSinceReferenceDate: 100), thumbnail: Data([1, 2]),
                         place: lisbon, tags: [beach, sunset])
        empty = TestPhoto("2")
        other = TestPhoto("3", title: "Café", views: 7, place: nameless, tags: [cafe, beach])
    }
}

@Suite("ObjectPredicate evaluator: Core Data semantics in memory")
struct PredicateEvaluatorTests {
    let library = PhotoLibrary()

    @Test("key paths go through to-one relationships; nil on the way is null")
    func toOnePaths() throws {
        #expect(try matches("place.name == 'Lisbon'", library.full))
        #expect(try matches("place.name == nil", library.empty))
        #expect(try matches("place.name == nil", library.other))
        #expect(try !matches("place.name != nil", library.empty))
        #expect(try matches("place.name.length == nil", library.full))
        #expect(try matches("place.photos.@count == 1", library.full))
        #expect(try matches("SELF.unique == '1' AND self == self", library.full))
    }

    @Test("null equals only null; != is its negation; other operators with null are false")
    func nullSemantics() throws {
        let photo = library.empty
        let truths = ["title == nil", "title != 'x'", "nil == nil", "views != 5", "title IN {'a', nil}", "NOT title > 'x'"]
        for format in truths {
            #expect(try matches(format, photo), "\(format)")
        }
        let falsehoods = [
            "title != nil", "title == 'x'", "title < 'x'", "title >= 'x'", "title <= nil", "nil < 1", "views > 0",
            "views <= 0", "title BEGINSWITH 'A'", "title CONTAINS ''", "title LIKE '*'", "title MATCHES '.*'",
            "title IN {'a'}", "title BETWEEN {'a', 'z'}", "'a' IN nil", "views BETWEEN {nil, nil}",
        ]
        for format in falsehoods {
            #expect(try !matches(format, photo), "\(format)")
        }
        #expect(try matches("title != %@", photo, "x"))
        #expect(try matches("title == %@", photo, Optional<String>.none))
    }

    @Test("as Apple's evaluator: IN with a string on the right is a substring test, CONTAINS on a collection asks for a member")
    func appleStringInAndCollectionContains() throws {
        let full = library.full
        let truths = [
            "'night' IN title", "title IN 'Alfama at night, Lisbon'", "'ALFAMA' IN[c] title", "'cafe' IN[cd] 'Le Café'",
            "tags.name CONTAINS 'beach'", "tags.name CONTAINS[c] 'SUNSET'", "ANY tags.name CONTAINS 'ea'",
            "{1, 2} CONTAINS 2", "NOT tags.name CONTAINS 'ea'", "views IN 120", "place.name IN 'Lisbon'",
        ]
        for format in truths {
            #expect(try matches(format, full), "\(format)")
        }
        let falsehoods = [
            "'' IN title", "'Night' IN title", "views IN '120'", "title IN nil", "nil IN title", "tags.name CONTAINS 'ea'",
            "ALL tags.name CONTAINS 'ea'", "{1, 2} CONTAINS 3", "tags.name CONTAINS nil", "title IN 'Alfama'",
        ]
        for format in falsehoods {
            #expect(try !matches(format, full), "\(format)")
        }
        #expect(try matches("tags CONTAINS %@", full, PredicateValue.object(library.sunset.predicateObjectReference)))
        #expect(try !matches("tags CONTAINS %@", library.empty, PredicateValue.object(library.sunset.predicateObjectReference)))
    }

    @Test("a to-many path without a modifier means ANY; ALL and NONE are true when empty")
    func collections() throws {
        let full = library.full
        let empty = library.empty
        #expect(try matches("tags.name == 'beach'", full))
        #expect(try matches("ANY tags.name == 'beach'", full))
        #expect(try !matches("ALL tags.name == 'beach'", full))
        #expect(try matches("NONE tags.name == 'rain'", full))
        #expect(try matches("tags.name != 'beach'", full))
        #expect(try matches("ALL tags.count >= 3", full))
        #expect(try !matches("tags.name == 'beach'", empty))
        #expect(try !matches("ANY tags.name == 'beach'", empty))
        #expect(try matches("ALL tags.name == 'beach'", empty))
        #expect(try matches("NONE tags.name == 'beach'", empty))
        #expect(try !matches("tags.name != 'beach'", empty))
        #expect(try !matches("tags == nil", empty))
        #expect(try matches("tags.@count == 0", empty))
        #expect(try matches("'beach' IN tags.name", full))
        #expect(try !matches("'beach' IN tags.name", empty))
        #expect(try matches("tags.name IN {'rain', 'Sunset'}", full))
        #expect(try matches("ALL tags.name IN {'beach', 'Sunset'}", full))
    }

    @Test("a modifier on a single value treats it as one element, and null as none")
    func modifiersOnSingleValues() throws {
        #expect(try matches("ANY place.name == 'Lisbon'", library.full))
        #expect(try matches("ALL title == 'Café'", library.other))
        #expect(try !matches("ANY place.name == nil", library.empty))
        #expect(try matches("ALL place.name == 'x'", library.empty))
        #expect(try matches("NONE title == 'x'", library.empty))
    }

    @Test("to-one steps from to-many elements keep nulls, to-many steps flatten")
    func pathsThroughToMany() throws {
        // beach is on `full` (Lisbon) and `other` (a place without a name).
        #expect(try matches("ANY tags.photos.place.name == nil", library.full))
        #expect(try matches("ANY tags.photos.place.name == 'Lisbon'", library.other))
        #expect(try matches("tags.photos.@count == 3", library.full))
        #expect(try matches("tags.photos.tags.name.@count == 6", library.full))
        #expect(try matches("ANY tags.photos.tags.name == 'café'", library.full))
    }

    @Test("objects compare by identity, with constants made from references")
    func objectIdentity() throws {
        let lisbon = PredicateValue.object(library.lisbon.predicateObjectReference)
        let beach = PredicateValue.object(library.beach.predicateObjectReference)
        let cafe = PredicateValue.object(library.cafe.predicateObjectReference)
        #expect(try matches("place == %@", library.full, lisbon))
        #expect(try !matches("place == %@", library.other, lisbon))
        #expect(try matches("place != %@", library.empty, lisbon))
        #expect(try matches("%@ IN tags", library.full, beach))
        #expect(try !matches("%@ IN tags", library.full, cafe))
        #expect(try matches("ANY tags == %@", library.other, cafe))
        #expect(try matches("place == place", library.full))
        #expect(try !matches("place == 'Lisbon'", library.full))
        let record = Record(id: 7, values: ["name": "seven"])
        #expect(try matches("SELF IN %@", record, PredicateValue.array([.object(PredicateObjectReference(7))])))
        #expect(try !matches("SELF == %@", record, PredicateValue.object(PredicateObjectReference("7"))))
    }

    @Test("ints, doubles and bools compare numerically and exactly")
    func numbers() throws {
        let photo = library.full
        let truths = [
            "rating > 4", "rating == 4.5", "views == 120.0", "views < 120.5", "views > 119.99", "visited == 1",
            "visited == TRUE", "visited > 0", "visited == 1.0", "1 == TRUE", "0 == NO", "-0.0 == 0", "views BETWEEN {100, 120}",
            "views IN {1, 120.0}", "rating BETWEEN {4.5, 4.5}", "0x78 == views",
        ]
        for format in truths {
            #expect(try matches(format, photo), "\(format)")
        }
        for format in ["views == '120'", "rating < '5'", "visited == 'true'", "views BETWEEN {121, 200}", "rating > 4.5"] {
            #expect(try !matches(format, photo), "\(format)")
        }
        #expect(try matches("views != '120'", photo))
        let big = Record(id: 1, values: ["n": .value(.int(Int64.max)), "m": .value(.int(9_007_199_254_740_993))])
        #expect(try !matches("n == 9223372036854775808", big))
        #expect(try matches("n < 9223372036854775808", big))
        #expect(try matches("n > 9.2233720368547748e18", big))
        #expect(try !matches("m == 9007199254740992.0", big))
        #expect(try matches("m > 9007199254740992.0", big))
        #expect(try matches("m < 9007199254740994.0", big))
        #expect(try matches("m == 9007199254740993", big))
        let nan = Record(id: 2, values: ["x": .value(.double(.nan))])
        #expect(try !matches("x == x", nan))
        #expect(try matches("x != 1", nan))
        #expect(try !matches("x < 1 OR x >= 1", nan))
    }

    @Test("dates compare by time and data by bytes; neither compares with numbers")
    func datesAndData() throws {
        let photo = library.full
        let early = Date(timeIntervalSinceReferenceDate: 50)
        let late = Date(timeIntervalSinceReferenceDate: 150)
        #expect(try matches("dateTaken > %@", photo, early))
        #expect(try matches("dateTaken BETWEEN %@", photo, [early, late]))
        #expect(try matches("dateTaken == CAST(100, 'NSDate')", photo))
        #expect(try !matches("dateTaken > 50", photo))
        #expect(try matches("dateTaken != 100", photo))
        #expect(try matches("thumbnail == %@", photo, Data([1, 2])))
        #expect(try matches("thumbnail < %@", photo, Data([1, 3])))
        #expect(try matches("thumbnail > %@", photo, Data([1])))
        #expect(try !matches("thumbnail == 'AQI='", photo))
    }

    @Test("strings order by UTF-8 bytes, as SQLite's BINARY collation does")
    func byteOrder() throws {
        let decomposed = Record(id: 1, values: ["s": "e\u{301}", "upper": "Zebra", "cjk": "東京", "emoji": "🏖️"])
        #expect("e\u{301}" == "é")
        #expect(try !matches("s == 'é'", decomposed))
        #expect(try matches("s != 'é'", decomposed))
        #expect(try matches("s < 'é'", decomposed))
        #expect(try matches("upper < 'apple'", decomposed))
        #expect(try matches("cjk > 'z'", decomposed))
        #expect(try matches("emoji > '東京'", decomposed))
        #expect(try matches("s BETWEEN {'a', 'f'}", decomposed))
        #expect(try !matches("s IN {'é'}", decomposed))
        #expect(try matches("s BEGINSWITH 'e'", decomposed))
    }

    @Test("[c] and [d] fold both sides, and either one makes canonical equivalents equal")
    func folding() throws {
        let photo = Record(id: 1, values: ["s": "e\u{301}", "title": "Café Ünïcode", "turkish": "İstanbul", "german": "STRASSE"])
        #expect(try matches("s ==[d] 'e'", photo))
        #expect(try matches("s ==[c] 'É'", photo))
        #expect(try matches("s ==[cd] 'E'", photo))
        #expect(try !matches("s ==[c] 'E'", photo))
        #expect(try matches("title ==[cd] 'cafe unicode'", photo))
        #expect(try !matches("title ==[c] 'cafe unicode'", photo))
        #expect(try matches("title BEGINSWITH[c] 'CAFÉ'", photo))
        #expect(try matches("title ENDSWITH[d] 'Unicode'", photo))
        #expect(try matches("title CONTAINS[cd] 'E U'", photo))
        #expect(try matches("title LIKE[cd] 'cafe*'", photo))
        #expect(try matches("title IN[cd] {'x', 'CAFE UNICODE'}", photo))
        #expect(try matches("title <[cd] 'cafz'", photo))
        #expect(try matches("title >[c] 'cafz'", photo))
        #expect(try matches("turkish ==[c] 'i̇stanbul'", photo))
        #expect(try matches("turkish ==[cd] 'istanbul'", photo))
        #expect(try !matches("german ==[c] 'straße'", photo))
    }

    @Test("BEGINSWITH, ENDSWITH and CONTAINS match bytes; an empty operand never matches")
    func substringOperators() throws {
        let photo = Record(id: 1, values: ["s": "Alfama at night", "cjk": "東京タワー", "emoji": "🏖️ beach"])
        let truths = ["s BEGINSWITH 'Alf'", "s ENDSWITH 'night'", "s CONTAINS 'at n'", "s BEGINSWITH s", "s CONTAINS 'a'",
                      "cjk BEGINSWITH '東京'", "cjk CONTAINS '京タ'", "emoji BEGINSWITH '🏖'", "emoji CONTAINS '\u{FE0F} b'"]
        for format in truths {
            #expect(try matches(format, photo), "\(format)")
        }
        let falsehoods = ["s BEGINSWITH 'alf'", "s BEGINSWITH ''", "s ENDSWITH ''", "s CONTAINS ''", "s CONTAINS 'night!'",
                          "s BEGINSWITH 1", "views CONTAINS '1'", "s ENDSWITH 'Alfama at night!'"]
        for format in falsehoods {
            #expect(try !matches(format, photo), "\(format)")
        }
    }

    @Test("LIKE matches the whole string with * and ?; MATCHES with a whole-string regular expression")
    func patterns() throws {
        let photo = Record(id: 1, values: ["s": "IMG_0042.jpg", "emoji": "🏖️", "e": ""])
        let truths = [
            "s LIKE 'IMG_*.jpg'", "s LIKE '*'", "s LIKE 'IMG_00??.jpg'", "s LIKE '*.jpg'", "s LIKE 'IMG*0*4*2*'",
            "s LIKE[c] 'img_*.JPG'", "e LIKE ''", "e LIKE '*'", "emoji LIKE '??'", "s MATCHES 'IMG_[0-9]+\\\\.jpg'",
            "s MATCHES[c] 'img.*'", "s MATCHES '.*42.*'", "e MATCHES ''", "emoji MATCHES '..'",
        ]
        for format in truths {
            #expect(try matches(format, photo), "\(format)")
        }
        let falsehoods = [
            "s LIKE 'IMG_'", "s LIKE 'img_*'", "s LIKE 'IMG_00?.jpg'", "emoji LIKE '?'", "e LIKE '?'",
            "s MATCHES '42'", "s MATCHES 'img.*'", "s MATCHES 'IMG'", "e MATCHES '.'",
        ]
        for format in falsehoods {
            #expect(try !matches(format, photo), "\(format)")
        }
        #expect(try matches("s LIKE %@", Record(id: 2, values: ["s": "a*b?"]), "a\\*b\\?"))
        #expect(try !matches("s LIKE %@", Record(id: 2, values: ["s": "axb?"]), "a\\*b\\?"))
        #expect(try matches("s MATCHES 'a|ab'", Record(id: 3, values: ["s": "ab"])))
        #expect(try matches("s MATCHES[d] 'Cafe.*'", Record(id: 4, values: ["s": "Café noir"])))
        #expect(try matches("s MATCHES %@", Record(id: 5, values: ["s": "a+b"]), "\\Qa+b"))
        #expect(try !matches("s MATCHES %@", Record(id: 5, values: ["s": "a+bc"]), "\\Qa+b"))
    }

    @Test("an invalid MATCHES pattern is an error")
    func invalidRegularExpression() {
        do {
            _ = try matches("s MATCHES '(unclosed'", Record(id: 1, values: ["s": "x"]))
            Issue.record("evaluated")
        } catch let error as ObjectPredicateError {
            #expect(error.code == .invalidRegularExpression)
            #expect(error.description == "Invalid regular expression \"(unclosed\" in MATCHES")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("IN takes aggregates, arrays, to-many paths and single values")
    func inOperator() throws {
        let photo = library.full
        #expect(try matches("unique IN {'1', '2'}", photo))
        #expect(try matches("unique IN %@", photo, ["0", "1"]))
        #expect(try matches("unique IN %@", photo, Set(["1"])))
        #expect(try !matches("unique IN %@", photo, [String]()))
        #expect(try matches("unique IN '1'", photo))
        #expect(try matches("views IN {unique, 120}", photo))
        #expect(try !matches("unique IN views", photo))
    }

    @Test("BETWEEN includes both bounds; bounds that are not two values are an error")
    func between() throws {
        let photo = library.full
        #expect(try matches("views BETWEEN {120, 130}", photo))
        #expect(try matches("views BETWEEN {110, 120}", photo))
        #expect(try !matches("views BETWEEN {130, 110}", photo))
        #expect(try matches("title BETWEEN {'A', 'B'}", photo))
        do {
            _ = try ObjectPredicate(format: "views BETWEEN $range").evaluate(with: photo, variables: ["range": 5])
            Issue.record("evaluated")
        } catch let error as ObjectPredicateError {
            #expect(error.description == "BETWEEN needs two bounds {lower, upper}, got 5")
        }
        do {
            _ = try matches("views BETWEEN place.photos", photo)
            Issue.record("evaluated")
        } catch let error as ObjectPredicateError {
            #expect(error.code == .invalidBetweenBounds)
            #expect(error.description.hasPrefix("BETWEEN needs two bounds {lower, upper}, got {<object "))
        }
    }

    @Test("@count, @sum, @avg, @min and @max")
    func collectionOperators() throws {
        let full = library.full
        let empty = library.empty
        #expect(try matches("tags.@count == 2", full))
        #expect(try matches("tags.@sum.count == 8", full))
        #expect(try matches("tags.@avg.count == 4", full))
        #expect(try matches("tags.@min.count == 3 AND tags.@max.count == 5", full))
        #expect(try matches("tags.@max.name == 'beach' AND tags.@min.name == 'Sunset'", full))
        #expect(try matches("tags.@sum.count == 0 AND tags.@avg.count == nil", empty))
        #expect(try matches("tags.@min.count == nil AND tags.@max.name == nil", empty))
        #expect(try matches("tags.@sum.name == nil AND tags.@avg.name == nil", full))
        #expect(try matches("place.@count == 1", full))
        #expect(try matches("place.@count == 0", empty))
        #expect(try matches("{1, 2.5, nil}.@sum == 3.5 AND {1, 2, nil}.@count == 3 AND {1, 2}.@avg == 1.5", full))
        #expect(try matches("{1, 'a'}.@max == nil AND {} .@max == nil AND {TRUE, 2}.@max == 2", full))
        #expect(try matches("{9223372036854775807, 1}.@sum == 9223372036854775808.0", full))
        #expect(try matches("{%@, %@}.@min == %@", full, Date(timeIntervalSinceReferenceDate: 2),
                            Date(timeIntervalSinceReferenceDate: 1), Date(timeIntervalSinceReferenceDate: 1)))
        #expect(try matches("tags.@count.@max == 2", full))
        #expect(try matches("tags.@sum.photos.views == 247", full))
        #expect(try matches("tags.@sum.photos.place == nil", full))
    }

    @Test("SUBQUERY filters a collection with its variable bound to each element")
    func subqueries() throws {
        let full = library.full
        #expect(try matches("SUBQUERY(tags, $t, $t.name BEGINSWITH 's').@count == 0", full))
        #expect(try matches("SUBQUERY(tags, $t, $t.name BEGINSWITH[c] 's').@count == 1", full))
        #expect(try matches("SUBQUERY(tags, $t, name == 'beach').@count == 1", full))
        #expect(try matches("SUBQUERY(tags, $t, SELF == $t).@count == 2", full))
        #expect(try matches("SUBQUERY(tags, $t, SUBQUERY($t.photos, $p, $p.place.name == 'Lisbon').@count > 0).@count == 2", full))
        #expect(try matches("SUBQUERY(tags, $t, ANY $t.photos.unique == '3').@sum.count == 3", full))
        #expect(try matches("SUBQUERY({1, 2, 3}, $x, $x > 1).@count == 2", full))
        #expect(try matches("SUBQUERY({1, 2, 3}, $x, SELF >= 2).@sum == 5", full))
        #expect(try matches("SUBQUERY(place, $p, $p.name == 'Lisbon').@count == 1", full))
        #expect(try matches("SUBQUERY(tags, $t, TRUEPREDICATE).@count == 0", library.empty))
        #expect(try matches("ANY SUBQUERY(tags, $t, $t.count > 4).name == 'Sunset'", full))
    }

    @Test("variables come from the evaluator; subquery variables shadow them; a missing one is an error")
    func variables() throws {
        let full = library.full
        #expect(try ObjectPredicate(format: "title BEGINSWITH $P").evaluate(with: full, variables: ["P": "Alf"]))
        #expect(try ObjectPredicate(format: "SUBQUERY(tags, $P, $P.count == 5).@count == $P")
            .evaluate(with: full, variables: ["P": 1]))
        do {
            _ = try ObjectPredicate(format: "FALSEPREDICATE AND title == $X").evaluate(with: full)
            Issue.record("evaluated")
        } catch let error as ObjectPredicateError {
            #expect(error.description == "No value for variable $X")
        }
        let evaluator = PredicateEvaluator(try ObjectPredicate(format: "$t.name == 'x'"), variables: [:])
        #expect(throws: ObjectPredicateError.self) { try evaluator.evaluate(with: full) }
    }

    @Test("an evaluator is reusable and gives the same answers as evaluate(with:)")
    func reusableEvaluator() throws {
        let predicate = try ObjectPredicate(format: "title MATCHES[c] '.*a.*' OR ANY tags.name ==[cd] 'CAFE'")
        let evaluator = PredicateEvaluator(predicate)
        let photos = [library.full, library.empty, library.other]
        #expect(evaluator.predicate == predicate)
        #expect(evaluator.variables.isEmpty)
        for _ in 0..<50 {
            #expect(try photos.map { try evaluator.evaluate(with: $0) } == [true, false, true])
        }
        #expect(try photos.map { try predicate.evaluate(with: $0) } == [true, false, true])
    }

    @Test("values of different kinds never compare")
    func typeMixing() throws {
        let photo = library.full
        for format in ["title == 1", "title < 1", "title > 1", "visited == 'YES'", "place == 1", "place < place",
                       "dateTaken == 100", "thumbnail == 1", "{1, 2} == {1, 2}", "tags == {1}", "title == {'Alfama at night'}"] {
            #expect(try !matches(format, photo), "\(format)")
        }
        for format in ["title != 1", "place != 'Lisbon'", "dateTaken != 100", "title != {'Alfama at night'}"] {
            #expect(try matches(format, photo), "\(format)")
        }
        #expect(try matches("{{1, 2}} == {1, 2}", photo))
        // A collection on the left is quantified, so arrays compare as elements of one.
        #expect(try !matches("%@ == %@", photo, [1, nil], [1.0, nil]))
        #expect(try matches("{%@} == %@", photo, [1, nil], [1.0, nil]))
        #expect(try !matches("{%@} == %@", photo, [1], [1, 2]))
        #expect(try matches("%@ IN {%@}", photo, PredicateValue.object(PredicateObjectReference(1)),
                            PredicateValue.object(PredicateObjectReference(1))))
    }

    @Test("errors thrown by objects pass through")
    func objectErrors() throws {
        #expect(throws: FailingObject.ReadError.self) { try matches("name == 'x'", FailingObject()) }
        #expect(throws: FailingObject.ReadError.self) { try matches("SELF.@count == 1 AND ANY tags.name == 'x'", FailingObject()) }
        #expect(try matches("TRUEPREDICATE OR name == 'x'", FailingObject()))
    }
}
