// vacation-bench: the framework against a raw-SQLite baseline doing the same work (README.md, "Performance").
//
//     swift run -c release vacation-bench [--photos N] [--json] [--memory]
//
// Figures are ratios to the baseline; absolute times on a shared machine are noise.
import Foundation

let options: BenchOptions
do {
    guard let parsed = try BenchOptions.parse(Array(CommandLine.arguments.dropFirst())) else {
        print(BenchOptions.usage)
        exit(0)
    }
    options = parsed
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n\n\(BenchOptions.usage)\n".utf8))
    exit(64)
}

do {
    if let (ours, other) = options.compareStores {
        try StoreFingerprint.requireEqual(ours, other, figure: "compare-stores", otherSide: "other")
        print("same content")
        exit(0)
    }
    if let child = options.childImport {
        try MemoryProbe.runChild(side: child.side, feed: child.feed, folder: child.folder,
                                 pageCacheKibibytes: options.importCacheKibibytes, memoryJournals: options.importMemoryJournals,
                                 chunkSavepoints: options.importChunkSavepoints, chunkSize: options.importChunkSize)
        exit(0)
    }
    let runner = try BenchRunner(options: options)
    let figures = try runner.run()
    if options.json {
        for figure in figures { print(figure.jsonLine) }
    } else {
        print(FigureTable.render(figures))
    }
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}
