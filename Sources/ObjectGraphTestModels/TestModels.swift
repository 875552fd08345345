import Foundation
import ObjectGraph
import SQLiteDB
import TestSupport

// Shared by the object graph's and the Core Data files' tests (not a product).
// A small travel model: the shapes the vacations domain uses, plus one of every attribute type.

public final class Place: ManagedObject {
    @Attribute(unique: true) public var name: String = ""
    @Attribute public var firstVisited: Date?
    @Relationship(inverse: "place", deleteRule: .nullify) public var photos: Set<Photo>
}

public final class Tag: ManagedObject {
    @Attribute(unique: true) public var name: String = ""
    @Attribute public var count: Int64 = 0
    @Relationship(inverse: "tags", deleteRule: .nullify) public var photos: Set<Photo>
}

public final class Photo: ManagedObject {
    @Attribute(unique: true) public var unique: String = ""
    @Attribute public var title: String?
    @Attribute(indexed: true) public var dateTaken: Date?
    @Attribute public var latitude: Double?
    @Relationship(inverse: "photos") public var place: Place?
    @Relationship(inverse: "photos") public var tags: Set<Tag>
    @Relationship(inverse: "photo", deleteRule: .cascade) public var notes: Set<Note>
}

public final class Note: ManagedObject {
    @Attribute public var text: String = ""
    @Relationship(inverse: "notes", optional: false) public var photo: Photo?
}

public final class Trip: ManagedObject {
    @Attribute public var name: String = ""
    @Relationship(inverse: "trip", deleteRule: .deny) public var stops: Set<Stop>
}

public final class Stop: ManagedObject {
    @Attribute public var order: Int32 = 0
    @Relationship(inverse: "stops") public var trip: Trip?
}

/// Every attribute type, optional and not.
public final class Sample: ManagedObject {
    @Attribute public var text: String = "default"
    @Attribute public var optionalText: String?
    @Attribute public var flag: Bool = false
    @Attribute public var small: Int16 = 0
    @Attribute public var medium: Int32 = 0
    @Attribute public var large: Int64 = 0
    @Attribute public var native: Int = 0
    @Attribute public var double: Double = 0
    @Attribute public var float: Float = 0
    @Attribute public var decimal: Decimal = 0
    @Attribute public var date: Date?
    @Attribute public var data: Data?
    @Attribute public var uuid: UUID?
    @Attribute public var url: URL?
    @Attribute public var required: String
}

// Inheritance: one table for the whole hierarchy.
open class Media: ManagedObject {
    override public class var isAbstract: Bool { true }
    @Attribute public var caption: String?
    @Relationship(inverse: "media") public var album: Album?
}

public final class Picture: Media {
    @Attribute public var width: Int32 = 0
}

public final class Clip: Media {
    @Attribute public var seconds: Double = 0
}

public final class Album: ManagedObject {
    @Attribute public var title: String = ""
    @Relationship(inverse: "album", deleteRule: .cascade) public var media: Set<Media>
}

public enum TestModels {
    public static let travel: ObjectModel = {
        do {
            return try ObjectModel(Photo.self, Tag.self, Place.self, Note.self, Trip.self, Stop.self, Sample.self,
                                   Media.self, Picture.self, Clip.self, Album.self)
        } catch {
            preconditionFailure("test model: \(error)")
        }
    }()
}

/// A store in a fresh temporary directory.
public struct TestStore {
    public let directory: TemporaryDirectory
    public let coordinator: StoreCoordinator
    public var url: URL { coordinator.url }

    public init(model: ObjectModel = TestModels.travel, tracksHistory: Bool = false) throws {
        directory = try TemporaryDirectory()
        coordinator = try StoreCoordinator(url: directory.path("store.sqlite"), model: model, tracksHistory: tracksHistory)
    }

    public func context() -> ObjectContext { ObjectContext(coordinator: coordinator) }

    /// Runs SQL on the store's own connection.
    public func sql<T: Sendable>(_ body: (Connection) throws -> T) throws -> T { try coordinator.withConnection(body) }

    public func rows(_ query: String) throws -> [[SQLiteValue]] {
        try sql { connection in
            let statement = try connection.prepare(query)
            var rows: [[SQLiteValue]] = []
            try statement.forEachRow { row in rows.append((0..<row.columnCount).map { row.value(at: $0) }) }
            return rows
        }
    }
}
