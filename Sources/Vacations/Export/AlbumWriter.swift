import Foundation

/// What an HTML album holds.
package struct AlbumSummary: Sendable, Equatable {
    package var photos = 0
    /// Photos with a known location: the map's points.
    package var located = 0
    package var trips = 0
    package var places = 0
    /// Thumbnails copied from the vacation into the album (the others load from Flickr).
    package var localThumbnails = 0

    package init() {}
}

/// `export html`: `index.html` with the itinerary map (inline SVG), the trips, the places and
/// every selected photo (thumbnail, title, date, place) grouped by trip, photos without a
/// date last. Plain HTML and CSS: no script, no font or style sheet to load; a Content
/// Security Policy forbids any load but images, so even a mistake here could not run code.
struct AlbumWriter {
    let vacation: String
    let gap: TimeInterval
    /// The vacation's `AdditionalContent/Thumbnails` folder, when it is a real folder.
    let thumbnailsFolder: String?

    /// What the first pass learns, before anything is written.
    private struct Overview {
        var photos = 0
        var located = 0
        var routePoints = 0
        var undated = 0
        var bounds = MapBounds()
        var trips: [Trip] = []
        /// Places in the order their photos first appear (oldest first), with counts.
        var placeOrder: [String] = []
        var places: [String: (photos: Int, first: Date?, coordinate: Coordinate?)] = [:]
    }

    /// Place names shown on the map, at most: more would only cover each other.
    static let mapLabelLimit = 40

    func write(_ source: PhotoSource, into folder: AlbumFolder) throws -> AlbumSummary {
        let overview = try survey(source)
        let (output, close) = try folder.fileOutput(named: "index.html")
        var summary = AlbumSummary()
        summary.photos = overview.photos
        summary.located = overview.located
        summary.trips = overview.trips.count
        summary.places = overview.placeOrder.count
        try writeHead(overview, to: output)
        try writeMap(overview, source, to: output)
        try writeTrips(overview, to: output)
        try writePlaces(overview, to: output)
        summary.localThumbnails = try writePhotos(overview, source, folder: folder, to: output)
        try output.write("<footer><p>Made with <code>vacation export html</code>.</p></footer>\n</body>\n</html>\n")
        try close()
        return summary
    }

    // MARK: First pass

    private func survey(_ source: PhotoSource) throws -> Overview {
        var overview = Overview()
        var builder = TripBuilder(gap: gap)
        try source.forEach(.dateTaken) { photo in
            overview.photos += 1
            let coordinate = photo.coordinate
            if let coordinate {
                overview.located += 1
                overview.bounds.include(coordinate)
                if photo.dateTaken != nil { overview.routePoints += 1 }
            }
            if let date = photo.dateTaken {
                if let ended = builder.add(dateTaken: date, place: photo.place) { overview.trips.append(ended) }
            } else {
                overview.undated += 1
            }
            if let place = photo.place {
                if var entry = overview.places[place] {
                    entry.photos += 1
                    if entry.coordinate == nil { entry.coordinate = coordinate }
                    overview.places[place] = entry
                } else {
                    overview.placeOrder.append(place)
                    overview.places[place] = (1, photo.dateTaken, coordinate)
                }
            }
        }
        if let last = builder.finish() { overview.trips.append(last) }
        return overview
    }

    // MARK: Sections

    private func writeHead(_ overview: Overview, to output: ExportOutput) throws {
        let name = ExportText.html(vacation)
        try output.write("""
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src 'self' file: data: http: https:; style-src 'unsafe-inline'">
            <meta name="referrer" content="no-referrer">
            <meta name="generator" content="vacation export html">
            <title>\(name)</title>
            <style>\(Self.style)</style>
            </head>
            <body>
            <header><h1><bdi>\(name)</bdi></h1>
            <p class="summary">\(Self.count(overview.photos, "photo")) · \(Self.count(overview.trips.count, "trip")) · \(Self.count(overview.placeOrder.count, "place"))\(span(overview))</p></header>

            """)
    }

    private func span(_ overview: Overview) -> String {
        guard let first = overview.trips.first?.start, let last = overview.trips.last?.end else { return "" }
        return " · " + Self.time(first, day: true) + " – " + Self.time(last, day: true)
    }

    private func writeMap(_ overview: Overview, _ source: PhotoSource, to output: ExportOutput) throws {
        let frame = MapFrame(bounds: overview.bounds)
        let width = MapFrame.oneDecimal(MapFrame.width), height = MapFrame.oneDecimal(frame.height)
        try output.write("<section id=\"map\"><h2>Itinerary</h2>\n"
                         + "<svg class=\"map\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(width) \(height)\" role=\"img\" "
                         + "aria-labelledby=\"map-title\"><title id=\"map-title\">Map of \(Self.count(overview.located, "photo")) "
                         + "with a location</title>\n<rect class=\"sea\" width=\"\(width)\" height=\"\(height)\"/>\n")
        if overview.located == 0 {
            try output.write("<text class=\"empty\" x=\"\(MapFrame.oneDecimal(MapFrame.width / 2))\" "
                             + "y=\"\(MapFrame.oneDecimal(frame.height / 2))\">No photo here has a location</text>\n")
        }
        if overview.routePoints >= 2 {
            try output.write("<polyline class=\"route\" points=\"")
            var written = 0
            try source.forEach(.datedOnly) { photo in
                guard let coordinate = photo.coordinate else { return }
                let (x, y) = frame.text(coordinate)
                try output.write((written % 8 == 0 ? "\n" : " ") + x + "," + y)
                written += 1
            }
            try output.write("\"/>\n")
        }
        try output.write("<g class=\"points\">\n")
        try source.forEach(.dateTaken) { photo in
            guard let coordinate = photo.coordinate else { return }
            let (x, y) = frame.text(coordinate)
            try output.write("<circle class=\"point\" cx=\"\(x)\" cy=\"\(y)\" r=\"5\"><title>\(ExportText.html(photo.title))</title></circle>\n")
        }
        try output.write("</g>\n<g class=\"labels\">\n")
        var placed: [(x: Double, y: Double)] = []
        for place in overview.placeOrder where placed.count < Self.mapLabelLimit {
            guard let coordinate = overview.places[place]?.coordinate else { continue }
            let (x, y) = frame.point(coordinate)
            // A label near one already drawn would cover it: the earlier place keeps its label.
            guard !placed.contains(where: { abs($0.x - x) < 90 && abs($0.y - y) < 16 }) else { continue }
            placed.append((x, y))
            // Labels stay inside the view box: to the left of points near the right edge.
            let anchor = x > MapFrame.width * 0.75 ? "end" : "start"
            let offset = anchor == "end" ? -8.0 : 8.0
            try output.write("<text x=\"\(MapFrame.oneDecimal(x + offset))\" y=\"\(MapFrame.oneDecimal(y + 4.5))\" text-anchor=\"\(anchor)\">"
                             + "\(ExportText.html(Self.shortPlace(place)))</text>\n")
        }
        try output.write("</g>\n</svg></section>\n")
    }

    private func writeTrips(_ overview: Overview, to output: ExportOutput) throws {
        try output.write("<section id=\"trips\"><h2>Trips</h2>\n")
        guard !overview.trips.isEmpty else { return try output.write("<p>No photo here has a date taken.</p></section>\n") }
        try output.write("<table><thead><tr><th>Trip</th><th>From</th><th>To</th><th>Photos</th><th>Places</th></tr></thead><tbody>\n")
        for (index, trip) in overview.trips.enumerated() {
            let places = trip.places.map { "<bdi>\(ExportText.html($0))</bdi>" }.joined(separator: "; ")
            try output.write("<tr><td><a href=\"#trip-\(index + 1)\">\(index + 1)</a></td><td>\(Self.timeElement(trip.start))</td>"
                             + "<td>\(Self.timeElement(trip.end))</td><td class=\"number\">\(trip.photos)</td><td>\(places)</td></tr>\n")
        }
        try output.write("</tbody></table></section>\n")
    }

    private func writePlaces(_ overview: Overview, to output: ExportOutput) throws {
        try output.write("<section id=\"places\"><h2>Places</h2>\n")
        guard !overview.placeOrder.isEmpty else { return try output.write("<p>No photo here has a place.</p></section>\n") }
        try output.write("<table><thead><tr><th>Place</th><th>Photos</th><th>First photo</th></tr></thead><tbody>\n")
        for place in overview.placeOrder {
            guard let entry = overview.places[place] else { continue }
            try output.write("<tr><td><bdi>\(ExportText.html(place))</bdi></td><td class=\"number\">\(entry.photos)</td>"
                             + "<td>\(entry.first.map { Self.timeElement($0) } ?? "")</td></tr>\n")
        }
        try output.write("</tbody></table></section>\n")
    }

    /// The photo cards, a section per trip, then one for photos without a date; returns how
    /// many thumbnails were copied in.
    private func writePhotos(_ overview: Overview, _ source: PhotoSource, folder: AlbumFolder, to output: ExportOutput) throws -> Int {
        var tripIndex = 0
        var leftInTrip = 0
        var inUndated = false
        var copied = 0
        try source.forEach(.dateTaken) { photo in
            if photo.dateTaken != nil, leftInTrip == 0, tripIndex < overview.trips.count {
                if tripIndex > 0 { try output.write("</ul></section>\n") }
                let trip = overview.trips[tripIndex]
                let places = trip.places.map { "<bdi>\(ExportText.html($0))</bdi>" }.joined(separator: "; ")
                tripIndex += 1
                leftInTrip = trip.photos
                try output.write("<section class=\"trip\" id=\"trip-\(tripIndex)\"><h2>Trip \(tripIndex): \(Self.timeElement(trip.start, day: true))"
                                 + " – \(Self.timeElement(trip.end, day: true))</h2>\n<p class=\"trip-summary\">\(Self.count(trip.photos, "photo"))"
                                 + (places.isEmpty ? "" : " · " + places) + "</p>\n<ul class=\"photos\">\n")
            } else if photo.dateTaken == nil, !inUndated {
                if tripIndex > 0 { try output.write("</ul></section>\n") }
                inUndated = true
                try output.write("<section class=\"trip\" id=\"undated\"><h2>Without a date</h2>\n"
                                 + "<p class=\"trip-summary\">\(Self.count(overview.undated, "photo"))</p>\n<ul class=\"photos\">\n")
            }
            if photo.dateTaken != nil { leftInTrip -= 1 }
            var image: String?
            if let local = try localThumbnail(for: photo, folder: folder) {
                image = local
                copied += 1
            } else {
                image = WebLink.loadable(photo.thumbnailURL)
            }
            try output.write(card(photo, image: image))
        }
        if tripIndex > 0 || inUndated { try output.write("</ul></section>\n") }
        return copied
    }

    private func card(_ photo: ExportPhoto, image: String?) -> String {
        let title = ExportText.html(photo.title)
        var picture = image.map { "<img src=\"\(ExportText.html($0))\" alt=\"\(title)\" width=\"150\" height=\"150\" loading=\"lazy\">" }
            ?? "<span class=\"no-image\">No image</span>"
        if let link = WebLink.loadable(photo.imageURL) { picture = "<a href=\"\(ExportText.html(link))\">\(picture)</a>" }
        var caption = "<bdi class=\"title\">\(title)</bdi>"
        if let date = photo.dateTaken { caption += Self.timeElement(date) }
        if let place = photo.place { caption += "<bdi class=\"place\">\(ExportText.html(place))</bdi>" }
        if !photo.tags.isEmpty { caption += "<bdi class=\"tags\">\(ExportText.html(photo.tags.joined(separator: " ")))</bdi>" }
        return "<li class=\"photo\" id=\"photo-\(ExportText.html(photo.id))\"><figure>\(picture)<figcaption>\(caption)</figcaption></figure></li>\n"
    }

    /// Copies the photo's local thumbnail (`Thumbnails/<id>.jpg`) into the album, if there is one.
    private func localThumbnail(for photo: ExportPhoto, folder: AlbumFolder) throws -> String? {
        guard let thumbnailsFolder, !photo.id.isEmpty, photo.id.count <= 32,
              photo.id.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return try folder.copyThumbnail(from: thumbnailsFolder + "/" + photo.id + ".jpg", as: photo.id + ".jpg")
    }

    // MARK: Text

    static func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }

    /// `2023-04-01 10:15` (UTC), or the day alone.
    static func time(_ date: Date, day: Bool = false) -> String {
        let iso = ExportText.iso8601(date)
        return day ? String(iso.prefix(10)) : String(iso.prefix(16)).replacingOccurrences(of: "T", with: " ")
    }

    static func timeElement(_ date: Date, day: Bool = false) -> String {
        "<time datetime=\"\(ExportText.iso8601(date))\">\(time(date, day: day))</time>"
    }

    /// A place's first part ("Lisbon" of "Lisbon, Lisbon, Portugal") for map labels.
    static func shortPlace(_ name: String) -> String {
        let first = name.split(separator: ",", maxSplits: 1).first.map(String.init) ?? name
        return first.count > 40 ? String(first.prefix(39)) + "…" : first
    }

    static let style = """
        :root{color-scheme:light;--ink:#1f2a30;--muted:#5b6b73;--line:#d9dedf;--sea:#e6f0f3;--route:#c0392b;--point:#1d5f8a}
        *{box-sizing:border-box}
        body{margin:0 auto;max-width:1100px;padding:24px;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:#fbfaf7}
        h1{margin:0 0 4px;font-size:28px}h2{font-size:19px;margin:28px 0 10px}
        .summary,.trip-summary{color:var(--muted);margin:0 0 8px}
        .map{display:block;width:100%;height:auto;border:1px solid var(--line);border-radius:8px;background:var(--sea)}
        .map .sea{fill:var(--sea)}.map .route{fill:none;stroke:var(--route);stroke-width:2;stroke-linejoin:round;opacity:.75}
        .map .point{fill:var(--point);stroke:#fff;stroke-width:1.5}
        .map text{font-size:13px;fill:var(--ink);paint-order:stroke;stroke:#fff;stroke-width:3px;unicode-bidi:isolate}
        .map .empty{text-anchor:middle;fill:var(--muted)}
        table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top}
        td.number{text-align:right}
        .photos{list-style:none;padding:0;margin:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(160px,1fr));gap:14px}
        .photo figure{margin:0}
        .photo img,.no-image{display:block;width:100%;height:auto;aspect-ratio:1;object-fit:cover;border-radius:6px;background:#e4e1da;color:var(--muted);font-size:12px;overflow:hidden}
        .no-image{display:flex;align-items:center;justify-content:center}
        figcaption{font-size:13px;margin-top:5px;overflow-wrap:anywhere}
        figcaption bdi,figcaption time{display:block}.photo .title{font-weight:600}
        figcaption time,.photo .place,.photo .tags{color:var(--muted)}
        footer{margin-top:36px;color:var(--muted);font-size:13px}
        """
}
