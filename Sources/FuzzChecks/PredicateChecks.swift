import Foundation
import ObjectGraph
import Vacations

/// The predicate target's check, on `vacation photos --where`'s path: the text parses or fails
/// with an `ObjectPredicateError`; a predicate prints as text that parses back to itself; the
/// query runs in SQLite without an SQL error (no text is ever spliced into SQL, so none can
/// break it); and SQL and the in-memory evaluator select the same photos, or both refuse it
/// (with the same message when both give the fetch's `FetchRequestError`).
enum PredicateChecks {
    /// Arguments for `%@`, `%K`, `%d`, `%f`, `%s` in inputs that use them, in order.
    static var arguments: [any PredicateArgument] { ["title", "sea", 3, 2.5, ["sea", "sun"], "'); DROP TABLE ZPHOTO; --"] }

    static func check(_ data: Data) throws(FuzzFinding) {
        let text = String(decoding: data, as: UTF8.self)
        try checkRoundTrip(text, arguments: [])
        try checkRoundTrip(text, arguments: arguments)
        try checkQuery(text)
    }

    private static func checkRoundTrip(_ text: String, arguments: [any PredicateArgument]) throws(FuzzFinding) {
        let predicate: ObjectPredicate
        do {
            predicate = try ObjectPredicate(format: text, arguments: arguments)
        } catch {
            // Typed throws: only ObjectPredicateError can arrive here; it must say where.
            if error.description.isEmpty || error.description.contains("\n") {
                throw FuzzFinding(.predicate, "an ObjectPredicateError's description must be one non-empty line: \(error.description.debugDescription)")
            }
            return
        }
        let printed = predicate.description
        let reparsed: ObjectPredicate
        do {
            reparsed = try ObjectPredicate(format: printed)
        } catch {
            throw FuzzFinding(.predicate, "\(text.debugDescription) prints as \(printed.debugDescription), which does not parse: \(error)")
        }
        guard reparsed == predicate, reparsed.description == printed else {
            throw FuzzFinding(.predicate, "\(text.debugDescription) prints as \(printed.debugDescription), which parses to "
                              + "\(reparsed.description.debugDescription)")
        }
    }

    private static func checkQuery(_ text: String) throws(FuzzFinding) {
        guard let sample = SampleVacation.shared else {
            throw FuzzFinding(.predicate, "the sample vacation could not be made: \(SampleVacation.failure ?? "")")
        }
        try sample.withContext { (context, photos) throws(FuzzFinding) in
            let selected: [Photo]
            do {
                selected = try VacationQueries.photos(PhotoQuery(predicate: text), in: context)
            } catch let error as QueryError {
                try checkRefusedInMemory(text, refusal: error, photos: photos)
                return
            } catch {
                throw FuzzFinding(.predicate, "\(text.debugDescription) failed in the store with \(type(of: error)): \(error)")
            }
            // The CLI parsed it, so this parse succeeds too.
            guard let predicate = try? ObjectPredicate(format: text) else {
                throw FuzzFinding(.predicate, "\(text.debugDescription) ran in the store but does not parse")
            }
            let evaluator = PredicateEvaluator(predicate)
            var inMemory = Set<String>()
            for photo in photos {
                do {
                    if try evaluator.evaluate(with: photo) { inMemory.insert(photo.unique) }
                } catch {
                    throw FuzzFinding(.predicate, "\(text.debugDescription) ran in the store but failed in memory on photo "
                                      + "\(photo.unique): \(error)")
                }
            }
            let inStore = Set(selected.map(\.unique))
            guard inStore == inMemory, inStore.count == selected.count else {
                throw FuzzFinding(.predicate, "\(text.debugDescription) selects \(inStore.sorted()) in SQL (\(selected.count) rows) "
                                  + "but \(inMemory.sorted()) in memory")
            }
        }
    }

    /// A predicate the store refused before running it must fail in memory too. Not one that
    /// failed while running: SQLite's own limits (an expression tree deeper than it allows, more
    /// values than it binds) do not apply in memory, and a MATCHES pattern read from a row fails
    /// only where a back end reaches that row, which AND, OR and ANY leave each to choose.
    private static func checkRefusedInMemory(_ text: String, refusal: QueryError, photos: [Photo]) throws(FuzzFinding) {
        if refusal.message.hasPrefix("invalid predicate: the store cannot run it: ") { return }
        // A text that does not parse was refused before either back end saw it.
        guard let predicate = try? ObjectPredicate(format: text) else { return }
        let evaluator = PredicateEvaluator(predicate)
        do {
            for photo in photos { _ = try evaluator.evaluate(with: photo) }
        } catch let error as FetchRequestError {
            guard refusal.message == "invalid predicate: \(error)" else {
                throw FuzzFinding(.predicate, "\(text.debugDescription) was refused by the store (\(refusal.message)) "
                                  + "and in memory with another message: \(error)")
            }
            return
        } catch {
            return
        }
        throw FuzzFinding(.predicate, "\(text.debugDescription) was refused by the store (\(refusal.message)) "
                          + "but evaluates in memory")
    }
}

/// A small vacation store made once per process for the predicate target: photos with and
/// without each attribute, tags and places with awkward names, one without a place.
final class SampleVacation: @unchecked Sendable {
    // libFuzzer calls the target from one thread, and the regression tests call it under the
    // lock below: the context is never used from two threads at once.
    private let lock = NSLock()
    private let context: ObjectContext
    private let photos: [Photo]
    private let folder: URL

    nonisolated(unsafe) static var failure: String?
    static let shared: SampleVacation? = {
        do {
            return try SampleVacation()
        } catch {
            failure = "\(error)"
            return nil
        }
    }()

    private init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-predicate-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let coordinator = try StoreCoordinator(url: folder.appendingPathComponent("persistentStore"), model: VacationModel.model)
        let writer = ObjectContext(coordinator: coordinator)
        let day = 86_400.0
        let drafts = [
            PhotoDraft(id: "1", title: "Sunset over the sea", subtitle: "Cascais\nsecond line", owner: "Ana",
                       dateTaken: Date(timeIntervalSinceReferenceDate: 700_000_000), latitude: 38.7, longitude: -9.4,
                       media: "photo", tags: ["sea", "sun", "café"], placeName: "Lisbon, Lisbon, Portugal"),
            PhotoDraft(id: "22", title: "Café de la Paix", owner: "Zoë", dateTaken: Date(timeIntervalSinceReferenceDate: 700_000_000 + day),
                       latitude: 48.87, longitude: 2.33, media: "photo", tags: ["café", "paris"], placeName: "Paris, France"),
            PhotoDraft(id: "333", title: nil, subtitle: "no title, a description", media: "video", tags: [], placeName: nil),
            PhotoDraft(id: "4444", title: "東京タワー 🗼", owner: "佐藤", dateTaken: Date(timeIntervalSinceReferenceDate: -1.5),
                       latitude: 35.66, longitude: 139.75, tags: ["東京", "tower", "sea"], placeName: "Tokyo, Japan"),
            PhotoDraft(id: "55555", title: "O'Brien's \"pub\" 100% _real_ \\ [x] *?", owner: "o'brien",
                       dateTaken: Date(timeIntervalSinceReferenceDate: 1e9), latitude: 0, longitude: 0, media: "photo",
                       tags: ["robert');drop", "a%b_c"], placeName: "Dublin, Ireland"),
            PhotoDraft(id: "666666", title: "", subtitle: "", owner: "", latitude: -90, longitude: 180, media: "",
                       tags: ["sun"], placeName: "Lisbon, Lisbon, Portugal"),
            PhotoDraft(id: "7777777", title: "Cafe\u{301} accents ÉCLAIR", dateTaken: Date(timeIntervalSinceReferenceDate: 700_000_000),
                       tags: ["éclair"], placeName: "Paris, France"),
            PhotoDraft(id: "18446744073709551616", title: "an id beyond 64 bits", latitude: 1e-300, longitude: -1e300,
                       tags: ["big"], placeName: "Nowhere"),
        ]
        _ = try VacationEditor(context: writer, now: Date(timeIntervalSinceReferenceDate: 800_000_000)).visit(drafts)
        try writer.save()
        context = ObjectContext(coordinator: coordinator)
        var request = FetchRequest<Photo>()
        request.relationshipKeyPathsForPrefetching = ["tags", "place"]
        photos = try context.fetch(request)
        // Faults fire now, so that evaluating in memory later reads no rows.
        for photo in photos {
            _ = photo.title
            _ = photo.tags.map(\.name)
            _ = photo.place?.name
        }
        Self.registerRemoval(folder)
    }

    func withContext(_ body: (ObjectContext, [Photo]) throws(FuzzFinding) -> Void) throws(FuzzFinding) {
        lock.lock()
        defer { lock.unlock() }
        try body(context, photos)
    }

    private nonisolated(unsafe) static var removals: [URL] = []

    private static func registerRemoval(_ folder: URL) {
        removals.append(folder)
        atexit {
            for folder in SampleVacation.removals { try? FileManager.default.removeItem(at: folder) }
        }
    }
}
