import CommandLineKit
import Documents
import Foundation
import ObjectGraph
import Vacations

/// `fetch`: Flickr's REST API, page by page, imported as `import` imports the same responses
/// (README.md, "Straight from Flickr"). The pages are fetched into a temporary folder first, then imported together in
/// one transaction: the vacation is neither opened nor created until every page is in, so a
/// fetch that fails changes nothing and leaves no new vacation behind.
extension Session {
    /// Test knobs (README, "Straight from Flickr"): short waits for the fake Flickr's tests.
    static let retryBaseVariable = "VACATION_FETCH_RETRY_BASE_MS"
    static let timeoutVariable = "VACATION_FETCH_TIMEOUT_MS"
    static let giveUpVariable = "VACATION_FETCH_GIVE_UP_MS"

    func fetch(_ options: VacationCommand.FetchOptions) throws -> Int32 {
        // The key, from the option or the environment, is checked before anything is asked.
        let key = options.apiKey ?? environment.variables["FLICKR_API_KEY"] ?? ""
        guard !key.isEmpty else {
            throw CommandFailure.usage("No Flickr API key: give --api-key KEY or set FLICKR_API_KEY",
                                       hint: "Get a key at https://www.flickr.com/services/apps/create/")
        }
        let redact = KeyRedactor(key: key)
        do {
            return try fetch(options, key: key, redact: redact)
        } catch {
            // Whatever failed, its text is printed: the key must not be in it.
            let failure = (error as? FetchError).map(Self.commandFailure) ?? VacationCLI.describe(error)
            throw CommandFailure(redact(failure.message), hint: failure.hint.map { redact($0) }, exitCode: failure.exitCode)
        }
    }

    private func fetch(_ options: VacationCommand.FetchOptions, key: String, redact: KeyRedactor) throws -> Int32 {
        let endpoint = try FlickrRequest.endpoint(from: environment.variables["FLICKR_API_BASE"])
        let policy = try retryPolicy()
        let name = try vacationName()
        let client = FlickrClient(transport: URLSessionTransport(), policy: policy)
        let temporary = environment.variables["TMPDIR"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.temporaryDirectory
        let folder = temporary.appendingPathComponent("vacation-fetch-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer {
            // The responses were copied into the vacation by the import; what is left is scratch.
            try? FileManager.default.removeItem(at: folder)
        }
        var bar: ProgressBar<SinkStream>?
        func fetcher(_ query: FlickrQuery) -> FlickrFetcher {
            var fetcher = FlickrFetcher(client: client, request: FlickrRequest(endpoint: endpoint, query: query, perPage: options.perPage),
                                        apiKey: key, folder: folder)
            fetcher.retrying = { label, note in
                // The warning takes its own line; the bar comes back with the next page.
                bar?.finish()
                warn(redact("\(label): \(note)"))
            }
            return fetcher
        }

        if options.source == .topPlaces {
            var requests = 0
            let page = try fetcher(.topPlaces(placeType: FlickrQuery.localityPlaceType)).fetchPage(1, requests: &requests)
            for problem in page.summary.problems { warn(redact("skipped \(problem)")) }
            return listTopPlaces(page.places)
        }

        var rules = DraftRules()
        var requests = 0
        if case .placeID(let placeID) = options.source {
            // As the CS193p app did: the top places name the photos' place.
            let top = try fetcher(.topPlaces(placeType: FlickrQuery.localityPlaceType)).fetchPage(1, requests: &requests)
            // What `import --places TOP --place NAME PAGES…` does, NAME being the place's own name.
            rules.defaultPlace = top.places.first { $0.placeID == placeID || $0.woeid == placeID }?.name
            try FeedImporter.learnPlaces(from: .file(top.file), into: &rules)
        }
        var pagesFetcher = fetcher(query(for: options.source))
        let method = pagesFetcher.request.query.method
        if environment.errorsIsTerminal {
            var photos = 0
            let started = ProgressBarClock.monotonicSeconds()
            pagesFetcher.pageRead = { page, expected in
                photos += page.summary.photoCount
                bar?.finish()
                // A bar's label is fixed, so each page makes a new one (with the photos so far);
                // its clock starts at the fetch's start, so that the rate and time left count
                // every page, not the last one.
                var first = true
                let clock = {
                    defer { first = false }
                    return first ? started : ProgressBarClock.monotonicSeconds()
                }
                bar = ProgressBar(total: expected, label: "Fetching \(method), \(Rendering.plural(photos, "photo"))",
                                  output: SinkStream(sink: environment.errors), isTerminal: true, width: environment.terminalWidth,
                                  clock: clock)
                bar?.update(completed: page.number)
            }
        }
        let fetched = try pagesFetcher.fetchPages(maximum: options.pages)
        bar?.finish()
        requests += fetched.requests

        let (document, created) = try library.openReportingCreation(name, access: .write, creating: true)
        defer { try? document.close() }
        var importer = FeedImporter(coordinator: try document.coordinator)
        var importBar: ProgressBar<SinkStream>?
        if environment.errorsIsTerminal {
            // Photos of the pages before the current one, and of the current one so far.
            var before = 0, inFile = 0, current = ""
            importer.progress = { file, photos in
                if file != current {
                    before += inFile
                    current = file
                }
                inFile = photos
                if importBar == nil {
                    importBar = ProgressBar(total: fetched.photoCount, label: "Importing", output: SinkStream(sink: environment.errors),
                                            isTerminal: true, width: environment.terminalWidth)
                }
                importBar?.update(completed: before + photos)
            }
        }
        let sources: [FeedSource] = fetched.pages.map { FeedSource.file($0.file) }
        let report = importer.importFeedsTogether(sources, rules: rules, now: environment.now())
        importBar?.finish()
        try document.save()
        if let failure = report.files.compactMap(\.failure).first {
            if created && name != library.defaultName {
                // Nothing went in: the vacation this fetch made is not left behind, empty.
                try document.close()
                try library.documents.delete(name, wait: library.wait)
            }
            switch failure {
            case .feed(let error): throw CommandFailure.badInput("\(method): \(error)", hint: "Nothing was changed.")
            case .store(let message): throw CommandFailure.failed(message, hint: "Nothing was changed.")
            }
        }
        for (page, file) in zip(fetched.pages, report.files) {
            for problem in file.problems { warn(redact("page \(page.number): skipped \(problem)")) }
        }
        let thumbnails = options.thumbnails
            ? try keepThumbnails(of: fetched.pages.flatMap { $0.photoIDs }, in: document, policy: policy, redact: redact) : nil
        let counts = "\(report.added) added, \(report.updated) updated, \(report.unchanged) unchanged, \(report.skipped) skipped"
        if json {
            var problems: [JSONValue] = []
            for (page, file) in zip(fetched.pages, report.files) {
                for problem in file.problems {
                    problems.append(.object([("page", .integer(Int64(page.number))), ("id", .string(problem.id.map { redact($0) })),
                                             ("reason", .string(redact(problem.reason)))]))
                }
            }
            var thumbnailsValue = JSONValue.null
            if let thumbnails {
                let failed: [JSONValue] = thumbnails.failed.map { failure in
                    .object([("id", .string(failure.id)), ("reason", .string(redact(failure.reason)))])
                }
                thumbnailsValue = .object([("downloaded", .integer(Int64(thumbnails.downloaded.count))), ("failed", .array(failed))])
            }
            emit(.object([
                ("vacation", .string(name)), ("method", .string(method)),
                ("pages", .integer(Int64(fetched.pages.count))), ("requests", .integer(Int64(requests))),
                ("photos", .integer(Int64(fetched.photoCount))),
                ("added", .integer(Int64(report.added))), ("updated", .integer(Int64(report.updated))),
                ("unchanged", .integer(Int64(report.unchanged))), ("skipped", .integer(Int64(report.skipped))),
                ("problems", .array(problems)), ("thumbnails", thumbnailsValue),
            ]))
        } else {
            let pages = Rendering.plural(fetched.pages.count, "page"), photos = Rendering.plural(fetched.photoCount, "photo")
            say("Fetched \(pages) of \(method) (\(photos)) into \"\(name)\": \(counts)")
            if let thumbnails {
                say("Thumbnails: \(thumbnails.downloaded.count) downloaded, \(thumbnails.failed.count) failed")
            }
        }
        return ExitCode.success
    }

    /// A fetch error as the contract's failure: 69, 65 or 64.
    private static func commandFailure(_ error: FetchError) -> CommandFailure {
        switch error.kind {
        case .unavailable: CommandFailure.unavailable(error.message, hint: "Nothing was changed. Try again later.")
        case .badResponse: CommandFailure.badInput(error.message, hint: "Nothing was changed.")
        case .usage: CommandFailure.usage(error.message)
        case .failed: CommandFailure.failed(error.message, hint: "Nothing was changed.")
        }
    }

    private func query(for source: VacationCommand.FetchOptions.Source) -> FlickrQuery {
        switch source {
        case .search(let text): .search(text: text)
        case .tags(let tags): .tags(tags)
        case .placeID(let id): .place(id: id)
        case .photoset(let id, let owner): .photoset(id: id, owner: owner)
        case .user(let id): .user(id: id)
        case .recent: .recent
        case .interesting: .interesting
        case .topPlaces: .topPlaces(placeType: FlickrQuery.localityPlaceType)
        }
    }

    /// `--top-places`: the list, to choose a `--place-id` from; nothing is imported.
    private func listTopPlaces(_ places: [FlickrPlace]) -> Int32 {
        if json {
            emit(.array(places.map { place in
                .object([("placeID", .string(place.placeID)), ("woeid", .string(place.woeid)), ("name", .string(place.name)),
                         ("photos", place.photoCount.map { .integer(Int64($0)) } ?? .null)])
            }))
            return ExitCode.success
        }
        var table = TextTable(columns: [.init("PLACE ID"), .init("NAME", maximumWidth: 48), .init("PHOTOS", alignment: .right)])
        for place in places {
            table.addRow([place.placeID ?? place.woeid ?? "", place.name, place.photoCount.map(String.init) ?? ""])
        }
        if !places.isEmpty { say(table.rendered()) }
        return ExitCode.success
    }

    /// The retry policy, with the test knobs applied.
    private func retryPolicy() throws -> RetryPolicy {
        var policy = RetryPolicy()
        func milliseconds(_ variable: String, minimum: Int64) throws -> Duration? {
            guard let text = environment.variables[variable], !text.isEmpty else { return nil }
            guard text.utf8.allSatisfy({ (48...57).contains($0) }), let value = Int64(text), value >= minimum, value <= 3_600_000 else {
                throw CommandFailure.usage("\(variable) is not a whole number of milliseconds from \(minimum) to 3600000: \(text)")
            }
            return .milliseconds(value)
        }
        if let base = try milliseconds(Self.retryBaseVariable, minimum: 0) { policy.baseDelay = base }
        if let timeout = try milliseconds(Self.timeoutVariable, minimum: 1) { policy.requestTimeout = timeout }
        if let limit = try milliseconds(Self.giveUpVariable, minimum: 1) { policy.giveUpAfter = limit }
        return policy
    }
}

/// Hides the API key in any text: as typed and percent-encoded.
struct KeyRedactor {
    let key: String

    func callAsFunction(_ text: String) -> String {
        guard !key.isEmpty else { return text }
        var result = text.replacingOccurrences(of: key, with: FlickrRequest.redactedKey)
        let encoded = key.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? key
        if encoded != key { result = result.replacingOccurrences(of: encoded, with: FlickrRequest.redactedKey) }
        return result
    }
}
