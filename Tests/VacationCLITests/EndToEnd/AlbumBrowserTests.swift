import Foundation
import Testing
import TestSupport
@testable import VacationCLI

/// A real browser, headless: Debian's chromium, found where Debian puts it.
enum Browser {
    static let path: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }
    /// CI installs chromium (.ci/run): there, a missing browser is a failure, not a skip.
    static let mustRun = ProcessInfo.processInfo.environment["CI"] != nil
    static let canRun = path != nil || mustRun

    /// Runs the browser on `page` with a profile of its own; at most two minutes.
    static func run(_ arguments: [String], page: URL, profile: URL) throws -> ProductProcess.Result {
        try ProductProcess.runExternal("/usr/bin/timeout", ["120", path ?? "chromium", "--headless", "--no-sandbox", "--disable-gpu",
                                                            "--no-first-run", "--user-data-dir=" + profile.path,
                                                            "--enable-logging=stderr", "--v=0"] + arguments + [page.absoluteString])
    }
}

/// The album as a person sees it: opened from disk in chromium, its DOM read back by Python's
/// HTML parser, a screenshot taken, and the browser's log searched for console messages.
@MainActor
@Suite("The HTML album in a real browser")
struct AlbumBrowserTests {
    /// A 64×64 JPEG (made by chromium's own screenshot), standing in for fetched thumbnails.
    static let thumbnail = Data(base64Encoded: "/9j/4AAQSkZJRgABAQAAAQABAAD/4gHYSUNDX1BST0ZJTEUAAQEAAAHIAAAAAAQwAABtbnRyUkdCIFhZWiAH4AABAAEAAAAAAABhY3NwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAA9tYAAQAAAADTLQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAlkZXNjAAAA8AAAACRyWFlaAAABFAAAABRnWFlaAAABKAAAABRiWFlaAAABPAAAABR3dHB0AAABUAAAABRyVFJDAAABZAAAAChnVFJDAAABZAAAAChiVFJDAAABZAAAAChjcHJ0AAABjAAAADxtbHVjAAAAAAAAAAEAAAAMZW5VUwAAAAgAAAAcAHMAUgBHAEJYWVogAAAAAAAAb6IAADj1AAADkFhZWiAAAAAAAABimQAAt4UAABjaWFlaIAAAAAAAACSgAAAPhAAAts9YWVogAAAAAAAA9tYAAQAAAADTLXBhcmEAAAAAAAQAAAACZmYAAPKnAAANWQAAE9AAAApbAAAAAAAAAABtbHVjAAAAAAAAAAEAAAAMZW5VUwAAACAAAAAcAEcAbwBvAGcAbABlACAASQBuAGMALgAgADIAMAAxADb/2wBDAAYEBQYFBAYGBQYHBwYIChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCUoKSj/2wBDAQcHBwoIChMKChMoGhYaKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCj/wAARCABAAEADASIAAhEBAxEB/8QAGAABAQEBAQAAAAAAAAAAAAAAAAQDBgX/xAAWEAEBAQAAAAAAAAAAAAAAAAACAAP/xAAWAQEBAQAAAAAAAAAAAAAAAAAEBQb/xAAWEQADAAAAAAAAAAAAAAAAAAAAAgP/2gAMAwEAAhEDEQA/APMAqAIBbgWjpQyiIAKjMTMVAEKlBiIALcCAVGYg0oLRBmKgCAW4EGlBaIciBUZiZioArlKElEAFuBAKjMQaUFogzFQBALcCDSgtEAFQBAKgCDSgtEORAtwIBUZiuUoSUQZioAgFuBBpQWiACoAgFQBBpQWiAC3AgFRmIVKC0Q5HMVAEAtwK3ShJRABUAQCoAg0oLRABbgQCozEKlBaIMxUAQCoAg0oMRD//2Q==") ?? Data()

    static let hostileTitle = "<script>alert(1)</script><img src=x onerror=alert(2)> & \"q\" \u{202E}evil"

    static let domReader = #"""
        import sys, json
        from html.parser import HTMLParser
        class Reader(HTMLParser):
            def __init__(self):
                super().__init__(convert_charrefs=True)
                self.photos = 0; self.titles = []; self.circles = []; self.images = []; self.scripts = 0
                self.handlers = []; self.loads = []; self.svgs = 0; self.route = None; self.title = None; self.viewBox = []
            def handle_starttag(self, tag, attrs):
                a = dict(attrs)
                self.handlers += [k for k, v in attrs if k.startswith('on')]
                if tag == 'script': self.scripts += 1
                if tag in ('link', 'iframe', 'object', 'embed', 'video', 'audio', 'source'): self.loads.append(tag)
                if tag == 'li' and a.get('class') == 'photo': self.photos += 1
                if tag == 'bdi' and a.get('class') == 'title': self.title = ''
                if tag == 'circle': self.circles.append([float(a['cx']), float(a['cy'])])
                if tag == 'polyline': self.route = len(a.get('points', '').split())
                if tag == 'img': self.images.append(a.get('src'))
                if tag == 'svg': self.svgs += 1; self.viewBox = [float(v) for v in a.get('viewbox', a.get('viewBox', '')).split()]
            def handle_endtag(self, tag):
                if tag == 'bdi' and self.title is not None:
                    self.titles.append(self.title); self.title = None
            def handle_data(self, data):
                if self.title is not None: self.title += data
        reader = Reader()
        reader.feed(open(sys.argv[1], encoding='utf-8').read())
        print(json.dumps(reader.__dict__ | {'rawdata': None, 'cdata_elem': None, 'lasttag': None, 'interesting': None}, default=str))
        """#

    @Test("the album opens from disk: every photo with its title, a map point per located photo, no script, no console message",
          .enabled(if: Browser.canRun, "no browser here: apt-get install chromium (CI installs it) to run this test"))
    func album() throws {
        guard Browser.path != nil else {
            Issue.record("CI must have a browser: .ci/run installs chromium")
            return
        }
        let cli = try CLIRunner()
        #expect(try cli.run(SampleFiles.importAll).code == 0)
        let feed = cli.directory.path("hostile.json")
        let hostile: [String: Any] = ["photos": ["page": 1, "pages": 1, "perpage": 1, "total": "1", "photo": [[
            "id": "1", "owner": "1@N00", "title": Self.hostileTitle, "datetaken": "2025-01-01 12:00:00", "latitude": "10", "longitude": "20",
            "accuracy": "16", "tags": "<b>bold</b> a&b", "url_sq": "javascript:alert(3)", "url_l": "https://example.com/\"onmouseover=\"x",
        ]]], "stat": "ok"]
        try JSONSerialization.data(withJSONObject: hostile).write(to: feed)
        #expect(try cli.run("import", feed.path, "--place", "<i>Évora</i> & \"Co\"").code == 0)
        let photos = try cli.run("photos", "--json").array
        #expect(photos.count == 43)
        let thumbnails = URL(fileURLWithPath: cli.library).appendingPathComponent("My Vacation.vacation/AdditionalContent/Thumbnails")
        try FileManager.default.createDirectory(at: thumbnails, withIntermediateDirectories: true)
        for photo in photos {
            guard let id = photo["id"] as? String, id != "1" else { continue }
            try Self.thumbnail.write(to: thumbnails.appendingPathComponent(id + ".jpg"))
        }
        let album = cli.directory.path("album")
        let exported = try cli.run("export", "html", "--to", album.path, "--json")
        #expect(exported.code == 0)
        #expect(exported.object["localThumbnails"] as? Int == 42)

        let started = Date()
        let page = album.appendingPathComponent("index.html")
        let dom = try Browser.run(["--dump-dom"], page: page, profile: cli.directory.path("profile-dom"))
        let screenshot = cli.directory.path("album.png")
        let shot = try Browser.run(["--screenshot=" + screenshot.path, "--window-size=1000,700"], page: page,
                                   profile: cli.directory.path("profile-shot"))
        print("AlbumBrowserTests: chromium took \(String(format: "%.1f", Date().timeIntervalSince(started))) s for the DOM and the screenshot")
        #expect(dom.status == 0 && shot.status == 0)
        for log in [dom.errors, shot.errors] {
            let console = log.split(separator: "\n").filter { $0.contains(":CONSOLE") }
            #expect(console.isEmpty, "console messages: \(console)")
        }
        let png = try Data(contentsOf: screenshot)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 10_000)

        let domFile = cli.directory.path("dom.html")
        try Data(dom.output.utf8).write(to: domFile)
        let script = cli.directory.path("dom.py")
        try Data(Self.domReader.utf8).write(to: script)
        let parsed = try ProductProcess.runExternal("/usr/bin/env", ["python3", script.path, domFile.path])
        #expect(parsed.status == 0, "\(parsed.errors)")
        let read = try #require(try JSONSerialization.jsonObject(with: Data(parsed.output.utf8)) as? [String: Any])
        #expect(read["photos"] as? Int == 43)
        let titles = (read["titles"] as? [String] ?? []).sorted()
        #expect(titles == photos.compactMap { $0["title"] as? String }.sorted())
        #expect(titles.contains(Self.hostileTitle))
        #expect(read["scripts"] as? Int == 0)
        #expect(read["handlers"] as? [String] == [])
        #expect(read["loads"] as? [String] == [])
        #expect(read["svgs"] as? Int == 1)
        let located = photos.filter { $0["latitude"] is Double }.count
        let circles = read["circles"] as? [[Double]] ?? []
        #expect(circles.count == located)
        let viewBox = read["viewBox"] as? [Double] ?? []
        #expect(viewBox.count == 4 && viewBox.first == 0 && viewBox.dropFirst().first == 0 && viewBox.dropFirst(2).first == 960)
        let height = viewBox.last ?? 0
        #expect((240...540).contains(height))
        // Fitted with its margin: inside it everywhere, touching it on two opposite sides.
        let xs = circles.map { $0[0] }, ys = circles.map { $0[1] }
        #expect(circles.allSatisfy { $0.count == 2 })
        #expect((xs.min() ?? 0) >= 35.9 && (xs.max() ?? 0) <= 924.1 && (ys.min() ?? 0) >= 35.9 && (ys.max() ?? 0) <= height - 35.9)
        #expect(abs((xs.min() ?? 0) - 36) < 0.2 && abs((xs.max() ?? 0) - 924) < 0.2
                || abs((ys.min() ?? 0) - 36) < 0.2 && abs((ys.max() ?? 0) - (height - 36)) < 0.2)
        #expect(read["route"] as? Int == located)
        let images = read["images"] as? [String] ?? []
        #expect(images.count == 42)
        for image in images {
            #expect(image.hasPrefix("thumbnails/") && FileManager.default.fileExists(atPath: album.appendingPathComponent(image).path), "\(image)")
        }
    }
}
