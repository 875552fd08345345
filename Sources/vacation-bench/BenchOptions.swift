import Foundation

/// The command line: `vacation-bench [--photos N] [--json] [--memory] [--runs N] …`.
struct BenchOptions {
    /// Photos in the generated feed for every figure but memory.
    var photos = 100_000
    /// Photos in the feed whose streaming import's peak memory is measured.
    var memoryPhotos = 1_000_000
    /// Runs per import, reimport and backup figure; reads run twice as often, less one.
    var runs = 3
    var json = false
    /// The memory figure (alone: importing a million photos twice takes minutes).
    var memoryOnly = false
    /// Only these figures (the reads import a vacation first, untimed).
    var only: Set<String>?
    /// Keep the generated feeds and stores (their folder is printed) instead of removing them.
    var keep = false
    /// Internal: run one import in this process, for the parent to measure (`--child-import
    /// ours|baseline FEED FOLDER`).
    var childImport: (side: String, feed: String, folder: String)?

    static let usage = """
        USAGE: vacation-bench [--photos N] [--json] [--runs N] [--only FIGURE,...] [--keep]
               vacation-bench --memory [--memory-photos N] [--json] [--keep]

        Measures the framework against a raw-SQLite baseline doing the same work, and prints
        each figure's median with its ratio to the baseline (a table, or with --json one JSON
        line per figure). Build in release: swift run -c release vacation-bench

        OPTIONS:
          --photos N          photos in the generated feed (default 100000)
          --json              one JSON line per figure on standard output
          --runs N            runs per import, reimport and backup (default 3); reads run 2N-1 times
          --only FIGURE,...   only these figures: import-xml, import-json, reimport, fetch-all,
                              fetch-predicate, frc-initial, toggle, open-first-page, backup, search,
                              import-history
          --memory            measure only the peak memory of a streaming XML import, each side
                              in a child process (minutes: a million photos by default)
          --memory-photos N   photos in the memory figure's feed (default 1000000)
          --keep              keep the generated feeds and stores
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
            default:
                throw UsageError(description: "unknown argument '\(argument)'")
            }
        }
        return options
    }
}
