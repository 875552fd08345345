import Foundation
import ObjectGraph
import SQLiteDB

/// Reads a vacation's photos for trips and exports as a stream, with plain SQL on the store's
/// connection: one statement steps through the photos in the order asked for, and each batch's
/// tags come in one more query. Nothing but the current batch is held, so a million photos
/// read in the memory of a few hundred.
///
/// Table and column names come from the model (`Entity.table`, `EntityAttribute.column`,
/// `RelationshipStorage`), never written out: a model version that renumbers the entities
/// (`Z_1TAGS` becoming `Z_2TAGS`) is read the same way, as `VacationCheck` reads it.
///
/// ```swift
/// try coordinator.withConnection { connection in
///     let reader = try PhotoReader(connection: connection, model: coordinator.model)
///     try reader.forEach(.dateTaken, in: .all) { photo in print(photo.id) }
/// }
/// ```
struct PhotoReader {
    /// The orders photos can be read in.
    enum Order: Sendable {
        /// Photos with a date taken, oldest first (ties by id as `photos` breaks them), then
        /// photos without one, by id.
        case dateTaken
        /// Only photos with a date taken, oldest first.
        case datedOnly
        /// Grouped by place, places in itinerary order (first visited first, places without a
        /// date by name), each place's photos as in `.dateTaken`; photos without a place last.
        case place
    }

    /// Photos read between two tag queries.
    static let batchSize = 512

    private let connection: Connection
    private let select: String
    private let tagsQuery: String
    private let dateColumn: String
    private let uniqueColumn: String
    private let placeColumns: (firstVisited: String, name: String)

    /// - Throws: `ExportError.notAVacation` when the model lacks what a vacation has.
    init(connection: Connection, model: ObjectModel) throws {
        guard let photo = model.entity(named: "Photo"), let tag = model.entity(named: "Tag"),
              let place = model.entity(named: "Place"),
              case .joinTable(let links, let photoColumn, let tagColumn)? = photo.relationship(named: "tags")?.storage,
              case .foreignKey(let placeKey, _)? = photo.relationship(named: "place")?.storage,
              let tagName = tag.attribute(named: "name")?.column,
              let placeName = place.attribute(named: "name")?.column,
              let firstVisited = place.attribute(named: "firstVisited")?.column else {
            throw ExportError.notAVacation
        }
        var columns: [String] = []
        for name in ["unique", "title", "subtitle", "dateTaken", "latitude", "longitude", "imageURL", "thumbnailURL"] {
            guard let column = photo.attribute(named: name)?.column else { throw ExportError.notAVacation }
            columns.append("p." + column)
        }
        self.connection = connection
        select = "SELECT p.Z_PK, \(columns.joined(separator: ", ")), pl.\(placeName) FROM \(photo.table) p "
            + "LEFT JOIN \(place.table) pl ON pl.Z_PK = p.\(placeKey)"
        tagsQuery = "SELECT j.\(photoColumn), t.\(tagName) FROM \(links) j JOIN \(tag.table) t ON t.Z_PK = j.\(tagColumn) "
            + "WHERE j.\(photoColumn) IN (SELECT value FROM json_each(?))"
        dateColumn = columns[3]
        uniqueColumn = columns[0]
        placeColumns = (firstVisited: "pl." + firstVisited, name: "pl." + placeName)
    }

    /// The SQL statements that read `order`, run one after the other.
    private func statements(_ order: Order) -> [String] {
        let dated = "\(select) WHERE \(dateColumn) IS NOT NULL ORDER BY \(dateColumn), \(uniqueColumn)"
        switch order {
        case .datedOnly:
            return [dated]
        case .dateTaken:
            return [dated, "\(select) WHERE \(dateColumn) IS NULL ORDER BY \(uniqueColumn)"]
        case .place:
            return ["\(select) ORDER BY pl.Z_PK IS NULL, \(placeColumns.firstVisited) IS NULL, \(placeColumns.firstVisited), "
                    + "\(placeColumns.name), \(dateColumn) IS NULL, \(dateColumn), \(uniqueColumn)"]
        }
    }

    /// Calls `body` with each selected photo, in `order`, tags filled in unless not wanted.
    func forEach(_ order: Order, in selection: ResolvedSelection, includingTags: Bool = true,
                 _ body: (ExportPhoto) throws -> Void) throws {
        var batch: [ExportPhoto] = []
        batch.reserveCapacity(Self.batchSize)
        for sql in statements(order) {
            let statement = try connection.prepare(sql)
            try statement.forEachRow { row in
                let key = row.int64(at: 0)
                guard selection.contains(key) else { return }
                batch.append(Self.photo(row, key: key))
                if batch.count == Self.batchSize {
                    try deliver(&batch, includingTags: includingTags, to: body)
                }
            }
        }
        try deliver(&batch, includingTags: includingTags, to: body)
    }

    private static func photo(_ row: Statement, key: Int64) -> ExportPhoto {
        ExportPhoto(
            key: key, id: row.string(at: 1) ?? "",
            title: Photo.displayTitle(title: row.string(at: 2), subtitle: row.string(at: 3)),
            place: row.string(at: 9), dateTaken: row.date(at: 4),
            latitude: row.isNull(at: 5) ? nil : row.double(at: 5), longitude: row.isNull(at: 6) ? nil : row.double(at: 6),
            imageURL: row.string(at: 7), thumbnailURL: row.string(at: 8))
    }

    /// Fills in the batch's tags (one query), hands each photo to `body`, and empties the batch.
    private func deliver(_ batch: inout [ExportPhoto], includingTags: Bool, to body: (ExportPhoto) throws -> Void) throws {
        guard !batch.isEmpty else { return }
        guard includingTags else {
            for photo in batch { try body(photo) }
            batch.removeAll(keepingCapacity: true)
            return
        }
        let keys = "[" + batch.map { String($0.key) }.joined(separator: ",") + "]"
        var tags: [Int64: [String]] = [:]
        let statement = try connection.cachedStatement(tagsQuery)
        statement.bind([.text(keys)])
        try statement.forEachRow { row in
            tags[row.int64(at: 0), default: []].append(row.string(at: 1) ?? "")
        }
        for var photo in batch {
            photo.tags = tags[photo.key]?.sorted() ?? []
            try body(photo)
        }
        batch.removeAll(keepingCapacity: true)
    }
}
