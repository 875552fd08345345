/// What a command line gave, bound to the chosen command's spec.
///
/// Options are looked up by any of their names and positionals by their spec name:
///
///     arguments.positionals("feed")       // ["a.xml", "-"]
///     arguments.value(of: "--place")      // "Paris" or nil
///     arguments.values(of: "--exclude-tag")
///     arguments.flag("--force")
///     try arguments.integer(of: "--limit", in: 0...)   // throws CLIUsageError
package struct ParsedArguments: Sendable, Equatable {
    /// The root command, then the chosen subcommands.
    package let path: [CommandSpec]
    /// Values of valued options, by canonical name, in command-line order.
    var optionValues: [String: [String]] = [:]
    /// How each option was last spelled (`-l` or `--limit`), for error messages.
    var optionSpellings: [String: String] = [:]
    /// How many times each flag was given, by canonical name.
    var flagCounts: [String: Int] = [:]
    /// Positional values by argument name, filled by the validator.
    var positionalValues: [String: [String]] = [:]
    /// Positional words in order, before the validator assigns them to arguments.
    var pendingPositionals: [ArgumentToken] = []

    package init(path: [CommandSpec]) {
        self.path = path
    }

    /// The chosen command's spec.
    package var command: CommandSpec? { path.last }

    /// The command path as words, e.g. `["vacation", "import"]`.
    package var commandNames: [String] { path.map(\.name) }

    // MARK: Options

    /// The option that `name` selects: in the chosen command's scope first, then among
    /// the options of its ancestors, which may have been given before its name.
    package func option(named name: String) -> OptionSpec? {
        OptionScope(path: path).option(named: name)
            ?? path.reversed().lazy.flatMap(\.options).first { $0.matches(name) }
    }

    /// The last value given for a valued option, or `nil` if it was not given.
    package func value(of name: String) -> String? {
        values(of: name).last
    }

    /// Every value given for an option, in order.
    package func values(of name: String) -> [String] {
        guard let option = option(named: name) else { return [] }
        return optionValues[option.canonicalName] ?? []
    }

    /// Whether a flag was given (any number of times).
    package func flag(_ name: String) -> Bool {
        flagCount(name) > 0
    }

    func flagCount(_ name: String) -> Int {
        guard let option = option(named: name) else { return 0 }
        return flagCounts[option.canonicalName] ?? 0
    }

    /// Whether an option or flag was given at all.
    package func contains(_ name: String) -> Bool {
        flag(name) || !values(of: name).isEmpty
    }

    // MARK: Positionals

    /// The value of a single positional argument.
    package func positional(_ name: String) -> String? {
        positionalValues[name]?.first
    }

    /// All values of a (repeating) positional argument.
    package func positionals(_ name: String) -> [String] {
        positionalValues[name] ?? []
    }

    // MARK: Recording, used by the binder and validator

    mutating func record(value: String, for option: OptionSpec, spelledAs spelling: String) {
        optionValues[option.canonicalName, default: []].append(value)
        optionSpellings[option.canonicalName] = spelling
    }

    mutating func recordFlag(_ option: OptionSpec, spelledAs spelling: String) {
        flagCounts[option.canonicalName, default: 0] += 1
        optionSpellings[option.canonicalName] = spelling
    }

    func hasValue(for option: OptionSpec) -> Bool {
        !(optionValues[option.canonicalName] ?? []).isEmpty
    }

    func spelling(of option: OptionSpec) -> String {
        optionSpellings[option.canonicalName] ?? option.canonicalName
    }
}

// MARK: - Typed values

extension ParsedArguments {
    /// The option's value as an integer, `nil` when it was not given.
    ///
    /// - Throws: `CLIUsageError` such as `The value 'abc' is invalid for '--limit <n>'`,
    ///   or with `: must be 1 or more` when the value is outside `range`.
    package func integer(of name: String, in range: PartialRangeFrom<Int>? = nil) throws(CLIUsageError) -> Int? {
        guard let text = value(of: name), let option = option(named: name) else { return nil }
        guard let number = Self.parseInteger(text) else {
            throw invalidValue(text, option: option, reason: nil)
        }
        if let range, !range.contains(number) {
            throw invalidValue(text, option: option, reason: "must be \(range.lowerBound) or more")
        }
        return number
    }

    /// The option's value as a finite number, `nil` when it was not given.
    ///
    /// - Throws: `CLIUsageError` when the value is not a number or is below `minimum`.
    package func number(of name: String, minimum: Double? = nil) throws(CLIUsageError) -> Double? {
        guard let text = value(of: name), let option = option(named: name) else { return nil }
        guard let number = Self.parseNumber(text) else {
            throw invalidValue(text, option: option, reason: nil)
        }
        if let minimum, number < minimum {
            throw invalidValue(text, option: option, reason: "must be \(Self.formatted(minimum)) or more")
        }
        return number
    }

    /// The error for a value the command cannot use, in swift-argument-parser's wording.
    package func invalidValue(_ value: String, option: OptionSpec, reason: String?) -> CLIUsageError {
        .invalidValue(
            value, for: option.synopsis(spelledAs: spelling(of: option)),
            help: option.help, reason: reason, path: path)
    }

    /// The error for a positional value the command cannot use.
    package func invalidValue(_ value: String, argument: ArgumentSpec, reason: String?) -> CLIUsageError {
        .invalidValue(value, for: "<\(argument.name)>", help: argument.help, reason: reason, path: path)
    }

    /// Decimal integers only: `+5`, `1_000`, `0x10` and spaces are refused.
    static func parseInteger(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || (48...57).contains($0) }) else {
            return nil
        }
        return Int(text)
    }

    static func parseNumber(_ text: String) -> Double? {
        let allowed = Set("0123456789.-+eE".utf8)
        guard !text.isEmpty, text.utf8.allSatisfy(allowed.contains), let number = Double(text),
              number.isFinite else { return nil }
        return number
    }

    static func formatted(_ number: Double) -> String {
        // `0`, not `0.0`; string work rather than rounding keeps this file free of libm.
        let text = String(number)
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }
}
