import CommandLineKit

/// The `docstore` command table: help, usage lines and usage errors are rendered from it.
enum DocStoreCommands {
    /// Printed by `docstore --version`.
    static let version = "0.1.0"

    static let root = CommandSpec(
        name: "docstore",
        abstract: "Inspect, dump and migrate Core Data stores and documents.",
        discussion: """
            PATH is a document package (a folder holding StoreContent/persistentStore) or a \
            store file. Without --model, the store is read with its own model: the one Core \
            Data keeps in it (Z_MODELCACHE) when that is the model it was written with, else one \
            inferred from its tables. Reading never changes the store.
            """,
        version: version,
        subcommands: [info, dump, migrate, model, CommandSpec.helpCommand()])

    static let path = ArgumentSpec(name: "path", help: "A Core Data document package or store file.")
    static let modelOption = OptionSpec.option(
        "--model", valueName: "model",
        help: "A Core Data model (.xcdatamodeld, .xcdatamodel, its contents file, .momd or .mom); the store's own when left out.")
    static let json = OptionSpec.flag("--json", help: "Print the result as one JSON document.")

    static let info = CommandSpec(
        name: "info",
        abstract: "Show a store's entities with their row counts, its UUID, model hashes and journal mode.",
        arguments: [path],
        options: [modelOption, json])

    static let dump = CommandSpec(
        name: "dump",
        abstract: "Print every object of a store as JSON.",
        discussion: """
            Prints a JSON array of objects, each with its "entity", its "uri" \
            (x-coredata://UUID/Entity/pN) and its properties by name: dates in ISO 8601 (UTC), \
            binary data in base64, to-one relationships as the target's URI, to-many as arrays \
            of URIs.
            """,
        arguments: [path],
        options: [
            modelOption,
            .option("--entity", valueName: "entity", help: "Only objects of this entity and its subentities."),
            .flag("--json", help: "Accepted for symmetry: dump always prints JSON."),
        ])

    static let migrate = CommandSpec(
        name: "migrate",
        abstract: "Migrate a store lightweight to a newer model, keeping its metadata.",
        arguments: [path],
        options: [.option("--model", valueName: "model", help: "The model to migrate the store to.", isRequired: true)])

    static let model = CommandSpec(
        name: "model",
        abstract: "Show a model as loaded: entities, numbers, tables, columns and version hashes.",
        arguments: [ArgumentSpec(name: "model", help: "A Core Data model, or a store or document whose own model to show.")],
        options: [json])
}
