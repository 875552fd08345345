import CommandLineKit
import Documents
import Foundation
import Vacations

/// `sync [NAME] --folder DIR` (README.md, "Sync between machines").
extension Session {
    func sync(_ options: VacationCommand.SyncOptions) throws -> Int32 {
        let folder = path(options.folder)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandFailure.notFound("No such folder: \(options.folder)", hint: "Give --folder the shared folder; it must exist.")
        }
        let name = try vacationName(options.name)
        let device: String
        do {
            device = try SyncDevice.id(inLibrary: library.url)
        } catch let error as SyncError {
            throw CommandFailure.failed(error.description)
        }
        let document = try library.open(name, access: .write, creating: true)
        // Each command saves before it returns (`document.save()`, which throws); what is left
        // when it fails is dropped with the process, so a failing close says nothing more.
        defer { try? document.close() }
        let report: SyncReport
        do {
            report = try VacationSync(folder: folder, vacation: name, device: device, now: environment.now(), prune: options.prune)
                .run(coordinator: document.coordinator)
        } catch let error as SyncError {
            if case .noFolder = error.kind { throw CommandFailure.notFound(error.description) }
            throw CommandFailure.failed(error.description)
        }
        try document.save()
        removeThumbnails(of: report.unvisited, in: document)
        let thumbnails = ThumbnailStore(bundle: document.bundle)
        if !report.arrived.isEmpty && FileManager.default.fileExists(atPath: thumbnails.folder.path) {
            // Thumbnails do not travel: in a vacation that keeps them, the photos other devices
            // brought get theirs on the next fetch --thumbnails, as photos an undo brings back do.
            do {
                try thumbnails.markToFetch(report.arrived.filter { thumbnails.localFile(for: $0) == nil }.sorted())
            } catch {
                warn("cannot list the thumbnails to fetch: \(error)")
            }
        }
        for problem in report.unsent.sorted() {
            warn("not sent, as other devices would refuse it: \(problem)")
        }
        for note in report.incomplete {
            warn("\(note.path): not whole yet (\(note.reason)); left for a later sync")
        }
        for note in report.refused {
            environment.errors.write("Error: \(TextTable.sanitized("\(note.path): skipped: \(note.reason)"))\n")
        }
        if json {
            func notes(_ list: [SyncReport.FileNote]) -> JSONValue {
                .array(list.map { .object([("path", .string($0.path)), ("reason", .string($0.reason))]) })
            }
            emit(.object([
                ("vacation", .string(name)),
                ("sent", .integer(Int64(report.sent))), ("received", .integer(Int64(report.received))),
                ("applied", .integer(Int64(report.applied))), ("files", .integer(Int64(report.files))),
                ("pruned", .integer(Int64(report.pruned))),
                ("device", .string(device)),
                ("refused", notes(report.refused)), ("incomplete", notes(report.incomplete)),
            ]))
        } else {
            say("\(name): sent \(Rendering.plural(report.sent, "change")), received \(Rendering.plural(report.received, "change")) "
                + "in \(Rendering.plural(report.files, "file")), applied \(report.applied)"
                + (options.prune ? "; pruned \(Rendering.plural(report.pruned, "older file"))" : ""))
        }
        return report.refused.isEmpty ? ExitCode.success : ExitCode.badInput
    }
}
