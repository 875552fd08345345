/// Stage 4: assigns positional words to the command's arguments and checks that nothing
/// required is missing and nothing is left over.
enum ArgumentValidator {
    static func validate(_ bound: ParsedArguments) -> Result<ParsedArguments, CLIUsageError> {
        var arguments = bound
        let path = bound.path
        guard let command = path.last else { return .success(arguments) }
        var pending = bound.pendingPositionals[...]
        for (index, spec) in command.arguments.enumerated() {
            // An optional argument leaves one word for each required argument after it; a
            // required one takes its word regardless, so the first missing one is reported.
            let reserved = command.arguments[(index + 1)...].filter { !$0.isOptional }.count
            let spare = max(0, pending.count - reserved)
            let take: Int
            switch (spec.isOptional, spec.isRepeating) {
            case (true, true): take = spare
            case (true, false): take = min(1, spare)
            case (false, true): take = pending.isEmpty ? 0 : max(1, spare)
            case (false, false): take = min(1, pending.count)
            }
            if take == 0 && !spec.isOptional {
                return .failure(.missingArgument(spec, path: path))
            }
            let taken = pending.prefix(take)
            pending = pending.dropFirst(take)
            for token in taken {
                let value = token.value ?? token.original
                if value == "-" && !spec.allowsStandardInput && !token.isAfterTerminator {
                    return .failure(arguments.invalidValue(value, argument: spec, reason: nil))
                }
                arguments.positionalValues[spec.name, default: []].append(value)
            }
        }
        if !pending.isEmpty {
            return .failure(.unexpectedArguments(pending.map { $0.value ?? $0.original }, path: path))
        }
        arguments.pendingPositionals = []
        for option in OptionScope(path: path).options where option.isRequired {
            if !arguments.contains(option.canonicalName) {
                return .failure(.missingOption(option, path: path))
            }
        }
        return .success(arguments)
    }
}
