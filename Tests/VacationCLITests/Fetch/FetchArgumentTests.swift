import CommandLineKit
import Testing
@testable import VacationCLI

@Suite("fetch: its command line")
struct FetchArgumentTests {
    typealias Options = VacationCommand.FetchOptions

    static func parse(_ arguments: [String]) -> Result<Options, CLIUsageError> {
        switch VacationCommandLine.parse(["fetch"] + arguments) {
        case .success(.run(let invocation)):
            guard case .fetch(let options) = invocation.command else {
                return .failure(CLIUsageError(message: "not fetch", usage: "", commandPath: ""))
            }
            return .success(options)
        case .success: return .failure(CLIUsageError(message: "help", usage: "", commandPath: ""))
        case .failure(let error): return .failure(error)
        }
    }

    @Test("each selector, with the defaults: one page of 250, no thumbnails, the key left to the environment", arguments: [
        (["--search", "  belém tower "], Options.Source.search("belém tower")),
        (["--tags", " beach, ,Sunset,"], .tags(["beach", "Sunset"])),
        (["--place-id", "ZD0b1mlWU7vWbvI"], .placeID("ZD0b1mlWU7vWbvI")),
        (["--photoset", "72157624618609504"], .photoset("72157624618609504", owner: nil)),
        (["--user", "1@N01", "--photoset", "7"], .photoset("7", owner: "1@N01")),
        (["--user", "12345678@N00"], .user("12345678@N00")),
        (["--recent"], .recent), (["--interesting"], .interesting), (["--top-places"], .topPlaces),
    ] as [([String], Options.Source)])
    func selectors(_ arguments: [String], source: Options.Source) throws {
        #expect(try Self.parse(arguments).get() == Options(source: source))
    }

    @Test("pages, page size, thumbnails and key")
    func settings() throws {
        #expect(try Self.parse(["--recent", "--pages", "7", "--per-page", "500", "--thumbnails", "--api-key", "k"]).get()
                == Options(source: .recent, pages: 7, perPage: 500, thumbnails: true, apiKey: "k"))
        #expect(try Self.parse(["--per-page", "1", "--interesting"]).get().perPage == 1)
    }

    @Test("usage errors: nothing or two things to fetch, bad values, options that do not go with --top-places", arguments: [
        ([], "Say what to fetch: one of --search, --tags, --place-id, --photoset, --user, --recent, --interesting, --top-places"),
        (["--recent", "--interesting"], "--recent and --interesting cannot be used together: fetch takes one of --search, --tags, --place-id, --photoset, --user, --recent, --interesting, --top-places"),
        (["--search", "a", "--tags", "b"], "--search and --tags cannot be used together: fetch takes one of --search, --tags, --place-id, --photoset, --user, --recent, --interesting, --top-places"),
        (["--user", "a", "--recent"], "--user and --recent cannot be used together: fetch takes one of --search, --tags, --place-id, --photoset, --user, --recent, --interesting, --top-places"),
        (["--search", " "], "The value ' ' is invalid for '--search <text>': must not be empty"),
        (["--tags", ",,"], "The value ',,' is invalid for '--tags <tags>': name at least one tag"),
        (["--photoset", "12a"], "The value '12a' is invalid for '--photoset <id>': a photoset id is a decimal number"),
        (["--place-id", "a b"], "The value 'a b' is invalid for '--place-id <id>': an id has no spaces"),
        (["--user", "a\u{7}"], "The value 'a\u{7}' is invalid for '--user <id>': control characters are not allowed"),
        (["--recent", "--pages", "0"], "The value '0' is invalid for '--pages <n>': must be 1 or more"),
        (["--recent", "--pages", "two"], "The value 'two' is invalid for '--pages <n>'"),
        (["--recent", "--per-page", "501"], "The value '501' is invalid for '--per-page <n>': must be between 1 and 500"),
        (["--recent", "--per-page", "0"], "The value '0' is invalid for '--per-page <n>': must be 1 or more"),
        (["--top-places", "--pages", "2"], "--pages does not go with --top-places, which lists places and imports no photos"),
        (["--top-places", "--thumbnails"], "--thumbnails does not go with --top-places, which lists places and imports no photos"),
        (["--recent", "--bogus"], "Unknown option '--bogus'"),
    ] as [([String], String)])
    func usageErrors(_ arguments: [String], message: String) {
        switch Self.parse(arguments) {
        case .success(let options): Issue.record("parsed as \(options)")
        case .failure(let error):
            #expect(error.message == message)
            #expect(error.exitCode == 64)
            #expect(error.usage.hasPrefix("vacation fetch (--search <text> | --tags <tags> |"))
        }
    }
}
