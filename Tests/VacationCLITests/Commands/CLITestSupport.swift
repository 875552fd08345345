import CommandLineKit
import Foundation
import Testing
import TestSupport
@testable import VacationCLI

/// Runs the CLI in-process against a library in a temporary folder.
@MainActor
struct CLIRunner {
    let directory: TemporaryDirectory
    var library: String { directory.path("library").path }
    var now = Date(timeIntervalSince1970: 1_700_000_000)

    init() throws {
        directory = try TemporaryDirectory(prefix: "cli")
    }

    struct Result {
        var code: Int32
        var output: String
        var errors: String

        /// The output parsed as JSON.
        var json: Any? { try? JSONSerialization.jsonObject(with: Data(output.utf8), options: [.fragmentsAllowed]) }
        var array: [[String: Any]] { json as? [[String: Any]] ?? [] }
        var object: [String: Any] { json as? [String: Any] ?? [:] }
    }

    /// Runs `vacation --library <library> <arguments>`.
    func run(_ arguments: String..., input: String? = nil, terminal: Bool = false, library: Bool = true) throws -> Result {
        try run(arguments, input: input, terminal: terminal, library: library)
    }

    func run(_ arguments: [String], input: String? = nil, terminal: Bool = false, library: Bool = true,
             variables: [String: String] = [:]) throws -> Result {
        let output = BufferSink(), errors = BufferSink()
        var handle = FileHandle.nullDevice
        if let input {
            let file = directory.path("stdin-\(UUID().uuidString)")
            try Data(input.utf8).write(to: file)
            handle = try FileHandle(forReadingFrom: file)
        }
        let fixed = now
        let environment = CLIEnvironment(variables: variables, currentDirectory: SampleFiles.root.path, standardInput: handle,
                                         output: output, errors: errors, errorsIsTerminal: terminal, terminalWidth: 100,
                                         now: { fixed })
        let code = VacationCLI.run((library ? ["--library", self.library] : []) + arguments, environment: environment)
        return Result(code: code, output: output.text, errors: errors.text)
    }
}

enum SampleFiles {
    /// The repository's root folder (the CLI runs with it as its current folder).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func sample(_ name: String) -> String { "SampleData/" + name }

    static func fixture(_ name: String) -> String {
        root.appendingPathComponent("Tests/VacationsTests/Fixtures/flickr").appendingPathComponent(name).path
    }

    /// The four photo feeds of SampleData with the top-places list.
    static let importAll = ["import", sample("lisbon-porto.xml"), sample("kyoto.json"), sample("iceland.jsonp"),
                            sample("new-york.xml"), "--places", sample("top-places.xml")]
}
