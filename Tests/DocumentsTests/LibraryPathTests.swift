@testable import Documents
import Foundation
import Testing
import TestSupport

/// The library's paths without Foundation's URL standardisation (issue 22, session 29): the
/// plain-string fast paths must give exactly what Foundation gives, on any input.
@MainActor
@Suite("Library paths")
struct LibraryPathTests {
    /// Components that stress standardisation: dots, empties, automount prefixes, non-ASCII in
    /// NFC and NFD, spaces, percent signs.
    static let components = ["a", "b", "lib", ".", "..", "", "private", "var", "automount", "tmp", ".hidden", "...",
                             "Caf\u{E9}", "Cafe\u{301}", "東京", "with space", "100%", "x.vacation", "~"]

    static func randomPath(_ generator: inout SplitMix64) -> String {
        let count = Int.random(in: 0...5, using: &generator)
        var path = (0..<count).map { _ in components[Int.random(in: 0..<components.count, using: &generator)] }
            .joined(separator: "/")
        if Bool.random(using: &generator) { path = "/" + path }
        if Int.random(in: 0..<4, using: &generator) == 0 { path += "/" }
        return path
    }

    @Test("a path taken as standard is the one Foundation's standardisation gives back")
    func standardPathsAreFoundationsOwn() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("LibraryPathTests seed \(seed)")
        var generator = SplitMix64(seed: seed)
        var standard = 0
        for _ in 0..<3_000 {
            let path = Self.randomPath(&generator)
            let url = URL(fileURLWithPath: path.hasPrefix("/") ? path : "/" + path, isDirectory: true)
            let foundation = url.standardizedFileURL.path
            #expect(DocumentLibrary.standardizedPath(of: url) == foundation, "\(path)")
            if DocumentLibrary.isStandardPath(path) {
                standard += 1
                #expect(URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL.path == path, "\(path)")
            }
        }
        #expect(standard > 100)
    }

    @Test("paths with dots, empty components, trailing slashes or automount prefixes are not standard")
    func nonStandardPaths() {
        for path in ["", "a", "a/b", "/a/", "/a//b", "/a/./b", "/a/../b", "/.", "/..", "/private/tmp", "/private",
                     "/var/automount/x", "//"] {
            #expect(!DocumentLibrary.isStandardPath(path), "\(path)")
        }
        for path in ["/", "/a", "/a/b", "/.hidden/b", "/a/...", "/privately", "/var/auto", "/Caf\u{E9}/Cafe\u{301}"] {
            #expect(DocumentLibrary.isStandardPath(path) == !path.hasPrefix("/privately"), "\(path)")
        }
    }

    @Test("the library's location is what Foundation's URL standardisation made of it")
    func locationMatchesFoundation() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("LibraryPathTests location seed \(seed)")
        var generator = SplitMix64(seed: seed)
        for _ in 0..<2_000 {
            var option = Self.randomPath(&generator)
            if Int.random(in: 0..<6, using: &generator) == 0 { option = "~/" + option }
            var current = Self.randomPath(&generator)
            if !current.hasPrefix("/") { current = "/" + current }
            let home = "/home/" + Self.components[Int.random(in: 0..<Self.components.count, using: &generator)]
            let environment = ["HOME": home]
            // As `location` standardised every path before (session 28).
            var expanded = option
            if expanded == "~" { expanded = home } else if expanded.hasPrefix("~/") { expanded = home + expanded.dropFirst(1) }
            let expected: URL
            if option.isEmpty {
                expected = URL(fileURLWithPath: home, isDirectory: true).standardizedFileURL
                    .appendingPathComponent(".local/share", isDirectory: true).appendingPathComponent("vacation", isDirectory: true)
            } else {
                expected = (expanded.hasPrefix("/") ? URL(fileURLWithPath: expanded, isDirectory: true)
                    : URL(fileURLWithPath: current, isDirectory: true).appendingPathComponent(expanded, isDirectory: true)).standardizedFileURL
            }
            let location = DocumentLibrary.location(option: option, environment: environment, currentDirectory: current)
            #expect(location == expected, "option \(option), current folder \(current)")
            #expect(location.path == expected.path, "option \(option), current folder \(current)")
        }
    }

    @Test("ASCII names skip normalisation; any other name is normalised to NFC as before")
    func composedNames() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("LibraryPathTests names seed \(seed)")
        var generator = SplitMix64(seed: seed)
        let pieces = ["a", "Z", " ", ".", "-", "e\u{301}", "\u{E9}", "A\u{30A}", "\u{212B}", "\u{1100}\u{1161}", "東", "\u{0}", "\t", "~"]
        for _ in 0..<2_000 {
            let name = (0..<Int.random(in: 0...8, using: &generator)).map { _ in
                pieces[Int.random(in: 0..<pieces.count, using: &generator)]
            }.joined()
            #expect(Array(DocumentName.composed(name).utf8) == Array(name.precomposedStringWithCanonicalMapping.utf8), "\(name)")
        }
    }

    @Test("a document found through its library is the instance found by its URL, through a symbolic link or in NFD")
    func registryKeyMatchesURLKey() throws {
        let directory = try TemporaryDirectory(prefix: "library-paths")
        let real = directory.url.appendingPathComponent("Real", isDirectory: true)
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
        let link = directory.url.appendingPathComponent("Link").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real.path)
        let library = try DocumentLibrary(url: URL(fileURLWithPath: link + "/./", isDirectory: true), model: DocumentTestModel.model)
        #expect(library.url.path == FileSystem.realPath(real.path))
        for name in ["Paris", "Caf\u{E9}", "Cafe\u{301}", "東京 2024", "100% trip"] {
            let document = try library.document(named: name)
            let bundle = try library.bundle(forDocumentNamed: name)
            let composed = name.precomposedStringWithCanonicalMapping
            #expect(DocumentRegistry.key(for: bundle.url) == library.url.path + "/" + composed + ".vacation")
            for spelling in [bundle.url, URL(fileURLWithPath: link + "/" + composed + ".vacation", isDirectory: true),
                             URL(fileURLWithPath: link + "/" + name.decomposedStringWithCanonicalMapping + ".vacation")] {
                #expect(ManagedDocument.document(at: spelling, model: DocumentTestModel.model) === document, "\(spelling.path)")
            }
        }
    }
}
