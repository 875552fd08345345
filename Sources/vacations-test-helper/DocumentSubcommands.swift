import Documents
import Foundation
import ObjectGraph

/// Subcommands about documents: holding the lock, waiting for it, writing while others read,
/// leaving unsaved edits for a stop signal to save.
enum DocumentSubcommands {
    static let all: [HelperSubcommand] = [hold, open, writeBatches, editAndWait]

    /// Opens (creating) a document for writing, says `holding`, and keeps it open until its
    /// standard input closes; then closes it and exits 0. Signals end it at once.
    static let hold = HelperSubcommand(name: "hold", usage: "LIBRARY NAME") { arguments in
        let library = try makeLibrary(arguments, handlesStopSignals: false)
        let document = try library.openOrCreate(named: try arguments.positional(1, "NAME"), wait: .seconds(5))
        HelperOutput.say("holding")
        _ = FileHandle.standardInput.readDataToEndOfFile()
        try document.close()
        return 0
    }

    /// Says `trying`, then tries to open a document for writing, waiting up to `--wait SECONDS`:
    /// says `opened after <milliseconds> ms` and exits 0, or says the error and exits 75 when
    /// busy (the CLI's code), 1 otherwise.
    static let open = HelperSubcommand(name: "open", usage: "LIBRARY NAME [--wait SECONDS]") { arguments in
        let library = try makeLibrary(arguments, handlesStopSignals: false)
        let wait = Duration.milliseconds(Int(try arguments.number("wait", default: 10) * 1000))
        let name = try arguments.positional(1, "NAME")
        HelperOutput.say("trying")
        let start = ContinuousClock.now
        do {
            let document = try library.open(named: name, wait: wait)
            let elapsed = ContinuousClock.now - start
            HelperOutput.say("opened after \(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000) ms")
            try document.close()
            return 0
        } catch let error as DocumentError {
            HelperOutput.say("\(error.kind == .busy(waited: wait) ? "busy" : "failed"): \(error)")
            return error.kind == .busy(waited: wait) ? 75 : 1
        }
    }

    /// Opens a document for writing and saves batches until killed (or `--batches N` are done):
    /// each save inserts `--size` entries of batch k and sets the counter "batches" to k, in one
    /// transaction, so a consistent store has exactly size × counter entries. Says `writing`
    /// after the first batch. `--pause MILLISECONDS` (default 2) rests between batches, so that
    /// the writer does not take a whole core from the tests.
    static let writeBatches = HelperSubcommand(name: "write-batches", usage: "LIBRARY NAME [--size N] [--batches N] [--pause MS]") { arguments in
        let library = try makeLibrary(arguments, handlesStopSignals: false)
        let document = try library.openOrCreate(named: try arguments.positional(1, "NAME"), wait: .seconds(5))
        let context = try document.newRootContext()
        let size = Int(try arguments.number("size", default: 50))
        let batches = arguments.options["batches"].flatMap { Int($0) } ?? Int.max
        let pause = UInt32(try arguments.number("pause", default: 2) * 1000)
        let counter = Counter(context: context)
        counter.name = "batches"
        for batch in 1...max(1, batches) {
            for index in 0..<size {
                let entry = Entry(context: context)
                entry.batch = Int64(batch)
                entry.text = "entry \(index) of batch \(batch)"
            }
            counter.value = Int64(batch)
            try context.save()
            if batch == 1 { HelperOutput.say("writing") }
            usleep(pause)
        }
        try document.close()
        return 0
    }

    /// Opens (creating) a document with autosave off and stop signals handled, inserts an entry
    /// with TEXT into the view context without saving, says `edited`, and waits: a SIGINT or
    /// SIGTERM must save the entry before the process ends.
    static let editAndWait = HelperSubcommand(name: "edit-and-wait", usage: "LIBRARY NAME TEXT") { arguments in
        let library = try makeLibrary(arguments, handlesStopSignals: true)
        let document = try library.openOrCreate(named: try arguments.positional(1, "NAME"), wait: .seconds(5))
        let entry = Entry(context: try document.viewContext)
        entry.text = try arguments.positional(2, "TEXT")
        HelperOutput.say("edited")
        while true { try await Task.sleep(for: .seconds(3600)) }
    }

    private static func makeLibrary(_ arguments: HelperArguments, handlesStopSignals: Bool) throws -> DocumentLibrary {
        let configuration = ManagedDocument.Configuration(autosaveDelay: nil, appVersion: "test-helper",
                                                          handlesStopSignals: handlesStopSignals)
        return try DocumentLibrary(url: URL(fileURLWithPath: try arguments.positional(0, "LIBRARY")),
                                   model: try HelperModel.make(), documentConfiguration: configuration)
    }
}
