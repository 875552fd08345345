import Foundation
import ObjectGraph
import SQLiteDB
import TestSupport

// A small travel model: the shapes the vacations domain uses, plus one of every attribute type.

final class Place: ManagedObject {
    @Attribute(unique: true) var name: String = ""
    @Attribute var firstVisited: Date?
    @Relationship(inverse: "place", deleteRule: .nullify) var photos: Set<Photo>
}

final class Tag: ManagedObject {
    @Attribute(unique: true) var name: String = ""
    @Attribute var count: Int64 = 0
    @Relationship(inverse: "tags", deleteRule: .nullify) var photos: Set<Photo>
}

final class Photo: ManagedObject {
    @Attribute(unique: true) var unique: String = ""
    @Attribute var title: String?
    @Attribute(indexed: true) var dateTaken: Date?
    @Attribute var latitude: Double?
    @Relationship(inverse: "photos") var place: Place?
    @Relationship(inverse: "photos") var tags: Set<Tag>
    @Relationship(inverse: "photo", deleteRule: .cascade) var notes: Set<Note>
}

final class Note: ManagedObject {
    @Attribute var text: String = ""
    @Relationship(inverse: "notes", optional: false) var photo: Photo?
}

final class Trip: ManagedObject {
    @Attribute var name: String = ""
    @Relationship(inverse: "trip", deleteRule: .deny) var stops: Set<Stop>
}

final class Stop: ManagedObject {
    @Attribute var order: Int32 = 0
    @Relationship(inverse: "stops") var trip: Trip?
}

/// Every attribute type, optional and not.
final class Sample: ManagedObject {
    @Attribute var text: String = "default"
    @Attribute var optionalText: String?
    @Attribute var flag: Bool = false
    @Attribute var small: Int16 = 0
    @Attribute var medium: Int32 = 0
    @Attribute var large: Int64 = 0
    @Attribute var native: Int = 0
    @Attribute var double: Double = 0
    @Attribute var float: Float = 0
    @Attribute var decimal: Decimal = 0
    @Attribute var date: Date?
    @Attribute var data: Data?
    @Attribute var uuid: UUID?
    @Attribute var url: URL?
    @Attribute var required: String
}

// Inheritance: one table for the whole hierarchy.
class Media: ManagedObject {
    override class var isAbstract: Bool { true }
    @Attribute var caption: String?
    @Relationship(inverse: "media") var album: Album?
}

final class Picture: Media {
    @Attribute var width: Int32 = 0
}

final class Clip: Media {
    @Attribute var seconds: Double = 0
}

final class Album: ManagedObject {
    @Attribute var title: String = ""
    @Relationship(inverse: "album", deleteRule: .cascade) var media: Set<Media>
}

enum TestModels {
    static let travel: ObjectModel = {
        do {
            return try ObjectModel(Photo.self, Tag.self, Place.self, Note.self, Trip.self, Stop.self, Sample.self,
                                   Media.self, Picture.self, Clip.self, Album.self)
        } catch {
            preconditionFailure("test model: \(error)")
        }
    }()
}

/// A store in a fresh temporary directory.
struct TestStore {
    let directory: TemporaryDirectory
    let coordinator: StoreCoordinator
    var url: URL { coordinator.url }

    init(model: ObjectModel = TestModels.travel) throws {
        directory = try TemporaryDirectory()
        coordinator = try StoreCoordinator(url: directory.path("store.sqlite"), model: model)
    }

    func context() -> ObjectContext { ObjectContext(coordinator: coordinator) }

    /// Runs SQL on the store's own connection.
    func sql<T: Sendable>(_ body: (Connection) throws -> T) throws -> T { try coordinator.withConnection(body) }

    func rows(_ query: String) throws -> [[SQLiteValue]] {
        try sql { connection in
            let statement = try connection.prepare(query)
            var rows: [[SQLiteValue]] = []
            try statement.forEachRow { row in rows.append((0..<row.columnCount).map { row.value(at: $0) }) }
            return rows
        }
    }
}
