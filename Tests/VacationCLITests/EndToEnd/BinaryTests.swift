import Foundation
import Testing
import TestSupport

/// The real `vacation` binary on real files: stdout, stderr and exit codes checked separately.
@Suite("The vacation binary, end to end")
struct BinaryTests {
    private let directory: TemporaryDirectory
    private var library: String { directory.path("library").path }

    init() throws {
        directory = try TemporaryDirectory(prefix: "e2e")
    }

    private func vacation(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:]) throws -> ProductProcess.Result {
        try ProductProcess.run("vacation", ["--library", library] + arguments.map {
            $0.hasPrefix("SampleData/") ? SampleFiles.root.appendingPathComponent($0).path : $0
        }, environment: environment, input: input)
    }

    @Test("the README quick start imports the sample data and shows the places")
    func quickStart() throws {
        let imported = try vacation(["import", "SampleData/lisbon-porto.xml", "SampleData/kyoto.json", "SampleData/iceland.jsonp",
                                     "SampleData/new-york.xml", "--places", "SampleData/top-places.xml"])
        #expect(imported.status == 0)
        #expect(imported.errors == "")
        #expect(imported.output.hasSuffix("Total for \"My Vacation\": 42 added, 2 updated, 0 unchanged, 0 skipped\n"))
        let places = try vacation(["places"])
        #expect(places.status == 0)
        #expect(places.output.split(separator: "\n").first == "PLACE                               PHOTOS  FIRST VISITED")
        #expect(places.output.split(separator: "\n").count == 8)
    }

    @Test("JSON output is one document on stdout and nothing else; errors go to stderr only")
    func streams() throws {
        _ = try vacation(["import", "SampleData/kyoto.json"])
        let tags = try vacation(["tags", "--json"])
        #expect(tags.status == 0)
        #expect(tags.errors == "")
        let parsed = try JSONSerialization.jsonObject(with: Data(tags.output.utf8)) as? [[String: Any]]
        #expect(parsed?.first?["name"] as? String == "kyoto")
        let missing = try vacation(["show", "123", "--json"])
        #expect(missing.status == 66)
        #expect(missing.output == "")
        #expect(missing.errors == "Error: No photo 123 in the vacation \"My Vacation\"\n")
    }

    @Test("exit codes: 64 usage, 65 bad feed, 66 missing, 1 failure, 0 success")
    func exitCodes() throws {
        #expect(try vacation(["--bogus"]).status == 64)
        #expect(try vacation(["import", SampleFiles.fixture("error_invalid_api_key.json")]).status == 65)
        #expect(try vacation(["import", "nothing-here.xml"]).status == 66)
        #expect(try vacation(["create", "My Vacation"]).status == 1)
        #expect(try vacation(["list"]).status == 0)
        let version = try vacation(["--version"])
        #expect(version.status == 0 && !version.output.isEmpty)
    }

    @Test("a feed read from standard input with -")
    func standardInput() throws {
        let feed = try Data(contentsOf: SampleFiles.root.appendingPathComponent("SampleData/new-york.xml"))
        let result = try vacation(["import", "-", "--json"], input: feed)
        #expect(result.status == 0)
        #expect((try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])?["added"] as? Int == 10)
    }

    @Test("a second writer waits, then gives up with 75 while the first holds the vacation")
    func busy() throws {
        _ = try vacation(["list"])
        // The first import reads its feed from a pipe that stays open, so it holds the lock.
        let fifo = directory.path("feed.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let holder = try ProductProcess.start("vacation", ["--library", library, "import", fifo], input: nil,
                                              output: directory.path("holder.out"), errors: directory.path("holder.err"))
        // Opened read-write, which never blocks (a write-only open would wait for a reader forever
        // if the holder failed to start).
        let descriptor = open(fifo, O_RDWR)
        #expect(descriptor >= 0)
        let writer: FileHandle? = descriptor >= 0 ? FileHandle(fileDescriptor: descriptor, closeOnDealloc: true) : nil
        defer { if holder.isRunning { holder.send(SIGTERM) } }
        try writer?.write(contentsOf: Data("<rsp stat=\"ok\"><photos>".utf8))
        Thread.sleep(forTimeInterval: 0.5)
        let started = Date()
        let second = try vacation(["--wait", "0.5", "import", "SampleData/kyoto.json"])
        #expect(second.status == 75)
        #expect(second.errors.hasPrefix("Error: The vacation \"My Vacation\" is busy"))
        #expect(Date().timeIntervalSince(started) >= 0.5)
        // A reader is not blocked by the writer.
        #expect(try vacation(["tags", "--json"]).status == 0)
        try writer?.write(contentsOf: Data("<photo id=\"1\" title=\"one\"/></photos></rsp>".utf8))
        try writer?.close()
        #expect(holder.wait() == .exited(0))
        #expect(try vacation(["import", "SampleData/kyoto.json"]).status == 0)
    }

    @Test("the progress bar shows on a terminal (a pseudo-terminal made by script) and not in a pipe")
    func progressOnTerminal() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return }
        let binary = try ProductProcess.url(of: "vacation").path
        let feed = SampleFiles.root.appendingPathComponent("SampleData/lisbon-porto.xml").path
        let command = "'\(binary)' --library '\(library)' import '\(feed)' 2>&1 >/dev/null"
        let result = try ProductProcess.runExternal("/usr/bin/script", ["-qec", command, "/dev/null"])
        #expect(result.status == 0)
        #expect(result.output.contains("\r"))
        let piped = try vacation(["import", "SampleData/lisbon-porto.xml"])
        #expect(piped.errors == "")
    }

    @Test("commands that only read leave the store as they found it: no -wal or -shm file behind")
    func readersLeaveNoJournal() throws {
        #expect(try vacation(["import", "SampleData/kyoto.json"]).status == 0)
        let store = directory.path("library/My Vacation.vacation/StoreContent")
        let files = { try FileManager.default.contentsOfDirectory(atPath: store.path).sorted() }
        #expect(try files() == ["persistentStore"])
        for arguments in [["tags"], ["places", "--json"], ["photos"], ["show", "52942484592"], ["info"], ["list"], ["check"],
                          ["backups"]] {
            let result = try vacation(arguments)
            #expect(result.status == 0 || arguments == ["show", "52942484592"], "\(arguments): \(result.errors)")
            #expect(try files() == ["persistentStore"], "\(arguments)")
        }
    }
}
