import CommandLineKit

/// `log` and `undo` (README.md, "History: `vacation log` and `vacation undo`").
extension VacationCommands {
    static let log = CommandSpec(
        name: "log",
        abstract: "List the operations that changed a vacation.",
        discussion: """
            One entry per command that changed the vacation (all of its transactions \
            together): its token, date, author and how many objects of each entity it \
            inserted, updated and deleted.
            """,
        arguments: [ArgumentSpec(name: "name", help: "The vacation (default: the default vacation).", isOptional: true)],
        options: [
            .option("--since", valueName: "token", help: "Only the operations after the one holding this token."),
            .option("--limit", valueName: "n", help: "Show at most this many operations."),
            json,
        ])

    static let undo = CommandSpec(
        name: "undo",
        abstract: "Revert the latest operation that changed a vacation.",
        discussion: """
            Reverts the whole effect of the latest command that changed the vacation and is \
            not undone yet: photos, tags, counts and places are as they were before it. The \
            undo is logged too; a second undo reverts the operation before (an undo is not \
            itself undone: there is no redo).
            """,
        arguments: [ArgumentSpec(name: "name", help: "The vacation (default: the default vacation).", isOptional: true)],
        options: [json])
}
