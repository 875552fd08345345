/// The options a command accepts: its own, then those its ancestors let subcommands inherit.
struct OptionScope {
    var options: [OptionSpec]

    init(path: [CommandSpec]) {
        var options = path.last?.options ?? []
        for ancestor in path.dropLast().reversed() {
            options += ancestor.options.filter(\.isInherited)
        }
        self.options = options
    }

    /// The nearest declaration wins, so a subcommand can redeclare an inherited option.
    func option(named name: String) -> OptionSpec? {
        options.first { $0.matches(name) }
    }

    /// Every long name, for suggestions; the built-in flags are included.
    var longNames: [String] {
        options.flatMap(\.longNames) + ["--help", "--version"]
    }

    static let helpNames: Set<String> = ["-h", "--help"]

    static func isBuiltIn(_ name: String) -> Bool {
        helpNames.contains(name) || name == "--version"
    }
}
