import Foundation

/// Runs one of the package's own executables (built next to the test bundle) and captures
/// what it writes. Output goes to temporary files, not pipes, so that a chatty process can
/// never block on a full pipe.
///
/// ```swift
/// let result = try ProductProcess.run("vacation", ["--library", path, "list", "--json"])
/// #expect(result.status == 0)
/// ```
public enum ProductProcess {
    public struct Result: Sendable {
        public var status: Int32
        /// True when the process was killed by a signal (`status` is then the signal).
        public var signalled: Bool
        public var output: String
        public var errors: String
    }

    /// The path of an executable product, found beside the test bundle.
    public static func url(of name: String) throws -> URL {
        var folders = [Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        folders += folders.map { $0.deletingLastPathComponent() }
        for folder in folders {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: name])
    }

    /// Runs any program to completion (for tools like `script`).
    public static func runExternal(_ path: String, _ arguments: [String]) throws -> Result {
        let directory = try TemporaryDirectory(prefix: "process")
        let child = try Spawn.start(path, arguments, output: .file(directory.path("output")), errors: .file(directory.path("errors")))
        return result(child.wait(), directory)
    }

    /// Starts the product without waiting; output goes to the given files.
    public static func start(_ name: String, _ arguments: [String], environment: [String: String]? = nil,
                             input: URL? = nil, output: URL, errors: URL) throws -> Spawn {
        var variables = ProcessInfo.processInfo.environment
        for (key, value) in environment ?? [:] { variables[key] = value }
        return try Spawn.start(try url(of: name).path, arguments, environment: variables,
                               input: input.map { .file($0) } ?? .null, output: .file(output), errors: .file(errors))
    }

    /// Runs the product to completion.
    public static func run(_ name: String, _ arguments: [String], environment: [String: String]? = nil,
                           input: Data? = nil) throws -> Result {
        let directory = try TemporaryDirectory(prefix: "process")
        var inputURL: URL?
        if let input {
            inputURL = directory.path("input")
            try input.write(to: directory.path("input"))
        }
        let child = try start(name, arguments, environment: environment, input: inputURL,
                              output: directory.path("output"), errors: directory.path("errors"))
        return result(child.wait(), directory)
    }

    private static func result(_ termination: Spawn.Termination, _ directory: TemporaryDirectory) -> Result {
        let output = (try? String(contentsOf: directory.path("output"), encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOf: directory.path("errors"), encoding: .utf8)) ?? ""
        switch termination {
        case .exited(let status): return Result(status: status, signalled: false, output: output, errors: errors)
        case .signalled(let signal): return Result(status: signal, signalled: true, output: output, errors: errors)
        }
    }
}
