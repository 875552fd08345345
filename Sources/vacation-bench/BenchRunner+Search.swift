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

    /// Every query once per round on each side, the sides taking turns query by query (as the
    /// toggles do), after a warm-up round whose times are dropped; both sides must read the
    /// same photos, in the same order, with the same places and tags.
    func measureSearch() throws {
        let queries = searchQueries()
        progress("search: \(queries.count) queries, \(readRuns) rounds after a warm-up, interleaved")
        let storePath = try storePath(ofVacation: vacationName)
        let document = try library.open(named: vacationName, mode: .readOnly)
        defer { try? document.close() }
        let coordinator = try document.coordinator
        let baselineSearch = try BaselineSearch(storeAt: storePath)
        func search(_ query: String, side: Side) throws -> (Double, ReadDigest) {
            var digest = ReadDigest()
            if side == .ours {
                let context = ObjectContext(coordinator: coordinator, name: "search")
                var photos: [Photo] = []
                var tags: [String] = []
                let time = try timed {
                    photos = try VacationSearch.photos(matching: query, limit: 20, in: context)
                    tags = photos.map { $0.tagNames.joined(separator: " ") }
                    for photo in photos { _ = photo.place?.name }
                }
                for (photo, names) in zip(photos, tags) {
                    digest.add(unique: photo.unique, title: photo.title, place: photo.place?.name, dateTaken: photo.dateTaken)
                    digest.add(text: names)
                }
                return (withExtendedLifetime(context) { time }, digest)
            }
            var rows: [(photo: PhotoRow, tags: [String])] = []
            var tags: [String] = []
            let time = try timed {
                rows = try baselineSearch.search(query, limit: 20)
                tags = rows.map { $0.tags.joined(separator: " ") }
            }
            for (row, names) in zip(rows, tags) {
                digest.add(unique: row.photo.unique, title: row.photo.title, place: row.photo.placeName, dateTaken: row.photo.dateTaken)
                digest.add(text: names)
            }
            return (time, digest)
        }
        var times: [Side: [Double]] = [:]
        var turn = 0
        for round in 0...readRuns {
            for query in queries {
                var read: [Side: ReadDigest] = [:]
                for side in Self.order([.ours, .baseline], round: turn) {
                    let (time, digest) = try search(query, side: side)
                    read[side] = digest
                    if round > 0 { times[side, default: []].append(time) }
                }
                turn += 1
                guard read[.ours] == read[.baseline], (read[.ours]?.objects ?? 0) > 0 else {
                    throw BenchError("search '\(query)': ours read \(read[.ours].map(String.init(describing:)) ?? "nothing"), "
                                     + "the baseline \(read[.baseline].map(String.init(describing:)) ?? "nothing")")
                }
            }
        }
        let ours = times[.ours] ?? [], baseline = times[.baseline] ?? []
        var figure = Figure(name: "search", photos: options.photos,
                            kind: .latency(oursP50: ours.percentile(0.5), oursP99: ours.percentile(0.99),
                                           baselineP50: baseline.percentile(0.5), baselineP99: baseline.percentile(0.99)))
        figure.runs = ours.count
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
