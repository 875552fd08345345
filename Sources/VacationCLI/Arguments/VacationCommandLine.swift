import CommandLineKit
import Vacations
/// One `vacation` command with its arguments, typed.
package enum VacationCommand: Sendable, Equatable {
    case list
    case create(name: String)
    case rename(from: String, to: String)
    /// `delete NAME --yes`: the parser refuses a deletion without `--yes`.
    case delete(name: String)
    /// `default [NAME]`: shows the default vacation, or makes `name` the default.
    case setDefault(name: String?)
    case info(name: String?)
    case importFeeds(ImportOptions)
    case visit(ids: [String], feed: String)
    case unvisit(ids: [String])
    case toggle(id: String, feed: String)
    case fetch(FetchOptions)
    case photos(PhotosOptions)
    case show(id: String)
    case tags
    case places
    case check(name: String?)
    case backup(name: String?, destination: String?, keep: Int?)
    case backups(name: String?)
    case restore(backup: String, newName: String?, force: Bool)
    /// `trips [--gap HOURS] [--album NAME]`: the gap in hours, positive and finite.
    case trips(gapHours: Double, album: String? = nil)
    case export(ExportOptions)
    /// `search TEXT... [--limit N]`: the words, joined with spaces.
    case search(text: String, limit: Int?)
    /// `album create NAME --where PREDICATE`
    case albumCreate(name: String, predicate: String)
    case albumList
    case albumDelete(name: String)
    /// `log [NAME] [--since TOKEN] [--limit N]`
    case log(name: String?, since: String?, limit: Int?)
    /// `undo [NAME]`
    case undo(name: String?)
    /// `sync [NAME] --folder DIR`
    case sync(SyncOptions)

    /// `export FORMAT [--to PATH] [--where PREDICATE]`
    package struct ExportOptions: Sendable, Equatable {
        package var format: ExportFormat
        /// A file (a folder for `html`, where it is required); nil for standard output.
        package var destination: String?
        package var predicate: String?
        /// A smart album: only its photos (with `predicate`, those matching both).
        package var album: String?

        package init(format: ExportFormat, destination: String? = nil, predicate: String? = nil, album: String? = nil) {
            self.format = format
            self.destination = destination
            self.predicate = predicate
            self.album = album
        }
    }

    /// `import FEED... [--places FILE] [--place NAME] [--exclude-tag TAG]...`
    package struct ImportOptions: Sendable, Equatable {
        /// File paths; `-` stands for standard input.
        package var feeds: [String]
        package var placesFile: String?
        package var place: String?
        package var excludedTags: [String]

        package init(feeds: [String], placesFile: String? = nil, place: String? = nil, excludedTags: [String] = []) {
            self.feeds = feeds
            self.placesFile = placesFile
            self.place = place
            self.excludedTags = excludedTags
        }
    }

    /// `photos [--tag T] [--place P] [--where PREDICATE] [--sort KEY[,KEY]] [--desc] [--limit N]`
    package struct PhotosOptions: Sendable, Equatable {
        package var tag: String?
        package var place: String?
        /// A predicate in the format language; the command checks it.
        package var predicate: String?
        /// Sort keys in order, split at commas.
        package var sortKeys: [String]
        package var descending: Bool
        /// `nil` lists every matching photo.
        package var limit: Int?
        /// A smart album: only its photos (with the other options, those matching all).
        package var album: String?

        package init(
            tag: String? = nil, place: String? = nil, predicate: String? = nil,
            sortKeys: [String] = [], descending: Bool = false, limit: Int? = nil, album: String? = nil
        ) {
            self.tag = tag
            self.place = place
            self.predicate = predicate
            self.sortKeys = sortKeys
            self.descending = descending
            self.limit = limit
            self.album = album
        }
    }

    /// The command words, one per command.
    package enum Name: String, Sendable, CaseIterable {
        case list, create, rename, delete, `default`, info
        case `import`, visit, unvisit, toggle
        case fetch
        case photos, show, tags, places, check
        case backup, backups, restore, help
        case trips, export, search, album
        case log, undo
        case sync

        /// Whether `--json` makes this command (or, for a group such as `album`, each of its
        /// subcommands) print one JSON document.
        package var printsJSON: Bool {
            guard let spec = VacationCommands.root.subcommand(named: rawValue) else { return false }
            let printing = { (command: CommandSpec) in command.options.contains { $0.longNames == ["--json"] } }
            return spec.subcommands.isEmpty ? printing(spec) : spec.subcommands.allSatisfy(printing)
        }
    }

    package var name: Name {
        switch self {
        case .list: .list
        case .create: .create
        case .rename: .rename
        case .delete: .delete
        case .setDefault: .default
        case .info: .info
        case .importFeeds: .import
        case .visit: .visit
        case .unvisit: .unvisit
        case .toggle: .toggle
        case .fetch: .fetch
        case .photos: .photos
        case .show: .show
        case .tags: .tags
        case .places: .places
        case .check: .check
        case .backup: .backup
        case .backups: .backups
        case .restore: .restore
        case .trips: .trips
        case .export: .export
        case .search: .search
        case .albumCreate, .albumList, .albumDelete: .album
        case .log: .log
        case .undo: .undo
        case .sync: .sync
        }
    }
}

/// What `vacation`'s command line asks for.
package enum ParsedInvocation: Sendable, Equatable {
    /// Run a command.
    case run(VacationCommandLine.Invocation)
    /// Print `text` and a newline to standard output, and exit 0. `topic` is `nil` for the
    /// root command's help.
    case help(topic: VacationCommand.Name?, text: String)
    /// Print the version and a newline to standard output, and exit 0.
    case version(String)
}

/// Parses `vacation`'s command line into a typed invocation.
///
///     switch VacationCommandLine.parse(Array(CommandLine.arguments.dropFirst()),
///                                      screenWidth: Terminal.width(fd: STDOUT_FILENO, environment: environment)) {
///     case .success(.run(let invocation)):   // invocation.command, invocation.globals
///     case .success(.help(_, let text)):     print(text)
///     case .success(.version(let version)):  print(version)
///     case .failure(let error):              // print error.description to stderr, exit 64
///     }
package enum VacationCommandLine {
    /// The options every command accepts, before or after its name.
    package struct GlobalOptions: Sendable, Equatable {
        /// `--library DIR`; `nil` leaves the choice to the environment.
        package var library: String?
        /// `--vacation NAME`; `nil` for the default vacation.
        package var vacation: String?
        /// `--wait SECONDS`, 10 unless given.
        package var waitSeconds: Double
        /// `--json`, before or after the command's name.
        package var json: Bool

        static let defaultWaitSeconds = 10.0
        /// The longest wait honoured (about 31 years): a longer `--wait` waits this long.
        static let longestWaitSeconds = 1e9

        /// `waitSeconds` as a duration, to the millisecond; beyond `longestWaitSeconds` it is cut
        /// to that, so that any number the parser accepts makes a duration (`--wait 1e300`).
        package var waitDuration: Duration {
            let seconds = waitSeconds.isNaN ? 0 : min(max(waitSeconds, 0), Self.longestWaitSeconds)
            return .milliseconds(Int64((seconds * 1000).rounded()))
        }

        package init(library: String? = nil, vacation: String? = nil, waitSeconds: Double = defaultWaitSeconds, json: Bool = false) {
            self.library = library
            self.vacation = vacation
            self.waitSeconds = waitSeconds
            self.json = json
        }
    }

    /// A command to run, its global options, and the raw binding for anything else.
    package struct Invocation: Sendable, Equatable {
        package var command: VacationCommand
        package var globals: GlobalOptions
        package var arguments: ParsedArguments

        package init(command: VacationCommand, globals: GlobalOptions, arguments: ParsedArguments) {
            self.command = command
            self.globals = globals
            self.arguments = arguments
        }
    }

    /// Parses `arguments` (without the program name).
    ///
    /// - Parameter screenWidth: the width help text is wrapped to.
    /// - Returns: the invocation, or the usage error to print (exit code 64).
    package static func parse(_ arguments: [String], screenWidth: Int = 80) -> Result<ParsedInvocation, CLIUsageError> {
        let parser = CommandLineParser(root: VacationCommands.root)
        switch parser.parse(arguments) {
        case .failure(let error):
            return .failure(error)
        case .success(.version(let version)):
            return .success(.version(version))
        case .success(.help(let path)):
            let topic = path.count > 1 ? VacationCommand.Name(rawValue: path[1].name) : nil
            return .success(.help(topic: topic, text: CommandHelpRenderer.help(for: path, screenWidth: screenWidth)))
        case .success(.run(let parsed)):
            do {
                let globals = try globalOptions(parsed)
                let command = try command(parsed)
                return .success(.run(Invocation(command: command, globals: globals, arguments: parsed)))
            } catch {
                return .failure(error)
            }
        }
    }

    /// Throws-style spelling of `parse(_:screenWidth:)`.
    ///
    /// - Throws: `CLIUsageError`.
    package static func parseOrThrow(_ arguments: [String], screenWidth: Int = 80) throws(CLIUsageError) -> ParsedInvocation {
        try parse(arguments, screenWidth: screenWidth).get()
    }

    static func globalOptions(_ parsed: ParsedArguments) throws(CLIUsageError) -> GlobalOptions {
        if parsed.value(of: "--library") == "" {
            // Not "no option": an empty folder name would quietly mean the default library.
            throw CLIUsageError(message: "--library needs a folder, not an empty value", path: parsed.path)
        }
        return GlobalOptions(
            library: parsed.value(of: "--library"),
            vacation: parsed.value(of: "--vacation"),
            waitSeconds: try parsed.number(of: "--wait", minimum: 0) ?? GlobalOptions.defaultWaitSeconds,
            json: parsed.flag("--json"))
    }

    static func command(_ parsed: ParsedArguments) throws(CLIUsageError) -> VacationCommand {
        if parsed.path.count > 2, parsed.path[1].name == VacationCommand.Name.album.rawValue {
            return try albumCommand(parsed)
        }
        let name = parsed.command.flatMap { VacationCommand.Name(rawValue: $0.name) }
        let argument = { (key: String) in parsed.positional(key) ?? "" }
        switch name {
        case .list: return .list
        case .create: return .create(name: argument("name"))
        case .rename: return .rename(from: argument("old"), to: argument("new"))
        case .delete: return .delete(name: argument("name"))
        case .default: return .setDefault(name: parsed.positional("name"))
        case .info: return .info(name: parsed.positional("name"))
        case .import:
            return .importFeeds(VacationCommand.ImportOptions(
                feeds: parsed.positionals("feed"),
                placesFile: parsed.value(of: "--places"),
                place: parsed.value(of: "--place"),
                excludedTags: parsed.values(of: "--exclude-tag")))
        case .visit: return .visit(ids: parsed.positionals("id"), feed: parsed.value(of: "--feed") ?? "")
        case .unvisit: return .unvisit(ids: parsed.positionals("id"))
        case .toggle: return .toggle(id: argument("id"), feed: parsed.value(of: "--feed") ?? "")
        case .fetch: return .fetch(try fetchOptions(parsed))
        case .photos:
            return .photos(VacationCommand.PhotosOptions(
                tag: parsed.value(of: "--tag"),
                place: parsed.value(of: "--place"),
                predicate: parsed.value(of: "--where"),
                sortKeys: try sortKeys(parsed),
                descending: parsed.flag("--desc"),
                limit: try parsed.integer(of: "--limit", in: 0...),
                album: parsed.value(of: "--album")))
        case .show: return .show(id: argument("id"))
        case .tags: return .tags
        case .places: return .places
        case .check: return .check(name: parsed.positional("name"))
        case .backup:
            return .backup(
                name: parsed.positional("name"),
                destination: parsed.value(of: "--to"),
                keep: try parsed.integer(of: "--keep", in: 1...))
        case .backups: return .backups(name: parsed.positional("name"))
        case .restore:
            return .restore(backup: argument("backup"), newName: parsed.value(of: "--as"), force: parsed.flag("--force"))
        case .trips:
            return .trips(gapHours: try gapHours(parsed), album: parsed.value(of: "--album"))
        case .export:
            return .export(try exportOptions(parsed))
        case .search:
            return .search(text: parsed.positionals("text").joined(separator: " "), limit: try parsed.integer(of: "--limit", in: 0...))
        case .log:
            return .log(name: parsed.positional("name"), since: parsed.value(of: "--since"),
                        limit: try parsed.integer(of: "--limit", in: 0...))
        case .undo: return .undo(name: parsed.positional("name"))
        case .sync:
            let folder = parsed.value(of: "--folder") ?? ""
            if folder.isEmpty, let option = parsed.option(named: "--folder") {
                throw parsed.invalidValue(folder, option: option, reason: "a path cannot be empty")
            }
            return .sync(VacationCommand.SyncOptions(name: parsed.positional("name"), folder: folder, prune: parsed.flag("--prune")))
        case .help, .album, nil:
            // The parser answers `help` itself; reaching here means the table and this
            // switch disagree, which the tests over every command rule out.
            throw CLIUsageError(message: "Unknown command '\(parsed.commandNames.last ?? "")'", path: parsed.path)
        }
    }

    /// `--sort dateTaken,title` → `["dateTaken", "title"]`; an empty key is an error.
    static func sortKeys(_ parsed: ParsedArguments) throws(CLIUsageError) -> [String] {
        guard let text = parsed.value(of: "--sort"), let option = parsed.option(named: "--sort") else { return [] }
        let keys = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { String($0.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed()) }
        if keys.contains(where: \.isEmpty) {
            throw parsed.invalidValue(text, option: option, reason: "a sort key is empty")
        }
        return keys
    }

    /// `--gap HOURS`: a positive, finite number of hours; 48 when not given.
    static func gapHours(_ parsed: ParsedArguments) throws(CLIUsageError) -> Double {
        guard let hours = try parsed.number(of: "--gap") else { return Trips.defaultGapHours }
        if hours <= 0, let option = parsed.option(named: "--gap") {
            throw parsed.invalidValue(parsed.value(of: "--gap") ?? "", option: option, reason: "must be more than 0")
        }
        return hours
    }

    static func exportOptions(_ parsed: ParsedArguments) throws(CLIUsageError) -> VacationCommand.ExportOptions {
        let text = parsed.positional("format") ?? ""
        guard let format = ExportFormat(rawValue: text.lowercased()) else {
            let argument = parsed.command?.arguments.first ?? ArgumentSpec(name: "format")
            throw parsed.invalidValue(text, argument: argument,
                                      reason: "use one of \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let destination = parsed.value(of: "--to")
        if let destination, destination.isEmpty, let option = parsed.option(named: "--to") {
            throw parsed.invalidValue(destination, option: option, reason: "a path cannot be empty")
        }
        if format == .html && destination == nil {
            throw CLIUsageError(message: "export html needs --to DIR, the folder to write the album to", path: parsed.path)
        }
        return VacationCommand.ExportOptions(format: format, destination: destination, predicate: parsed.value(of: "--where"),
                                             album: parsed.value(of: "--album"))
    }

    /// `album create|list|delete`.
    static func albumCommand(_ parsed: ParsedArguments) throws(CLIUsageError) -> VacationCommand {
        let name = parsed.positional("name") ?? ""
        switch parsed.command?.name {
        case "create": return .albumCreate(name: name, predicate: parsed.value(of: "--where") ?? "")
        case "list": return .albumList
        case "delete": return .albumDelete(name: name)
        default:
            throw CLIUsageError(message: "Unknown command '\(parsed.commandNames.joined(separator: " "))'", path: parsed.path)
        }
    }
}
