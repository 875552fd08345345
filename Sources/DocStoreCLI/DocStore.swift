import Foundation
import ObjectGraph
import CommandLineKit

/// The `docstore` command, runnable in-process: arguments, environment and streams come in,
/// an exit code goes out; nothing touches the process's own streams.
///
/// ```swift
/// var output = "", errors = ""
/// let code = DocStore.run(["info", "Trip.vacation", "--json"], environment: [:], output: &output, errors: &errors)
/// ```
package enum DocStore {
    /// Parses `arguments` (without the program name), runs the command, and returns the exit
    /// code: 0 success, 1 failed, 64 usage, 65 bad input, 66 no such file or entity.
    ///
    /// Results go to `output`; errors go to `errors` as `Error: <what happened>` on one line,
    /// then a hint where one helps. `COLUMNS` in `environment` sets the help's width.
    package static func run(_ arguments: [String], environment: [String: String],
                           output: inout some TextOutputStream, errors: inout some TextOutputStream) -> Int32 {
        let parser = CommandLineParser(root: DocStoreCommands.root)
        switch parser.parse(arguments) {
        case .failure(let error):
            errors.write(error.description + "\n")
            return error.exitCode
        case .success(.help(let path)):
            let width = Terminal.fallbackWidth(environment: environment)
            output.write(CommandHelpRenderer.help(for: path, screenWidth: width) + "\n")
            return ExitCode.success
        case .success(.version(let version)):
            output.write(version + "\n")
            return ExitCode.success
        case .success(.run(let parsed)):
            var buffered = BufferedOutput(base: output)
            defer { output = buffered.flushed() }
            do {
                try execute(parsed, output: &buffered)
                return ExitCode.success
            } catch let error as DocStoreError {
                buffered.discard()
                errors.write(error.description + "\n")
                return error.exitCode
            } catch let error as CLIUsageError {
                buffered.discard()
                errors.write(error.description + "\n")
                return error.exitCode
            } catch {
                buffered.discard()
                errors.write(CommandFailure.failed("\(error)").description + "\n")
                return ExitCode.failure
            }
        }
    }

    private static func execute(_ arguments: ParsedArguments, output: inout some TextOutputStream) throws {
        let asJSON = arguments.flag("--json")
        switch arguments.command?.name {
        case "info":
            let location = try StoreLocation(path: arguments.positional("path") ?? "")
            let source = try modelSource(arguments, location: location)
            try InfoCommand(location: location, source: source).run(json: asJSON, output: &output)
        case "dump":
            let location = try StoreLocation(path: arguments.positional("path") ?? "")
            let source = try modelSource(arguments, location: location)
            try DumpCommand(location: location, source: source, entityName: arguments.value(of: "--entity")).run(output: &output)
        case "migrate":
            let location = try StoreLocation(path: arguments.positional("path") ?? "")
            let source = try ModelSource.load(arguments.value(of: "--model") ?? "")
            try MigrateCommand(location: location, source: source).run(output: &output)
        case "model":
            let path = arguments.positional("model") ?? ""
            try ModelCommand(path: path, source: ModelSource.load(path)).run(json: asJSON, output: &output)
        default:
            throw CommandFailure.failed("no command to run")
        }
    }

    private static func modelSource(_ arguments: ParsedArguments, location: StoreLocation) throws -> ModelSource {
        if let path = arguments.value(of: "--model") { return try ModelSource.load(path) }
        return try ModelSource.storeModel(of: location)
    }
}

/// Collects output in memory and hands it to the real stream in large pieces; a failed
/// command's partial output is dropped, so that stdout carries whole results only.
struct BufferedOutput<Base: TextOutputStream>: TextOutputStream {
    private var base: Base
    private var pending = ""
    private static var limit: Int { 1 << 16 }

    init(base: Base) { self.base = base }

    mutating func write(_ string: String) {
        pending += string
        if pending.utf8.count >= Self.limit {
            base.write(pending)
            pending = ""
        }
    }

    /// Drops what is not written yet.
    mutating func discard() { pending = "" }

    /// The base stream, with everything pending written to it.
    mutating func flushed() -> Base {
        if !pending.isEmpty { base.write(pending) }
        pending = ""
        return base
    }
}
