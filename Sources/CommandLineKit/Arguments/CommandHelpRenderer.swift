/// Renders help and usage text from a `CommandSpec` in swift-argument-parser's layout.
///
/// The layout, as in swift-argument-parser's `HelpGenerator`:
///
///     OVERVIEW: <abstract>
///                                         (blank line, then the discussion if any)
///     USAGE: <path> <synopsis>
///
///     ARGUMENTS:
///       <feed>                  Help text starts at column 26 and wraps with a
///                               hanging indent of 26.
///
///     OPTIONS:
///       --a-name-too-long-for-the-column <value>
///                               Help on the next line.
///       --version               Show the version.
///       -h, --help              Show help information.
///
///     SUBCOMMANDS:
///       list                    List the vacations.
///
///       See 'vacation help <subcommand>' for detailed help.
///
/// Sections are separated by one blank line. A command without subcommands ends with the
/// newline after its last option; one with subcommands ends after `detailed help.`.
/// Callers print the text followed by one newline, as swift-argument-parser does.
package enum CommandHelpRenderer {
    /// Columns before an element's label.
    static let helpIndent = 2
    /// The column where an element's help text starts.
    static let labelColumnWidth = 26
    /// Screens narrower than this are treated as this wide.
    static let minimumScreenWidth = labelColumnWidth + 14
    /// More than this many options collapse into `[<options>]` in a usage line.
    static let maximumUsageOptions = 12

    /// The help text for the last command of `path` (root first).
    ///
    ///     CommandHelpRenderer.help(for: [root, importCommand], screenWidth: 80)
    package static func help(for path: [CommandSpec], screenWidth: Int = 80) -> String {
        guard let command = path.last else { return "" }
        // Help text needs room beside the label column; narrower screens wrap as if wider.
        let screenWidth = max(screenWidth, minimumScreenWidth)
        var overview = command.abstract
        if !command.discussion.isEmpty {
            if !overview.isEmpty { overview += "\n" }
            overview += "\n" + command.discussion
        }
        let renderedOverview = overview.isEmpty
            ? ""
            : wrap("OVERVIEW: \(overview)", toWidth: screenWidth) + "\n\n"

        let sections = [
            section("ARGUMENTS", argumentElements(command), screenWidth: screenWidth),
            section("OPTIONS", optionElements(path), screenWidth: screenWidth),
            section("SUBCOMMANDS", subcommandElements(command), screenWidth: screenWidth),
        ].filter { !$0.isEmpty }

        var text = renderedOverview + "USAGE: \(usage(for: path))\n\n" + sections.joined(separator: "\n")
        if command.subcommands.contains(where: { !$0.isHidden }) {
            var names = path.map(\.name)
            names.insert("help", at: 1)
            text += "\n  See '\(names.joined(separator: " ")) <subcommand>' for detailed help."
        }
        return text
    }

    /// The usage line for the last command of `path`, starting with the command path:
    /// `vacation restore <backup> [--as <name>] [--force]`.
    package static func usage(for path: [CommandSpec]) -> String {
        guard let command = path.last else { return "" }
        let prefix = path.map(\.name).joined(separator: " ")
        if let override = command.usageOverride {
            return override.isEmpty ? prefix : "\(prefix) \(override)"
        }
        var parts = command.arguments.map(synopsis(of:))
        let options = command.options
        if options.count > maximumUsageOptions {
            // As swift-argument-parser does: keep what is required, fold the rest.
            let required = options.filter(\.isRequired).map(synopsis(of:))
            parts = ["[<options>]"] + parts + required
        } else {
            parts += options.map(synopsis(of:))
        }
        if !command.subcommands.isEmpty {
            parts.append("<subcommand>")
        }
        return ([prefix] + parts).joined(separator: " ")
    }

    static func synopsis(of argument: ArgumentSpec) -> String {
        var text = "<\(argument.name)>"
        if argument.isRepeating { text += " ..." }
        return argument.isOptional ? "[\(text)]" : text
    }

    static func synopsis(of option: OptionSpec) -> String {
        var text = option.synopsis(spelledAs: option.canonicalName)
        if option.isRepeatable { text += " ..." }
        return option.isRequired ? text : "[\(text)]"
    }

    // MARK: Sections

    struct Element {
        var label: String
        var abstract: String
    }

    static func argumentElements(_ command: CommandSpec) -> [Element] {
        command.arguments.map { Element(label: "<\($0.name)>", abstract: $0.help) }
    }

    static func optionElements(_ path: [CommandSpec]) -> [Element] {
        guard let command = path.last else { return [] }
        var elements = command.options.map { option -> Element in
            // Short names first, as swift-argument-parser lists them: `-h, --help`.
            let names = (option.shortName.map { ["-\($0)"] } ?? []) + option.longNames
            var label = names.joined(separator: ", ")
            if let valueName = option.valueName { label += " <\(valueName)>" }
            var abstract = option.help
            if let defaultValue = option.defaultValue, !defaultValue.isEmpty {
                abstract += abstract.isEmpty ? "(default: \(defaultValue))" : " (default: \(defaultValue))"
            }
            return Element(label: label, abstract: abstract)
        }
        // The version flag is shown wherever some command in the path has a version.
        if path.contains(where: { $0.version != nil }) {
            elements.append(Element(label: "--version", abstract: "Show the version."))
        }
        elements.append(Element(label: "-h, --help", abstract: "Show help information."))
        return elements
    }

    static func subcommandElements(_ command: CommandSpec) -> [Element] {
        command.subcommands.filter { !$0.isHidden }.map { Element(label: $0.name, abstract: $0.abstract) }
    }

    static func section(_ title: String, _ elements: [Element], screenWidth: Int) -> String {
        guard !elements.isEmpty else { return "" }
        return "\(title):\n" + elements.map { render($0, screenWidth: screenWidth) }.joined()
    }

    static func render(_ element: Element, screenWidth: Int) -> String {
        let paddedLabel = String(repeating: " ", count: helpIndent) + element.label
        guard !element.abstract.isEmpty else { return paddedLabel + "\n" }
        let wrapped = wrap(element.abstract, toWidth: screenWidth, indent: labelColumnWidth)
        if paddedLabel.count < labelColumnWidth {
            // The label takes the place of the first line's indent.
            return paddedLabel + String(wrapped.dropFirst(paddedLabel.count)) + "\n"
        }
        return paddedLabel + "\n" + wrapped + "\n"
    }

    // MARK: Wrapping

    /// Wraps `text` to `width` columns, indenting every non-empty line by `indent`.
    ///
    /// Breaks as swift-argument-parser's `wrapped(to:wrappingIndent:)` does: a line takes
    /// at most `width - indent` characters and breaks at the last space among them, or at
    /// the next space when a word is longer than the line; newlines in `text` are kept.
    package static func wrap(_ text: String, toWidth width: Int, indent: Int = 0) -> String {
        let columns = width - indent
        guard columns > 0 else { return text }
        var lines: [Substring] = []
        var rest = text[...]
        while true {
            let chunk = rest.prefix(columns)
            if let lastNewline = chunk.lastIndex(of: "\n") {
                lines += rest[..<lastNewline].split(separator: "\n", omittingEmptySubsequences: false)
                rest = rest[rest.index(after: lastNewline)...]
            } else if chunk.endIndex == rest.endIndex {
                lines.append(rest)
                break
            } else if let lastSpace = chunk.lastIndex(of: " ") {
                lines.append(rest[..<lastSpace])
                rest = rest[rest.index(after: lastSpace)...]
            } else if let nextSpace = rest.firstIndex(of: " ") {
                lines.append(rest[..<nextSpace])
                rest = rest[rest.index(after: nextSpace)...]
            } else {
                lines.append(rest)
                break
            }
        }
        let padding = String(repeating: " ", count: indent)
        return lines.map { $0.isEmpty ? "" : padding + $0 }.joined(separator: "\n")
    }
}
