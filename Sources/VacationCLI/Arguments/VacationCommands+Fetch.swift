import CommandLineKit
import Foundation

// `vacation fetch` (README.md, "Straight from Flickr"): its spec and its typed options.

extension VacationCommands {
    /// The options that choose what to fetch; exactly one is given (`--user` may name the owner
    /// of a `--photoset`).
    static let fetchSelectors = ["--search", "--tags", "--place-id", "--photoset", "--user",
                                 "--recent", "--interesting", "--top-places"]

    static let fetch = CommandSpec(
        name: "fetch",
        abstract: "Fetch photos from Flickr's API and import them.",
        discussion: """
            Asks Flickr's REST API ($FLICKR_API_BASE, else Flickr's own) with the key from \
            --api-key or $FLICKR_API_KEY, page by page, and imports what arrives as 'import' \
            imports the same responses, in one transaction: all pages or nothing. Timeouts, \
            connection failures, 5xx and 429 answers are retried with backoff for up to 60 s \
            per request; then the command gives up (exit 69) and changes nothing. Flickr's \
            failure responses exit 65. --top-places lists the top places (localities) to \
            choose a --place-id from and imports nothing; --place-id names the photos' place \
            from that list.
            """,
        options: [
            .option("--search", valueName: "text", help: "Photos whose title, description or tags match the text."),
            .option("--tags", valueName: "tags", help: "Photos with any of these comma-separated tags."),
            .option("--place-id", valueName: "id", help: "Photos taken at this Flickr place (see --top-places)."),
            .option("--photoset", valueName: "id", help: "The photos of this photoset (album); --user names its owner."),
            .option("--user", valueName: "id", help: "The photos of this Flickr user (an NSID such as 12345678@N00)."),
            .flag("--recent", help: "The latest public photos."),
            .flag("--interesting", help: "Flickr's most interesting photos of the day."),
            .flag("--top-places", help: "List the top places of the day (id, name, photos); import nothing."),
            .option("--pages", valueName: "n", help: "Fetch at most this many pages.", defaultValue: "1"),
            .option("--per-page", valueName: "n", help: "Photos per page, 1 to 500.",
                    defaultValue: String(VacationCommand.FetchOptions.defaultPerPage)),
            .flag("--thumbnails", help: "Keep each photo's thumbnail in the vacation."),
            .option("--api-key", valueName: "key", help: "Flickr API key (else $FLICKR_API_KEY)."),
            json,
        ],
        usageOverride: """
            (--search <text> | --tags <tags> | --place-id <id> | --photoset <id> | --user <id> | --recent \
            | --interesting | --top-places) [--pages <n>] [--per-page <n>] [--thumbnails] [--api-key <key>] [--json]
            """)
}

extension VacationCommand {
    /// `fetch (--search TEXT | …) [--pages N] [--per-page N] [--thumbnails] [--api-key KEY]`
    package struct FetchOptions: Sendable, Equatable {
        package static let defaultPerPage = 250
        package static let perPageRange = 1...500

        /// What to fetch.
        package enum Source: Sendable, Equatable {
            case search(String)
            case tags([String])
            case placeID(String)
            case photoset(String, owner: String?)
            case user(String)
            case recent
            case interesting
            case topPlaces
        }

        package var source: Source
        package var pages: Int
        package var perPage: Int
        package var thumbnails: Bool
        /// `--api-key`; `nil` leaves it to `$FLICKR_API_KEY`.
        package var apiKey: String?

        package init(source: Source, pages: Int = 1, perPage: Int = defaultPerPage, thumbnails: Bool = false, apiKey: String? = nil) {
            self.source = source
            self.pages = pages
            self.perPage = perPage
            self.thumbnails = thumbnails
            self.apiKey = apiKey
        }
    }
}

extension VacationCommandLine {
    static func fetchOptions(_ parsed: ParsedArguments) throws(CLIUsageError) -> VacationCommand.FetchOptions {
        let given = VacationCommands.fetchSelectors.filter { parsed.contains($0) }
        // --user with --photoset names the set's owner (flickr.photosets.getPhotos takes user_id).
        let choosing = given == ["--photoset", "--user"] ? ["--photoset"] : given
        guard let selector = choosing.first else {
            throw CLIUsageError(message: "Say what to fetch: one of " + VacationCommands.fetchSelectors.joined(separator: ", "),
                                path: parsed.path)
        }
        guard choosing.count == 1 else {
            throw CLIUsageError(message: "\(choosing[0]) and \(choosing[1]) cannot be used together: fetch takes one of "
                                + VacationCommands.fetchSelectors.joined(separator: ", "), path: parsed.path)
        }
        func invalid(_ name: String, _ value: String, _ reason: String) -> CLIUsageError {
            parsed.option(named: name).map { parsed.invalidValue(value, option: $0, reason: reason) }
                ?? CLIUsageError(message: "\(name): \(reason)", path: parsed.path)
        }
        /// The option's value without surrounding spaces: not empty, no control characters.
        func text(_ name: String) throws(CLIUsageError) -> String {
            let value = parsed.value(of: name) ?? ""
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { throw invalid(name, value, "must not be empty") }
            guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw invalid(name, value, "control characters are not allowed")
            }
            return trimmed
        }
        func identifier(_ name: String) throws(CLIUsageError) -> String {
            let value = try text(name)
            guard !value.contains(where: \.isWhitespace) else { throw invalid(name, value, "an id has no spaces") }
            return value
        }
        let source: VacationCommand.FetchOptions.Source
        switch selector {
        case "--search": source = .search(try text("--search"))
        case "--tags":
            let raw = parsed.value(of: "--tags") ?? ""
            let tags = raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !tags.isEmpty else { throw invalid("--tags", raw, "name at least one tag") }
            guard !tags.contains(where: { $0.unicodeScalars.contains { $0.properties.generalCategory == .control } }) else {
                throw invalid("--tags", raw, "control characters are not allowed")
            }
            source = .tags(tags)
        case "--place-id": source = .placeID(try identifier("--place-id"))
        case "--photoset":
            let id = try identifier("--photoset")
            guard id.utf8.allSatisfy({ (48...57).contains($0) }) else { throw invalid("--photoset", id, "a photoset id is a decimal number") }
            source = .photoset(id, owner: parsed.contains("--user") ? try identifier("--user") : nil)
        case "--user": source = .user(try identifier("--user"))
        case "--recent": source = .recent
        case "--interesting": source = .interesting
        default: source = .topPlaces
        }
        if source == .topPlaces {
            for name in ["--pages", "--per-page", "--thumbnails"] where parsed.contains(name) {
                throw CLIUsageError(message: "\(name) does not go with --top-places, which lists places and imports no photos",
                                    path: parsed.path)
            }
        }
        let pages = try parsed.integer(of: "--pages", in: 1...) ?? 1
        let perPage = try parsed.integer(of: "--per-page", in: 1...) ?? VacationCommand.FetchOptions.defaultPerPage
        if !VacationCommand.FetchOptions.perPageRange.contains(perPage) {
            throw invalid("--per-page", parsed.value(of: "--per-page") ?? "", "must be between 1 and 500")
        }
        return VacationCommand.FetchOptions(source: source, pages: pages, perPage: perPage, thumbnails: parsed.flag("--thumbnails"),
                                            apiKey: parsed.value(of: "--api-key"))
    }
}
