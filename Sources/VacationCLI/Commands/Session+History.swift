import CommandLineKit
import Documents
import Foundation
import ObjectGraph
import Vacations

/// `log` and `undo`: the vacation's operation log (every vacation opened for writing keeps one;
/// `VacationLibrary.operationAuthor` names each command's operation).
extension Session {
    func log(_ name: String?, since: String?, limit: Int?) throws -> Int32 {
        let resolved = try vacationName(name)
        let operations: [LoggedOperation] = try reading(resolved) { _, document in
            let coordinator = try document.coordinator
            do {
                return try coordinator.loggedOperations(since: since, limit: limit)
            } catch let error as StoreError where since != nil {
                throw CommandFailure.usage("Invalid token '\(since ?? "")' for \"\(resolved)\": \(error.message)")
            }
        }
        if json {
            emit(.array(operations.map { operation in
                .object([
                    ("token", .string(operation.token)), ("date", .date(operation.date)), ("author", .string(operation.author)),
                    ("inserted", counts(operation.inserted)), ("updated", counts(operation.updated)),
                    ("deleted", counts(operation.deleted)),
                ])
            }))
            return ExitCode.success
        }
        var table = TextTable(columns: [.init("Token"), .init("Date"), .init("Author"), .init("Changes")])
        for operation in operations {
            var changes: [String] = []
            for (label, values) in [("inserted", operation.inserted), ("updated", operation.updated), ("deleted", operation.deleted)]
            where !values.isEmpty {
                changes.append(label + " " + values.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))
            }
            if operation.undoneBy != nil { changes.append("(undone)") }
            table.addRow([Self.shortToken(operation), Rendering.shortDate(operation.date), operation.author, changes.joined(separator: "; ")])
        }
        if !operations.isEmpty { say(table.rendered()) }
        return ExitCode.success
    }

    /// The token as a person reads it: its transaction's number, which `--since` takes too.
    private static func shortToken(_ operation: LoggedOperation) -> String {
        operation.historyToken.map { String($0.transactionNumber) } ?? operation.token
    }

    private func counts(_ values: [String: Int]) -> JSONValue {
        .object(values.sorted { $0.key < $1.key }.map { ($0.key, .integer(Int64($0.value))) })
    }

    func undo(_ name: String?) throws -> Int32 {
        let resolved = try vacationName(name)
        let document = try library.open(resolved, access: .write)
        // Undo commits in its own transaction before it returns; what is left when it fails is
        // dropped with the process, so a failing close says nothing more.
        defer { try? document.close() }
        let coordinator = try document.coordinator
        let thumbnails = ThumbnailStore(bundle: document.bundle)
        let keepsThumbnails = FileManager.default.fileExists(atPath: thumbnails.folder.path)
        let before = keepsThumbnails ? try photoIDs(in: document) : []
        guard let undone = try coordinator.undoLatestOperation(author: library.operationAuthor) else {
            throw CommandFailure.failed("Nothing to undo in the vacation \"\(resolved)\"",
                                        hint: "'vacation log' lists what changed it.")
        }
        if keepsThumbnails {
            // Photos the undo brought back get their thumbnails again on the next fetch --thumbnails.
            let restored = try photoIDs(in: document).subtracting(before).filter { thumbnails.localFile(for: $0) == nil }
            do {
                try thumbnails.markToFetch(restored.sorted())
            } catch {
                warn("cannot list the thumbnails to fetch again: \(error)")
            }
        }
        if json {
            emit(.object([
                ("vacation", .string(resolved)),
                ("undone", .object([("token", .string(undone.token)), ("author", .string(undone.author))])),
            ]))
        } else {
            say("Undid \(undone.author) (\(Self.shortToken(undone))) in \"\(resolved)\"")
        }
        return ExitCode.success
    }

    private func photoIDs(in document: ManagedDocument) throws -> Set<String> {
        let context = try document.newRootContext(name: "undo")
        let rows = try context.fetchDictionaries(DictionaryFetchRequest(entityName: "Photo", columns: [.key("unique")]))
        return Set(rows.compactMap { row in if case .string(let id)? = row["unique"] { id } else { nil } })
    }
}
