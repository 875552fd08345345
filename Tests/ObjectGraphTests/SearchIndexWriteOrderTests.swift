import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

/// A save writes a new object's join rows before its row (its insert trigger indexes it once),
/// and an undo deletes inserted join rows after the objects inserted beside them (their
/// triggers then have nothing to rebuild): the index must come out as a rebuild would, whatever
/// mix of new and known rows a save or an undo holds.
@Suite("Search index: the order of a save's and an undo's writes leaves the index as a rebuild would")
struct SearchIndexWriteOrderTests {
    /// What the index should hold for every article: headline, body, author, keywords by key.
    private func expectedRows(_ store: SearchStore) throws -> [String] {
        try store.coordinator.withConnection { connection in
            try connection.rows("""
                SELECT a.Z_PK, a.ZHEADLINE, a.ZBODY, (SELECT ZNAME FROM ZAUTHOR WHERE Z_PK = a.ZAUTHOR),
                       (SELECT group_concat(ZWORD, ' ') FROM (SELECT k.ZWORD FROM Z_1KEYWORDS j JOIN ZKEYWORD k ON k.Z_PK = j.Z_3KEYWORDS
                        WHERE j.Z_1ARTICLES = a.Z_PK ORDER BY k.Z_PK))
                FROM ZARTICLE a ORDER BY a.Z_PK
                """) { row in
                "\(row.int64(at: 0)): " + (1...4).map { row.string(at: $0) ?? "NULL" }.joined(separator: " | ")
            }
        }
    }

    @Test("random saves of new articles with new and known keywords and authors, edits and deletes, then each undone")
    func savesAndUndos() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("search index write order, seed \(seed)")
        var random = SplitMix64(seed: seed)
        let store = try SearchStore()
        try store.coordinator.recordOperations(author: "setup")
        let context = ObjectContext(coordinator: store.coordinator)
        var keywords: [Keyword] = []
        var authors: [Author] = []
        var articles: [Article] = []
        var states: [[String]] = [try store.indexRows()]
        for round in 0..<12 {
            try store.coordinator.beginOperation(author: "round \(round)")
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let article = Article(context: context)
                article.headline = "headline \(round) \(articles.count)"
                article.body = Bool.random(using: &random) ? "body \(Int.random(in: 0..<50, using: &random))" : nil
                if Bool.random(using: &random) {
                    if authors.isEmpty || Bool.random(using: &random) {
                        let author = Author(context: context)
                        author.name = "author \(authors.count)"
                        authors.append(author)
                    }
                    article.author = authors.randomElement(using: &random)
                }
                var chosen = Set<Keyword>()
                for _ in 0..<Int.random(in: 0...4, using: &random) {
                    if keywords.isEmpty || Int.random(in: 0..<3, using: &random) == 0 {
                        let keyword = Keyword(context: context)
                        keyword.word = "word\(keywords.count)"
                        keywords.append(keyword)
                        chosen.insert(keyword)
                    } else if let known = keywords.randomElement(using: &random) {
                        chosen.insert(known)
                    }
                }
                article.keywords = chosen
                articles.append(article)
            }
            if round > 2, let edited = articles.dropLast().randomElement(using: &random), !edited.isDeleted {
                edited.keywords = Set(keywords.shuffled(using: &random).prefix(2))
                edited.headline = "edited \(round)"
            }
            if round > 4, let gone = articles.dropLast().randomElement(using: &random), !gone.isDeleted {
                context.delete(gone)
            }
            try context.save()
            articles.removeAll { $0.isDeleted }
            #expect(try store.problems() == [], "round \(round), seed \(seed)")
            #expect(try store.indexRows() == expectedRows(store), "round \(round), seed \(seed)")
            states.append(try store.indexRows())
        }
        for round in (0..<12).reversed() {
            #expect(try store.coordinator.undoLatestOperation(author: "undo")?.author == "round \(round)")
            #expect(try store.problems() == [], "undo of round \(round), seed \(seed)")
            #expect(try store.indexRows() == states[round], "undo of round \(round), seed \(seed)")
        }
        #expect(try store.indexRows().isEmpty)
    }
}
