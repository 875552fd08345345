import Foundation
import Testing
import TestSupport

/// What the dynamic loader does when `vacation` starts: the Swift runtime, Foundation, SQLite and
/// libstdc++ are linked in (Package.swift), libcurl is loaded only when `fetch` first calls it
/// (`CCurlLoader`) and libxml2 only when an XML file is read (`CLibXML2`), so that a command pays
/// for none of them (README "Performance").
/// Sanitizer builds (Scripts/sanitizers.sh) link `vacation` dynamically on purpose, so the suite
/// has nothing to check there.
@Suite("The vacation binary starts without loading Swift's libraries, SQLite's, libxml2 or libcurl",
       .enabled(if: ProcessInfo.processInfo.environment["VACATIONS_SANITIZER_BUILD"] == nil,
                "a sanitizer build links vacation dynamically"))
struct StartupBinaryTests {
    /// The shared objects the loader maps while `vacation` runs `arguments` (glibc's `LD_DEBUG=files`).
    private func loadedObjects(_ arguments: [String]) throws -> (result: ProductProcess.Result, objects: [String]) {
        let result = try ProductProcess.run("vacation", arguments, environment: ["LD_DEBUG": "files"])
        let objects = result.errors.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "file="), line.contains("generating link map") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != " " && $0 != "[" })
        }
        return (result, objects)
    }

    @Test("commands that read no XML and do not fetch load only the C library and libm")
    func onlyTheCLibrary() throws {
        let directory = try TemporaryDirectory(prefix: "startup")
        let library = directory.path("library").path
        let feed = SampleFiles.root.appendingPathComponent("SampleData/kyoto.json").path
        #expect(try ProductProcess.run("vacation", ["--library", library, "import", feed]).status == 0)
        for arguments in [["--version"], ["--library", library, "list"], ["--library", library, "tags", "--json"],
                          ["--library", library, "photos", "--limit", "3", "--json"], ["--library", library, "import", feed]] {
            let (result, objects) = try loadedObjects(arguments)
            #expect(result.status == 0, "\(arguments)")
            // The loader names what it maps; an empty list would mean LD_DEBUG said nothing.
            #expect(objects.sorted() == ["libc.so.6", "libm.so.6"], "\(arguments)")
        }
    }

    @Test("an XML feed loads libxml2 as it is read, and imports whole")
    func libxml2OnFirstUse() throws {
        let directory = try TemporaryDirectory(prefix: "startup")
        let feed = SampleFiles.root.appendingPathComponent("SampleData/lisbon-porto.xml").path
        let (result, objects) = try loadedObjects(["--library", directory.path("library").path, "import", feed])
        #expect(result.status == 0)
        #expect(result.output.hasSuffix(" added, 0 updated, 0 unchanged, 0 skipped\n"), "\(result.output)")
        #expect(objects.contains("libxml2.so.2"), "\(objects)")
        #expect(!objects.contains { $0.contains("libcurl") || $0.contains("libswift") || $0.contains("Foundation") }, "\(objects)")
    }

    @Test("without a loadable libxml2 an XML import fails (1), names it and changes nothing; JSON still imports")
    func libxml2Missing() throws {
        let directory = try TemporaryDirectory(prefix: "startup")
        // An empty libxml2.so.2 found first: the loader refuses it ("file too short").
        let broken = directory.path("lib")
        try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
        try Data().write(to: broken.appendingPathComponent("libxml2.so.2"))
        let environment = ["LD_LIBRARY_PATH": broken.path]
        let library = directory.path("library").path
        let json = SampleFiles.root.appendingPathComponent("SampleData/kyoto.json").path
        let xml = SampleFiles.root.appendingPathComponent("SampleData/lisbon-porto.xml").path
        #expect(try ProductProcess.run("vacation", ["--library", library, "import", json], environment: environment).status == 0)
        let before = try ProductProcess.run("vacation", ["--library", library, "photos", "--json"]).output
        let failed = try ProductProcess.run("vacation", ["--library", library, "import", xml], environment: environment)
        #expect(failed.status == 1)
        #expect(failed.output == "")
        #expect(failed.errors.hasPrefix("Error: \(xml): cannot load libxml2 (libxml2.so.2): "), "\(failed.errors)")
        #expect(failed.errors.hasSuffix(", which reading XML feeds needs\n"), "\(failed.errors)")
        #expect(failed.errors.split(separator: "\n").count == 1)
        #expect(try ProductProcess.run("vacation", ["--library", library, "photos", "--json"]).output == before)
    }
}
