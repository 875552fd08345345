import CommandLineKit
import Testing
import VacationCLI

/// Every usage error, as the user reads it on standard error.
@Suite("Usage errors")
struct UsageErrorTests {
    func error(_ arguments: [String]) -> String? {
        if case .failure(let error) = VacationCommandLine.parse(arguments) { return error.description }
        return nil
    }

    static let rootUsage = "vacation [--library <dir>] [--vacation <name>] [--wait <seconds>] [--json] <subcommand>"
    static let photosUsage = "vacation photos [--tag <tag>] [--place <place>] [--where <predicate>] [--album <name>] [--sort <keys>] [--desc] [--limit <n>] [--json]"

    @Test("suggests --force for --fo")
    func unknownOptionWithSuggestion() {
        #expect(error(["restore", "old", "--fo"]) == """
            Error: Unknown option '--fo'. Did you mean '--force'?
            Usage: vacation restore <backup> [--as <name>] [--force] [--json]
              See 'vacation restore --help' for more information.
            """)
    }

    @Test("suggests a global option misspelled before the command, with the root's usage")
    func unknownGlobalOption() {
        #expect(error(["--libary", "/tmp/lib", "list"]) == """
            Error: Unknown option '--libary'. Did you mean '--library'?
            Usage: \(Self.rootUsage)
              See 'vacation --help' for more information.
            """)
    }

    @Test("suggests nothing for an unknown option that is not close")
    func unknownOptionWithoutSuggestion() {
        #expect(error(["tags", "--verbose"]) == """
            Error: Unknown option '--verbose'
            Usage: vacation tags [--json]
              See 'vacation tags --help' for more information.
            """)
    }

    @Test("suggests nothing for an unknown single-letter option")
    func unknownShortOption() {
        #expect(error(["photos", "-x"]) == """
            Error: Unknown option '-x'
            Usage: \(Self.photosUsage)
              See 'vacation photos --help' for more information.
            """)
    }

    @Test("suggests import for imprt")
    func unknownCommandWithSuggestion() {
        #expect(error(["imprt", "feed.xml"]) == """
            Error: Unknown command 'imprt'. Did you mean 'import'?
            Usage: \(Self.rootUsage)
              See 'vacation --help' for more information.
            """)
    }

    @Test("suggests nothing for an unknown command that is not close")
    func unknownCommandWithoutSuggestion() {
        #expect(error(["--json", "frobnicate"]) == """
            Error: Unknown command 'frobnicate'
            Usage: \(Self.rootUsage)
              See 'vacation --help' for more information.
            """)
    }

    @Test("names an unknown help topic with the help command's usage")
    func unknownHelpTopic() {
        #expect(error(["help", "bakcup"]) == """
            Error: Unknown command 'bakcup'. Did you mean 'backup'?
            Usage: vacation help [<command>]
              See 'vacation help --help' for more information.
            """)
    }

    @Test("reports a missing argument with its help")
    func missingArgument() {
        #expect(error(["create"]) == """
            Error: Missing expected argument '<name>'
            Help:  <name>  The name of the new vacation.
            Usage: vacation create <name> [--json]
              See 'vacation create --help' for more information.
            """)
        #expect(error(["rename", "Rome"]) == """
            Error: Missing expected argument '<new>'
            Help:  <new>  The vacation's new name.
            Usage: vacation rename <old> <new> [--json]
              See 'vacation rename --help' for more information.
            """)
    }

    @Test("reports a missing repeating argument with its ellipsis")
    func missingRepeatingArgument() {
        #expect(error(["import", "--place", "Rome"]) == """
            Error: Missing expected argument '<feed> ...'
            Help:  <feed>  A feed file, or '-' for standard input.
            Usage: vacation import <feed> ... [--places <file>] [--place <name>] [--exclude-tag <tag> ...] [--json]
              See 'vacation import --help' for more information.
            """)
    }

    @Test("reports a missing required option")
    func missingRequiredOption() {
        #expect(error(["visit", "123"]) == """
            Error: Missing expected argument '--feed <feed>'
            Help:  --feed <feed>  The feed file with the photos, or '-' for standard input.
            Usage: vacation visit <id> ... --feed <feed> [--json]
              See 'vacation visit --help' for more information.
            """)
        #expect(error(["delete", "Rome"]) == """
            Error: Missing expected argument '--yes'
            Help:  --yes  Confirm the deletion.
            Usage: vacation delete <name> --yes [--json]
              See 'vacation delete --help' for more information.
            """)
    }

    @Test("reports one unexpected argument")
    func unexpectedArgument() {
        #expect(error(["create", "Rome", "x"]) == """
            Error: Unexpected argument 'x'
            Usage: vacation create <name> [--json]
              See 'vacation create --help' for more information.
            """)
        #expect(error(["list", "--", "--json"]) == """
            Error: Unexpected argument '--json'
            Usage: vacation list [--json]
              See 'vacation list --help' for more information.
            """)
    }

    @Test("counts several unexpected arguments")
    func unexpectedArguments() {
        #expect(error(["tags", "a", "b"]) == """
            Error: 2 unexpected arguments: 'a', 'b'
            Usage: vacation tags [--json]
              See 'vacation tags --help' for more information.
            """)
    }

    @Test("reports a stray word after -- given to the root")
    func strayWordForRoot() {
        #expect(error(["--", "list"]) == """
            Error: Unexpected argument 'list'
            Usage: \(Self.rootUsage)
              See 'vacation --help' for more information.
            """)
    }

    @Test("reports a missing value for an option")
    func missingValue() {
        #expect(error(["photos", "--limit"]) == """
            Error: Missing value for '--limit <n>'
            Help:  --limit <n>  Show at most this many photos.
            Usage: \(Self.photosUsage)
              See 'vacation photos --help' for more information.
            """)
        // The next word is an option, so it is not taken as the value.
        #expect(error(["photos", "--tag", "--desc"]) == """
            Error: Missing value for '--tag <tag>'
            Help:  --tag <tag>  Only photos with this tag.
            Usage: \(Self.photosUsage)
              See 'vacation photos --help' for more information.
            """)
        #expect(error(["--vacation"]) == """
            Error: Missing value for '--vacation <name>'
            Help:  --vacation <name>  The vacation to use instead of the default one.
            Usage: \(Self.rootUsage)
              See 'vacation --help' for more information.
            """)
    }

    @Test("reports a value that is not an integer")
    func invalidInteger() {
        #expect(error(["photos", "--limit", "abc"]) == """
            Error: The value 'abc' is invalid for '--limit <n>'
            Help:  --limit <n>  Show at most this many photos.
            Usage: \(Self.photosUsage)
              See 'vacation photos --help' for more information.
            """)
    }

    @Test("reports an integer out of range with the reason")
    func integerOutOfRange() {
        #expect(error(["photos", "--limit=-1"]) == """
            Error: The value '-1' is invalid for '--limit <n>': must be 0 or more
            Help:  --limit <n>  Show at most this many photos.
            Usage: \(Self.photosUsage)
              See 'vacation photos --help' for more information.
            """)
        #expect(error(["backup", "--keep", "0"]) == """
            Error: The value '0' is invalid for '--keep <n>': must be 1 or more
            Help:  --keep <n>  Keep only the newest n backups.
            Usage: vacation backup [<name>] [--to <dir>] [--keep <n>] [--json]
              See 'vacation backup --help' for more information.
            """)
    }

    @Test("reports a wait that is not a number, against the command it follows")
    func invalidWait() {
        #expect(error(["tags", "--wait", "soon"]) == """
            Error: The value 'soon' is invalid for '--wait <seconds>'
            Help:  --wait <seconds>  How long to wait for a vacation that another process is writing.
            Usage: vacation tags [--json]
              See 'vacation tags --help' for more information.
            """)
        #expect(error(["--wait=-2", "tags"])?.hasPrefix("Error: The value '-2' is invalid for '--wait <seconds>': must be 0 or more\n") == true)
        #expect(error(["--wait=nan", "tags"])?.hasPrefix("Error: The value 'nan' is invalid for '--wait <seconds>'\n") == true)
    }

    @Test("refuses an empty sort key")
    func emptySortKey() {
        #expect(error(["photos", "--sort", "title,,dateTaken"]) == """
            Error: The value 'title,,dateTaken' is invalid for '--sort <keys>': a sort key is empty
            Help:  --sort <keys>  Sort by these comma-separated keys, e.g. dateTaken,title.
            Usage: \(Self.photosUsage)
              See 'vacation photos --help' for more information.
            """)
    }

    @Test("refuses an option given twice that is not repeatable, even across the command name")
    func duplicateOption() {
        #expect(error(["photos", "--limit", "1", "--limit", "2"]) == """
            Error: The option '--limit <n>' can only be given once
            Usage: \(Self.photosUsage)
              See 'vacation photos --help' for more information.
            """)
        #expect(error(["--vacation", "A", "tags", "--vacation=B"]) == """
            Error: The option '--vacation <name>' can only be given once
            Usage: vacation tags [--json]
              See 'vacation tags --help' for more information.
            """)
    }

    @Test("refuses a value attached to a flag")
    func valueForFlag() {
        #expect(error(["restore", "b", "--force=yes"]) == """
            Error: The option '--force' does not take any value, but 'yes' was specified.
            Usage: vacation restore <backup> [--as <name>] [--force] [--json]
              See 'vacation restore --help' for more information.
            """)
    }

    @Test("refuses - where standard input makes no sense, but not after --")
    func dashWhereNotAllowed() {
        #expect(error(["show", "-"]) == """
            Error: The value '-' is invalid for '<id>'
            Help:  <id>  The Flickr id of the photo.
            Usage: vacation show <id> [--json]
              See 'vacation show --help' for more information.
            """)
        #expect(error(["create", "--", "-"]) == nil)
    }

    @Test("gives usage errors exit code 64")
    func exitCode() throws {
        guard case .failure(let failure) = VacationCommandLine.parse(["nope"]) else {
            Issue.record("expected a usage error")
            return
        }
        #expect(failure.exitCode == 64)
        #expect(throws: CLIUsageError.self) { try VacationCommandLine.parseOrThrow(["nope"]) }
    }
}
