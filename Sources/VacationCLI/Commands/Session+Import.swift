import CommandLineKit
import Documents
import Foundation
import ObjectGraph
import Vacations

/// `import`, `visit`, `unvisit`, `toggle`.
extension Session {
    /// A feed argument: `-` (standard input, once) or a file that must exist.
    func feedSource(_ argument: String) throws -> FeedSource {
        if argument == "-" { return .handle(environment.standardInput) }
        let url = path(argument)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw CommandFailure.notFound("No such feed: \(argument)")
        }
        guard !isDirectory.boolValue, FileManager.default.isReadableFile(atPath: url.path) else {
            throw CommandFailure.notFound("Cannot read the feed \(argument): it is a folder or not readable")
        }
        return .file(url)
    }

    func importFeeds(_ options: VacationCommand.ImportOptions) throws -> Int32 {
        if options.feeds.filter({ $0 == "-" }).count > 1 {
            throw CommandFailure.usage("Standard input ('-') can be read only once")
        }
        let sources = try options.feeds.map(feedSource)
        var rules = DraftRules(excludedTags: options.excludedTags, defaultPlace: options.place)
        if let places = options.placesFile {
            if places == "-" && options.feeds.contains("-") { throw CommandFailure.usage("Standard input ('-') can be read only once") }
            do {
                try FeedImporter.learnPlaces(from: feedSource(places), into: &rules)
            } catch let error as FeedError {
                throw CommandFailure.badInput("\(places): \(error)")
            }
        }
        let name = try vacationName()
        let (document, created) = try library.openReportingCreation(name, access: .write, creating: true)
        // Each command saves before it returns (`document.save()`, which throws); what is left
        // when it fails is dropped with the process, so a failing close says nothing more.
        defer { try? document.close() }
        var importer = FeedImporter(coordinator: try document.coordinator)
        var bar: ProgressBar<SinkStream>?
        if environment.errorsIsTerminal {
            importer.progress = { file, photos in
                if bar == nil || bar?.label != file {
                    bar?.finish()
                    bar = ProgressBar(total: nil, label: file, output: SinkStream(sink: environment.errors), isTerminal: true,
                                      width: environment.terminalWidth)
                }
                bar?.update(completed: photos)
            }
        }
        var report = importer.importFeeds(sources, rules: rules, now: environment.now())
        bar?.finish()
        // Paths as the user typed them.
        for index in report.files.indices where index < options.feeds.count { report.files[index].path = options.feeds[index] }
        try document.save()
        if created && name != library.defaultName && report.files.allSatisfy({ $0.failure != nil }) {
            // Nothing went in: the vacation this import made is not left behind, empty.
            try document.close()
            try library.documents.delete(name, wait: library.wait)
        }

        for file in report.files {
            for problem in file.problems { warn("\(file.path): skipped \(problem)") }
            if let failure = file.failure { environment.errors.write("Error: \(TextTable.sanitized("\(file.path): \(failure)"))\n") }
        }
        if json {
            emit(.object([
                ("vacation", .string(name)),
                ("added", .integer(Int64(report.added))), ("updated", .integer(Int64(report.updated))),
                ("unchanged", .integer(Int64(report.unchanged))), ("skipped", .integer(Int64(report.skipped))),
                ("files", .array(report.files.map { file in
                    var members: [(String, JSONValue)] = [
                        ("path", .string(file.path)),
                        ("added", .integer(Int64(file.added))), ("updated", .integer(Int64(file.updated))),
                        ("unchanged", .integer(Int64(file.unchanged))), ("skipped", .integer(Int64(file.skipped))),
                        ("problems", .array(file.problems.map { .object([("id", .string($0.id)), ("reason", .string($0.reason))]) })),
                    ]
                    if let failure = file.failure { members.append(("error", .string(failure.description))) }
                    return .object(members)
                })),
            ]))
        } else {
            for file in report.files where file.failure == nil {
                say("\(file.path): \(file.added) added, \(file.updated) updated, \(file.unchanged) unchanged, \(file.skipped) skipped")
            }
            if report.files.count > 1 {
                say("Total for \"\(name)\": \(report.added) added, \(report.updated) updated, \(report.unchanged) unchanged, \(report.skipped) skipped")
            }
        }
        if report.files.contains(where: { if case .feed = $0.failure { true } else { false } }) { return ExitCode.badInput }
        return report.hasFailures ? ExitCode.failure : ExitCode.success
    }

    /// Canonical ids, in order, without repeats; an id that is not a decimal number cannot be a photo.
    private func canonical(_ ids: [String]) -> (valid: [String], invalid: [String]) {
        var valid: [String] = [], invalid: [String] = [], seen = Set<String>()
        for id in ids {
            guard let canonical = FlickrNames.canonicalID(id) else {
                invalid.append(id)
                continue
            }
            if seen.insert(canonical).inserted { valid.append(canonical) }
        }
        return (valid, invalid)
    }

    /// Ids for an error line: the first ten, then how many more (40,000 ids make one line, not a page).
    private func listed(_ ids: [String]) -> String {
        ids.count <= 10 ? ids.joined(separator: ", ") : ids.prefix(10).joined(separator: ", ") + " and \(ids.count - 10) more"
    }

    private func drafts(_ ids: [String], feed: String) throws -> [PhotoDraft] {
        let source = try feedSource(feed)
        let (valid, invalid) = canonical(ids)
        let drafts: [PhotoDraft]
        do {
            drafts = try FeedImporter.drafts(ids: valid, in: source, rules: DraftRules())
        } catch let error as FeedError {
            throw CommandFailure.badInput("\(feed): \(error)")
        }
        let missing = invalid + valid.filter { id in !drafts.contains { $0.id == id } }
        if !missing.isEmpty {
            throw CommandFailure.notFound("No photo \(listed(missing)) in the feed \(feed)",
                                     hint: "Nothing was changed.")
        }
        return drafts
    }

    func visit(_ ids: [String], feed: String) throws -> Int32 {
        let drafts = try drafts(ids, feed: feed)
        let name = try vacationName()
        let document = try library.open(name, access: .write, creating: true)
        // Each command saves before it returns (`document.save()`, which throws); what is left
        // when it fails is dropped with the process, so a failing close says nothing more.
        defer { try? document.close() }
        let context = try document.newRootContext(name: "visit")
        let outcomes = try VacationEditor(context: context, now: environment.now()).visit(drafts)
        try context.save()
        try document.save()
        if json {
            emit(.object([("vacation", .string(name)),
                          ("photos", .array(outcomes.map { .object([("id", .string($0.id)), ("outcome", .string($0.outcome.rawValue))]) }))]))
        } else {
            for (id, outcome) in outcomes { say("\(id): \(outcome.rawValue)") }
        }
        return ExitCode.success
    }

    func unvisit(_ ids: [String]) throws -> Int32 {
        let name = try vacationName()
        let document = try library.open(name, access: .write)
        // Each command saves before it returns (`document.save()`, which throws); what is left
        // when it fails is dropped with the process, so a failing close says nothing more.
        defer { try? document.close() }
        let context = try document.newRootContext(name: "unvisit")
        let (valid, invalid) = canonical(ids)
        let present = try Set(context.fetch(FetchRequest<Photo>(predicate: "unique IN %@", valid)).map(\.unique))
        let missing = invalid + valid.filter { !present.contains($0) }
        if !missing.isEmpty {
            throw CommandFailure.notFound("No photo \(listed(missing)) in the vacation \"\(name)\"", hint: "Nothing was changed.")
        }
        try VacationEditor(context: context, now: environment.now()).unvisit(valid)
        try context.save()
        try document.save()
        removeThumbnails(of: valid, in: document)
        if json {
            emit(.object([("vacation", .string(name)), ("unvisited", .array(valid.map { .string($0) }))]))
        } else {
            for id in valid { say("\(id): unvisited") }
        }
        return ExitCode.success
    }

    func toggle(_ id: String, feed: String) throws -> Int32 {
        let source = try feedSource(feed)
        guard let canonical = FlickrNames.canonicalID(id) else {
            throw CommandFailure.notFound("No photo \(id): a Flickr id is a decimal number", hint: "Nothing was changed.")
        }
        let name = try vacationName()
        let document = try library.open(name, access: .write, creating: true)
        // Each command saves before it returns (`document.save()`, which throws); what is left
        // when it fails is dropped with the process, so a failing close says nothing more.
        defer { try? document.close() }
        let context = try document.newRootContext(name: "toggle")
        let editor = VacationEditor(context: context, now: environment.now())
        let present = try VacationQueries.photo(id: canonical, in: context) != nil
        let outcome: VacationEditor.ToggleOutcome
        if present {
            try editor.unvisit([canonical])
            outcome = .unvisited
        } else {
            let drafts: [PhotoDraft]
            do {
                drafts = try FeedImporter.drafts(ids: [canonical], in: source, rules: DraftRules())
            } catch let error as FeedError {
                throw CommandFailure.badInput("\(feed): \(error)")
            }
            guard !drafts.isEmpty else {
                throw CommandFailure.notFound("No photo \(canonical) in the feed \(feed)", hint: "Nothing was changed.")
            }
            _ = try editor.visit(drafts)
            outcome = .visited
        }
        try context.save()
        try document.save()
        if outcome == .unvisited { removeThumbnails(of: [canonical], in: document) }
        if json {
            emit(.object([("vacation", .string(name)), ("id", .string(canonical)), ("outcome", .string(outcome.rawValue))]))
        } else {
            say("\(canonical): \(outcome.rawValue)")
        }
        return ExitCode.success
    }
}
