// vacations-test-helper: small programs that tests start as separate processes, where one
// process is not enough to show a behaviour (locks between processes, signals, a writer at work
// during a backup). Tests find it next to the test bundle in the build products folder.
//
//     vacations-test-helper <subcommand> [arguments]
//
// Each subcommand is one `HelperSubcommand` in `HelperSubcommand.all`; add new ones there (in
// a file of their own). Output is line by line on stdout, flushed at once, for tests to wait on.
import Foundation

// A helper outlives a test that failed before stopping it (the test process exits, the helper
// is reparented): it ends itself once its parent is gone, instead of running on and loading
// the machine for every later test.
let parent = getppid()
Thread.detachNewThread {
    while getppid() == parent { sleep(1) }
    exit(70)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, let subcommand = HelperSubcommand.all.first(where: { $0.name == name }) else {
    HelperOutput.error("usage: vacations-test-helper <subcommand> [arguments]")
    for subcommand in HelperSubcommand.all { HelperOutput.error("  \(subcommand.name) \(subcommand.usage)") }
    exit(64)
}
do {
    exit(try await subcommand.run(HelperArguments(Array(arguments.dropFirst()))))
} catch {
    HelperOutput.error("error: \(error)")
    exit(1)
}
