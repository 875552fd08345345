import ObjectGraphTestModels
import Foundation
@testable import ObjectGraph
import SQLiteDB
import Testing

/// Compiles a format against an entity of the travel model.
private func compile(_ format: String, _ arguments: any PredicateArgument..., entity name: String = "Photo",
                     sortedBy descriptors: [ObjectSortDescriptor] = []) throws -> SQLFetchQuery {
    let entity = try #require(TestModels.travel.entity(named: name))
    return try PredicateSQLCompiler.compile(predicate: ObjectPredicate(format: format, arguments: arguments),
                                            sortDescriptors: descriptors, entity: entity, model: TestModels.travel)
}

/// The message of the error compiling a format (or sort descriptors) throws.
private func compileError(_ format: String?, _ arguments: any PredicateArgument...,
                          sortedBy descriptors: [ObjectSortDescriptor] = []) -> String {
    do {
        let entity = try #require(TestModels.travel.entity(named: "Photo"))
        let predicate = try format.map { try ObjectPredicate(format: $0, arguments: arguments) }
        let query = try PredicateSQLCompiler.compile(predicate: predicate, sortDescriptors: descriptors, entity: entity,
                                                     model: TestModels.travel)
        return "compiled: \(query.whereClause ?? "-")"
    } catch {
        return "\(error)"
    }
}

private func id(_ entity: String, _ key: Int64) -> ObjectID {
    ObjectID(entityNumber: TestModels.travel.entity(named: entity)?.number ?? 0, primaryKey: key)
}

private let tagsJoin = "Z_6TAGS j1 LEFT JOIN ZTAG s2 ON s2.Z_PK = j1.Z_10TAGS WHERE j1.Z_6PHOTOS = t0.Z_PK"
/// The same sub-select, uncorrelated, for `t0.Z_PK IN (…)`.
private let taggedPhotos = "SELECT j1.Z_6PHOTOS FROM Z_6TAGS j1 LEFT JOIN ZTAG s2 ON s2.Z_PK = j1.Z_10TAGS WHERE j1.Z_6PHOTOS IS NOT NULL"

@Suite("Predicate SQL compiler: exact SQL and arguments")
struct PredicateSQLCompilerTests {
    @Test("equality binds the constant; nil becomes IS NULL; != is IS NOT, true for NULL")
    func equalityAndNull() throws {
        #expect(try compile("title == 'Lisbon'") == SQLFetchQuery(from: "ZPHOTO t0", whereClause: "t0.ZTITLE = ?", orderBy: nil, arguments: [.text("Lisbon")]))
        #expect(try compile("title == nil").whereClause == "t0.ZTITLE IS NULL")
        #expect(try compile("nil != title").whereClause == "t0.ZTITLE IS NOT NULL")
        #expect(try compile("title != 'Lisbon'").whereClause == "t0.ZTITLE IS NOT ?")
        #expect(try compile("title < nil").whereClause == "0")
        #expect(try compile("5 > latitude") == SQLFetchQuery(from: "ZPHOTO t0", whereClause: "t0.ZLATITUDE < ?", orderBy: nil, arguments: [.integer(5)]))
        #expect(try compile("dateTaken == %@", Date(timeIntervalSinceReferenceDate: -0.5)).arguments == [.real(-0.5)])
        #expect(try compile("TRUEPREDICATE") == SQLFetchQuery(from: "ZPHOTO t0", whereClause: nil, orderBy: nil, arguments: []))
    }

    @Test("NOT of a condition that may be NULL is IS NOT 1, so a NULL counts as false, as in memory")
    func twoValuedNot() throws {
        #expect(try compile("NOT title < 'x'").whereClause == "(t0.ZTITLE < ?) IS NOT 1")
        #expect(try compile("NOT (title == 'a' OR latitude < 2)").whereClause == "(t0.ZTITLE = ? OR t0.ZLATITUDE < ?) IS NOT 1")
        #expect(try compile("NOT title == nil").whereClause == "NOT t0.ZTITLE IS NULL")
        #expect(try compile("NOT tags.@count > 2").whereClause == "NOT (SELECT count(*) FROM Z_6TAGS j1 WHERE j1.Z_6PHOTOS = t0.Z_PK) > ?")
    }

    @Test("values that never compare are decided at compile time from the attribute types")
    func typeMismatches() throws {
        #expect(try compile("dateTaken > 5 OR title == 5 OR latitude == 'x' OR title == %@", Date()).whereClause == "0")
        #expect(try compile("title != 5").whereClause == nil)
        #expect(try compile("latitude == %@", Double.nan).whereClause == "0")
        #expect(try compile("place == 'Lisbon'").whereClause == "0")
        #expect(try compile("place == %@", id("Tag", 1)).whereClause == "0")
        #expect(try compile("title == dateTaken").whereClause == "t0.ZTITLE IS NULL AND t0.ZDATETAKEN IS NULL")
        #expect(try compile("latitude == TRUE") == SQLFetchQuery(from: "ZPHOTO t0", whereClause: "t0.ZLATITUDE = ?", orderBy: nil, arguments: [.integer(1)]))
    }

    @Test("to-one key paths become one LEFT JOIN per path")
    func toOneJoins() throws {
        #expect(try compile("place.name == 'Lisbon' AND place.firstVisited > %@", Date(timeIntervalSinceReferenceDate: 100))
                == SQLFetchQuery(from: "ZPHOTO t0 LEFT JOIN ZPLACE t1 ON t1.Z_PK = t0.ZPLACE",
                                 whereClause: "t1.ZNAME = ? AND t1.ZFIRSTVISITED > ?", orderBy: nil, arguments: [.text("Lisbon"), .real(100)]))
        #expect(try compile("title == place.name").whereClause == "t0.ZTITLE IS t1.ZNAME")
        #expect(try compile("photo.place.name == 'x'", entity: "Note")
                == SQLFetchQuery(from: "ZNOTE t0 LEFT JOIN ZPHOTO t1 ON t1.Z_PK = t0.ZPHOTO LEFT JOIN ZPLACE t2 ON t2.Z_PK = t1.ZPLACE",
                                 whereClause: "t2.ZNAME = ?", orderBy: nil, arguments: [.text("x")]))
        #expect(try compile("album.title == 'x' AND width > 3", entity: "Picture")
                == SQLFetchQuery(from: "ZMEDIA t0 LEFT JOIN ZALBUM t1 ON t1.Z_PK = t0.ZALBUM",
                                 whereClause: "t1.ZTITLE = ? AND t0.ZWIDTH > ?", orderBy: nil, arguments: [.text("x"), .integer(3)]))
    }

    @Test("relationships compare keys: objects, nil, SELF")
    func objects() throws {
        #expect(try compile("place == %@ OR place == nil", id("Place", 3))
                == SQLFetchQuery(from: "ZPHOTO t0", whereClause: "t0.ZPLACE = ? OR t0.ZPLACE IS NULL", orderBy: nil, arguments: [.integer(3)]))
        #expect(try compile("place != %@", id("Place", 3)).whereClause == "t0.ZPLACE IS NOT ?")
        #expect(try compile("SELF == %@", id("Photo", 8)).whereClause == "t0.Z_PK = ?")
        #expect(try compile("SELF IN %@", [id("Photo", 1), id("Photo", 2)]).whereClause == "t0.Z_PK IN (?, ?)")
        #expect(try compile("%@ IN tags", id("Tag", 4))
                == SQLFetchQuery(from: "ZPHOTO t0", whereClause: "t0.Z_PK IN (SELECT j1.Z_6PHOTOS FROM Z_6TAGS j1 WHERE j1.Z_6PHOTOS IS NOT NULL AND j1.Z_10TAGS = ?)",
                                 orderBy: nil, arguments: [.integer(4)]))
    }

    @Test("to-many paths of the fetched object are key lookups in a sub-select run once; ALL and NONE are NOT IN")
    func quantifiers() throws {
        let query = try compile("ANY tags.name == 'sea' OR ALL tags.count > 0 OR NONE notes.text CONTAINS 'x'")
        #expect(query.whereClause == "t0.Z_PK IN (\(taggedPhotos) AND s2.ZNAME = ?)"
                + " OR NOT t0.Z_PK IN (SELECT j3.Z_6PHOTOS FROM Z_6TAGS j3 LEFT JOIN ZTAG s4 ON s4.Z_PK = j3.Z_10TAGS WHERE j3.Z_6PHOTOS IS NOT NULL AND (s4.ZCOUNT > ?) IS NOT 1)"
                + " OR NOT t0.Z_PK IN (SELECT s5.ZPHOTO FROM ZNOTE s5 WHERE s5.ZPHOTO IS NOT NULL AND instr(s5.ZTEXT, ?) > 0)")
        #expect(query.arguments == [.text("sea"), .integer(0), .text("x")])
        #expect(try compile("tags.name != 'sea'").whereClause == "t0.Z_PK IN (\(taggedPhotos) AND s2.ZNAME IS NOT ?)")
        #expect(try compile("ANY media.caption == 'x'", entity: "Album").whereClause
                == "t0.Z_PK IN (SELECT s1.ZALBUM FROM ZMEDIA s1 WHERE s1.ZALBUM IS NOT NULL AND s1.ZCAPTION = ?)")
        #expect(try compile("ANY tags.photos.place.name == 'x'").whereClause
                == "t0.Z_PK IN (SELECT j1.Z_6PHOTOS FROM Z_6TAGS j1 JOIN Z_6TAGS j2 ON j2.Z_10TAGS = j1.Z_10TAGS LEFT JOIN ZPHOTO s3 ON s3.Z_PK = j2.Z_6PHOTOS"
                + " LEFT JOIN ZPLACE s4 ON s4.Z_PK = s3.ZPLACE WHERE j1.Z_6PHOTOS IS NOT NULL AND s4.ZNAME = ?)")
    }

    @Test("a sub-select that compares with the fetched object's own values stays a correlated EXISTS")
    func correlatedSubselects() throws {
        #expect(try compile("ANY tags.name == title").whereClause == "EXISTS (SELECT 1 FROM \(tagsJoin) AND s2.ZNAME IS t0.ZTITLE)")
        #expect(try compile("ANY tags.name == place.name").whereClause
                == "EXISTS (SELECT 1 FROM \(tagsJoin) AND s2.ZNAME IS t1.ZNAME)")
        // Through a to-one first, the collection belongs to the place: correlated with t0.ZPLACE.
        #expect(try compile("ANY place.photos.title == 'x'").whereClause.map { $0.hasPrefix("EXISTS (SELECT 1 FROM ZPHOTO s1 WHERE s1.ZPLACE = t0.ZPLACE") } == true)
        #expect(PredicateSQLCompilation.refersToMainAliases("s2.ZNAME = t12.ZNAME"))
        #expect(PredicateSQLCompilation.refersToMainAliases("(t0.ZTITLE)"))
        #expect(!PredicateSQLCompilation.refersToMainAliases("s2.ZNAMEt0.X = j1.Z_6PHOTOS AND ZT1.X AND t.X AND tt1.Y"))
    }

    @Test("a to-many path after a nil to-one is null, not empty, without a modifier")
    func nullBeforeCollection() throws {
        #expect(try compile("place.photos.title == nil").whereClause
                == "t0.ZPLACE IS NULL OR EXISTS (SELECT 1 FROM ZPHOTO s1 WHERE s1.ZPLACE = t0.ZPLACE AND s1.ZTITLE IS NULL)")
        #expect(try compile("ANY place.photos.title == nil").whereClause
                == "EXISTS (SELECT 1 FROM ZPHOTO s1 WHERE s1.ZPLACE = t0.ZPLACE AND s1.ZTITLE IS NULL)")
    }

    @Test("@count and the other collection operators are scalar sub-selects")
    func collectionOperators() throws {
        #expect(try compile("tags.@count > 2 AND notes.@count == 0")
                == SQLFetchQuery(from: "ZPHOTO t0",
                                 whereClause: "(SELECT count(*) FROM Z_6TAGS j1 WHERE j1.Z_6PHOTOS = t0.Z_PK) > ? AND (SELECT count(*) FROM ZNOTE s2 WHERE s2.ZPHOTO = t0.Z_PK) = ?",
                                 orderBy: nil, arguments: [.integer(2), .integer(0)]))
        #expect(try compile("tags.@sum.count > 2").whereClause == "(SELECT coalesce(sum(s2.ZCOUNT), 0) FROM \(tagsJoin)) > ?")
        #expect(try compile("tags.@avg.count > 1").whereClause == "(SELECT avg(s2.ZCOUNT) FROM \(tagsJoin)) > ?")
        #expect(try compile("tags.@max.name == 'z'").whereClause == "(SELECT max(s2.ZNAME) FROM \(tagsJoin)) = ?")
        // A sum of strings is null as soon as there is one, as the evaluator's.
        #expect(try compile("tags.@sum.name == nil").whereClause == "(SELECT CASE WHEN count(s2.ZNAME) > 0 THEN NULL ELSE 0 END FROM \(tagsJoin)) IS NULL")
        #expect(try compile("tags.@avg.name == nil").whereClause == nil)
        #expect(try compile("place.@count == 1").whereClause == "(t0.ZPLACE IS NOT NULL) = ?")
        #expect(try compile("{1, 2, 3}.@sum == 6").whereClause == nil)
    }

    @Test("SUBQUERY adds its predicate to the collection's sub-select, with the element as $variable")
    func subqueries() throws {
        let query = try compile("SUBQUERY(tags, $t, $t.name BEGINSWITH[c] 's' AND photos.@count > 1).@count >= 1")
        #expect(query.whereClause == "(SELECT count(*) FROM \(tagsJoin) AND vacations_match(1, 1, s2.ZNAME, ?)"
                + " AND (SELECT count(*) FROM Z_6TAGS j3 WHERE j3.Z_10TAGS = j1.Z_10TAGS) > ?) >= ?")
        #expect(query.arguments == [.text("s"), .integer(1), .integer(1)])
    }

    @Test("IN takes ? lists for short lists, one json_each argument for long ones, IS NULL for nil")
    func inLists() throws {
        #expect(try compile("latitude IN {1, 2.5, nil, 'x'}")
                == SQLFetchQuery(from: "ZPHOTO t0", whereClause: "t0.ZLATITUDE IS NULL OR t0.ZLATITUDE IN (?, ?)", orderBy: nil,
                                 arguments: [.integer(1), .real(2.5)]))
        #expect(try compile("title IN {'a'}").whereClause == "t0.ZTITLE = ?")
        let uniques = (0..<5_000).map { "p\($0)" }
        let query = try compile("unique IN %@", uniques)
        #expect(query.whereClause == "t0.ZUNIQUE IN (SELECT value FROM json_each(?))")
        #expect(query.arguments == [.text("[" + uniques.map { "\"\($0)\"" }.joined(separator: ",") + "]")])
        #expect(try compile("title IN[c] {'A', 'a', 'B'}").arguments == [.text("a"), .text("b")])
        #expect(try compile("title IN {'é', 'e\u{301}'}").arguments == [.text("é"), .text("e\u{301}")])
        #expect(try compile("'sea' IN tags.name").whereClause == "t0.Z_PK IN (\(taggedPhotos) AND s2.ZNAME = ?)")
        #expect(try compile("title IN {}").whereClause == "0")
    }

    @Test("IN with thousands of values runs, in one statement")
    func longInListRuns() throws {
        let store = try TestStore()
        let context = store.context()
        for index in 0..<30 {
            let photo = Photo(context: context)
            photo.unique = "p\(index)"
        }
        try context.save()
        let query = try compile("unique IN %@", (0..<5_000).map { "p\($0 * 3)" })
        let count = try store.sql { connection in
            try connection.scalar("SELECT count(*) FROM \(query.from) WHERE \(query.whereClause ?? "1")", query.arguments)
        }
        #expect(count == .integer(10))
    }

    @Test("a long IN list keeps a string with a NUL byte whole (SQLite's json_each would cut it short)")
    func longInListWithNul() throws {
        let store = try TestStore()
        let context = store.context()
        for unique in ["a", "a\u{0}b"] {
            let photo = Photo(context: context)
            photo.unique = unique
        }
        try context.save()
        let values = ["a\u{0}x"] + (0..<40).map { "q\($0)" }
        let query = try compile("unique IN %@", values)
        #expect(query.whereClause == "t0.ZUNIQUE IN (SELECT value FROM json_each(?)) OR t0.ZUNIQUE = ?")
        #expect(query.arguments.last == .text("a\u{0}x"))
        let count = try store.sql { connection in
            try connection.scalar("SELECT count(*) FROM \(query.from) WHERE \(query.whereClause ?? "1")", query.arguments)
        }
        #expect(count == .integer(0))
    }

    @Test("BETWEEN is two bounds, each with the type rules")
    func between() throws {
        #expect(try compile("latitude BETWEEN {-10, 10.5}")
                == SQLFetchQuery(from: "ZPHOTO t0", whereClause: "t0.ZLATITUDE >= ? AND t0.ZLATITUDE <= ?", orderBy: nil,
                                 arguments: [.integer(-10), .real(10.5)]))
        #expect(try compile("latitude BETWEEN {'a', 10}").whereClause == "0")
        #expect(try compile("title BETWEEN[c] {'A', 'M'}").whereClause == "vacations_fold(t0.ZTITLE, 1) >= ? AND vacations_fold(t0.ZTITLE, 1) <= ?")
    }

    @Test("[c], [d] and [cd] fold the column with the evaluator's function and the constant at compile time")
    func stringOptions() throws {
        #expect(try compile("title ==[cd] 'Crème'")
                == SQLFetchQuery(from: "ZPHOTO t0", whereClause: "vacations_fold(t0.ZTITLE, 3) = ?", orderBy: nil, arguments: [.text("creme")]))
        #expect(try compile("title <[d] 'É'").arguments == [.text("E")])
        #expect(try compile("place.name ==[c] title").whereClause == "vacations_fold(t1.ZNAME, 1) IS vacations_fold(t0.ZTITLE, 1)")
    }

    @Test("string operators: BEGINSWITH a range, CONTAINS instr, the others the evaluator's code")
    func stringOperators() throws {
        #expect(try compile("title BEGINSWITH 'Lis' AND title CONTAINS 'bo' AND title ENDSWITH 'on'")
                == SQLFetchQuery(from: "ZPHOTO t0",
                                 whereClause: "t0.ZTITLE >= ? AND t0.ZTITLE < ? AND instr(t0.ZTITLE, ?) > 0 AND vacations_match(2, 0, t0.ZTITLE, ?)",
                                 orderBy: nil, arguments: [.text("Lis"), .text("Lit"), .text("bo"), .text("on")]))
        #expect(try compile("title BEGINSWITH 'e\u{301}'").arguments == [.text("e\u{301}"), .text("e\u{302}")])
        #expect(try compile("title BEGINSWITH[c] 'Lis'").whereClause == "vacations_match(1, 1, t0.ZTITLE, ?)")
        #expect(try compile("title LIKE 'IMG_*.jpg'")
                == SQLFetchQuery(from: "ZPHOTO t0", whereClause: "vacations_match(4, 0, t0.ZTITLE, ?)", orderBy: nil, arguments: [.text("IMG_*.jpg")]))
        #expect(try compile("title MATCHES[c] '[a-z]+'")
                == SQLFetchQuery(from: "ZPHOTO t0", whereClause: "vacations_match(5, 1, t0.ZTITLE, ?)", orderBy: nil, arguments: [.text("[a-z]+")]))
        #expect(try compile("'Lisbon' BEGINSWITH title").whereClause == "vacations_match(1, 0, ?, t0.ZTITLE)")
        #expect(try compile("title CONTAINS '' OR title BEGINSWITH[d] '\u{301}' OR title ENDSWITH nil OR title LIKE 5").whereClause == "0")
    }

    @Test("sort descriptors: columns through to-one joins, fold and sort-key functions, then Z_PK")
    func sorting() throws {
        let query = try compile("title == place.name", sortedBy: [.init("place.name", comparison: .caseInsensitive), .init("dateTaken", ascending: false)])
        #expect(query == SQLFetchQuery(from: "ZPHOTO t0 LEFT JOIN ZPLACE t1 ON t1.Z_PK = t0.ZPLACE", whereClause: "t0.ZTITLE IS t1.ZNAME",
                                       orderBy: "vacations_fold(t1.ZNAME, 1), t0.ZDATETAKEN DESC, t0.Z_PK", arguments: []))
        #expect(try compile("TRUEPREDICATE", sortedBy: [.init("SELF.title", comparison: .localized)]).orderBy
                == "vacations_sort_key(t0.ZTITLE), t0.Z_PK")
        #expect(try compile("TRUEPREDICATE", sortedBy: [.init("latitude", comparison: .caseInsensitive)]).orderBy == "t0.ZLATITUDE, t0.Z_PK")
    }

    @Test("errors name the entity, the key, the operator and the operand")
    func errors() {
        #expect(compileError("plaec.name == 1") == "Photo has no attribute or relationship named 'plaec' (key path 'plaec.name')")
        #expect(compileError("place.nmae == 1") == "Place has no attribute or relationship named 'nmae' (key path 'place.nmae')")
        #expect(compileError("SUBQUERY(tags, $t, $t.nmae == 'x').@count > 0")
                == "Tag has no attribute or relationship named 'nmae' (key path '$t.nmae')")
        #expect(compileError("title.length == 1") == "Cannot follow 'length' from title, a String attribute of Photo (key path 'title.length')")
        #expect(compileError("dateTaken BEGINSWITH 'x'") == "BEGINSWITH does not apply to dateTaken, a Date attribute of Photo: it needs strings")
        #expect(compileError("tags.@count CONTAINS '1'") == "CONTAINS does not apply to tags.@count, a number: it needs strings")
        #expect(compileError("place < %@", id("Place", 1))
                == "< does not apply to place, an object of Place: objects compare only with ==, != and IN")
        #expect(compileError("ANY tags >= %@", id("Tag", 1))
                == ">= does not apply to tags, an object of Tag: objects compare only with ==, != and IN")
        #expect(compileError("title == $TITLE") == "Unsubstituted variable $TITLE: substitute the predicate's variables before fetching")
        #expect(compileError("title MATCHES '('") == "Invalid regular expression \"(\" in MATCHES")
        #expect(compileError(nil, sortedBy: [.init("tags.name")]) == "Cannot sort by 'tags.name': tags is a to-many relationship of Photo")
        #expect(compileError(nil, sortedBy: [.init("place")]) == "Cannot sort by 'place': a sort key path must end at an attribute")
        #expect(compileError(nil, sortedBy: [.init("title.x")]) == "Cannot sort by 'title.x': title is an attribute of Photo, with no key 'x'")
        #expect(compileError(nil, sortedBy: [.init("plaec")]) == "Photo has no attribute or relationship named 'plaec' (key path 'plaec')")
    }

    @Test("a transient attribute cannot be fetched on")
    func transientAttribute() throws {
        let item = EntityDescription(name: "Item", attributes: [AttributeDescription(name: "name", type: .string),
                                                                AttributeDescription(name: "cache", type: .string, isTransient: true)])
        let model = try ObjectModel(entities: [item])
        let entity = try #require(model.entity(named: "Item"))
        let error = #expect(throws: FetchRequestError.self) {
            try PredicateSQLCompiler.compile(predicate: .key("cache", .equalTo, "x"), sortDescriptors: [], entity: entity, model: model)
        }
        #expect(error?.message == "cache is a transient attribute of Item, which a fetch cannot read from the store (key path 'cache')")
    }

    @Test("validation checks key paths and sort keys, and lets a template keep its variables")
    func validation() throws {
        let photo = try #require(TestModels.travel.entity(named: "Photo"))
        func validate(_ format: String, _ descriptors: [ObjectSortDescriptor] = []) -> String {
            do {
                try PredicateSQLCompiler.validate(predicate: ObjectPredicate(format: format), sortDescriptors: descriptors,
                                                  entity: photo, model: TestModels.travel)
                return "valid"
            } catch {
                return "\(error)"
            }
        }
        #expect(validate("title == $TITLE AND ANY tags.name == $TAG AND $PLACE.name == 'x'") == "valid")
        #expect(validate("SUBQUERY(tags, $t, $t.photos.@count > 1 AND name == 'x').@count > 0", [.init("place.name")]) == "valid")
        #expect(validate("plaec.name == $X") == "Photo has no attribute or relationship named 'plaec' (key path 'plaec.name')")
        #expect(validate("SUBQUERY(tags, $t, $t.nmae == 'x').@count > 0") == "Tag has no attribute or relationship named 'nmae' (key path '$t.nmae')")
        #expect(validate("tags.@sum.title > 0") == "Tag has no attribute or relationship named 'title' (key path 'tags.@sum.title')")
        #expect(validate("title.length == 1") == "Cannot follow 'length' from title, a String attribute of Photo (key path 'title.length')")
        #expect(validate("TRUEPREDICATE", [.init("tags.name")]) == "Cannot sort by 'tags.name': tags is a to-many relationship of Photo")
    }
}
