import CommandLineKit
import Documents
import Foundation
import ObjectGraph
import SQLiteDB
import Vacations

/// The `vacation` command: parse, run, render, all in-process; `main.swift` only wires the
/// process's streams and exits with the code this returns.
///
/// ```swift
/// let code = VacationCLI.run(CommandLine.arguments.dropFirst().map { $0 }, environment: .process())
/// ```
@MainActor
package enum VacationCLI {
    /// Runs one invocation and returns its exit code (ARCHITECTURE.md §4).
    package static func run(_ arguments: [String], environment: CLIEnvironment) -> Int32 {
        let code = runCommand(arguments, environment: environment)
        // Results that did not reach standard output (a full disk, say) are a failed command.
        if let failure = environment.output.writeFailure {
            environment.errors.write("Error: Cannot write the output: \(failure)\n")
            return code == ExitCode.success ? ExitCode.failure : code
        }
        return code
    }

    /// Ends the process with `code` (main.swift): the connections still open — a read keeps
    /// its context and objects for the exit (`keepUntilExit`) — are closed as their deinits
    /// would close them, then the process exits without tearing down the object graphs and
    /// JSON it built, which is work no one sees (`tags` 31.4 M → 28.3 M instructions: 2,000
    /// tags, their JSON values and the context's tables, freed one by one).
    package nonisolated static func exitProcess(_ code: Int32) -> Never {
        Connection.closeAllBeforeExit()
        exit(code)
    }

    /// What the process keeps until it exits (`CLIEnvironment.keepsObjectsUntilExit`).
    private static var kept: [Any] = []

    static func keepUntilExit(_ values: [Any]) {
        kept.append(contentsOf: values)
    }

    private static func runCommand(_ arguments: [String], environment: CLIEnvironment) -> Int32 {
        let invocation: VacationCommandLine.Invocation
        switch VacationCommandLine.parse(arguments, screenWidth: environment.terminalWidth) {
        case .failure(let error):
            environment.errors.write(error.description + "\n")
            return error.exitCode
        case .success(.help(_, let text)):
            environment.output.write(text.hasSuffix("\n") ? text : text + "\n")
            return ExitCode.success
        case .success(.version(let version)):
            environment.output.write(version + "\n")
            return ExitCode.success
        case .success(.run(let parsed)):
            invocation = parsed
        }
        do {
            // Each command closes the documents it opened, whatever happens.
            var session = try Session(invocation: invocation, environment: environment)
            return try session.run()
        } catch {
            let failure = describe(error)
            // Messages quote feeds and stores (Flickr's own error text, a skipped record's id):
            // control characters there must not reach the terminal or break the one-line form.
            environment.errors.write("Error: \(TextTable.sanitized(failure.message))\n")
            if let hint = failure.hint { environment.errors.write(hint + "\n") }
            return failure.exitCode
        }
    }

    /// Turns any error into the message, hint and exit code the contract asks for.
    static func describe(_ error: Error) -> CommandFailure {
        switch error {
        case let failure as CommandFailure:
            return failure
        case let error as CLIUsageError:
            return .usage(error.message)
        case let error as DocumentError:
            return describe(error)
        case let error as FeedError:
            return .badInput(error.description)
        case let error as QueryError:
            return .usage(error.description)
        case let error as SearchQueryError:
            return .usage(error.description)
        case let error as AlbumError:
            switch error.kind {
            case .invalidName: return .usage(error.description)
            case .alreadyExists: return .failed(error.description)
            case .notFound: return .notFound(error.description)
            }
        case let error as ImportFailure:
            switch error {
            case .feed(let feedError): return .badInput(feedError.description)
            case .store(let message): return .failed(message)
            }
        default:
            return .failed("\(error)")
        }
    }

    static func describe(_ error: DocumentError) -> CommandFailure {
        let subject: String
        switch error.subject {
        case .document(let name): subject = "vacation \"\(name)\""
        case .backup(let name): subject = "backup \"\(name)\""
        case .path(let path): subject = path
        }
        switch error.kind {
        case .notFound:
            if case .backup = error.subject {
                return .notFound("No such \(subject)", hint: "Run 'vacation backups' to see the backups of a vacation.")
            }
            if case .path = error.subject { return .notFound("No such file or folder: \(subject)") }
            return .notFound("No such \(subject)", hint: "Run 'vacation list' to see your vacations.")
        case .invalidName(let reason):
            return .usage("Invalid vacation name \(quoted(error.subject)): \(reason)")
        case .alreadyExists:
            return .failed("A \(subject) already exists")
        case .busy(let waited):
            return .busy("The \(subject) is busy: another process is writing to it (waited \(format(waited)))",
                         hint: "Try again when it is done, or give --wait SECONDS to wait longer.")
        case .locked:
            return .busy("The \(subject) is in use by this process")
        case .ambiguous(let candidates):
            return .usage("The \(subject) belongs to several vacations (\(candidates.joined(separator: ", ")))",
                          hint: "Name the vacation with --vacation NAME, or give the backup's path.")
        default:
            return .failed(error.description.replacingOccurrences(of: "Document \"", with: "Vacation \""))
        }
    }

    private static func quoted(_ subject: DocumentError.Subject) -> String {
        switch subject {
        case .document(let name), .backup(let name): "\"\(name)\""
        case .path(let path): "\"\(path)\""
        }
    }

    private static func format(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
    }
}
