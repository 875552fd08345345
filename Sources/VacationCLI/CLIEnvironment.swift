import CommandLineKit
import Foundation

/// Everything the CLI takes from the world, passed in so that tests can run it in-process:
/// `main.swift` hands over the real streams, environment and terminal check.
///
/// ```swift
/// let output = BufferSink(), errors = BufferSink()
/// let code = VacationCLI.run(["--library", path, "list"], environment: .init(output: output, errors: errors))
/// ```
package struct CLIEnvironment: Sendable {
    package var variables: [String: String]
    package var currentDirectory: String
    /// Where `-` feeds are read from.
    package var standardInput: FileHandle
    /// Results only.
    package var output: OutputSink
    /// Errors, warnings and progress.
    package var errors: OutputSink
    /// Progress bars show only when standard error is a terminal.
    package var errorsIsTerminal: Bool
    package var terminalWidth: Int
    package var now: @Sendable () -> Date
    /// True for the process's own run (main.swift exits through `VacationCLI.exitProcess`
    /// right after): a read keeps its context and objects for the exit instead of freeing
    /// them. In-process runs (tests) free them as usual.
    package var keepsObjectsUntilExit = false

    package init(variables: [String: String] = [:], currentDirectory: String = FileManager.default.currentDirectoryPath,
                standardInput: FileHandle = .standardInput, output: OutputSink, errors: OutputSink,
                errorsIsTerminal: Bool = false, terminalWidth: Int = 80, now: @escaping @Sendable () -> Date = { Date() }) {
        self.variables = variables
        self.currentDirectory = currentDirectory
        self.standardInput = standardInput
        self.output = output
        self.errors = errors
        self.errorsIsTerminal = errorsIsTerminal
        self.terminalWidth = terminalWidth
        self.now = now
    }

    /// The process's own streams, environment and terminal.
    package static func process() -> CLIEnvironment {
        let variables = processVariables()
        var environment = CLIEnvironment(variables: variables, output: FileDescriptorSink(descriptor: 1), errors: FileDescriptorSink(descriptor: 2),
                                         errorsIsTerminal: Terminal.isTerminal(fd: 2), terminalWidth: Terminal.width(fd: 1, environment: variables))
        environment.keepsObjectsUntilExit = true
        return environment
    }

    /// The process's environment, read from `environ` as `ProcessInfo.environment` reads it
    /// (each `NAME=value` split at its first `=`, a later entry of a name winning, entries
    /// without `=` left out), without making `ProcessInfo`: its first use costs about 0.4 M
    /// instructions, a twentieth of a `vacation show`.
    package static func processVariables() -> [String: String] {
        var variables: [String: String] = [:]
        // Optional on some C libraries, not on glibc: taken as optional either way.
        let start: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        guard var entry = start else { return variables }
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if text.utf8.allSatisfy({ $0 < 0x80 }) {
                // In ASCII text every "=" is a character of its own: found by its byte, not by
                // walking the characters (a long `LS_COLORS` took 0.2 M instructions so).
                if let delimiter = text.utf8.firstIndex(of: UInt8(ascii: "=")) {
                    variables[String(text[..<delimiter])] = String(text[text.utf8.index(after: delimiter)...])
                }
            } else if let delimiter = text.firstIndex(of: "=") {
                variables[String(text[..<delimiter])] = String(text[text.index(after: delimiter)...])
            }
            entry += 1
        }
        return variables
    }
}
