import Foundation
import ObjectGraph
import SQLiteDB

/// `vacation export`: a vacation's photos as GeoJSON, KML, GPX, CSV or an HTML album.
///
/// Everything an export reads comes from one read transaction (`snapshot`), so that the
/// selection and every pass over the photos see the same vacation even while another process
/// writes to it. Exports only read: the vacation is never changed.
///
/// ```swift
/// let exporter = VacationExporter(coordinator: document.coordinator, context: context, vacationName: "Lisbon")
/// try exporter.snapshot {
///     let selection = try exporter.resolve(PhotoSelection(format: "place.name BEGINSWITH 'Lisbon'"))
///     let output = ExportOutput { bytes in FileHandle.standardOutput.write(Data(bytes)) }
///     _ = try exporter.write(.gpx, selection, to: output)
///     try output.finish()
/// }
/// ```
package struct VacationExporter {
    package let coordinator: StoreCoordinator
    package let context: ObjectContext
    package let vacationName: String
    /// The vacation's `AdditionalContent/Thumbnails` folder, where local thumbnails are kept.
    package let thumbnailsFolder: URL?

    package init(coordinator: StoreCoordinator, context: ObjectContext, vacationName: String, thumbnailsFolder: URL? = nil) {
        self.coordinator = coordinator
        self.context = context
        self.vacationName = vacationName
        self.thumbnailsFolder = thumbnailsFolder
    }

    /// Runs `body` inside one read transaction on the store.
    package func snapshot<T>(_ body: () throws -> T) throws -> T {
        try coordinator.withConnection { try $0.execute("BEGIN DEFERRED TRANSACTION") }
        defer {
            // Ending a transaction that only read cannot lose anything, whatever the outcome.
            try? coordinator.withConnection { try $0.execute("COMMIT") }
        }
        return try body()
    }

    /// Runs a selection against the store.
    ///
    /// - Throws: `QueryError` for a predicate the model or the store refuses.
    package func resolve(_ selection: PhotoSelection) throws -> ResolvedSelection {
        try selection.resolve(in: context)
    }

    /// Writes the selected photos in a data format (not `.html`: an album is a folder).
    package func write(_ format: ExportFormat, _ selection: ResolvedSelection, to output: ExportOutput) throws -> ExportSummary {
        let name = vacationName
        return try coordinator.withConnection { connection in
            let source = PhotoSource(reader: try PhotoReader(connection: connection, model: coordinator.model), selection: selection)
            switch format {
            case .geojson: return try GeoJSONWriter.write(source, to: output)
            case .csv: return try CSVWriter.write(source, to: output)
            case .kml: return try KMLWriter.write(source, vacation: name, to: output)
            case .gpx: return try GPXWriter.write(source, vacation: name, to: output)
            case .html: throw ExportError.cannotWrite(path: "standard output", reason: "an HTML album is a folder: give --to DIR")
            }
        }
    }

    /// Writes the HTML album of the selected photos into `folder` (the caller commits it).
    package func writeAlbum(_ selection: ResolvedSelection, gap: TimeInterval, into folder: AlbumFolder) throws -> AlbumSummary {
        var thumbnails: String?
        if let path = thumbnailsFolder?.path, AlbumFolder.kind(at: path) == S_IFDIR { thumbnails = path }
        let writer = AlbumWriter(vacation: vacationName, gap: gap, thumbnailsFolder: thumbnails)
        return try coordinator.withConnection { connection in
            let source = PhotoSource(reader: try PhotoReader(connection: connection, model: coordinator.model), selection: selection)
            return try writer.write(source, into: folder)
        }
    }
}
