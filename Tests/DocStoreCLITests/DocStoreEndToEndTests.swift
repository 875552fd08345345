import Foundation
import Testing
import TestSupport

@Suite("The built docstore binary: real argv, streams and exit status")
struct DocStoreEndToEndTests {
    /// `docstore` next to the test bundle, where `swift build` and `swift test` put products.
    static func binary() throws -> URL {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL,
            Bundle.main.bundleURL.deletingLastPathComponent(),
        ].map { $0.appendingPathComponent("docstore") }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw BinaryMissing(description: "no docstore binary in \(candidates.map(\.path))")
        }
        return found
    }

    struct BinaryMissing: Error, CustomStringConvertible { var description: String }

    static func run(_ arguments: [String]) throws -> DocStoreRun {
        let process = Process()
        process.executableURL = try binary()
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return DocStoreRun(code: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
                           errors: String(decoding: errorData, as: UTF8.self))
    }

    @Test("docstore dump prints the Ebook on stdout and exits 0; a missing file exits 66 with one line on stderr")
    func endToEnd() throws {
        let directory = try TemporaryDirectory()
        let document = try Fixtures.ebookDocument(in: directory)
        let dump = try Self.run(["dump", document.path])
        #expect(dump == docstore("dump", document.path))
        #expect(dump.code == 0 && dump.errors == "")
        #expect(dump.output.contains("\"title\": \"This Is Just To Say.txt\""))
        let missing = directory.path("nowhere").path
        #expect(try Self.run(["info", missing]) == DocStoreRun(code: 66, output: "", errors: "Error: no such file: \(missing)\n"))
        #expect(try Self.run(["info"]).code == 64)
    }
}
