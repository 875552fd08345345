import CommandLineKit
import Documents
import Foundation
import ObjectGraph
import Vacations

/// `list`, `create`, `rename`, `delete`, `default`, `info`, `check`.
extension Session {
    private static let countedEntities = ["Photo", "Place", "Tag"]

    func list() throws -> Int32 {
        // Names first (no store is read), then each vacation's counts: one damaged vacation is
        // reported, not allowed to hide the others.
        let names = try library.documents.documentNames()
        var rows: [(summary: DocumentSummary, damage: String?)] = []
        var damages: [String] = []
        for (name, counted) in zip(names, library.documents.summaries(of: names, counting: Self.countedEntities)) {
            switch counted {
            case .success(let summary):
                rows.append((summary, nil))
            case .failure(let error):
                let damage = VacationCLI.describe(error).message
                damages.append(damage)
                rows.append((try library.documents.uncountedSummary(ofDocumentNamed: name), damage))
            }
        }
        for damage in damages { warn(damage) }
        rows.sort { $0.summary.name.localizedStandardCompare($1.summary.name) == .orderedAscending }
        func count(_ row: (summary: DocumentSummary, damage: String?), _ entity: String) -> JSONValue {
            row.damage == nil ? .integer(Int64(row.summary.counts[entity] ?? 0)) : .null
        }
        if json {
            emit(.array(rows.map { row in
                var members: [(String, JSONValue)] = [
                    ("name", .string(row.summary.name)),
                    ("photos", count(row, "Photo")), ("places", count(row, "Place")), ("tags", count(row, "Tag")),
                    ("modified", .date(row.summary.modified)),
                    ("isDefault", .bool(row.summary.name == library.defaultName)),
                    ("created", .date(row.summary.created)),
                    ("bytes", .integer(row.summary.bytes)),
                    ("path", .string(row.summary.url.path)),
                ]
                if let damage = row.damage { members.append(("damaged", .string(damage))) }
                return .object(members)
            }))
            return ExitCode.success
        }
        var table = TextTable(columns: [.init("NAME"), .init("PHOTOS", alignment: .right), .init("PLACES", alignment: .right),
                                        .init("TAGS", alignment: .right), .init("MODIFIED"), .init("DEFAULT")])
        for row in rows {
            let counts = ["Photo", "Place", "Tag"].map { row.damage == nil ? String(row.summary.counts[$0] ?? 0) : "?" }
            table.addRow([row.summary.name] + counts + [Rendering.shortDate(row.summary.modified),
                                                        row.summary.name == library.defaultName ? "*" : ""])
        }
        say(table.rendered())
        return ExitCode.success
    }

    func create(_ name: String) throws -> Int32 {
        let resolved = try DocumentName(name).rawValue
        let document = try library.documents.create(named: resolved)
        try document.close()
        if json {
            emit(.object([("name", .string(resolved)), ("path", .string(document.bundle.url.path))]))
        } else {
            say("Created vacation \"\(resolved)\".")
        }
        return ExitCode.success
    }

    func rename(_ old: String, _ new: String) throws -> Int32 {
        let from = try library.resolve(old)
        let to = try DocumentName(new).rawValue
        guard try library.exists(from) else { throw DocumentError(.notFound, .document(from)) }
        if from != to, try library.exists(to) { throw DocumentError(.alreadyExists, .document(to)) }
        try library.rename(from, to: to)
        if json {
            emit(.object([("name", .string(to)), ("previousName", .string(from))]))
        } else {
            say("Renamed vacation \"\(from)\" to \"\(to)\".")
        }
        return ExitCode.success
    }

    func delete(_ name: String) throws -> Int32 {
        let resolved = try library.resolve(name)
        guard try library.exists(resolved) else { throw DocumentError(.notFound, .document(resolved)) }
        try library.documents.delete(resolved, wait: library.wait)
        if json {
            emit(.object([("name", .string(resolved)), ("deleted", .bool(true))]))
        } else {
            say("Deleted vacation \"\(resolved)\".")
        }
        return ExitCode.success
    }

    func setDefault(_ name: String?) throws -> Int32 {
        if let name {
            try library.setDefault(name)
        }
        let current = library.defaultName
        // `setDefault` resolved this name already: it cannot fail here.
        let shown = name.map { try? library.resolve($0) } ?? current
        if json {
            emit(.object([("default", .string(shown ?? current))]))
        } else {
            say(shown ?? current)
        }
        return ExitCode.success
    }

    func info(_ name: String?) throws -> Int32 {
        let resolved = try vacationName(name)
        let summary = try library.documents.summary(ofDocumentNamed: resolved, counting: Self.countedEntities)
        let metadata = try reading(resolved) { _, document in document.metadata }
        let photos = summary.counts["Photo"] ?? 0, places = summary.counts["Place"] ?? 0, tags = summary.counts["Tag"] ?? 0
        if json {
            emit(.object([
                ("name", .string(resolved)), ("path", .string(summary.url.path)),
                ("photos", .integer(Int64(photos))), ("places", .integer(Int64(places))), ("tags", .integer(Int64(tags))),
                ("bytes", .integer(summary.bytes)), ("modelVersion", .string(metadata?.modelVersion ?? VacationModel.version)),
                ("created", .date(summary.created)), ("modified", .date(summary.modified)),
                ("isDefault", .bool(resolved == library.defaultName)),
            ]))
        } else {
            var table = TextTable(columns: [.init(""), .init("")], showsHeader: false)
            table.addRow(["Vacation", resolved + (resolved == library.defaultName ? " (default)" : "")])
            table.addRow(["Photos", String(photos)])
            table.addRow(["Places", String(places)])
            table.addRow(["Tags", String(tags)])
            table.addRow(["Size", Rendering.size(summary.bytes)])
            table.addRow(["Created", Rendering.shortDate(summary.created)])
            table.addRow(["Modified", Rendering.shortDate(summary.modified)])
            table.addRow(["Model version", metadata?.modelVersion ?? VacationModel.version])
            table.addRow(["Path", summary.url.path])
            say(table.rendered())
        }
        return ExitCode.success
    }

    func check(_ name: String?) throws -> Int32 {
        let resolved = try vacationName(name)
        let problems: [String]
        do {
            problems = try reading(resolved) { _, document in try VacationCheck.problems(in: document.coordinator) }
        } catch let error as DocumentError {
            // A vacation that cannot even be opened is what `check` is for: a problem to report.
            switch error.kind {
            case .corrupt(let detail), .migrationFailed(let detail): problems = ["The vacation cannot be opened: \(detail)"]
            default: throw error
            }
        }
        if json {
            emit(.object([("vacation", .string(resolved)), ("ok", .bool(problems.isEmpty)),
                          ("problems", .array(problems.map { .string($0) }))]))
        } else if problems.isEmpty {
            say("Vacation \"\(resolved)\" is sound: no problems found.")
        } else {
            say("Vacation \"\(resolved)\" has \(Rendering.plural(problems.count, "problem")):")
            for problem in problems { say("  \(problem)") }
        }
        return problems.isEmpty ? ExitCode.success : ExitCode.failure
    }
}
