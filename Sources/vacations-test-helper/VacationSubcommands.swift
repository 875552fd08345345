import Documents
import Foundation
import ObjectGraph
import TestSupport
import Vacations

/// Subcommands about vacations: a long-lived process that edits a vacation and leaves saving to
/// autosave, as an app would.
enum VacationSubcommands {
    static let all: [HelperSubcommand] = [autosave]

    /// Opens (creating) the vacation NAME in LIBRARY with autosave on (`--delay MS`, default 20)
    /// and keeps changing it in the view context, never saving by itself: each step toggles one
    /// photo of FEED, chosen at random (`--seed N`), visiting it with its tags and place or
    /// unvisiting it, and notes the change as an app would. Between bursts of 1–4 steps it rests
    /// 0–3 delays, so autosaves happen between steps but never inside one.
    ///
    /// Output, for a harness that kills the process and then checks the store: `state 0 IDS`
    /// (what the store held at opening), `state K IDS` after step K (the photos the vacation
    /// holds after it, of those in FEED, sorted, comma-separated), and `saved K` once an autosave has written
    /// everything up to step K. A store killed at any moment must hold `state J` for some J at
    /// least the last `saved K`. Runs until killed, or `--steps N` are done (then closes, saving).
    static let autosave = HelperSubcommand(name: "autosave-vacation", usage: "LIBRARY NAME FEED [--delay MS] [--seed N] [--steps N]") { arguments in
        let delay = Duration.milliseconds(Int(try arguments.number("delay", default: 20)))
        let configuration = ManagedDocument.Configuration(autosaveDelay: delay, appVersion: "test-helper", handlesStopSignals: false)
        let library = try VacationLibrary(url: URL(fileURLWithPath: try arguments.positional(0, "LIBRARY")),
                                          wait: .seconds(30), configuration: configuration)
        var drafts: [PhotoDraft] = []
        try FlickrFeedReader.read(contentsOf: URL(fileURLWithPath: try arguments.positional(2, "FEED")), photo: { photo in
            drafts.append(DraftRules().draft(from: photo))
        })
        guard !drafts.isEmpty else { throw HelperUsageError(message: "the feed has no photos") }
        let document = try library.open(try arguments.positional(1, "NAME"), access: .write, creating: true)
        let context = try document.viewContext
        let editor = VacationEditor(context: context)
        var random = SplitMix64(state: UInt64(try arguments.number("seed", default: 1)))
        let steps = arguments.options["steps"].flatMap { Int($0) } ?? Int.max

        let feedIDs = Set(drafts.map(\.id))
        // Only the feed's photos: the vacation may hold others, which this process leaves alone.
        func present() throws -> String {
            try context.fetch(FetchRequest<Photo>()).map(\.unique).filter(feedIDs.contains).sorted().joined(separator: ",")
        }
        HelperOutput.say("state 0 \(try present())")
        var step = 0
        while step < steps {
            for _ in 0..<Int.random(in: 1...4, using: &random) where step < steps {
                let draft = drafts[Int.random(in: 0..<drafts.count, using: &random)]
                _ = try editor.toggle(draft)
                step += 1
                document.noteChanges()
                HelperOutput.say("state \(step) \(try present())")
            }
            try await Task.sleep(for: delay * Int.random(in: 0...3, using: &random))
            if !document.hasUnsavedChanges && document.lastSaveError == nil { HelperOutput.say("saved \(step)") }
        }
        try document.close()
        HelperOutput.say("saved \(step)")
        return 0
    }
}

