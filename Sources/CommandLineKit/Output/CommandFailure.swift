/// The exit codes of every command-line tool in this package (`vacation`, `docstore`), from
/// sysexits.h where one fits. Scripts depend on them; ARCHITECTURE.md lists them beside the CLI
/// contract.
package enum ExitCode {
    package static let success: Int32 = 0
    /// The operation failed (`check` found problems, `create` of an existing name, …).
    package static let failure: Int32 = 1
    /// `EX_USAGE`: a bad option, argument, name or predicate.
    package static let usage: Int32 = 64
    /// `EX_DATAERR`: malformed or failed input (a feed, a store, a model).
    package static let badInput: Int32 = 65
    /// `EX_NOINPUT`: no such vacation, photo, feed, backup, file, model or entity.
    package static let notFound: Int32 = 66
    /// `EX_UNAVAILABLE`: a service that could not be reached or kept failing.
    package static let unavailable: Int32 = 69
    /// `EX_TEMPFAIL`: busy in another process after the wait.
    package static let busy: Int32 = 75
}

/// A command that failed: the one-line message, an optional hint for the next line, and the
/// exit code. Commands throw it; the tool's entry point prints `description` to standard error
/// and exits with `exitCode`.
///
/// ```swift
/// throw CommandFailure.notFound("No photo 42 in the vacation \"Lisbon\"")
/// // Error: No photo 42 in the vacation "Lisbon"        (exit 66)
/// ```
package struct CommandFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// What happened, without the `Error: ` label.
    package var message: String
    /// What to do about it, printed on the next line when there is something to say.
    package var hint: String?
    package var exitCode: Int32

    package init(_ message: String, hint: String? = nil, exitCode: Int32) {
        self.message = message
        self.hint = hint
        self.exitCode = exitCode
    }

    /// `Error: <message>`, then the hint on its own line; no trailing newline.
    package var description: String {
        "Error: \(message)" + (hint.map { "\n" + $0 } ?? "")
    }

    package static func usage(_ message: String, hint: String? = nil) -> CommandFailure {
        CommandFailure(message, hint: hint, exitCode: ExitCode.usage)
    }

    package static func failed(_ message: String, hint: String? = nil) -> CommandFailure {
        CommandFailure(message, hint: hint, exitCode: ExitCode.failure)
    }

    package static func badInput(_ message: String, hint: String? = nil) -> CommandFailure {
        CommandFailure(message, hint: hint, exitCode: ExitCode.badInput)
    }

    package static func notFound(_ message: String, hint: String? = nil) -> CommandFailure {
        CommandFailure(message, hint: hint, exitCode: ExitCode.notFound)
    }

    package static func unavailable(_ message: String, hint: String? = nil) -> CommandFailure {
        CommandFailure(message, hint: hint, exitCode: ExitCode.unavailable)
    }

    package static func busy(_ message: String, hint: String? = nil) -> CommandFailure {
        CommandFailure(message, hint: hint, exitCode: ExitCode.busy)
    }
}
