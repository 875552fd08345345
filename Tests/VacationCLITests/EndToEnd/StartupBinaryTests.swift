import Foundation
import Testing
import TestSupport

/// What the dynamic loader does when `vacation` starts: the Swift runtime and Foundation are
/// linked in (Package.swift), and libcurl is loaded only when `fetch` first calls it
/// (`CCurlLoader`), so that a command pays for neither (README "Performance").
/// Sanitizer builds (Scripts/sanitizers.sh) link `vacation` dynamically on purpose, so the suite
/// has nothing to check there.
@Suite("The vacation binary starts without loading Swift's libraries or libcurl",
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

    @Test("commands that do not fetch load no Swift library, no Foundation and no libcurl")
    func noSwiftLibrariesNorCurl() throws {
        let directory = try TemporaryDirectory(prefix: "startup")
        for arguments in [["--version"], ["--library", directory.path("library").path, "list"],
                          ["--library", directory.path("library").path, "tags", "--json"]] {
            let (result, objects) = try loadedObjects(arguments)
            #expect(result.status == 0, "\(arguments)")
            // The loader names what it maps; an empty list would mean LD_DEBUG said nothing.
            #expect(objects.contains { $0.hasPrefix("libc.so") }, "\(arguments): \(objects)")
            let unwanted = objects.filter { $0.contains("libswift") || $0.contains("Foundation") || $0.contains("libcurl") }
            #expect(unwanted == [], "\(arguments)")
        }
    }
}
