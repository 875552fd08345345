/// A command line that does not fit the command's spec. The caller prints `description` to
/// standard error and exits with `exitCode` (64, `EX_USAGE`).
///
/// The text follows swift-argument-parser:
///
///     Error: Unknown option '--fo'. Did you mean '--force'?
///     Usage: vacation restore <backup> [--as <name>] [--force]
///       See 'vacation restore --help' for more information.
///
/// Errors about one argument carry a `Help:` line with that argument's help:
///
///     Error: Missing value for '--limit <n>'
///     Help:  --limit <n>  Show at most this many photos.
///     Usage: vacation photos [--limit <n>]
///       See 'vacation photos --help' for more information.
package struct CLIUsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, without the `Error: ` label.
    package var message: String
    /// The help of the argument at fault, as `--limit <n>  Show at most …`.
    var argumentHelp: String?
    /// The synopsis of the command being parsed, with its command path.
    package var usage: String
    /// The command path to suggest with `--help`, e.g. `vacation restore`.
    package var commandPath: String

    package init(message: String, argumentHelp: String? = nil, usage: String, commandPath: String) {
        self.message = message
        self.argumentHelp = argumentHelp
        self.usage = usage
        self.commandPath = commandPath
    }

    /// Builds the error for the command at the end of `path`.
    package init(message: String, argumentHelp: String? = nil, path: [CommandSpec]) {
        self.init(
            message: message,
            argumentHelp: argumentHelp,
            usage: CommandHelpRenderer.usage(for: path),
            commandPath: path.map(\.name).joined(separator: " "))
    }

    /// `EX_USAGE` from sysexits.h, the code the CLI contract (ARCHITECTURE.md §4) gives usage errors.
    package var exitCode: Int32 { ExitCode.usage }

    /// The full multi-line text, without a trailing newline.
    package var description: String {
        var text = "Error: \(message)\n"
        if let argumentHelp, !argumentHelp.isEmpty {
            text += "Help:  \(argumentHelp)\n"
        }
        text += "Usage: \(usage)\n"
        text += "  See '\(commandPath) --help' for more information."
        return text
    }
}

extension CLIUsageError {
    static func unknownOption(_ name: String, candidates: [String], path: [CommandSpec]) -> CLIUsageError {
        // Like swift-argument-parser, no suggestion for a single-letter option.
        let isShort = !name.hasPrefix("--") && name.count == 2
        let longCandidates = candidates.filter { $0.hasPrefix("--") }
        if !isShort, let suggestion = CommandSuggestion.closest(to: name, in: longCandidates) {
            return CLIUsageError(message: "Unknown option '\(name)'. Did you mean '\(suggestion)'?", path: path)
        }
        return CLIUsageError(message: "Unknown option '\(name)'", path: path)
    }

    static func unknownCommand(_ name: String, candidates: [String], path: [CommandSpec]) -> CLIUsageError {
        if let suggestion = CommandSuggestion.closest(to: name, in: candidates) {
            return CLIUsageError(message: "Unknown command '\(name)'. Did you mean '\(suggestion)'?", path: path)
        }
        return CLIUsageError(message: "Unknown command '\(name)'", path: path)
    }

    static func missingValue(for name: String, option: OptionSpec, path: [CommandSpec]) -> CLIUsageError {
        let synopsis = option.synopsis(spelledAs: name)
        return CLIUsageError(
            message: "Missing value for '\(synopsis)'",
            argumentHelp: option.help.isEmpty ? nil : "\(synopsis)  \(option.help)",
            path: path)
    }

    static func unexpectedValue(_ value: String, forFlag name: String, path: [CommandSpec]) -> CLIUsageError {
        CLIUsageError(
            message: "The option '\(name)' does not take any value, but '\(value)' was specified.",
            path: path)
    }

    static func duplicateOption(_ name: String, option: OptionSpec, path: [CommandSpec]) -> CLIUsageError {
        CLIUsageError(
            message: "The option '\(option.synopsis(spelledAs: name))' can only be given once",
            path: path)
    }

    static func unexpectedArguments(_ values: [String], path: [CommandSpec]) -> CLIUsageError {
        if values.count == 1 {
            return CLIUsageError(message: "Unexpected argument '\(values[0])'", path: path)
        }
        let list = values.joined(separator: "', '")
        return CLIUsageError(message: "\(values.count) unexpected arguments: '\(list)'", path: path)
    }

    static func missingArgument(_ argument: ArgumentSpec, path: [CommandSpec]) -> CLIUsageError {
        let synopsis = argument.isRepeating ? "<\(argument.name)> ..." : "<\(argument.name)>"
        return CLIUsageError(
            message: "Missing expected argument '\(synopsis)'",
            argumentHelp: argument.help.isEmpty ? nil : "<\(argument.name)>  \(argument.help)",
            path: path)
    }

    static func missingOption(_ option: OptionSpec, path: [CommandSpec]) -> CLIUsageError {
        let synopsis = option.synopsis(spelledAs: option.canonicalName)
        return CLIUsageError(
            message: "Missing expected argument '\(synopsis)'",
            argumentHelp: option.help.isEmpty ? nil : "\(synopsis)  \(option.help)",
            path: path)
    }

    /// `The value 'abc' is invalid for '--limit <n>'`, with an optional reason after `: `.
    static func invalidValue(
        _ value: String, for label: String, help: String, reason: String?, path: [CommandSpec]
    ) -> CLIUsageError {
        let suffix = reason.map { ": \($0)" } ?? ""
        return CLIUsageError(
            message: "The value '\(value)' is invalid for '\(label)'\(suffix)",
            argumentHelp: help.isEmpty ? nil : "\(label)  \(help)",
            path: path)
    }
}

extension OptionSpec {
    /// `--limit <n>` or `--force`, with the name as the user spelled it.
    func synopsis(spelledAs name: String) -> String {
        valueName.map { "\(name) <\($0)>" } ?? name
    }
}
