import Foundation

/// How many photos an export wrote, and how many of the selection it left out (photos
/// without a known location, in the formats that need one).
package struct ExportSummary: Sendable, Equatable {
    package var written: Int
    package var leftOut: Int

    package init(written: Int = 0, leftOut: Int = 0) {
        self.written = written
        self.leftOut = leftOut
    }
}

/// The selected photos of one store, readable in several orders (one pass per call).
struct PhotoSource {
    let reader: PhotoReader
    let selection: ResolvedSelection

    func forEach(_ order: PhotoReader.Order, _ body: (ExportPhoto) throws -> Void) throws {
        try reader.forEach(order, in: selection, body)
    }
}

/// GeoJSON (RFC 7946): a FeatureCollection with a Point `[longitude, latitude]` per located
/// photo, properties `id, title, place, tags, dateTaken, imageURL`; one feature a line.
enum GeoJSONWriter {
    static func write(_ source: PhotoSource, to output: ExportOutput) throws -> ExportSummary {
        var summary = ExportSummary()
        var dates = ISO8601Formatter()
        try output.write("{\"type\":\"FeatureCollection\",\"features\":[")
        try source.forEach(.dateTaken) { photo in
            guard let coordinate = photo.coordinate else {
                summary.leftOut += 1
                return
            }
            let tags = photo.tags.map { ExportText.json($0) }.joined(separator: ",")
            try output.write((summary.written == 0 ? "\n" : ",\n")
                + "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":["
                + ExportText.decimal(coordinate.longitude) + "," + ExportText.decimal(coordinate.latitude) + "]},"
                + "\"properties\":{\"id\":" + ExportText.json(photo.id) + ",\"title\":" + ExportText.json(photo.title)
                + ",\"place\":" + ExportText.json(photo.place) + ",\"tags\":[" + tags + "],\"dateTaken\":"
                + ExportText.json(photo.dateTaken.map { dates.string($0) }) + ",\"imageURL\":" + ExportText.json(photo.imageURL) + "}}")
            summary.written += 1
        }
        try output.write("\n]}\n")
        return summary
    }
}

/// CSV (RFC 4180): CRLF line ends, a header, one record per photo (located or not: latitude
/// and longitude empty when unknown), tags space-separated, no byte order mark.
enum CSVWriter {
    static let header = "id,title,place,tags,dateTaken,latitude,longitude,imageURL"

    static func write(_ source: PhotoSource, to output: ExportOutput) throws -> ExportSummary {
        var summary = ExportSummary()
        var dates = ISO8601Formatter()
        try output.write(header + "\r\n")
        try source.forEach(.dateTaken) { photo in
            let coordinate = photo.coordinate
            let fields = [
                photo.id, photo.title, photo.place ?? "", photo.tags.joined(separator: " "),
                photo.dateTaken.map { dates.string($0) } ?? "",
                coordinate.map { ExportText.decimal($0.latitude) } ?? "", coordinate.map { ExportText.decimal($0.longitude) } ?? "",
                photo.imageURL ?? "",
            ]
            try output.write(fields.map(ExportText.csvField).joined(separator: ",") + "\r\n")
            summary.written += 1
        }
        return summary
    }
}

/// KML 2.2: a Folder per place (places in itinerary order), a Placemark per located photo with
/// its title, time and data; photos without a place at document level, after the folders.
/// No `<description>`: map programs render it as HTML, and a title must stay text.
enum KMLWriter {
    static func write(_ source: PhotoSource, vacation: String, to output: ExportOutput) throws -> ExportSummary {
        var summary = ExportSummary()
        var dates = ISO8601Formatter()
        try output.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<kml xmlns=\"http://www.opengis.net/kml/2.2\">\n<Document>\n"
                         + "<name>\(ExportText.xml(vacation))</name>\n")
        // The place whose folder is open; photos come grouped by place, unplaced ones last.
        var openFolder: String?
        try source.forEach(.place) { photo in
            guard let coordinate = photo.coordinate else {
                summary.leftOut += 1
                return
            }
            if photo.place != openFolder {
                if openFolder != nil { try output.write("</Folder>\n") }
                if let place = photo.place { try output.write("<Folder>\n<name>\(ExportText.xml(place))</name>\n") }
                openFolder = photo.place
            }
            var placemark = "<Placemark>\n<name>\(ExportText.xml(photo.title))</name>\n"
            if let date = photo.dateTaken { placemark += "<TimeStamp><when>\(dates.string(date))</when></TimeStamp>\n" }
            placemark += "<ExtendedData>\n" + data("id", photo.id) + data("place", photo.place) + data("tags", photo.tags.joined(separator: " "))
                + data("dateTaken", photo.dateTaken.map { dates.string($0) }) + data("imageURL", photo.imageURL) + "</ExtendedData>\n"
            placemark += "<Point><coordinates>\(ExportText.decimal(coordinate.longitude)),\(ExportText.decimal(coordinate.latitude))"
                + "</coordinates></Point>\n</Placemark>\n"
            try output.write(placemark)
            summary.written += 1
        }
        if openFolder != nil { try output.write("</Folder>\n") }
        try output.write("</Document>\n</kml>\n")
        return summary
    }

    private static func data(_ name: String, _ value: String?) -> String {
        guard let value else { return "" }
        return "<Data name=\"\(name)\"><value>\(ExportText.xml(value))</value></Data>\n"
    }
}

/// GPX 1.1: a `wpt` per located photo (its time when known, title, id, place, a link to the
/// image when it is a web URL), then one `trk` with one `trkseg` through the located photos
/// that have a date taken, oldest first. Photos without a date are waypoints without time.
enum GPXWriter {
    static func write(_ source: PhotoSource, vacation: String, to output: ExportOutput) throws -> ExportSummary {
        var summary = ExportSummary()
        var dates = ISO8601Formatter()
        let name = ExportText.xml(vacation)
        try output.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                         + "<gpx version=\"1.1\" creator=\"vacation\" xmlns=\"http://www.topografix.com/GPX/1/1\" "
                         + "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
                         + "xsi:schemaLocation=\"http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd\">\n"
                         + "<metadata><name>\(name)</name></metadata>\n")
        try source.forEach(.dateTaken) { photo in
            guard let coordinate = photo.coordinate else {
                summary.leftOut += 1
                return
            }
            var waypoint = "<wpt lat=\"\(ExportText.decimal(coordinate.latitude))\" lon=\"\(ExportText.decimal(coordinate.longitude))\">"
            if let date = photo.dateTaken { waypoint += "<time>\(dates.string(date))</time>" }
            waypoint += "<name>\(ExportText.xml(photo.title))</name><cmt>\(ExportText.xml(photo.id))</cmt>"
            if let place = photo.place { waypoint += "<desc>\(ExportText.xml(place))</desc>" }
            if let link = WebLink.loadable(photo.imageURL) { waypoint += "<link href=\"\(ExportText.xml(link))\"/>" }
            try output.write(waypoint + "<type>photo</type></wpt>\n")
            summary.written += 1
        }
        try output.write("<trk><name>\(name)</name><trkseg>\n")
        try source.forEach(.datedOnly) { photo in
            guard let coordinate = photo.coordinate, let date = photo.dateTaken else { return }
            try output.write("<trkpt lat=\"\(ExportText.decimal(coordinate.latitude))\" lon=\"\(ExportText.decimal(coordinate.longitude))\">"
                             + "<time>\(dates.string(date))</time><name>\(ExportText.xml(photo.title))</name></trkpt>\n")
        }
        try output.write("</trkseg></trk>\n</gpx>\n")
        return summary
    }
}
