/// A command described as a value: its name, help, positional arguments, options and
/// subcommands.
///
/// Help, usage lines and error messages are all rendered from this one description, as
/// swift-argument-parser renders them from a command's declaration.
///
///     let restore = CommandSpec(
///         name: "restore",
///         abstract: "Restore a vacation from a backup.",
///         arguments: [ArgumentSpec(name: "backup", help: "The backup to restore.")],
///         options: [.option("--as", valueName: "name", help: "Restore under this name."),
///                   .flag("--force", help: "Replace an existing vacation.")])
package struct CommandSpec: Sendable, Equatable {
    /// The word that selects this command, e.g. `import`.
    package var name: String
    /// One line shown after `OVERVIEW:` and in the parent's `SUBCOMMANDS:` list.
    package var abstract: String
    /// A paragraph shown after the abstract in this command's help.
    package var discussion: String
    /// The version printed by `--version`; only the root command usually has one.
    package var version: String?
    /// Positional arguments, in the order they are bound.
    package var arguments: [ArgumentSpec]
    /// Named options and flags.
    package var options: [OptionSpec]
    package var subcommands: [CommandSpec]
    /// Replaces the generated synopsis (without the leading command path).
    package var usageOverride: String?
    /// Hidden commands work but are left out of the parent's `SUBCOMMANDS:` list.
    package var isHidden: Bool
    /// A help command shows the help of the sibling named by its first argument.
    var isHelpCommand: Bool

    package init(
        name: String,
        abstract: String = "",
        discussion: String = "",
        version: String? = nil,
        arguments: [ArgumentSpec] = [],
        options: [OptionSpec] = [],
        subcommands: [CommandSpec] = [],
        usageOverride: String? = nil,
        isHidden: Bool = false,
        isHelpCommand: Bool = false
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.version = version
        self.arguments = arguments
        self.options = options
        self.subcommands = subcommands
        self.usageOverride = usageOverride
        self.isHidden = isHidden
        self.isHelpCommand = isHelpCommand
    }

    /// The subcommand called `name`, if any.
    package func subcommand(named name: String) -> CommandSpec? {
        subcommands.first { $0.name == name }
    }

    /// A hidden `help [<command>]` command in swift-argument-parser's wording.
    package static func helpCommand(name: String = "help") -> CommandSpec {
        CommandSpec(
            name: name,
            abstract: "Show subcommand help information.",
            arguments: [ArgumentSpec(name: "command", help: "The command to show help for.", isOptional: true)],
            isHidden: true,
            isHelpCommand: true)
    }
}

/// A positional argument: `<name>`, `[<name>]`, `<name> ...` or `[<name> ...]`.
package struct ArgumentSpec: Sendable, Equatable {
    /// Shown as `<name>`; also the key for `ParsedArguments.positional(_:)`.
    package var name: String
    package var help: String
    package var isOptional: Bool
    /// Takes every remaining positional value (`FEED...`).
    package var isRepeating: Bool
    /// Whether a lone `-` (standard input) is accepted as this argument's value.
    package var allowsStandardInput: Bool

    package init(
        name: String,
        help: String = "",
        isOptional: Bool = false,
        isRepeating: Bool = false,
        allowsStandardInput: Bool = false
    ) {
        self.name = name
        self.help = help
        self.isOptional = isOptional
        self.isRepeating = isRepeating
        self.allowsStandardInput = allowsStandardInput
    }
}

/// A named option (`--limit <n>`) or flag (`--force`).
package struct OptionSpec: Sendable, Equatable {
    /// Long names with their dashes, e.g. `["--exclude-tag"]`; the first is preferred.
    package var longNames: [String]
    /// A single-letter name used as `-x`.
    package var shortName: Character?
    /// The placeholder shown as `<value>`; `nil` makes this a flag that takes no value.
    package var valueName: String?
    package var help: String
    /// Whether it may be given more than once (every value is kept).
    package var isRepeatable: Bool
    /// A required option shows without brackets in the usage line.
    package var isRequired: Bool
    /// Shown in help as `(default: …)`; binding does not apply it.
    package var defaultValue: String?
    /// Inherited options are accepted by every subcommand too, before or after its name.
    package var isInherited: Bool

    package init(
        longNames: [String],
        shortName: Character? = nil,
        valueName: String? = nil,
        help: String = "",
        isRepeatable: Bool = false,
        isRequired: Bool = false,
        defaultValue: String? = nil,
        isInherited: Bool = false
    ) {
        self.longNames = longNames
        self.shortName = shortName
        self.valueName = valueName
        self.help = help
        self.isRepeatable = isRepeatable
        self.isRequired = isRequired
        self.defaultValue = defaultValue
        self.isInherited = isInherited
    }

    /// An option that takes a value, e.g. `.option("--limit", valueName: "n", help: "…")`.
    package static func option(
        _ longName: String,
        short: Character? = nil,
        valueName: String,
        help: String,
        isRepeatable: Bool = false,
        isRequired: Bool = false,
        defaultValue: String? = nil,
        isInherited: Bool = false
    ) -> OptionSpec {
        OptionSpec(
            longNames: [longName], shortName: short, valueName: valueName, help: help,
            isRepeatable: isRepeatable, isRequired: isRequired, defaultValue: defaultValue,
            isInherited: isInherited)
    }

    /// A flag that takes no value, e.g. `.flag("--force", help: "…")`.
    package static func flag(
        _ longName: String,
        short: Character? = nil,
        help: String,
        isRequired: Bool = false,
        isInherited: Bool = false
    ) -> OptionSpec {
        OptionSpec(
            longNames: [longName], shortName: short, help: help,
            isRequired: isRequired, isInherited: isInherited)
    }

    var isFlag: Bool { valueName == nil }

    /// The key values are stored under: the first long name, else `-x`.
    var canonicalName: String {
        longNames.first ?? shortName.map { "-\($0)" } ?? ""
    }

    /// Every spelling that selects this option: long names and `-x`.
    var allNames: [String] {
        longNames + (shortName.map { ["-\($0)"] } ?? [])
    }

    /// Whether `name` (`--limit` or `-l`) selects this option.
    package func matches(_ name: String) -> Bool {
        allNames.contains(name)
    }
}
