import CommandLineKit
import Documents
import Foundation
import ObjectGraph
import Vacations

/// One run of the `vacation` command: the parsed invocation, the environment and the library.
@MainActor
struct Session {
    let invocation: VacationCommandLine.Invocation
    let environment: CLIEnvironment
    let library: VacationLibrary
    var globals: VacationCommandLine.GlobalOptions { invocation.globals }
    var json: Bool { globals.json }

    init(invocation: VacationCommandLine.Invocation, environment: CLIEnvironment) throws {
        self.invocation = invocation
        self.environment = environment
        let url = DocumentLibrary.location(option: invocation.globals.library, environment: environment.variables,
                                           currentDirectory: environment.currentDirectory)
        let wait = invocation.globals.waitDuration
        var configuration = ManagedDocument.Configuration()
        // A command saves what it changed before it returns; autosave is for long-lived processes.
        configuration.autosaveDelay = nil
        configuration.handlesStopSignals = true
        // One command, then the process ends: no thread to follow other processes' commits.
        configuration.followsOtherProcesses = false
        library = try VacationLibrary(url: url, wait: wait, configuration: configuration)
    }

    mutating func run() throws -> Int32 {
        // An invalid --vacation is a usage error whatever the command, even one that names
        // its vacation otherwise or none at all.
        if let named = globals.vacation { _ = try library.resolve(named) }
        // What this command changes is one operation in the vacation's log, by this author.
        library.operationAuthor = "vacation \(invocation.command.name.rawValue)"
        library.operationClock = environment.now
        try library.ensureDefaultExists()
        switch invocation.command {
        case .list: return try list()
        case .create(let name): return try create(name)
        case .rename(let old, let new): return try rename(old, new)
        case .delete(let name): return try delete(name)
        case .setDefault(let name): return try setDefault(name)
        case .info(let name): return try info(name)
        case .check(let name): return try check(name)
        case .importFeeds(let options): return try importFeeds(options)
        case .visit(let ids, let feed): return try visit(ids, feed: feed)
        case .unvisit(let ids): return try unvisit(ids)
        case .toggle(let id, let feed): return try toggle(id, feed: feed)
        case .fetch(let options): return try fetch(options)
        case .photos(let options): return try photos(options)
        case .show(let id): return try show(id)
        case .tags: return try tags()
        case .places: return try places()
        case .backup(let name, let destination, let keep): return try backup(name, to: destination, keep: keep)
        case .backups(let name): return try backups(name)
        case .restore(let backup, let newName, let force): return try restore(backup, as: newName, force: force)
        case .trips(let gapHours, let album): return try trips(gapHours: gapHours, album: album)
        case .export(let options): return try export(options)
        case .search(let text, let limit): return try search(text, limit: limit)
        case .albumCreate(let name, let predicate): return try albumCreate(name, predicate: predicate)
        case .albumList: return try albumList()
        case .albumDelete(let name): return try albumDelete(name)
        case .log(let name, let since, let limit): return try log(name, since: since, limit: limit)
        case .undo(let name): return try undo(name)
        case .sync(let options): return try sync(options)
        }
    }

    // MARK: Output

    func emit(_ value: JSONValue) {
        environment.output.write(value.renderedLine())
        // Freeing a long answer's values is work the exiting process need not do.
        if environment.keepsObjectsUntilExit { VacationCLI.keepUntilExit([value]) }
    }

    func say(_ text: String) {
        environment.output.write(text.hasSuffix("\n") || text.isEmpty ? text : text + "\n")
    }

    func warn(_ text: String) {
        environment.errors.write("Warning: \(TextTable.sanitized(text))\n")
    }

    /// The vacation a command names: its argument, else `--vacation`, else the default.
    func vacationName(_ argument: String? = nil) throws -> String {
        try library.resolve(argument ?? globals.vacation)
    }

    /// A path as the user gave it, made absolute against the current folder.
    func path(_ text: String) -> URL {
        let expanded: String
        if text == "~" || text.hasPrefix("~/"), let home = environment.variables["HOME"] {
            expanded = home + text.dropFirst(1)
        } else {
            expanded = text
        }
        return expanded.hasPrefix("/") ? URL(fileURLWithPath: expanded)
            : URL(fileURLWithPath: environment.currentDirectory).appendingPathComponent(expanded)
    }

    /// Opens a vacation for reading and runs `body` with a context on it.
    func reading<T>(_ name: String?, _ body: (ObjectContext, ManagedDocument) throws -> T) throws -> T {
        let document = try library.open(name, access: .read)
        // A document open for reading closes without saving: closing cannot fail.
        defer { try? document.close() }
        let context = try document.newRootContext(name: "cli")
        // The process exits next: its objects go with it, unfreed (VacationCLI.exitProcess
        // closes the connection they hold).
        defer { if environment.keepsObjectsUntilExit { VacationCLI.keepUntilExit([context, document]) } }
        return try body(context, document)
    }
}
