import CommandLineKit
import Foundation
import ObjectGraph

/// `docstore migrate PATH --model M`: migrates the store lightweight to the model, keeping its
/// journal mode, its other metadata keys and `Z_MODELCACHE`, and prints the SQL it ran.
///
/// ```
/// Migrated version1MRC.bstest to Model 2.xcdatamodel:
///   ALTER TABLE ZEBOOK ADD COLUMN ZIMPORTDATE TIMESTAMP
///   …
/// ```
struct MigrateCommand {
    let location: StoreLocation
    let source: ModelSource

    func run(output: inout some TextOutputStream) throws {
        guard let file = source.file else {
            throw CommandFailure.badInput("--model must name a model file, not a store")
        }
        do {
            let statements = try StoreMigrationPlan.statements(forStoreAt: location.storeURL, model: source.model)
            guard !statements.isEmpty else {
                output.write("Nothing to migrate: \(location.path) already matches \(file).\n")
                return
            }
            _ = try StoreCoordinator(url: location.storeURL, model: source.model, journalMode: nil)
            output.write("Migrated \(location.path) to \(file):\n")
            for statement in statements { output.write("  \(statement)\n") }
        } catch {
            throw DocStoreError.from(error, path: location.path)
        }
    }
}
