import Foundation
import ObjectGraph
import Testing
import TestSupport
@testable import Vacations

/// A vacation store to export from, filled through the editor as `visit` fills it.
struct ExportHarness {
    let store: VacationStore
    var name = "Trips & <Maps> \"2023\""

    init() throws {
        store = try VacationStore()
    }

    func add(_ drafts: [PhotoDraft]) throws {
        let context = store.context()
        _ = try VacationEditor(context: context, now: Date(timeIntervalSinceReferenceDate: 1_000)).visit(drafts)
        try context.save()
    }

    var exporter: VacationExporter {
        VacationExporter(coordinator: store.coordinator, context: store.context(), vacationName: name)
    }

    /// Exports to memory; returns the text and the summary.
    func export(_ format: ExportFormat, where predicate: String? = nil) throws -> (text: String, summary: ExportSummary) {
        var bytes: [UInt8] = []
        // A small buffer, so that flushing in the middle of a document is exercised too.
        let output = ExportOutput(flushLimit: 100) { bytes += $0 }
        let exporter = self.exporter
        let summary = try exporter.snapshot {
            let selection = try exporter.resolve(PhotoSelection(format: predicate))
            return try exporter.write(format, selection, to: output)
        }
        try output.finish()
        return (String(decoding: bytes, as: UTF8.self), summary)
    }
}

/// Reads exports back with Python's standard library (`json`, `csv`, `xml.etree`): parsers
/// that share nothing with the writers. Each mode prints one JSON document describing what
/// the file holds, as a map program or a spreadsheet would see it.
enum PythonReader {
    static let script = #"""
        import sys, json, csv, xml.etree.ElementTree as ET
        mode, path = sys.argv[1], sys.argv[2]
        raw = open(path, 'rb').read()
        def text(element, tag, ns):
            found = element.find(tag, ns)
            return None if found is None else (found.text or '')
        if mode == 'geojson':
            out = json.loads(raw.decode('utf-8'))
        elif mode == 'csv':
            with open(path, newline='', encoding='utf-8') as handle:
                rows = list(csv.reader(handle, strict=True))
            out = {'bom': raw.startswith(b'\xef\xbb\xbf'), 'endsWithCRLF': raw.endswith(b'\r\n'), 'rows': rows}
        elif mode == 'kml':
            ns = {'k': 'http://www.opengis.net/kml/2.2'}
            root = ET.fromstring(raw)
            document = root.find('k:Document', ns)
            def placemark(p):
                data = {d.get('name'): text(d, 'k:value', ns) for d in p.findall('k:ExtendedData/k:Data', ns)}
                return {'name': text(p, 'k:name', ns), 'when': text(p, 'k:TimeStamp/k:when', ns), 'data': data,
                        'coordinates': text(p, 'k:Point/k:coordinates', ns), 'children': [c.tag.split('}')[1] for c in p]}
            out = {'root': root.tag, 'name': text(document, 'k:name', ns),
                   'folders': [{'name': text(f, 'k:name', ns), 'placemarks': [placemark(p) for p in f.findall('k:Placemark', ns)]}
                               for f in document.findall('k:Folder', ns)],
                   'placemarks': [placemark(p) for p in document.findall('k:Placemark', ns)],
                   'order': [c.tag.split('}')[1] for c in document]}
        elif mode == 'gpx':
            ns = {'g': 'http://www.topografix.com/GPX/1/1'}
            root = ET.fromstring(raw)
            def point(p):
                link = p.find('g:link', ns)
                return {'lat': p.get('lat'), 'lon': p.get('lon'), 'time': text(p, 'g:time', ns), 'name': text(p, 'g:name', ns),
                        'cmt': text(p, 'g:cmt', ns), 'desc': text(p, 'g:desc', ns),
                        'link': None if link is None else link.get('href'), 'children': [c.tag.split('}')[1] for c in p]}
            out = {'root': root.tag, 'version': root.get('version'), 'name': text(root, 'g:metadata/g:name', ns),
                   'waypoints': [point(p) for p in root.findall('g:wpt', ns)],
                   'tracks': [[[point(p) for p in s.findall('g:trkpt', ns)] for s in t.findall('g:trkseg', ns)]
                              for t in root.findall('g:trk', ns)],
                   'order': [c.tag.split('}')[1] for c in root]}
        print(json.dumps(out))
        """#

    /// Python's reading of `text` as `mode` (geojson, csv, kml, gpx).
    static func read(_ text: String, as mode: String) throws -> [String: Any] {
        let directory = try TemporaryDirectory(prefix: "python")
        let scriptURL = directory.path("read.py"), fileURL = directory.path("export")
        try Data(script.utf8).write(to: scriptURL)
        try Data(text.utf8).write(to: fileURL)
        let result = try ProductProcess.runExternal("/usr/bin/env", ["python3", scriptURL.path, mode, fileURL.path])
        guard result.status == 0 else {
            Issue.record("python3 could not read the \(mode) export: \(result.errors)")
            return [:]
        }
        let parsed = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        return try #require(parsed)
    }
}

extension Date {
    /// `2023-04-01T10:15:00Z` as a date.
    static func utc(_ text: String) -> Date {
        let formatter = ISO8601DateFormatter()
        return formatter.date(from: text) ?? .distantPast
    }
}
