import CommandLineKit
import Documents
import Foundation
import ObjectGraph
import Vacations

/// `backup`, `backups`, `restore`.
extension Session {
    private func json(_ backup: BackupInfo) -> JSONValue {
        .object([("name", .string(backup.name)), ("path", .string(backup.url.path)), ("created", .date(backup.created)),
                 ("bytes", .integer(backup.bytes)), ("vacation", .string(backup.documentName))])
    }

    private func progressBar(_ label: String) -> ((CopyProgress) -> Void)? {
        guard environment.errorsIsTerminal else { return nil }
        var bar: ProgressBar<SinkStream>?
        let environment = self.environment
        return { progress in
            if bar == nil {
                bar = ProgressBar(total: progress.totalPages, label: label, output: SinkStream(sink: environment.errors),
                                  isTerminal: true, width: environment.terminalWidth)
            }
            bar?.update(completed: progress.pagesCopied)
            if progress.pagesCopied >= progress.totalPages { bar?.finish() }
        }
    }

    func backup(_ name: String?, to destination: String?, keep: Int?) throws -> Int32 {
        let resolved = try vacationName(name)
        guard try library.exists(resolved) else { throw DocumentError(.notFound, .document(resolved)) }
        let folder = destination.map { path($0) }
        if let folder {
            // A folder that cannot be made fails the backup below, with the reason.
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        let info = try library.documents.backup(resolved, to: folder, keeping: keep, progress: progressBar("backup"))
        if json {
            emit(json(info))
        } else {
            say("Backed up \"\(resolved)\" as \(info.name) (\(Rendering.size(info.bytes))): \(info.url.path)")
        }
        return ExitCode.success
    }

    func backups(_ name: String?) throws -> Int32 {
        let resolved = try vacationName(name)
        let list = try library.documents.backups(of: resolved)
        guard try library.exists(resolved) || !list.isEmpty else { throw DocumentError(.notFound, .document(resolved)) }
        if json {
            emit(.array(list.map(json)))
            return ExitCode.success
        }
        var table = TextTable(columns: [.init("NAME"), .init("CREATED"), .init("SIZE", alignment: .right), .init("PATH")])
        for backup in list { table.addRow([backup.name, Rendering.shortDate(backup.created), Rendering.size(backup.bytes), backup.url.path]) }
        if !list.isEmpty { say(table.rendered()) }
        return ExitCode.success
    }

    func restore(_ reference: String, as newName: String?, force: Bool) throws -> Int32 {
        let target = try newName.map { try DocumentName($0).rawValue }
        let isPath = reference.contains("/")
        let info = try library.documents.locateBackup(isPath ? path(reference).path : reference,
                                                      of: isPath ? nil : globals.vacation.map { try library.resolve($0) })
        let destination = target ?? info.documentName
        let exists = try library.exists(destination)
        if exists && !force {
            throw CommandFailure.failed("A vacation \"\(destination)\" already exists",
                                    hint: "Give --force to replace it with the backup, or --as NAME to restore under another name.")
        }
        let restored = try library.documents.restore(info, as: destination, replacing: exists, wait: library.wait,
                                                     progress: progressBar("restore"))
        if json {
            emit(.object([("vacation", .string(restored)), ("backup", .string(info.name)), ("replaced", .bool(exists))]))
        } else {
            say("Restored \(info.name) as \"\(restored)\"\(exists ? ", replacing the vacation that had that name" : "").")
        }
        return ExitCode.success
    }
}
