import Foundation
import Vacations

/// The command line: `vacation-bench [--photos N] [--json] [--memory] [--runs N] …`.
struct BenchOptions {
    /// Photos in the generated feed for every figure but memory.
    var photos = 100_000
    /// Photos in the feed whose streaming import's peak memory is measured.
    var memoryPhotos = 1_000_000
    /// Measured runs per import, reimport and backup figure, after one warm-up run that is not
    /// counted; reads run twice as often, less one.
    var runs = 3
    var json = false
    /// The memory figure (alone: importing a million photos twice takes minutes).
    var memoryOnly = false
    /// The scale figures alone (`--scale`): commands as whole processes on a big vacation.
    var scaleOnly = false
    var scalePhotos = 1_000_000
    /// Only these figures (the reads import a vacation first, untimed).
    var only: Set<String>?
    /// Keep the generated feeds and stores (their folder is printed) instead of removing them.
    var keep = false
    /// Internal: run one import in this process, for the parent to measure (`--child-import
    /// ours|baseline FEED FOLDER`).
    var childImport: (side: String, feed: String, folder: String)?
    /// Internal: compare two stores' fingerprints and exit (`--compare-stores A B`), so that
    /// tests can check what the bench counts as the same content.
    var compareStores: (String, String)?
    /// The floor's connection settings instead of the chosen ones (`--limit-settings
    /// cache=MIB,mmap=MIB,temp=memory`), for finding the best.
    var limitSettings: LimitImporter.Settings?
    /// The page cache (KiB) of ours and the baseline's imports; nil is SQLite's default 2 MB
    /// (`--import-cache sqlite`), which is what they had before.
    var importCacheKibibytes: Int? = FeedImporter.bulkPageCacheKibibytes
    /// Whether ours and the baseline's imports keep their journals in memory
    /// (`FeedImporter.memoryJournals`); `--import-journals file` for temporary files, as before.
    var importMemoryJournals = true
    /// Whether ours' imports save each chunk in a savepoint of its own
    /// (`FeedImporter.chunkSavepoints`); `--import-savepoints chunk` for that, as before.
    var importChunkSavepoints = false
    /// Photos per chunk of ours' imports (`FeedImporter.chunkSize`); nil keeps the importer's.
    var importChunkSize: Int?

    static let usage = """
        USAGE: vacation-bench [--photos N] [--json] [--runs N] [--only FIGURE,...] [--keep]
               vacation-bench --memory [--memory-photos N] [--json] [--keep]
               vacation-bench --scale [--scale-photos N] [--runs N] [--json] [--keep]

        Measures the framework against a raw-SQLite baseline doing the same work, and prints
        each figure's median with its ratio to the baseline (a table, or with --json one JSON
        line per figure). Build in release: swift run -c release vacation-bench

        OPTIONS:
          --photos N          photos in the generated feed (default 100000)
          --json              one JSON line per figure on standard output
          --runs N            measured runs per import, reimport and backup (default 3), after one
                              warm-up run per side that is not counted; reads run 2N-1 times
                              (open-first-page: 200 opens a side, toggle: 1,000 toggles, whatever N)
          --only FIGURE,...   only these figures: import-xml, import-json, reimport, fetch-all,
                              fetch-predicate, frc-initial, toggle, open-first-page, backup, search,
                              import-history
          --memory            measure only the peak memory of a streaming XML import, each side
                              in a child process (minutes: a million photos by default)
          --memory-photos N   photos in the memory figure's feed (default 1000000)
          --scale             build a big vacation with the vacation binary (minutes), then time
                              commands as whole processes beside the sqlite3 shell's answers
          --scale-photos N    photos in the scale figures' vacation (default 1000000)
          --keep              keep the generated feeds and stores
          --import-cache MIB  the page cache of ours and the baseline's imports (default 16,
                              FeedImporter's); 'sqlite' for SQLite's default (2 MB)
          --import-journals memory|file
                              savepoint and statement journals of ours and the baseline's
                              imports in memory (default, FeedImporter's) or temporary files
          --import-savepoints none|chunk
                              ours' imports without savepoints inside their transaction
                              (default, FeedImporter's) or with one per chunk's save, as before
          --import-chunk N    photos per chunk of ours' imports (default FeedImporter's)
          --limit-settings cache=MIB,mmap=MIB,temp=memory
                              the floor's page cache, memory map and temporary store, instead
                              of the settings measurement chose (to measure others)
          -h, --help          show this help
        """

    static let figureNames: Set<String> = ["import-xml", "import-json", "reimport", "fetch-all", "fetch-predicate",
                                           "frc-initial", "toggle", "open-first-page", "backup", "search",
                                           "import-history"]

    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    /// Parses `arguments` (without the program name). Returns nil for `--help`.
    static func parse(_ arguments: [String]) throws -> BenchOptions? {
        var options = BenchOptions()
        var remaining = arguments[...]
        func count(after option: String) throws -> Int {
            guard let text = remaining.popFirst() else { throw UsageError(description: "\(option) needs a number") }
            guard let value = Int(text.replacingOccurrences(of: "_", with: "")), value > 0 else {
                throw UsageError(description: "\(option) needs a positive number, not '\(text)'")
            }
            return value
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--photos": options.photos = try count(after: argument)
            case "--memory-photos": options.memoryPhotos = try count(after: argument)
            case "--runs": options.runs = try count(after: argument)
            case "--json": options.json = true
            case "--memory": options.memoryOnly = true
            case "--scale": options.scaleOnly = true
            case "--scale-photos": options.scalePhotos = try count(after: argument)
            case "--keep": options.keep = true
            case "--only":
                guard let list = remaining.popFirst() else { throw UsageError(description: "--only needs figure names") }
                let names = Set(list.split(separator: ",").map(String.init))
                let unknown = names.subtracting(figureNames)
                guard unknown.isEmpty else { throw UsageError(description: "unknown figure '\(unknown.sorted()[0])'") }
                options.only = names
            case "-h", "--help": return nil
            case "--child-import":
                guard remaining.count >= 3 else { throw UsageError(description: "--child-import needs SIDE FEED FOLDER") }
                let values = Array(remaining.prefix(3))
                remaining = remaining.dropFirst(3)
                options.childImport = (values[0], values[1], values[2])
            case "--import-cache":
                if remaining.first == "sqlite" {
                    remaining.removeFirst()
                    options.importCacheKibibytes = nil
                } else {
                    options.importCacheKibibytes = try count(after: argument) * 1024
                }
            case "--import-journals":
                switch remaining.popFirst() {
                case "memory": options.importMemoryJournals = true
                case "file": options.importMemoryJournals = false
                default: throw UsageError(description: "--import-journals needs 'memory' or 'file'")
                }
            case "--import-savepoints":
                switch remaining.popFirst() {
                case "none": options.importChunkSavepoints = false
                case "chunk": options.importChunkSavepoints = true
                default: throw UsageError(description: "--import-savepoints needs 'none' or 'chunk'")
                }
            case "--import-chunk": options.importChunkSize = try count(after: argument)
            case "--limit-settings":
                guard let text = remaining.popFirst() else { throw UsageError(description: "--limit-settings needs settings") }
                options.limitSettings = try LimitImporter.Settings(parsing: text)
            case "--compare-stores":
                guard remaining.count >= 2 else { throw UsageError(description: "--compare-stores needs two store paths") }
                options.compareStores = (remaining[remaining.startIndex], remaining[remaining.startIndex + 1])
                remaining = remaining.dropFirst(2)
            default:
                throw UsageError(description: "unknown argument '\(argument)'")
            }
        }
        return options
    }
}
