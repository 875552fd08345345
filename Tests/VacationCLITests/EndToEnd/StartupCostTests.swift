import Foundation
import Testing
import TestSupport

/// What every `vacation` process pays before it does anything: the libraries it loads.
@Suite("The vacation binary's start-up")
struct StartupCostTests {
    @Test("the binary does not load FoundationNetworking or libcurl: only fetch loads libVacationsHTTP.so, when it fetches")
    func librariesLoaded() throws {
        // glibc's dynamic loader lists what it would load, and stops, when this is set (as ldd does).
        let listing = try ProductProcess.run("vacation", ["--version"], environment: ["LD_TRACE_LOADED_OBJECTS": "1"])
        #expect(listing.status == 0)
        #expect(listing.output.contains("libsqlite3"), "the listing names what is loaded: \(listing.output.prefix(300))")
        #expect(listing.output.contains("libFoundation.so"))
        for unwanted in ["libFoundationNetworking", "libcurl", "libssl", "libVacationsHTTP"] {
            #expect(!listing.output.contains(unwanted), "vacation loads \(unwanted) at start-up")
        }
        let library = try ProductProcess.url(of: "vacation").deletingLastPathComponent().appendingPathComponent("libVacationsHTTP.so")
        #expect(FileManager.default.fileExists(atPath: library.path), "fetch needs \(library.path) beside the binary")
    }
}
