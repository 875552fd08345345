import CommandLineKit
/// The `vacation` command table: ARCHITECTURE.md §4, "The CLI contract", as data.
///
/// Scripts depend on this table: change it only by adding. Help, usage lines and usage
/// errors are all rendered from it.
package enum VacationCommands {
    /// Printed by `vacation --version`.
    package static let version = "0.1.0"

    /// The root command, `vacation`, with every subcommand.
    package static let root = CommandSpec(
        name: "vacation",
        abstract: "Keep the Flickr photos of your vacations.",
        discussion: """
            Each vacation is a document in the library folder: --library, else \
            $VACATION_LIBRARY, else $XDG_DATA_HOME/vacation, else ~/.local/share/vacation. \
            Commands work on the default vacation, "My Vacation", unless --vacation names \
            another.
            """,
        version: version,
        options: globalOptions,
        subcommands: [
            list, create, rename, delete, setDefault, info,
            importFeeds, visit, unvisit, toggle, fetch,
            photos, show, tags, places, check,
            backup, backups, restore,
            search, album, trips, export,
            log, undo,
            sync,
            CommandSpec.helpCommand(),
        ])

    // MARK: Global options

    /// Accepted before the subcommand's name and after it.
    static let globalOptions: [OptionSpec] = [
        .option("--library", valueName: "dir",
                help: "The folder that holds the vacations.", isInherited: true),
        .option("--vacation", valueName: "name",
                help: "The vacation to use instead of the default one.", isInherited: true),
        .option("--wait", valueName: "seconds",
                help: "How long to wait for a vacation that another process is writing.",
                defaultValue: "10", isInherited: true),
        .flag("--json", help: jsonHelp, isInherited: true),
    ]

    static let jsonHelp = "Print the result as one JSON document."

    /// Read and report commands list `--json` among their own options, so that their help
    /// shows it; it is the same flag as the global one.
    static let json = OptionSpec.flag("--json", help: jsonHelp)

    // MARK: Vacations

    static let list = CommandSpec(
        name: "list",
        abstract: "List the vacations in the library.",
        options: [json])

    static let create = CommandSpec(
        name: "create",
        abstract: "Create an empty vacation.",
        arguments: [ArgumentSpec(name: "name", help: "The name of the new vacation.")],
        options: [json])

    static let rename = CommandSpec(
        name: "rename",
        abstract: "Rename a vacation.",
        arguments: [
            ArgumentSpec(name: "old", help: "The vacation's current name."),
            ArgumentSpec(name: "new", help: "The vacation's new name."),
        ],
        options: [json])

    static let delete = CommandSpec(
        name: "delete",
        abstract: "Delete a vacation and its photos.",
        arguments: [ArgumentSpec(name: "name", help: "The vacation to delete.")],
        options: [.flag("--yes", help: "Confirm the deletion.", isRequired: true), json])

    static let setDefault = CommandSpec(
        name: "default",
        abstract: "Show the default vacation, or set it.",
        arguments: [ArgumentSpec(name: "name", help: "The vacation to make the default.", isOptional: true)],
        options: [json])

    static let info = CommandSpec(
        name: "info",
        abstract: "Summarize a vacation: counts, size, path.",
        arguments: [ArgumentSpec(name: "name", help: "The vacation to describe.", isOptional: true)],
        options: [json])

    // MARK: Photos in and out

    static let importFeeds = CommandSpec(
        name: "import",
        abstract: "Import the photos of Flickr feed files.",
        discussion: """
            A feed is Flickr REST XML, JSON or JSONP. Each file is imported in one \
            transaction: a file that cannot be read changes nothing.
            """,
        arguments: [
            ArgumentSpec(
                name: "feed", help: "A feed file, or '-' for standard input.",
                isRepeating: true, allowsStandardInput: true),
        ],
        options: [
            .option("--places", valueName: "file",
                     help: "A Flickr top-places list that names the photos' places."),
            .option("--place", valueName: "name",
                     help: "The place of photos that name none of their own."),
            .option("--exclude-tag", valueName: "tag",
                     help: "Leave out this tag, whatever its case.", isRepeatable: true),
            json,
        ])

    static let visit = CommandSpec(
        name: "visit",
        abstract: "Add photos from a feed to the vacation.",
        arguments: [ArgumentSpec(name: "id", help: "The Flickr id of a photo.", isRepeating: true)],
        options: [
            .option("--feed", valueName: "feed",
                     help: "The feed file with the photos, or '-' for standard input.", isRequired: true),
            json,
        ])

    static let unvisit = CommandSpec(
        name: "unvisit",
        abstract: "Remove photos from the vacation.",
        arguments: [ArgumentSpec(name: "id", help: "The Flickr id of a photo.", isRepeating: true)],
        options: [json])

    static let toggle = CommandSpec(
        name: "toggle",
        abstract: "Visit a photo, or unvisit it if it is already there.",
        arguments: [ArgumentSpec(name: "id", help: "The Flickr id of the photo.")],
        options: [
            .option("--feed", valueName: "feed",
                     help: "The feed file with the photo, or '-' for standard input.", isRequired: true),
            json,
        ])

    // MARK: Reading

    static let photos = CommandSpec(
        name: "photos",
        abstract: "List the vacation's photos.",
        options: [
            .option("--tag", valueName: "tag", help: "Only photos with this tag."),
            .option("--place", valueName: "place", help: "Only photos taken at this place."),
            .option("--where", valueName: "predicate",
                     help: "Only photos matching this predicate, e.g. \"title CONTAINS[c] 'beach'\"."),
            albumOption,
            .option("--sort", valueName: "keys",
                     help: "Sort by these comma-separated keys, e.g. dateTaken,title."),
            .flag("--desc", help: "Sort in descending order."),
            .option("--limit", valueName: "n", help: "Show at most this many photos."),
            json,
        ])

    static let show = CommandSpec(
        name: "show",
        abstract: "Show one photo in full.",
        arguments: [ArgumentSpec(name: "id", help: "The Flickr id of the photo.")],
        options: [json])

    static let tags = CommandSpec(
        name: "tags",
        abstract: "List the tags with the number of photos of each.",
        options: [json])

    static let places = CommandSpec(
        name: "places",
        abstract: "List the places with the number of photos of each.",
        options: [json])

    static let check = CommandSpec(
        name: "check",
        abstract: "Check a vacation's store and its invariants.",
        arguments: [ArgumentSpec(name: "name", help: "The vacation to check.", isOptional: true)],
        options: [json])

    // MARK: Backups

    static let backup = CommandSpec(
        name: "backup",
        abstract: "Back up a vacation.",
        arguments: [ArgumentSpec(name: "name", help: "The vacation to back up.", isOptional: true)],
        options: [
            .option("--to", valueName: "dir", help: "The folder to write the backup to."),
            .option("--keep", valueName: "n", help: "Keep only the newest n backups."),
            json,
        ])

    static let backups = CommandSpec(
        name: "backups",
        abstract: "List a vacation's backups.",
        arguments: [ArgumentSpec(name: "name", help: "The vacation whose backups to list.", isOptional: true)],
        options: [json])

    static let restore = CommandSpec(
        name: "restore",
        abstract: "Restore a vacation from a backup.",
        arguments: [
            ArgumentSpec(name: "backup", help: "A backup's name as 'backups' lists it, or its path."),
        ],
        options: [
            .option("--as", valueName: "name", help: "Restore under this name instead of the original."),
            .flag("--force", help: "Replace a vacation of the same name."),
            json,
        ])

    // MARK: Seeing a vacation (README.md, "Trips and exports")

    static let trips = CommandSpec(
        name: "trips",
        abstract: "List the trips: photos by date, split at long gaps.",
        discussion: """
            A gap longer than --gap hours between consecutive photos starts a new trip. \
            Photos without a date taken are left out.
            """,
        options: [
            .option("--gap", valueName: "hours",
                     help: "Start a new trip after a gap longer than this many hours.", defaultValue: "48"),
            albumOption,
            json,
        ])

    static let export = CommandSpec(
        name: "export",
        abstract: "Export as GeoJSON, KML, GPX, CSV or an HTML album.",
        discussion: """
            geojson, kml and gpx leave out photos without a location; csv keeps them. \
            html writes a static album (index.html, thumbnails) to the folder --to names. \
            Without --to, the other formats go to standard output.
            """,
        arguments: [ArgumentSpec(name: "format", help: "geojson, kml, gpx, csv or html.")],
        options: [
            .option("--to", valueName: "path",
                     help: "The file to write, or the album's folder for html."),
            .option("--where", valueName: "predicate",
                     help: "Only photos matching this predicate, e.g. \"ANY tags.name == 'sea'\"."),
            albumOption,
            json,
        ])
}
