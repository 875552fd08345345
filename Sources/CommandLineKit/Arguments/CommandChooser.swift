/// The command a command line selects, root first.
package struct CommandChoice: Sendable, Equatable {
    /// The root command, then each subcommand named on the command line.
    package var path: [CommandSpec]
    /// For each subcommand in `path.dropFirst()`, the position of the token that named it.
    package var commandTokenPositions: [Int]
    /// Set when a word stood where a subcommand name belongs but named none.
    package var error: CLIUsageError?

    package init(path: [CommandSpec], commandTokenPositions: [Int] = [], error: CLIUsageError? = nil) {
        self.path = path
        self.commandTokenPositions = commandTokenPositions
        self.error = error
    }

    package var command: CommandSpec? { path.last }
}

/// Stage 2: finds the subcommand, the first word that is not an option or an option's value.
///
///     // vacation --library /tmp/lib import a.xml
///     CommandChooser.choose(root: vacation, tokens: tokens).path.map(\.name)
///     // ["vacation", "import"]
///
/// An option this stage does not know stops the search without an error: the binder reports
/// it with the command it belongs to. A word that names no subcommand where one is expected
/// is an unknown command, kept in `error` so that `--help` can still be honoured.
package enum CommandChooser {
    package static func choose(root: CommandSpec, tokens: [ArgumentToken]) -> CommandChoice {
        var choice = CommandChoice(path: [root])
        var position = 0
        scanning: while position < tokens.count {
            let scope = OptionScope(path: choice.path)
            switch tokens[position].kind {
            case .terminator:
                break scanning
            case .longOption(let name, let attachedValue):
                if OptionScope.isBuiltIn(name) { break }
                guard let option = scope.option(named: name) else { break scanning }
                if !option.isFlag, attachedValue == nil, takesNextAsValue(tokens, after: position) {
                    position += 1
                }
            case .shortOptions(let letters):
                guard let last = letters.last else { break }
                for letter in letters {
                    if OptionScope.isBuiltIn("-\(letter)") { continue }
                    if scope.option(named: "-\(letter)") == nil { break scanning }
                }
                if let option = scope.option(named: "-\(last)"), !option.isFlag,
                   takesNextAsValue(tokens, after: position) {
                    position += 1
                }
            case .value(let word):
                guard let command = choice.path.last, !command.subcommands.isEmpty else { break scanning }
                if let subcommand = command.subcommand(named: word) {
                    choice.path.append(subcommand)
                    choice.commandTokenPositions.append(position)
                } else {
                    if command.arguments.isEmpty {
                        choice.error = .unknownCommand(
                            word, candidates: command.subcommands.filter { !$0.isHidden }.map(\.name),
                            path: choice.path)
                    }
                    break scanning
                }
            }
            position += 1
        }
        return choice
    }

    static func takesNextAsValue(_ tokens: [ArgumentToken], after position: Int) -> Bool {
        let next = position + 1
        return next < tokens.count && tokens[next].value != nil && !tokens[next].isAfterTerminator
    }
}
