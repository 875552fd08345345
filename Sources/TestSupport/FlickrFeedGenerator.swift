import Foundation

/// Writes deterministic Flickr `photos.search` responses of any size, in REST XML or JSON,
/// for benchmarks and stress tests: about five tags per photo from a fixed vocabulary, places
/// named by `derived_place`, dates, geo and URLs, all derived from the photo's index.
///
/// ```swift
/// let generator = FlickrFeedGenerator(photos: 100_000)
/// try generator.writeXML(to: url)
/// ```
public struct FlickrFeedGenerator: Sendable {
    public var photos: Int
    /// The first photo's id; ids follow on from it.
    public var firstID: Int64
    public var vocabulary: Int
    public var places: Int
    public var tagsPerPhoto: Int

    public init(photos: Int, firstID: Int64 = 50_000_000_000, vocabulary: Int = 2_000, places: Int = 500, tagsPerPhoto: Int = 5) {
        self.photos = photos
        self.firstID = firstID
        self.vocabulary = vocabulary
        self.places = places
        self.tagsPerPhoto = tagsPerPhoto
    }

    /// The id of photo `index`.
    public func id(_ index: Int) -> String { String(firstID + Int64(index)) }

    /// Tag names of photo `index`.
    public func tags(_ index: Int) -> [String] {
        var names: [String] = []
        var state = UInt64(index) &* 0x9E37_79B9_7F4A_7C15 &+ 1
        while names.count < tagsPerPhoto {
            state ^= state >> 33
            state = state &* 0xFF51_AFD7_ED55_8CCD
            let name = "tag\(state % UInt64(max(1, vocabulary)))"
            if !names.contains(name) { names.append(name) }
        }
        return names
    }

    public func place(_ index: Int) -> String { "Place \(index % max(1, places)), Region, Country" }

    public func title(_ index: Int) -> String { "Photo \(index) of the trip" }

    /// `datetaken` of photo `index` as Flickr writes it, in UTC. Computed from the day count
    /// (civil-from-days) rather than through `Calendar`, which would dominate writing large feeds.
    func dateTaken(_ index: Int) -> String {
        let seconds = 1_600_000_000 + index * 61
        let days = seconds / 86_400
        let time = seconds % 86_400
        let shifted = days + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        return "\(year)-\(two(month))-\(two(day)) \(two(time / 3_600)):\(two(time / 60 % 60)):\(two(time % 60))"
    }

    /// Writes the XML response, streaming, so that millions of photos need little memory.
    public func writeXML(to url: URL) throws {
        try writeXML(to: url, indices: 0..<photos)
    }

    /// Writes the XML response holding only photos `indices`, each exactly as the whole
    /// response holds it (a page of the feed, or one photo for `vacation toggle --feed`).
    public func writeXML(to url: URL, indices: Range<Int>) throws {
        try write(to: url) { emit in
            emit("<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<rsp stat=\"ok\">\n<photos page=\"1\" pages=\"1\" "
                 + "perpage=\"\(indices.count)\" total=\"\(indices.count)\">\n")
            for index in indices {
                let id = id(index)
                emit("  <photo id=\"\(id)\" owner=\"12345678@N00\" secret=\"abcdef\(index % 10)\" server=\"65535\" farm=\"66\" "
                     + "title=\"\(title(index))\" ispublic=\"1\" isfriend=\"0\" isfamily=\"0\" dateupload=\"\(1_600_000_000 + index * 60)\" "
                     + "datetaken=\"\(dateTaken(index))\" ownername=\"Traveller\" latitude=\"\(38 + Double(index % 1000) / 1000)\" "
                     + "longitude=\"\(-9 - Double(index % 700) / 1000)\" accuracy=\"16\" tags=\"\(tags(index).joined(separator: " "))\" "
                     + "media=\"photo\" url_l=\"https://live.staticflickr.com/65535/\(id)_abcdef_b.jpg\" "
                     + "url_sq=\"https://live.staticflickr.com/65535/\(id)_abcdef_s.jpg\" derived_place=\"\(place(index))\" />\n")
            }
            emit("</photos>\n</rsp>\n")
        }
    }

    /// Writes the JSON response (`nojsoncallback=1`), streaming.
    public func writeJSON(to url: URL) throws {
        try write(to: url) { emit in
            emit("{\"photos\":{\"page\":1,\"pages\":1,\"perpage\":\(photos),\"total\":\"\(photos)\",\"photo\":[\n")
            for index in 0..<photos {
                let id = id(index)
                emit((index == 0 ? "" : ",\n") + "{\"id\":\"\(id)\",\"owner\":\"12345678@N00\",\"secret\":\"abcdef\(index % 10)\",\"server\":\"65535\","
                     + "\"farm\":66,\"title\":\"\(title(index))\",\"ispublic\":1,\"dateupload\":\"\(1_600_000_000 + index * 60)\","
                     + "\"datetaken\":\"\(dateTaken(index))\",\"ownername\":\"Traveller\",\"latitude\":\(38 + Double(index % 1000) / 1000),"
                     + "\"longitude\":\(-9 - Double(index % 700) / 1000),\"accuracy\":16,\"tags\":\"\(tags(index).joined(separator: " "))\","
                     + "\"media\":\"photo\",\"url_l\":\"https://live.staticflickr.com/65535/\(id)_abcdef_b.jpg\","
                     + "\"url_sq\":\"https://live.staticflickr.com/65535/\(id)_abcdef_s.jpg\",\"derived_place\":\"\(place(index))\"}")
            }
            emit("\n]},\"stat\":\"ok\"}\n")
        }
    }

    private func write(to url: URL, _ body: ((String) -> Void) -> Void) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var buffer = Data()
        buffer.reserveCapacity(1 << 20)
        var failure: Error?
        body { text in
            buffer.append(contentsOf: text.utf8)
            if buffer.count >= 1 << 20 {
                do { try handle.write(contentsOf: buffer) } catch { failure = error }
                buffer.removeAll(keepingCapacity: true)
            }
        }
        try handle.write(contentsOf: buffer)
        if let failure { throw failure }
    }
}
