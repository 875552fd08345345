import Foundation
import ObjectGraph

/// Subcommands that work on a bare store (no document) with the helper's `Counter` entity, for
/// tests of optimistic locking and uniqueness between processes.
enum StoreSubcommands {
    static let all: [HelperSubcommand] = [insert, update]

    /// Inserts counter NAME with VALUE; with `--pause`, says `ready` and waits for a line on
    /// standard input before saving. Says `saved <Z_PK> <value>`, or `unique: …` and exits 1.
    static let insert = HelperSubcommand(name: "counter-insert", usage: "STORE NAME VALUE [--policy P] [--pause]") { arguments in
        let context = try makeContext(arguments)
        let counter = Counter(context: context)
        counter.name = try arguments.positional(1, "NAME")
        counter.value = try value(arguments)
        return try save(context, counter, arguments)
    }

    /// Loads counter NAME, sets VALUE; with `--pause`, says `ready` and waits for a line on
    /// standard input before saving. Says `saved <Z_PK> <value>`, or `conflict: …` and exits 1.
    static let update = HelperSubcommand(name: "counter-update", usage: "STORE NAME VALUE [--policy P] [--pause]") { arguments in
        let context = try makeContext(arguments)
        let name = try arguments.positional(1, "NAME")
        guard let counter = try context.fetch(FetchRequest<Counter>(predicate: "name == %@", name)).first else {
            HelperOutput.error("no counter \(name)")
            return 66
        }
        counter.value = try value(arguments)
        return try save(context, counter, arguments)
    }

    private static func makeContext(_ arguments: HelperArguments) throws -> ObjectContext {
        let url = URL(fileURLWithPath: try arguments.positional(0, "STORE"))
        let context = ObjectContext(coordinator: try StoreCoordinator(url: url, model: HelperModel.make()))
        if let policy = arguments.options["policy"] {
            guard let parsed = MergePolicy(rawValue: policy) else { throw HelperUsageError(message: "unknown policy \(policy)") }
            context.mergePolicy = parsed
        }
        return context
    }

    private static func value(_ arguments: HelperArguments) throws -> Int64 {
        let text = try arguments.positional(2, "VALUE")
        guard let value = Int64(text) else { throw HelperUsageError(message: "VALUE must be a number, not \(text)") }
        return value
    }

    private static func save(_ context: ObjectContext, _ counter: Counter, _ arguments: HelperArguments) throws -> Int32 {
        if arguments.has("pause") {
            HelperOutput.say("ready")
            _ = readLine()
        }
        do {
            try context.save()
        } catch let error as MergeConflictError {
            HelperOutput.say("conflict: \(error)")
            return 1
        } catch let error as UniqueConstraintError {
            HelperOutput.say("unique: \(error)")
            return 1
        }
        HelperOutput.say("saved \(counter.objectID.primaryKey) \(counter.value)")
        return 0
    }
}
