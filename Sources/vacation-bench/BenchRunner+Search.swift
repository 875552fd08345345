import CSQLite
import Foundation
import ObjectGraph
import Vacations

/// The `search` figure: full-text queries a person would type, each answered with its first
/// page of 20 photos (places and tags loaded), ours through `VacationSearch` as `vacation
/// search` runs it, the baseline through one hand-written FTS5 query with the same ranking.
extension BenchRunner {
    /// The queries, from the photos of the feed: a tag (about 250 photos at 100,000), the tag
    /// with a word every photo has, a tag prefix (`tag12*`: about 2,750), two tags of one photo
    /// (a handful), a title's number with a word every title has.
    func searchQueries() -> [String] {
        var queries: [String] = []
        for step in 0..<8 {
            let index = (step * 12_289 + 7) % max(1, options.photos)
            let tags = generator.tags(index)
            queries += [tags[0], "\(tags[0]) region", String(tags[1].prefix(5)) + "*", "\(tags[0]) \(tags[1])", "photo \(index)"]
        }
        return queries
    }

    func measureSearch() throws {
        let queries = searchQueries()
        progress("search: \(queries.count) queries, \(readRuns) runs each")
        let storePath = try storePath(ofVacation: vacationName)
        var ours: [Double] = []
        var baseline: [Double] = []
        let document = try library.open(named: vacationName, mode: .readOnly)
        defer { try? document.close() }
        let coordinator = try document.coordinator
        let baselineSearch = try BaselineSearch(storeAt: storePath)
        for _ in 1...readRuns {
            for query in queries {
                var oursTouched = Touched()
                let context = ObjectContext(coordinator: coordinator, name: "search")
                ours.append(try timed {
                    for photo in try VacationSearch.photos(matching: query, limit: 20, in: context) {
                        oursTouched.touch(photo.title, photo.place?.name)
                        oursTouched.touch(photo.tagNames.joined(separator: " "))
                    }
                })
                var baselineTouched = Touched()
                baseline.append(try timed {
                    for row in try baselineSearch.search(query, limit: 20) {
                        baselineTouched.touch(row.photo.title, row.photo.placeName)
                        baselineTouched.touch(row.tags.joined(separator: " "))
                    }
                })
                guard oursTouched == baselineTouched, oursTouched.objects > 0 else {
                    throw BenchError("search '\(query)': ours read \(oursTouched), the baseline \(baselineTouched)")
                }
            }
        }
        var figure = Figure(name: "search", photos: options.photos,
                            kind: .latency(oursP50: ours.percentile(0.5), oursP99: ours.percentile(0.99),
                                           baselineP50: baseline.percentile(0.5), baselineP99: baseline.percentile(0.99)))
        figure.goal = "p50 < 5 ms"
        figure.meetsGoal = ours.percentile(0.5) < 5
        figures.append(figure)
        progress(String(format: "search: ours p50 %.3f ms p99 %.3f ms, baseline p50 %.3f ms p99 %.3f ms",
                        ours.percentile(0.5), ours.percentile(0.99), baseline.percentile(0.5), baseline.percentile(0.99)))
    }
}

/// The baseline's search: the query's words as FTS5 strings (the same text `SearchQuery`
/// makes), one SELECT joining the index to the photos and their places, ranked by bm25 then
/// date taken then key, and one SELECT for the page's tags.
final class BaselineSearch {
    private let database: RawDatabase
    private let search: RawStatement
    private let tags: RawStatement

    init(storeAt path: String) throws {
        database = try RawDatabase(path: path, readOnly: true)
        search = try database.prepare("""
            SELECT \(PhotoRow.columns), pl.ZNAME FROM FTS_ZPHOTO_SEARCH JOIN ZPHOTO p ON p.Z_PK = FTS_ZPHOTO_SEARCH.rowid
            LEFT JOIN ZPLACE pl ON pl.Z_PK = p.ZPLACE WHERE FTS_ZPHOTO_SEARCH MATCH ?
            ORDER BY bm25(FTS_ZPHOTO_SEARCH), p.ZDATETAKEN, p.Z_PK LIMIT ?
            """)
        tags = try database.prepare("""
            SELECT j.Z_2PHOTOS, t.ZNAME FROM Z_2TAGS j JOIN ZTAG t ON t.Z_PK = j.Z_4TAGS
            WHERE j.Z_2PHOTOS IN (SELECT value FROM json_each(?))
            """)
    }

    func search(_ text: String, limit: Int) throws -> [(photo: PhotoRow, tags: [String])] {
        search.bind(try SearchQuery(text).matchExpression, 0)
        search.bind(Int64(limit), 1)
        var rows: [PhotoRow] = []
        while try search.step() { rows.append(PhotoRow(search, withPlace: true)) }
        search.reset()
        tags.bind("[" + rows.map { String($0.key) }.joined(separator: ",") + "]", 0)
        var names: [Int64: [String]] = [:]
        while try tags.step() { names[tags.int64(0), default: []].append(tags.string(1) ?? "") }
        tags.reset()
        return rows.map { ($0, (names[$0.key] ?? []).sorted()) }
    }
}
