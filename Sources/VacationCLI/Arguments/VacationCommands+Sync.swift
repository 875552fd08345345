import CommandLineKit

// `vacation sync` (README.md, "Sync between machines"): its spec and its typed options.

extension VacationCommands {
    static let sync = CommandSpec(
        name: "sync",
        abstract: "Sync a vacation with other libraries through a folder.",
        discussion: """
            Writes what this library changed in the vacation since its last sync to \
            DIR/<vacation>/<device>/ and applies the changes other devices left there, in one \
            transaction; the store itself is never copied. DIR can be any folder that a sync \
            service, a network share or a USB stick carries. A vacation found only in the \
            folder is created. Change files that are not whole yet are left for a later sync; \
            files that cannot be applied are reported and skipped (exit 65 once the others \
            are applied). --prune then writes one snapshot of the vacation as this device's \
            newest change file and deletes its older ones.
            """,
        arguments: [ArgumentSpec(name: "name", help: "The vacation to sync.", isOptional: true)],
        options: [
            .option("--folder", valueName: "dir", help: "The shared folder.", isRequired: true),
            .flag("--prune", help: "Replace this device's change files with one snapshot of the vacation."),
            json,
        ])
}

extension VacationCommand {
    /// `sync [NAME] --folder DIR`
    package struct SyncOptions: Sendable, Equatable {
        package var name: String?
        package var folder: String
        package var prune: Bool

        package init(name: String? = nil, folder: String, prune: Bool = false) {
            self.name = name
            self.folder = folder
            self.prune = prune
        }
    }
}
