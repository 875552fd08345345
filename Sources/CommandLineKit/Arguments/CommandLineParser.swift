/// What a command line asks for, once parsed against a command table.
package enum CommandLineRequest: Sendable, Equatable {
    /// Run the last command of `arguments.path` with these arguments.
    case run(ParsedArguments)
    /// Show the help of the last command of `path`.
    case help(path: [CommandSpec])
    /// Print this version string.
    case version(String)
}

/// Parses a command line against a command table, in the stages swift-argument-parser
/// keeps apart: tokenize, choose the command, bind, validate.
///
///     let parser = CommandLineParser(root: table)
///     switch parser.parse(Array(CommandLine.arguments.dropFirst())) {
///     case .success(.run(let arguments)): …
///     case .success(.help(let path)): print(CommandHelpRenderer.help(for: path))
///     case .success(.version(let version)): print(version)
///     case .failure(let error): print(error, to: &standardError)   // exit 64
///     }
///
/// `-h`/`--help` anywhere before `--` asks for help with the command named so far, and
/// wins over any other mistake on the line, as it does in swift-argument-parser; then
/// `--version`. With no subcommand named, a command that has subcommands shows its help.
package struct CommandLineParser: Sendable {
    package var root: CommandSpec

    package init(root: CommandSpec) {
        self.root = root
    }

    /// Parses `arguments`, which exclude the program name (`argv[0]`).
    package func parse(_ arguments: [String]) -> Result<CommandLineRequest, CLIUsageError> {
        let tokens = ArgumentTokenizer.tokenize(arguments)
        let choice = CommandChooser.choose(root: root, tokens: tokens)
        if Self.asksForHelp(tokens) {
            return .success(.help(path: choice.path))
        }
        if Self.asksForVersion(tokens), let version = choice.path.compactMap(\.version).last {
            return .success(.version(version))
        }
        if let error = choice.error {
            return .failure(error)
        }
        let bound: ParsedArguments
        switch ArgumentBinder.bind(tokens, choice: choice) {
        case .success(let arguments): bound = arguments
        case .failure(let error): return .failure(error)
        }
        guard let command = choice.command else { return .success(.help(path: choice.path)) }
        if !command.subcommands.isEmpty && command.arguments.isEmpty {
            // A command that only groups subcommands shows its help when run alone, and
            // rejects stray words after `--`.
            if let stray = bound.pendingPositionals.first {
                return .failure(.unexpectedArguments([stray.value ?? stray.original], path: choice.path))
            }
            return .success(.help(path: choice.path))
        }
        let validated: ParsedArguments
        switch ArgumentValidator.validate(bound) {
        case .success(let arguments): validated = arguments
        case .failure(let error): return .failure(error)
        }
        if command.isHelpCommand {
            return resolveHelpTopic(validated, helpPath: choice.path)
        }
        return .success(.run(validated))
    }

    /// `help <command>` shows the help of the help command's sibling named `<command>`.
    func resolveHelpTopic(_ arguments: ParsedArguments, helpPath: [CommandSpec]) -> Result<CommandLineRequest, CLIUsageError> {
        let parentPath = Array(helpPath.dropLast())
        guard let parent = parentPath.last else { return .success(.help(path: helpPath)) }
        let words = arguments.command?.arguments.flatMap { arguments.positionals($0.name) } ?? []
        var topicPath = parentPath
        for word in words {
            guard let current = topicPath.last, let subcommand = current.subcommand(named: word) else {
                let candidates = (topicPath.last ?? parent).subcommands.filter { !$0.isHidden }.map(\.name)
                return .failure(.unknownCommand(word, candidates: candidates, path: helpPath))
            }
            topicPath.append(subcommand)
        }
        return .success(.help(path: topicPath))
    }

    static func asksForHelp(_ tokens: [ArgumentToken]) -> Bool {
        tokens.contains { token in
            switch token.kind {
            case .longOption(let name, _): return OptionScope.helpNames.contains(name)
            case .shortOptions(let letters): return letters.contains("h")
            case .value, .terminator: return false
            }
        }
    }

    static func asksForVersion(_ tokens: [ArgumentToken]) -> Bool {
        tokens.contains { token in
            if case .longOption("--version", _) = token.kind { return true }
            return false
        }
    }
}
