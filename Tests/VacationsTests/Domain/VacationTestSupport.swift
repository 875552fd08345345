import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport
@testable import Vacations

// Swift Testing has a `Tag` of its own.
typealias Tag = Vacations.Tag

/// A vacation store in a fresh temporary directory.
struct VacationStore {
    let directory: TemporaryDirectory
    let coordinator: StoreCoordinator
    /// Kept alive so that objects fetched through it can still reach their relationships.
    private let reader: ObjectContext

    init() throws {
        directory = try TemporaryDirectory()
        coordinator = try StoreCoordinator(url: directory.path("persistentStore"), model: VacationModel.model)
        reader = ObjectContext(coordinator: coordinator)
    }

    /// A context that reads the store afresh (objects it gave out before are let go).
    func context() -> ObjectContext {
        reader.reset()
        return reader
    }

    func importFeeds(_ paths: [URL], rules: DraftRules = DraftRules(), chunkSize: Int = 2_000) -> ImportReport {
        var importer = FeedImporter(coordinator: coordinator)
        importer.chunkSize = chunkSize
        return importer.importFeeds(paths.map { .file($0) }, rules: rules, now: Date(timeIntervalSinceReferenceDate: 700_000_000))
    }

    func problems() throws -> [String] { try VacationCheck.problems(in: coordinator) }

    /// Everything the vacation holds, a line each: photos (with their keys when `keys`, for two
    /// stores built alike, which hand out the same keys), tags with counts, places with first
    /// visits.
    func contentLines(keys: Bool = false) throws -> [String] {
        let context = context()
        let photos = try context.fetch(FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("unique")])).map { photo -> String in
            let identity: [String] = keys ? [photo.unique, "\(photo.objectID)"] : [photo.unique]
            let values: [String] = [
                photo.title ?? "-", photo.subtitle ?? "-", photo.imageURL ?? "-", photo.thumbnailURL ?? "-", photo.owner ?? "-",
                "\(photo.dateTaken?.timeIntervalSinceReferenceDate ?? -1)", "\(photo.dateUploaded?.timeIntervalSinceReferenceDate ?? -1)",
                "\(photo.latitude ?? 999)", "\(photo.longitude ?? 999)", photo.media ?? "-",
                "\(photo.visited?.timeIntervalSinceReferenceDate ?? -1)", photo.place?.name ?? "-", photo.tagNames.joined(separator: ","),
            ]
            return (identity + values).joined(separator: "|")
        }
        let tags = try context.fetch(FetchRequest<Tag>(sortedBy: [ObjectSortDescriptor("name")])).map { "\($0.name)=\($0.count)" }
        let places = try context.fetch(FetchRequest<Place>(sortedBy: [ObjectSortDescriptor("name")])).map { place in
            "\(place.name)|\(place.placeID ?? "-")|\(place.firstVisited?.timeIntervalSinceReferenceDate ?? -1)"
        }
        return photos + tags + places
    }

    func photos() throws -> [Photo] {
        try context().fetch(FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("unique")]))
    }

    /// Tag name → count, as stored.
    func tagCounts() throws -> [String: Int64] {
        Dictionary(uniqueKeysWithValues: try context().fetch(FetchRequest<Tag>()).map { ($0.name, $0.count) })
    }

    /// Place name → number of photos, as stored.
    func placePhotoCounts() throws -> [String: Int] {
        Dictionary(uniqueKeysWithValues: try context().fetch(FetchRequest<Place>()).map { ($0.name, $0.photos.count) })
    }

    func count(_ sql: String) throws -> Int64 {
        try coordinator.withConnection { try $0.scalar(sql)?.integerValue ?? -1 }
    }
}

enum SampleFeeds {
    /// A file of the repository's `SampleData/` folder.
    static func url(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("SampleData").appendingPathComponent(name)
    }

    static func fixture(_ name: String) throws -> URL { try Feeds.fixtureURL(name) }
}
