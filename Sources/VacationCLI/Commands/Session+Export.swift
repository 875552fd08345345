import CommandLineKit
import Documents
import Foundation
import ObjectGraph
import Vacations

/// `trips`, `export` (README.md, "Trips and exports").
extension Session {
    func trips(gapHours: Double, album: String?) throws -> Int32 {
        guard let gap = Trips.gap(hours: gapHours) else {
            throw CommandFailure.usage("--gap must be a positive number of hours")
        }
        let name = try vacationName()
        return try reading(name) { context, document in
            let selection = try albumSelection(album, vacation: name, in: context)
            let trips = try Trips.trips(in: document.coordinator, context: context, selection: selection, gap: gap)
            if json {
                emit(.array(trips.map { trip in
                    .object([("start", .date(trip.start)), ("end", .date(trip.end)), ("photos", .integer(Int64(trip.photos))),
                             ("places", .array(trip.places.map { .string($0) }))])
                }))
                return ExitCode.success
            }
            var table = TextTable(columns: [.init("TRIP", alignment: .right), .init("FROM"), .init("TO"),
                                            .init("PHOTOS", alignment: .right), .init("PLACES", maximumWidth: 60)])
            for (index, trip) in trips.enumerated() {
                table.addRow([String(index + 1), Rendering.shortDate(trip.start), Rendering.shortDate(trip.end), String(trip.photos),
                              trip.places.joined(separator: "; ")])
            }
            if !trips.isEmpty { say(table.rendered()) }
            return ExitCode.success
        }
    }

    /// Nothing is created before the vacation is open and the selection has run: an unknown
    /// vacation (66) or an invalid predicate (64) leaves no file behind. A file or album is
    /// written beside its destination and renamed into place, so a failure (1) leaves nothing.
    func export(_ options: VacationCommand.ExportOptions) throws -> Int32 {
        let name = try vacationName()
        return try reading(name) { context, document in
            let selection = try PhotoSelection(format: options.predicate)
                .and(try albumSelection(options.album, vacation: name, in: context))
            let thumbnails = document.bundle.additionalContentURL.appendingPathComponent("Thumbnails")
            let exporter = VacationExporter(coordinator: try document.coordinator, context: context, vacationName: name,
                                            thumbnailsFolder: thumbnails)
            return try exporter.snapshot {
                let resolved = try exporter.resolve(selection)
                if options.format == .html {
                    return try exportAlbum(exporter, resolved, to: options.destination ?? ".")
                }
                guard let destination = options.destination else {
                    let sink = environment.output
                    let output = ExportOutput { bytes in sink.write(String(decoding: bytes, as: UTF8.self)) }
                    _ = try exporter.write(options.format, resolved, to: output)
                    try output.finish()
                    return ExitCode.success
                }
                let target = path(destination).path
                let file = try AtomicFile(path: target)
                defer { file.discard() }
                let output = ExportOutput { bytes in try file.write(bytes) }
                let summary = try exporter.write(options.format, resolved, to: output)
                try output.finish()
                try file.commit()
                if json {
                    emit(.object([("vacation", .string(name)), ("format", .string(options.format.rawValue)), ("path", .string(target)),
                                  ("photos", .integer(Int64(summary.written))), ("leftOut", .integer(Int64(summary.leftOut)))]))
                } else {
                    let leftOut = summary.leftOut == 0 ? "" : " (\(Rendering.plural(summary.leftOut, "photo")) without a location left out)"
                    say("Exported \(Rendering.plural(summary.written, "photo")) to \(target)\(leftOut)")
                }
                return ExitCode.success
            }
        }
    }

    /// The photos of the smart album `name` (every photo for none); an unknown album is 66.
    private func albumSelection(_ name: String?, vacation: String, in context: ObjectContext) throws -> PhotoSelection {
        guard let name else { return .all }
        return try albumFailures(vacation: vacation) { try VacationAlbums.selection(ofAlbum: name, in: context) }
    }

    private func exportAlbum(_ exporter: VacationExporter, _ selection: ResolvedSelection, to destination: String) throws -> Int32 {
        let folder = try AlbumFolder(destination: path(destination).path)
        defer { folder.discard() }
        let gap = Trips.gap(hours: Trips.defaultGapHours) ?? 48 * 3_600
        let summary = try exporter.writeAlbum(selection, gap: gap, into: folder)
        try folder.commit()
        if json {
            emit(.object([("vacation", .string(exporter.vacationName)), ("format", .string("html")), ("path", .string(folder.destination)),
                          ("photos", .integer(Int64(summary.photos))), ("located", .integer(Int64(summary.located))),
                          ("trips", .integer(Int64(summary.trips))), ("places", .integer(Int64(summary.places))),
                          ("localThumbnails", .integer(Int64(summary.localThumbnails)))]))
        } else {
            say("Wrote the album of \(Rendering.plural(summary.photos, "photo")) (\(Rendering.plural(summary.trips, "trip")), "
                + "\(Rendering.plural(summary.places, "place"))) to \(folder.destination)/index.html")
        }
        return ExitCode.success
    }
}
