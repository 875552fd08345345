import Foundation
import ObjectGraph
import Testing
import TestSupport
@testable import Vacations

/// Each format written from hostile data and read back by Python's parsers, field by field.
@Suite("Exports read back by independent parsers, hostile text included")
struct ExportFormatTests {
    static let hostileTitle = "<script>alert(\"x\")</script> & ]]> 'q' </name>"
    static let controlTitle = "bell\u{07}nul\u{0}tab\tcr\rlf\nend \u{202E}evil\u{200F} \u{FFFE}"
    static let cafe = "Café \"Zé\" <Lisboa> & Co, ]]>"
    static let start = Date.utc("2023-04-01T10:15:00Z")

    /// Seven photos: two places, hostile text, 0,0, no location, no date, no title.
    static func fill(_ harness: ExportHarness) throws {
        try harness.add([
            PhotoDraft(id: "7", title: "Zürich 早上好", imageURL: "https://example.com/7.jpg",
                       dateTaken: start.addingTimeInterval(-864_000), latitude: 47.3769, longitude: 8.5417, tags: ["lake"],
                       placeName: "Zürich"),
            PhotoDraft(id: "1", title: hostileTitle, imageURL: "javascript:alert(1)", dateTaken: start,
                       latitude: 38.7, longitude: -9.1, tags: ["<b>", "a\"b", "x,y"], placeName: cafe),
            PhotoDraft(id: "2", title: controlTitle, imageURL: "https://example.com/2.jpg?a=1&b=2",
                       dateTaken: start.addingTimeInterval(3_600), latitude: 0.00001, longitude: -0.5, placeName: cafe),
            PhotoDraft(id: "3", title: "null island", dateTaken: start.addingTimeInterval(7_200), latitude: 0, longitude: 0,
                       placeName: cafe),
            PhotoDraft(id: "4", title: "nowhere, never"),
            PhotoDraft(id: "5", title: "", subtitle: "desc line\nsecond", latitude: -33.8568, longitude: 151.2153),
        ])
    }

    @Test("GeoJSON: a Point [longitude, latitude] per located photo, properties exactly as stored, 0,0 and no location left out")
    func geoJSON() throws {
        let harness = try ExportHarness()
        try Self.fill(harness)
        let (text, summary) = try harness.export(.geojson)
        #expect(summary == ExportSummary(written: 4, leftOut: 2))
        let document = try PythonReader.read(text, as: "geojson")
        #expect(document["type"] as? String == "FeatureCollection")
        let features = try #require(document["features"] as? [[String: Any]])
        #expect(features.count == 4)
        let coordinates = features.map { (($0["geometry"] as? [String: Any])?["coordinates"] as? [Double]) ?? [] }
        #expect(coordinates == [[8.5417, 47.3769], [-9.1, 38.7], [-0.5, 0.00001], [151.2153, -33.8568]])
        #expect(features.allSatisfy { ($0["geometry"] as? [String: Any])?["type"] as? String == "Point" && $0["type"] as? String == "Feature" })
        let properties = features.map { $0["properties"] as? [String: Any] ?? [:] }
        #expect(properties.map { $0["id"] as? String } == ["7", "1", "2", "5"])
        #expect(properties.map { $0["title"] as? String } == ["Zürich 早上好", Self.hostileTitle, Self.controlTitle, "desc line"])
        #expect(properties.map { $0["place"] as? String } == ["Zürich", Self.cafe, Self.cafe, nil])
        #expect(properties[3]["place"] is NSNull)
        #expect(properties.map { $0["tags"] as? [String] } == [["lake"], ["<b>", "a\"b", "x,y"], [], []])
        #expect(properties.map { $0["dateTaken"] as? String } == ["2023-03-22T10:15:00Z", "2023-04-01T10:15:00Z", "2023-04-01T11:15:00Z", nil])
        #expect(properties.map { $0["imageURL"] as? String } == ["https://example.com/7.jpg", "javascript:alert(1)",
                                                                 "https://example.com/2.jpg?a=1&b=2", nil])
        #expect(properties.allSatisfy { Set($0.keys) == ["id", "title", "place", "tags", "dateTaken", "imageURL"] })
        #expect(!text.contains("e-05"))
    }

    @Test("CSV: RFC 4180 with CRLF, the header, every photo (empty location when unknown), text exactly as stored")
    func csv() throws {
        let harness = try ExportHarness()
        try Self.fill(harness)
        let (text, summary) = try harness.export(.csv)
        #expect(summary == ExportSummary(written: 6, leftOut: 0))
        #expect(text.hasPrefix("id,title,place,tags,dateTaken,latitude,longitude,imageURL\r\n"))
        let document = try PythonReader.read(text, as: "csv")
        #expect(document["bom"] as? Bool == false)
        #expect(document["endsWithCRLF"] as? Bool == true)
        let rows = try #require(document["rows"] as? [[String]])
        #expect(rows == [
            ["id", "title", "place", "tags", "dateTaken", "latitude", "longitude", "imageURL"],
            ["7", "Zürich 早上好", "Zürich", "lake", "2023-03-22T10:15:00Z", "47.3769", "8.5417", "https://example.com/7.jpg"],
            ["1", Self.hostileTitle, Self.cafe, "<b> a\"b x,y", "2023-04-01T10:15:00Z", "38.7", "-9.1", "javascript:alert(1)"],
            ["2", Self.controlTitle, Self.cafe, "", "2023-04-01T11:15:00Z", "0.00001", "-0.5", "https://example.com/2.jpg?a=1&b=2"],
            ["3", "null island", Self.cafe, "", "2023-04-01T12:15:00Z", "", "", ""],
            ["4", "nowhere, never", "", "", "", "", "", ""],
            ["5", "desc line", "", "", "", "-33.8568", "151.2153", ""],
        ])
        // Every line break outside quoted fields is CRLF: the text without quoted fields has no lone LF.
        var outside = "", quoted = false
        for character in text.unicodeScalars {
            if character == "\"" { quoted.toggle() } else if !quoted { outside.unicodeScalars.append(character) }
        }
        #expect(outside.replacingOccurrences(of: "\r\n", with: "").contains { $0 == "\n" || $0 == "\r" } == false)
    }

    @Test("KML 2.2: a Folder per place in itinerary order, unplaced photos at document level after them, text escaped")
    func kml() throws {
        let harness = try ExportHarness()
        try Self.fill(harness)
        let (text, summary) = try harness.export(.kml)
        #expect(summary == ExportSummary(written: 4, leftOut: 2))
        let document = try PythonReader.read(text, as: "kml")
        #expect(document["root"] as? String == "{http://www.opengis.net/kml/2.2}kml")
        #expect(document["name"] as? String == harness.name)
        #expect(document["order"] as? [String] == ["name", "Folder", "Folder", "Placemark"])
        let folders = try #require(document["folders"] as? [[String: Any]])
        #expect(folders.map { $0["name"] as? String } == ["Zürich", Self.cafe])
        let placemarks = folders.flatMap { $0["placemarks"] as? [[String: Any]] ?? [] } + (document["placemarks"] as? [[String: Any]] ?? [])
        #expect(placemarks.map { $0["name"] as? String } == ["Zürich 早上好", Self.hostileTitle, Self.replacingInvalidXML(Self.controlTitle),
                                                             "desc line"])
        #expect(placemarks.map { $0["coordinates"] as? String } == ["8.5417,47.3769", "-9.1,38.7", "-0.5,0.00001", "151.2153,-33.8568"])
        #expect(placemarks.map { $0["when"] as? String } == ["2023-03-22T10:15:00Z", "2023-04-01T10:15:00Z", "2023-04-01T11:15:00Z", nil])
        let data = placemarks.map { $0["data"] as? [String: String] ?? [:] }
        #expect(data[1] == ["id": "1", "place": Self.cafe, "tags": "<b> a\"b x,y", "dateTaken": "2023-04-01T10:15:00Z",
                            "imageURL": "javascript:alert(1)"])
        #expect(data[3] == ["id": "5", "tags": ""])
        // KML 2.2's schema order within a Placemark.
        #expect(placemarks.allSatisfy { ($0["children"] as? [String]).map { $0 == ["name", "TimeStamp", "ExtendedData", "Point"]
            || $0 == ["name", "ExtendedData", "Point"] } ?? false })
    }

    @Test("GPX 1.1: a wpt per located photo (time when known), then one trk with one trkseg through the dated ones")
    func gpx() throws {
        let harness = try ExportHarness()
        try Self.fill(harness)
        let (text, summary) = try harness.export(.gpx)
        #expect(summary == ExportSummary(written: 4, leftOut: 2))
        let document = try PythonReader.read(text, as: "gpx")
        #expect(document["root"] as? String == "{http://www.topografix.com/GPX/1/1}gpx")
        #expect(document["version"] as? String == "1.1")
        #expect(document["name"] as? String == harness.name)
        #expect(document["order"] as? [String] == ["metadata", "wpt", "wpt", "wpt", "wpt", "trk"])
        let waypoints = try #require(document["waypoints"] as? [[String: Any]])
        #expect(waypoints.map { $0["lat"] as? String } == ["47.3769", "38.7", "0.00001", "-33.8568"])
        #expect(waypoints.map { $0["lon"] as? String } == ["8.5417", "-9.1", "-0.5", "151.2153"])
        #expect(waypoints.map { $0["time"] as? String } == ["2023-03-22T10:15:00Z", "2023-04-01T10:15:00Z", "2023-04-01T11:15:00Z", nil])
        #expect(waypoints.map { $0["name"] as? String } == ["Zürich 早上好", Self.hostileTitle, Self.replacingInvalidXML(Self.controlTitle),
                                                            "desc line"])
        #expect(waypoints.map { $0["cmt"] as? String } == ["7", "1", "2", "5"])
        #expect(waypoints.map { $0["desc"] as? String } == ["Zürich", Self.cafe, Self.cafe, nil])
        // Only web links become links: `javascript:` stays out.
        #expect(waypoints.map { $0["link"] as? String } == ["https://example.com/7.jpg", nil, "https://example.com/2.jpg?a=1&b=2", nil])
        let tracks = try #require(document["tracks"] as? [[[[String: Any]]]])
        #expect(tracks.count == 1)
        #expect(tracks.first?.count == 1)
        let points = tracks.first?.first ?? []
        #expect(points.map { $0["time"] as? String } == ["2023-03-22T10:15:00Z", "2023-04-01T10:15:00Z", "2023-04-01T11:15:00Z"])
        #expect(points.map { $0["lat"] as? String } == ["47.3769", "38.7", "0.00001"])
        // GPX 1.1's schema order within a wpt.
        #expect(waypoints.allSatisfy { ($0["children"] as? [String]).map { children in
            let order = ["time", "name", "cmt", "desc", "link", "type"]
            return children.map { order.firstIndex(of: $0) ?? -1 } == children.map { order.firstIndex(of: $0) ?? -1 }.sorted()
                && !children.contains { order.firstIndex(of: $0) == nil }
        } ?? false })
    }

    @Test("an empty vacation exports an empty collection, a header, an empty document and an empty track")
    func empty() throws {
        let harness = try ExportHarness()
        #expect(try harness.export(.geojson).text == "{\"type\":\"FeatureCollection\",\"features\":[\n]}\n")
        #expect(try harness.export(.csv).text == "id,title,place,tags,dateTaken,latitude,longitude,imageURL\r\n")
        let kml = try PythonReader.read(try harness.export(.kml).text, as: "kml")
        #expect(kml["order"] as? [String] == ["name"])
        let gpx = try PythonReader.read(try harness.export(.gpx).text, as: "gpx")
        #expect(gpx["order"] as? [String] == ["metadata", "trk"])
    }

    @Test("--where selects: only matching photos are exported; an invalid predicate is a QueryError")
    func selection() throws {
        let harness = try ExportHarness()
        try Self.fill(harness)
        let document = try PythonReader.read(try harness.export(.csv, where: "ANY tags.name == 'x,y' OR unique == '4'").text, as: "csv")
        #expect((document["rows"] as? [[String]])?.map { $0[0] } == ["id", "1", "4"])
        for bad in ["title ==", "nosuchkey == 1", "title > 3 AND"] {
            #expect(throws: QueryError.self) { try harness.export(.csv, where: bad) }
        }
    }

    /// What XML carries of a text: U+FFFD for the characters XML 1.0 cannot hold.
    static func replacingInvalidXML(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            (scalar.value < 0x20 && !["\t", "\n", "\r"].contains(scalar)) || scalar.value == 0xFFFE ? "\u{FFFD}" : scalar
        }))
    }
}
