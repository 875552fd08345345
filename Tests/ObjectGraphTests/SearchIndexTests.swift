import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

/// A small model with text to search: articles with a headline and a body, an author (to-one)
/// and keywords (many-to-many) searched with them.
final class Article: ManagedObject {
    @Attribute(searchable: true) var headline: String?
    @Attribute(searchable: true) var body: String?
    @Attribute var published: Date?
    @Relationship(inverse: "articles", searchable: "name") var author: Author?
    @Relationship(inverse: "articles", searchable: "word") var keywords: Set<Keyword>
}

final class Author: ManagedObject {
    @Attribute var name: String = ""
    @Relationship(inverse: "author") var articles: Set<Article>
}

final class Keyword: ManagedObject {
    @Attribute(unique: true) var word: String = ""
    @Relationship(inverse: "keywords") var articles: Set<Article>
}

enum SearchModel {
    static let model: ObjectModel = {
        do {
            return try ObjectModel(Article.self, Author.self, Keyword.self)
        } catch {
            preconditionFailure("search test model: \(error)")
        }
    }()

    /// The same entities declared without anything searchable.
    static func descriptions(searchable: Bool) -> [EntityDescription] {
        [
            EntityDescription(name: "Article", attributes: [
                AttributeDescription(name: "headline", type: .string, isSearchable: searchable),
                AttributeDescription(name: "body", type: .string, isSearchable: searchable),
                AttributeDescription(name: "published", type: .date),
            ], relationships: [
                RelationshipDescription(name: "author", destination: "Author", inverse: "articles",
                                        searchableAttribute: searchable ? "name" : nil),
                RelationshipDescription(name: "keywords", destination: "Keyword", inverse: "articles", isToMany: true,
                                        searchableAttribute: searchable ? "word" : nil),
            ]),
            EntityDescription(name: "Author", attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)],
                              relationships: [RelationshipDescription(name: "articles", destination: "Article", inverse: "author", isToMany: true)]),
            EntityDescription(name: "Keyword", attributes: [AttributeDescription(name: "word", type: .string, isOptional: false, isUnique: true)],
                              relationships: [RelationshipDescription(name: "articles", destination: "Article", inverse: "keywords", isToMany: true)]),
        ]
    }
}

/// A store of the search model in a fresh folder.
struct SearchStore {
    let directory: TemporaryDirectory
    let url: URL
    let coordinator: StoreCoordinator

    init(model: ObjectModel = SearchModel.model) throws {
        directory = try TemporaryDirectory(prefix: "search")
        url = directory.path("store.sqlite")
        coordinator = try StoreCoordinator(url: url, model: model)
    }

    func execute(_ sql: String) throws {
        try coordinator.withConnection { try $0.execute(sql) }
    }

    func problems() throws -> [SearchIndexProblem] { try coordinator.searchIndexProblems() }

    /// The headlines of the articles a search finds, in its order.
    func headlines(_ text: String, limit: Int? = nil) throws -> [String] {
        let context = ObjectContext(coordinator: coordinator)
        return try context.search(Article.self, matching: text, limit: limit).map { $0.headline ?? "-" }
    }

    /// Every row of the index, as `rowid: column | column | …`.
    func indexRows() throws -> [String] {
        try coordinator.withConnection { connection in
            try connection.rows("SELECT rowid, headline, body, author, keywords FROM FTS_ZARTICLE_SEARCH ORDER BY rowid") { row in
                "\(row.int64(at: 0)): " + (1...4).map { row.string(at: $0) ?? "NULL" }.joined(separator: " | ")
            }
        }
    }
}

@Suite("Search index: declared in the model, kept by triggers, searched by bm25")
struct SearchIndexTests {
    @Test("the model makes one index per table from its searchable attributes and relationships, outside Core Data's names")
    func modelIndex() throws {
        let model = SearchModel.model
        #expect(model.searchIndexes.count == 1)
        let index = try #require(model.searchIndexes.first)
        #expect(index.name == "FTS_ZARTICLE_SEARCH")
        #expect(index.table == "ZARTICLE")
        #expect(index.columns.map(\.name) == ["headline", "body", "author", "keywords"])
        #expect(index.columns.map(\.source) == [
            .attribute(column: "ZHEADLINE"), .attribute(column: "ZBODY"),
            .toOne(key: "ZAUTHOR", table: "ZAUTHOR", column: "ZNAME"),
            .toMany(joinTable: "Z_1KEYWORDS", own: "Z_1ARTICLES", other: "Z_3KEYWORDS", table: "ZKEYWORD", column: "ZWORD"),
        ])
        let article = try #require(model.entity(named: "Article"))
        #expect(model.searchIndex(for: article) == index)
        #expect(model.searchIndex(for: try #require(model.entity(named: "Keyword"))) == nil)
        // Searchable is not part of Core Data's version hashes: the model without it hashes the same.
        let plain = try ObjectModel(entities: SearchModel.descriptions(searchable: false))
        let declared = try ObjectModel(entities: SearchModel.descriptions(searchable: true))
        #expect(plain.versionHashes == model.versionHashes)
        #expect(declared.versionHashes == model.versionHashes)
        #expect(plain.searchIndexes.isEmpty)
        #expect(declared.searchIndexes == model.searchIndexes)
    }

    @Test("a searchable declaration the index cannot hold is a model error naming it")
    func invalidDeclarations() throws {
        var cases: [([EntityDescription], String)] = []
        var numeric = SearchModel.descriptions(searchable: false)
        numeric[0].attributes.append(AttributeDescription(name: "rating", type: .integer64, isSearchable: true))
        cases.append((numeric, "Invalid model: attribute Article.rating is searchable, but only stored String attributes can be"))
        var transient = SearchModel.descriptions(searchable: false)
        transient[0].attributes.append(AttributeDescription(name: "draft", type: .string, isTransient: true, isSearchable: true))
        cases.append((transient, "Invalid model: attribute Article.draft is searchable, but only stored String attributes can be"))
        var missing = SearchModel.descriptions(searchable: false)
        missing[0].relationships[0].searchableAttribute = "nickname"
        cases.append((missing, "Invalid model: relationship Article.author searches Author.nickname, which is not a stored String attribute"))
        var inverseKept = SearchModel.descriptions(searchable: false)
        inverseKept[1].relationships[0].searchableAttribute = "headline"
        cases.append((inverseKept, "Invalid model: relationship Author.articles is searchable, but only to-one and many-to-many relationships can be"))
        for (descriptions, message) in cases {
            #expect(throws: ModelError.self) { try ObjectModel(entities: descriptions) }
            do {
                _ = try ObjectModel(entities: descriptions)
            } catch {
                #expect("\(error)" == message)
            }
        }
    }

    @Test("a new store has the index table and its triggers; a model without searchable properties writes none")
    func creation() throws {
        let store = try SearchStore()
        let names = try store.coordinator.withConnection { connection in
            try connection.rows("SELECT type, name FROM sqlite_master WHERE name LIKE 'FTS%' ORDER BY type, name") {
                "\($0.string(at: 0) ?? "") \($0.string(at: 1) ?? "")"
            }
        }
        #expect(names == [
            "table FTS_ZARTICLE_SEARCH", "table FTS_ZARTICLE_SEARCH_config", "table FTS_ZARTICLE_SEARCH_content",
            "table FTS_ZARTICLE_SEARCH_data", "table FTS_ZARTICLE_SEARCH_docsize", "table FTS_ZARTICLE_SEARCH_idx",
            "trigger FTS_ZARTICLE_SEARCH_AUTHOR_TARGET_DELETE", "trigger FTS_ZARTICLE_SEARCH_AUTHOR_TARGET_INSERT",
            "trigger FTS_ZARTICLE_SEARCH_AUTHOR_TARGET_UPDATE", "trigger FTS_ZARTICLE_SEARCH_DELETE",
            "trigger FTS_ZARTICLE_SEARCH_INSERT", "trigger FTS_ZARTICLE_SEARCH_KEYWORDS_LINK_DELETE",
            "trigger FTS_ZARTICLE_SEARCH_KEYWORDS_LINK_INSERT", "trigger FTS_ZARTICLE_SEARCH_KEYWORDS_LINK_UPDATE",
            "trigger FTS_ZARTICLE_SEARCH_KEYWORDS_TARGET_DELETE", "trigger FTS_ZARTICLE_SEARCH_KEYWORDS_TARGET_INSERT",
            "trigger FTS_ZARTICLE_SEARCH_KEYWORDS_TARGET_UPDATE", "trigger FTS_ZARTICLE_SEARCH_UPDATE",
        ])
        #expect(try store.coordinator.withConnection { try $0.scalar("SELECT sql FROM sqlite_master WHERE name = 'FTS_ZARTICLE_SEARCH'") }
                == .text("CREATE VIRTUAL TABLE FTS_ZARTICLE_SEARCH USING fts5(\"headline\", \"body\", \"author\", \"keywords\", "
                         + "tokenize = 'unicode61 remove_diacritics 2')"))
        let plain = try SearchStore(model: ObjectModel(entities: SearchModel.descriptions(searchable: false)))
        #expect(try plain.coordinator.withConnection {
            try $0.scalar("SELECT count(*) FROM sqlite_master WHERE name LIKE 'FTS%' OR type = 'trigger'")
        } == .integer(0))
        #expect(try store.problems() == [])
    }

    /// Rows written with plain SQL, as the `sqlite3` shell would: authors 1 and 2, keywords 1–3,
    /// article 10 by author 1 with keywords 1 and 2.
    private func seeded() throws -> SearchStore {
        let store = try SearchStore()
        try store.execute("""
            INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (1, 2, 1, 'Ana Sousa'), (2, 2, 1, 'Bo Lind');
            INSERT INTO ZKEYWORD (Z_PK, Z_ENT, Z_OPT, ZWORD) VALUES (1, 3, 1, 'belém'), (2, 3, 1, 'tram'), (3, 3, 1, 'sea');
            INSERT INTO Z_1KEYWORDS (Z_1ARTICLES, Z_3KEYWORDS) VALUES (10, 2), (10, 1);
            INSERT INTO ZARTICLE (Z_PK, Z_ENT, Z_OPT, ZAUTHOR, ZHEADLINE, ZBODY) VALUES (10, 1, 1, 1, 'Torre de Belém', 'A tower.');
            """)
        return store
    }

    @Test("the triggers keep the index for rows, links and related rows written with plain SQL")
    func plainSQLWrites() throws {
        let store = try seeded()
        // Links written before their article: the article's own trigger found them.
        #expect(try store.indexRows() == ["10: Torre de Belém | A tower. | Ana Sousa | belém tram"])
        let steps: [(String, [String])] = [
            ("INSERT INTO Z_1KEYWORDS VALUES (10, 3)", ["10: Torre de Belém | A tower. | Ana Sousa | belém tram sea"]),
            ("UPDATE ZARTICLE SET ZHEADLINE = 'Tower of Belém' WHERE Z_PK = 10", ["10: Tower of Belém | A tower. | Ana Sousa | belém tram sea"]),
            ("UPDATE ZARTICLE SET ZAUTHOR = 2 WHERE Z_PK = 10", ["10: Tower of Belém | A tower. | Bo Lind | belém tram sea"]),
            ("UPDATE ZAUTHOR SET ZNAME = 'Bo Lindqvist' WHERE Z_PK = 2", ["10: Tower of Belém | A tower. | Bo Lindqvist | belém tram sea"]),
            ("UPDATE ZKEYWORD SET ZWORD = 'bonde' WHERE Z_PK = 2", ["10: Tower of Belém | A tower. | Bo Lindqvist | belém bonde sea"]),
            ("DELETE FROM Z_1KEYWORDS WHERE Z_3KEYWORDS = 1", ["10: Tower of Belém | A tower. | Bo Lindqvist | bonde sea"]),
            ("INSERT INTO ZARTICLE (Z_PK, Z_ENT, Z_OPT, ZHEADLINE) VALUES (11, 1, 1, NULL)",
             ["10: Tower of Belém | A tower. | Bo Lindqvist | bonde sea", "11: NULL | NULL | NULL | NULL"]),
            ("UPDATE ZARTICLE SET ZAUTHOR = 7 WHERE Z_PK = 11",
             ["10: Tower of Belém | A tower. | Bo Lindqvist | bonde sea", "11: NULL | NULL | NULL | NULL"]),
            // An author that arrives after the article pointing at it, a keyword after its link.
            ("INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (7, 2, 1, 'Cy Ng')",
             ["10: Tower of Belém | A tower. | Bo Lindqvist | bonde sea", "11: NULL | NULL | Cy Ng | NULL"]),
            ("INSERT INTO Z_1KEYWORDS VALUES (11, 9)",
             ["10: Tower of Belém | A tower. | Bo Lindqvist | bonde sea", "11: NULL | NULL | Cy Ng | NULL"]),
            ("INSERT INTO ZKEYWORD (Z_PK, Z_ENT, Z_OPT, ZWORD) VALUES (9, 3, 1, 'ferry')",
             ["10: Tower of Belém | A tower. | Bo Lindqvist | bonde sea", "11: NULL | NULL | Cy Ng | ferry"]),
            ("DELETE FROM ZKEYWORD WHERE Z_PK = 3",
             ["10: Tower of Belém | A tower. | Bo Lindqvist | bonde", "11: NULL | NULL | Cy Ng | ferry"]),
            ("DELETE FROM ZAUTHOR WHERE Z_PK = 2",
             ["10: Tower of Belém | A tower. | NULL | bonde", "11: NULL | NULL | Cy Ng | ferry"]),
            ("UPDATE Z_1KEYWORDS SET Z_1ARTICLES = 10 WHERE Z_3KEYWORDS = 9",
             ["10: Tower of Belém | A tower. | NULL | bonde ferry", "11: NULL | NULL | Cy Ng | NULL"]),
            ("UPDATE ZARTICLE SET Z_PK = 12 WHERE Z_PK = 11",
             ["10: Tower of Belém | A tower. | NULL | bonde ferry", "12: NULL | NULL | Cy Ng | NULL"]),
            ("DELETE FROM ZARTICLE WHERE Z_PK = 10", ["12: NULL | NULL | Cy Ng | NULL"]),
        ]
        for (sql, expected) in steps {
            try store.execute(sql)
            #expect(try store.indexRows() == expected, "\(sql)")
            // The links of a deleted article may dangle (plain SQL does not cascade), which the
            // index does not mind: every row is indexed with its current text.
            #expect(try store.problems() == [], "\(sql)")
        }
        #expect(try store.headlines("cy") == ["-"])
        #expect(try store.headlines("belem").isEmpty)
    }

    @Test("a batch insert writes the index once for the whole batch, its triggers away meanwhile and back after")
    func batchInsertWritesOnce() throws {
        let store = try SearchStore()
        let context = ObjectContext(coordinator: store.coordinator)
        let author = Author(context: context)
        author.name = "Ana"
        let keywords = (0..<5).map { number -> Keyword in
            let keyword = Keyword(context: context)
            keyword.word = "word\(number)"
            return keyword
        }
        try context.save()
        var insert = try BatchInsert(entityName: "Article", in: SearchModel.model)
        let headline = try insert.attribute("headline"), authorKey = try insert.toOne("author"), keywordsKey = try insert.toMany("keywords")
        for number in 0..<40 {
            var row = insert.newRow()
            row.set(headline, "Article \(number)")
            row[authorKey] = author.objectID
            row[keywordsKey] = keywords.map(\.objectID)
            insert.append(row)
        }
        let recorder = try store.coordinator.withConnection { SQLTraceRecorder($0) }
        try store.coordinator.execute(insert)
        // FTS5 writes each row's text to its content table once (by the triggers, a link written
        // after its row would rewrite the row's text: 40 + 5 × 40 times), and the rows of the
        // batch are indexed after them, each from the values in hand (no row read back), the
        // author's and keywords' text read once each.
        let contentWrites = recorder.statements.filter { $0.contains("'FTS_ZARTICLE_SEARCH_content'") }
        #expect(contentWrites.filter { $0.hasPrefix("INSERT") }.count == 40)
        #expect(recorder.statements.filter { $0.hasPrefix("INSERT INTO FTS_ZARTICLE_SEARCH ") }.count == 40)
        #expect(recorder.statements.filter { $0.hasPrefix("INSERT OR REPLACE INTO FTS_ZARTICLE_SEARCH") }.isEmpty)
        #expect(recorder.statements.filter { $0.hasPrefix("SELECT ZNAME FROM ZAUTHOR WHERE Z_PK") }.count == 1)
        #expect(recorder.statements.filter { $0.hasPrefix("SELECT ZWORD FROM ZKEYWORD WHERE Z_PK") }.count == 5)
        // The triggers are back, as they were: the index still follows plain SQL.
        let triggers = try store.coordinator.withConnection { connection in
            try connection.rows("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name") { "\($0.string(at: 0) ?? ""): \($0.string(at: 1) ?? "")" }
        }
        #expect(triggers == (try SearchStore().coordinator.withConnection { connection in
            try connection.rows("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name") { "\($0.string(at: 0) ?? ""): \($0.string(at: 1) ?? "")" }
        }))
        #expect(triggers.count == 12)
        // A batch that fails half-way rolls back with its savepoint: the triggers are back too.
        var failing = try BatchInsert(entityName: "Article", in: SearchModel.model)
        for value in [SQLiteValue.text("fine"), .integer(7)] {
            var row = failing.newRow()
            row[headline] = value
            failing.append(row)
        }
        #expect(throws: BatchInsertError.self) { try store.coordinator.execute(failing) }
        #expect(try store.coordinator.withConnection { try $0.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'") } == .integer(12))
        try store.execute("INSERT INTO ZARTICLE (Z_PK, Z_ENT, Z_OPT, ZHEADLINE) VALUES (500, 1, 1, 'Plain')")
        #expect(try store.headlines("plain") == ["Plain"])
        #expect(try store.problems() == [])
        let first = try store.coordinator.withConnection { try $0.scalar("SELECT min(Z_PK) FROM ZARTICLE")?.integerValue ?? 0 }
        #expect(try store.indexRows().first == "\(first): Article 0 | NULL | Ana | word0 word1 word2 word3 word4")
        #expect(try store.problems() == [])
        #expect(try store.headlines("article 7 word3") == ["Article 7"])
    }

    /// Every index row as the triggers' own SQL makes it from the rows: what a batch's rows must hold.
    private func textsBySQL(_ store: SearchStore) throws -> [String] {
        try store.coordinator.withConnection { connection in
            try connection.rows("""
                SELECT t.Z_PK, t.ZHEADLINE, t.ZBODY, (SELECT d.ZNAME FROM ZAUTHOR d WHERE d.Z_PK = t.ZAUTHOR),
                (SELECT group_concat(d.ZWORD, ' ') FROM Z_1KEYWORDS j JOIN ZKEYWORD d ON d.Z_PK = j.Z_3KEYWORDS
                 WHERE j.Z_1ARTICLES = t.Z_PK) FROM ZARTICLE t ORDER BY t.Z_PK
                """) { row in
                "\(row.int64(at: 0)): " + (1...4).map { row.string(at: $0) ?? "NULL" }.joined(separator: " | ")
            }
        }
    }

    @Test("a batch's index rows hold the triggers' text: keys in order, NULL and empty names, a blob's text left to SQL, stale rows replaced")
    func batchInsertTexts() throws {
        let store = try SearchStore()
        let context = ObjectContext(coordinator: store.coordinator)
        let authors = ["Ana", "Bo"].map { name -> Author in
            let author = Author(context: context)
            author.name = name
            return author
        }
        let keywords = ["sea", "", "tram", "ferry", "gone"].map { word -> Keyword in
            let keyword = Keyword(context: context)
            keyword.word = word
            return keyword
        }
        try context.save()
        // Bo's name and the keyword "gone" become NULL behind the model's back.
        try store.execute("UPDATE ZAUTHOR SET ZNAME = NULL WHERE Z_PK = \(authors[1].objectID.primaryKey)")
        try store.execute("UPDATE ZKEYWORD SET ZWORD = NULL WHERE Z_PK = \(keywords[4].objectID.primaryKey)")
        func batch(_ count: Int) throws -> BatchInsert {
            var insert = try BatchInsert(entityName: "Article", in: SearchModel.model)
            let headline = try insert.attribute("headline"), body = try insert.attribute("body")
            let author = try insert.toOne("author"), words = try insert.toMany("keywords")
            for number in 0..<count {
                var row = insert.newRow()
                row.set(headline, number % 3 == 0 ? nil : "Article \(number)")
                row.set(body, number % 2 == 0 ? "Body \(number)" : nil)
                row[author] = number % 4 == 3 ? nil : authors[number % 2].objectID
                // The keywords in reverse and rotated: the text takes them in key order.
                row[words] = Array(keywords.reversed().dropFirst(number % 5)).map(\.objectID)
                insert.append(row)
            }
            return insert
        }
        try store.coordinator.execute(try batch(12))
        var rows = try store.indexRows()
        #expect(rows == (try textsBySQL(store)))
        let first = try store.coordinator.withConnection { try $0.scalar("SELECT min(Z_PK) FROM ZARTICLE")?.integerValue ?? 0 }
        #expect(rows.prefix(4) == [
            "\(first): NULL | Body 0 | Ana | sea  tram ferry",
            "\(first + 1): Article 1 | NULL | NULL | sea  tram ferry",
            "\(first + 2): Article 2 | Body 2 | Ana | sea  tram",
            "\(first + 3): NULL | NULL | NULL | sea ",
        ])
        #expect(rows[4] == "\(first + 4): Article 4 | Body 4 | Ana | sea")
        #expect(try store.problems() == [])
        // Index rows left for keys the store has not given yet (written around the store) are
        // replaced by the batch's.
        let next = first + 12
        try store.execute("INSERT INTO FTS_ZARTICLE_SEARCH (rowid, headline) VALUES (\(next + 1), 'stale')")
        try store.coordinator.execute(try batch(3))
        rows = try store.indexRows()
        #expect(rows == (try textsBySQL(store)))
        #expect(rows.count == 15)
        #expect(try store.headlines("stale").isEmpty)
        // A keyword whose text is a blob: SQL makes its text, as the triggers would.
        try store.execute("UPDATE ZKEYWORD SET ZWORD = x'6861726272' WHERE Z_PK = \(keywords[3].objectID.primaryKey)")
        try store.coordinator.execute(try batch(2))
        rows = try store.indexRows()
        #expect(rows == (try textsBySQL(store)))
        #expect(rows.last == "\(next + 4): Article 1 | NULL | NULL | sea  tram harbr")
        #expect(try store.problems() == [])
    }

    @Test("search: every word in any order, case and diacritics folded, prefixes, best match first, then the tie-breaks")
    func searching() throws {
        let store = try SearchStore()
        let context = ObjectContext(coordinator: store.coordinator)
        let ana = Author(context: context)
        ana.name = "Ana Sousa"
        let sea = Keyword(context: context)
        sea.word = "sea"
        try context.save()
        let rows: [(String, String?, Double)] = [
            ("Belém tower", "The tower of Belem by the sea.", 3), ("Lisbon trams", nil, 1), ("BELEM pastries", "Pastéis.", 2),
            ("Sea at Cascais", "sea sea sea", 5), ("Porto", "Ribeira", 4),
        ]
        for (headline, body, day) in rows {
            let article = Article(context: context)
            article.headline = headline
            article.body = body
            article.published = Date(timeIntervalSinceReferenceDate: day * 86_400)
            article.author = ana
            if headline.hasPrefix("Sea") || headline.hasPrefix("Belém") { article.keywords = [sea] }
            // One save each, so that keys follow this order (the last tie-break).
            try context.save()
        }
        #expect(try store.headlines("belem") == ["Belém tower", "BELEM pastries"])
        #expect(try store.headlines("BELÉM") == ["Belém tower", "BELEM pastries"])
        #expect(try store.headlines("tower belém") == ["Belém tower"])
        #expect(try store.headlines("bel*") == ["Belém tower", "BELEM pastries"])
        #expect(try store.headlines("pasteis") == ["BELEM pastries"])
        #expect(try store.headlines("sea") == ["Sea at Cascais", "Belém tower"])
        // Every article has the word once: the shorter the article, the better the match (bm25).
        #expect(try store.headlines("ana") == ["Lisbon trams", "Porto", "BELEM pastries", "Sea at Cascais", "Belém tower"])
        #expect(try store.headlines("ana", limit: 2) == ["Lisbon trams", "Porto"])
        #expect(try store.headlines("sousa lisbon") == ["Lisbon trams"])
        #expect(try store.headlines("nowhere").isEmpty)
        // Tie-breaks, a predicate and a window.
        var request = try SearchRequest<Article>("ana", sortedBy: [ObjectSortDescriptor("published", ascending: false)], limit: 2, offset: 1)
        #expect(try context.search(request).map(\.headline) == ["Lisbon trams", "BELEM pastries"])
        request = try SearchRequest<Article>("ana", predicate: ObjectPredicate(format: "published > %@", Date(timeIntervalSinceReferenceDate: 2.5 * 86_400)))
        #expect(try context.search(request).map(\.headline) == ["Porto", "Sea at Cascais", "Belém tower"])
        #expect(try context.searchObjectIDs(request).count == 3)
        request.relationshipKeyPathsForPrefetching = ["author", "keywords"]
        #expect(try context.search(request).map { $0.keywords.map(\.word).sorted() } == [[], ["sea"], ["sea"]])
        // Objects this context deleted but has not saved are left out.
        let porto = try #require(context.search(Article.self, matching: "porto").first)
        context.delete(porto)
        #expect(try context.search(request).map(\.headline) == ["Sea at Cascais", "Belém tower"])
        // An entity without an index, a predicate naming what the entity lacks.
        #expect(throws: SearchQueryError("Keyword has nothing searchable: declare its text with @Attribute(searchable: true) "
                                         + "or @Relationship(inverse:searchable:)")) {
            try context.search(Keyword.self, matching: "sea")
        }
        #expect(throws: FetchRequestError.self) {
            try context.search(SearchRequest<Article>("sea", predicate: ObjectPredicate(format: "nothing == 1")))
        }
    }

    @Test("the query language: words split at anything but letters, digits and marks, a * right after a word a prefix, no operators")
    func queryLanguage() throws {
        let cases: [(String, String)] = [
            ("belem", "\"belem\""),
            ("  Belém   LIS*  ", "\"Belém\" \"LIS\"*"),
            ("title:torre", "\"title\" \"torre\""),
            ("\"quoted phrase\"", "\"quoted\" \"phrase\""),
            ("NEAR(a b, 3)", "\"NEAR\" \"a\" \"b\" \"3\""),
            ("a AND b OR c NOT d", "\"a\" \"AND\" \"b\" \"OR\" \"c\" \"NOT\" \"d\""),
            ("-minus ^caret +plus", "\"minus\" \"caret\" \"plus\""),
            ("{col1 col2}: x", "\"col1\" \"col2\" \"x\""),
            ("l*s", "\"l\"* \"s\""),
            ("*lead", "\"lead\""),
            ("lis** lis*", "\"lis\"*"),
            ("x x X", "\"x\" \"X\""),
            ("Bele\u{301}m", "\"Bele\u{301}m\""),
            ("\u{301}e", "\"e\""),
            ("東京 タワー", "\"東京\" \"タワー\""),
            ("café☕️bar", "\"café\" \"bar\""),
            ("a\u{0}b", "\"a\" \"b\""),
            ("x²", "\"x²\""),
        ]
        for (text, expression) in cases {
            #expect(try SearchQuery(text).matchExpression == expression, "\(text)")
        }
        #expect(try SearchQuery("lis* belém").words == [SearchQuery.Word(text: "lis", isPrefix: true), SearchQuery.Word(text: "belém", isPrefix: false)])
        #expect(try SearchQuery("lis* belém").description == "lis* belém")
        for empty in ["", "   ", "\n\t"] {
            #expect(throws: SearchQueryError("the search text is empty: give the words to look for")) { try SearchQuery(empty) }
        }
        for wordless in ["*", "!!", "\"\"", "- ^ : ( )", "☕️🏖", "\u{301}"] {
            #expect(throws: SearchQueryError("the search text has no words to look for (only letters and digits are searched)")) {
                try SearchQuery(wordless)
            }
        }
        // Every hostile text runs as words: no FTS5 syntax error, whatever it holds.
        let store = try seeded()
        for (text, _) in cases { _ = try store.headlines(text) }
        #expect(try store.headlines("\"torre\" AND NOT x") == [])
        #expect(try store.headlines("torre AND") == [])
        #expect(try store.headlines("headline:torre") == [])
        #expect(try store.headlines("torre tram*") == ["Torre de Belém"])
    }

    @Test("a missing index or trigger is rebuilt when the store is opened for writing; a reader is told it needs migrating")
    func rebuiltWhenMissing() throws {
        let store = try seeded()
        let expected = try store.indexRows()
        for damage in ["DROP TABLE FTS_ZARTICLE_SEARCH", "DROP TRIGGER FTS_ZARTICLE_SEARCH_KEYWORDS_LINK_INSERT",
                       "DROP TRIGGER FTS_ZARTICLE_SEARCH_UPDATE; UPDATE ZARTICLE SET ZHEADLINE = 'Torre' WHERE Z_PK = 10"] {
            try store.execute(damage)
            #expect(throws: StoreError("the store needs migrating to this model, but it is open read-only")) {
                try StoreCoordinator(url: store.url, model: SearchModel.model, readOnly: true)
            }
            let reopened = try StoreCoordinator(url: store.url, model: SearchModel.model)
            #expect(try reopened.searchIndexProblems() == [], "\(damage)")
            #expect(try reopened.withConnection { try $0.scalar("SELECT headline FROM FTS_ZARTICLE_SEARCH WHERE rowid = 10") }
                    == .text(damage.contains("'Torre'") ? "Torre" : "Torre de Belém"))
            _ = try StoreCoordinator(url: store.url, model: SearchModel.model, readOnly: true)
        }
        #expect(expected == ["10: Torre de Belém | A tower. | Ana Sousa | belém tram"])
    }

    @Test("a sound index is left as it is when the store opens again: nothing is rebuilt")
    func reopeningKeepsTheIndex() throws {
        let store = try seeded()
        let schema = { (coordinator: StoreCoordinator) in
            try coordinator.withConnection { connection in
                try connection.rows("SELECT type, name, rootpage, sql FROM sqlite_master ORDER BY name") { row in
                    (0..<4).map { index in "\(row.value(at: index))" }.joined(separator: " ")
                }
            }
        }
        let before = try schema(store.coordinator)
        let version = try store.coordinator.withConnection { try $0.scalar("PRAGMA schema_version") }
        for readOnly in [false, true, false] {
            let reopened = try StoreCoordinator(url: store.url, model: SearchModel.model, readOnly: readOnly)
            #expect(try schema(reopened) == before)
            #expect(try reopened.withConnection { try $0.scalar("PRAGMA schema_version") } == version)
        }
    }

    @Test("the check finds a missing index, lost triggers, damage, and rows unindexed, orphaned or stale")
    func check() throws {
        let cases: [(String, [SearchIndexProblem.Kind])] = [
            ("DROP TABLE FTS_ZARTICLE_SEARCH", [.missing]),
            ("DROP TRIGGER FTS_ZARTICLE_SEARCH_DELETE", [.triggers(["FTS_ZARTICLE_SEARCH_DELETE"])]),

            ("DELETE FROM FTS_ZARTICLE_SEARCH WHERE rowid = 10", [.unindexed([10])]),
            ("INSERT INTO FTS_ZARTICLE_SEARCH (rowid, headline) VALUES (99, 'ghost')", [.orphaned([99])]),
            ("UPDATE FTS_ZARTICLE_SEARCH SET keywords = 'tram' WHERE rowid = 10", [.stale([10])]),
            ("UPDATE FTS_ZARTICLE_SEARCH_content SET c0 = 'Torre' WHERE id = 10", [.damaged("database disk image is malformed"), .stale([10])]),
        ]
        for (damage, kinds) in cases {
            let store = try seeded()
            try store.execute(damage)
            #expect(try store.problems().map(\.kind) == kinds, "\(damage)")
        }
        let store = try seeded()
        try store.execute("INSERT INTO FTS_ZARTICLE_SEARCH (rowid, headline) VALUES (99, 'ghost')")
        #expect(try store.problems().map(\.description) == ["the search index holds 1 rows that ZARTICLE does not (keys 99)"])
        // A reader's check runs FTS5's integrity-check too, and leaves its connection read-only.
        try store.execute("UPDATE FTS_ZARTICLE_SEARCH_content SET c0 = 'Torre' WHERE id = 10")
        let reader = try StoreCoordinator(url: store.url, model: SearchModel.model, readOnly: true)
        #expect(try reader.searchIndexProblems().map(\.kind) == [.damaged("database disk image is malformed"), .orphaned([99]), .stale([10])])
        #expect(throws: SQLiteError.self) { try reader.withConnection { try $0.execute("DELETE FROM ZARTICLE") } }
    }

    @Test("README: the full-text search example runs as written")
    func readmeExample() throws {
        let store = try seeded()
        let context = ObjectContext(coordinator: store.coordinator)
        let coordinator = store.coordinator
        let cutoff = Date(timeIntervalSinceReferenceDate: 0)
        try store.execute("UPDATE ZARTICLE SET ZPUBLISHED = 86400 WHERE Z_PK = 10")

        // README example begins.
        let found = try context.search(Article.self, matching: "belem tow*", limit: 20)  // [Article], best first
        var request = try SearchRequest<Article>("ana sousa", predicate: ObjectPredicate(format: "published > %@", cutoff),
                                                 sortedBy: [ObjectSortDescriptor("published", ascending: false)], limit: 10)
        request.relationshipKeyPathsForPrefetching = ["author"]
        let recent = try context.search(request)             // bm25 first, then the sort descriptors, then the key
        let problems = try coordinator.searchIndexProblems() // [] when the index holds every row's current text
        // README example ends.

        #expect(found.map(\.headline) == ["Torre de Belém"])
        #expect(recent.map { $0.author?.name } == ["Ana Sousa"])
        #expect(problems == [])
    }

    @Test("making an existing store's text searchable, or renumbering its entities, builds the index from its rows")
    func migration() throws {
        let store = try SearchStore(model: ObjectModel(entities: SearchModel.descriptions(searchable: false)))
        try store.execute("""
            INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (1, 2, 1, 'Ana');
            INSERT INTO ZKEYWORD (Z_PK, Z_ENT, Z_OPT, ZWORD) VALUES (1, 3, 1, 'sea');
            INSERT INTO ZARTICLE (Z_PK, Z_ENT, Z_OPT, ZAUTHOR, ZHEADLINE) VALUES (5, 1, 1, 1, 'Cascais');
            INSERT INTO Z_1KEYWORDS VALUES (5, 1);
            """)
        let searchable = try StoreCoordinator(url: store.url, model: SearchModel.model)
        #expect(try searchable.withConnection { try $0.rows("SELECT rowid, headline, author, keywords FROM FTS_ZARTICLE_SEARCH") {
            "\($0.int64(at: 0)) \($0.string(at: 1) ?? "") \($0.string(at: 2) ?? "") \($0.string(at: 3) ?? "")"
        } } == ["5 Cascais Ana sea"])
        #expect(try searchable.searchIndexProblems() == [])
        // An entity that sorts first renumbers the others (the join table becomes Z_2KEYWORDS):
        // the triggers are dropped before the tables move and made again after.
        var renumbered = SearchModel.descriptions(searchable: true)
        renumbered.append(EntityDescription(name: "Aardvark", attributes: [AttributeDescription(name: "name", type: .string)]))
        let model = try ObjectModel(entities: renumbered)
        let migrated = try StoreCoordinator(url: store.url, model: model)
        #expect(model.searchIndexes.first?.columns.last?.source
                == .toMany(joinTable: "Z_2KEYWORDS", own: "Z_2ARTICLES", other: "Z_4KEYWORDS", table: "ZKEYWORD", column: "ZWORD"))
        #expect(try migrated.searchIndexProblems() == [])
        try migrated.withConnection { try $0.execute("INSERT INTO ZKEYWORD (Z_PK, Z_ENT, Z_OPT, ZWORD) VALUES (2, 4, 1, 'surf'); INSERT INTO Z_2KEYWORDS VALUES (5, 2)") }
        let context = ObjectContext(coordinator: migrated)
        #expect(try context.search(SearchRequest<ManagedObject>("surf sea ana", entityName: "Article")).count == 1)
        #expect(try migrated.searchIndexProblems() == [])
        // A model that no longer asks for an index drops it at its next migration.
        var unsearched = SearchModel.descriptions(searchable: false)
        unsearched[0].attributes.removeLast()
        let dropped = try StoreCoordinator(url: store.url, model: ObjectModel(entities: unsearched))
        #expect(try dropped.withConnection { try $0.scalar("SELECT count(*) FROM sqlite_master WHERE name LIKE 'FTS%'") } == .integer(0))
    }
}
