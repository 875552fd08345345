import CommandLineKit

/// `search` and `album` (README.md, "Search and smart albums"), and the `--album` option that
/// `photos`, `trips` and `export` share.
extension VacationCommands {
    static let albumOption = OptionSpec.option(
        "--album", valueName: "name", help: "Only the photos of this smart album (see 'vacation help album').")

    static let search = CommandSpec(
        name: "search",
        abstract: "Find photos by words in their titles, tags and places.",
        discussion: """
            Searches titles, descriptions, tags, place names and owners. Every word must \
            match, in any order; case and accents do not count (belem finds Belém), and \
            word* matches every word that starts with word. Best matches come first. \
            Punctuation separates words; nothing else has a special meaning.
            """,
        arguments: [
            ArgumentSpec(name: "text", help: "The words to look for (one argument, or several).", isRepeating: true),
        ],
        options: [
            .option("--limit", valueName: "n", help: "Show at most this many photos."),
            json,
        ])

    static let album = CommandSpec(
        name: "album",
        abstract: "Keep smart albums: saved predicates over photos.",
        discussion: """
            An album keeps a predicate, not a list: its photos are those that match it now. \
            'vacation photos --album NAME' lists them.
            """,
        subcommands: [albumCreate, albumList, albumDelete])

    static let albumCreate = CommandSpec(
        name: "create",
        abstract: "Save a predicate as a smart album.",
        arguments: [ArgumentSpec(name: "name", help: "The album's name.")],
        options: [
            .option("--where", valueName: "predicate",
                    help: "The photos the album holds, e.g. \"ANY tags.name == 'sea'\".", isRequired: true),
            json,
        ])

    static let albumList = CommandSpec(
        name: "list",
        abstract: "List the smart albums with the number of photos each holds now.",
        options: [json])

    static let albumDelete = CommandSpec(
        name: "delete",
        abstract: "Delete a smart album (its photos stay in the vacation).",
        arguments: [ArgumentSpec(name: "name", help: "The album to delete.")],
        options: [json])
}
