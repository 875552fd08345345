/// Stage 3: binds tokens to the options of the chosen command and collects positionals.
///
/// Options before a subcommand's name belong to the commands before it; options after it
/// belong to the subcommand or are inherited from its ancestors. Errors are reported in
/// command-line order: unknown option, missing value, a flag given a value, an option given
/// twice that is not repeatable.
///
///     let choice = CommandChooser.choose(root: root, tokens: tokens)
///     let bound = try ArgumentBinder.bind(tokens, choice: choice).get()
enum ArgumentBinder {
    static func bind(_ tokens: [ArgumentToken], choice: CommandChoice) -> Result<ParsedArguments, CLIUsageError> {
        var arguments = ParsedArguments(path: choice.path)
        var segment = 1
        var position = 0
        while position < tokens.count {
            if choice.commandTokenPositions.contains(position) {
                segment += 1
                position += 1
                continue
            }
            let path = Array(choice.path.prefix(segment))
            let scope = OptionScope(path: path)
            let token = tokens[position]
            switch token.kind {
            case .terminator:
                break
            case .value:
                arguments.pendingPositionals.append(token)
            case .longOption(let name, let attachedValue):
                if OptionScope.isBuiltIn(name) { break }
                guard let option = scope.option(named: name) else {
                    return .failure(.unknownOption(name, candidates: scope.longNames, path: path))
                }
                if option.isFlag {
                    if let attachedValue {
                        return .failure(.unexpectedValue(attachedValue, forFlag: name, path: path))
                    }
                    arguments.recordFlag(option, spelledAs: name)
                    break
                }
                let value: String
                if let attachedValue {
                    value = attachedValue
                } else if CommandChooser.takesNextAsValue(tokens, after: position), let next = tokens[position + 1].value {
                    value = next
                    position += 1
                } else {
                    return .failure(.missingValue(for: name, option: option, path: path))
                }
                if let error = record(value, for: option, spelledAs: name, into: &arguments, path: path) {
                    return .failure(error)
                }
            case .shortOptions(let letters):
                for (offset, letter) in letters.enumerated() {
                    let name = "-\(letter)"
                    if OptionScope.isBuiltIn(name) { continue }
                    guard let option = scope.option(named: name) else {
                        return .failure(.unknownOption(name, candidates: scope.longNames, path: path))
                    }
                    if option.isFlag {
                        arguments.recordFlag(option, spelledAs: name)
                        continue
                    }
                    // A valued letter must end its group: `-vl 5`, not `-lv 5`.
                    guard offset == letters.count - 1, CommandChooser.takesNextAsValue(tokens, after: position),
                          let next = tokens[position + 1].value else {
                        return .failure(.missingValue(for: name, option: option, path: path))
                    }
                    position += 1
                    if let error = record(next, for: option, spelledAs: name, into: &arguments, path: path) {
                        return .failure(error)
                    }
                }
            }
            position += 1
        }
        return .success(arguments)
    }

    static func record(
        _ value: String, for option: OptionSpec, spelledAs name: String,
        into arguments: inout ParsedArguments, path: [CommandSpec]
    ) -> CLIUsageError? {
        if !option.isRepeatable && arguments.hasValue(for: option) {
            return .duplicateOption(name, option: option, path: path)
        }
        arguments.record(value: value, for: option, spelledAs: name)
        return nil
    }
}
