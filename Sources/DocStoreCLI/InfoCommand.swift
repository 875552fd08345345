import Foundation
import CoreDataFiles
import ObjectGraph
import CommandLineKit

/// `docstore info PATH [--model M] [--json]`: what the store says about itself, and how the
/// model fits it.
///
/// ```
/// Store:           Doc.bstest/StoreContent/persistentStore
/// UUID:            6B9BB6CC-F2A5-49EB-880B-A459EB7AC7F8
/// Journal mode:    delete
/// Model:           inferred from the store, which it matches exactly
/// Version hashes:  recorded for 1 entity
/// Model cache:     no
///
/// ENTITY  NUMBER  PARENT  ROWS  VERSION HASH
/// Ebook        1             1  tI1684PhxGXK7ghKeLxKcsmq0LX+BcBP5ViWHHSLKdM=
/// ```
struct InfoCommand {
    let location: StoreLocation
    let source: ModelSource

    func run(json: Bool, output: inout some TextOutputStream) throws {
        let summary: StoreSummary
        do {
            summary = try StoreSummary(storeAt: location.storeURL)
        } catch {
            throw DocStoreError.from(error, path: location.path)
        }
        let fit = try modelFit()
        let names = Dictionary(summary.entities.map { ($0.number, $0.name) }, uniquingKeysWith: { first, _ in first })
        if json {
            let entities: [JSONValue] = summary.entities.map { entity in
                .object([
                    ("name", .string(entity.name)),
                    ("number", .integer(Int64(entity.number))),
                    ("parent", entity.parent.flatMap { names[$0] }.map(JSONValue.text) ?? .null),
                    ("table", .string(entity.table)),
                    ("rows", entity.rows.map { .integer(Int64($0)) } ?? .null),
                    ("versionHash", summary.versionHashes[entity.name].map { .string($0.base64EncodedString()) } ?? .null),
                    ("modelVersionHash", source.inferred != nil ? .null
                        : source.model.entity(named: entity.name).map { .string($0.versionHash.base64EncodedString()) } ?? .null),
                ])
            }
            let report: JSONValue = .object([
                ("path", .string(location.path)),
                ("store", .string(location.storeURL.path)),
                ("document", location.documentURL.map { .string($0.path) } ?? .null),
                ("uuid", .string(summary.uuid)),
                ("storeType", (summary.metadata["NSStoreType"] as? String).map(JSONValue.text) ?? .null),
                ("journalMode", .string(summary.journalMode)),
                ("modelCache", .bool(summary.hasModelCache)),
                ("model", .object([
                    ("source", .string(source.file ?? source.storeModel?.source.rawValue ?? "inferred")),
                    ("matchesStore", .bool(fit.matches)),
                    ("versionHashesMatch", source.inferred != nil ? .null : .bool(source.model.versionHashes == summary.versionHashes)),
                    ("modelCacheProblem", source.storeModel?.modelCacheProblem.map(JSONValue.text) ?? .null),
                ])),
                ("entities", .array(entities)),
            ])
            output.write(report.renderedLine())
            return
        }
        var lines: [(String, String)] = [("Store:", location.storeURL.path)]
        if let document = location.documentURL { lines.append(("Document:", document.path)) }
        lines += [
            ("UUID:", summary.uuid),
            ("Journal mode:", summary.journalMode),
            ("Model:", fit.description),
            ("Version hashes:", hashesDescription(summary)),
            ("Model cache:", modelCacheDescription(summary)),
        ]
        for (label, value) in lines {
            output.write(label.padding(toLength: 17, withPad: " ", startingAt: 0) + value + "\n")
        }
        var table = TextTable(columns: [.init("ENTITY"), .init("NUMBER", alignment: .right), .init("PARENT"),
                                        .init("ROWS", alignment: .right), .init("VERSION HASH")])
        for entity in summary.entities {
            table.addRow([entity.name, String(entity.number), entity.parent.flatMap { names[$0] } ?? "",
                          entity.rows.map(String.init) ?? "no table", summary.versionHashes[entity.name]?.base64EncodedString() ?? ""])
        }
        output.write("\n" + table.rendered() + "\n")
    }

    /// Whether the model matches the store's schema, and a line that says so.
    private func modelFit() throws -> (matches: Bool, description: String) {
        if let storeModel = source.storeModel {
            let origin = storeModel.source == .modelCache ? "the store's own (Z_MODELCACHE)" : "inferred from the store"
            return storeModel.matchesStoreExactly
                ? (true, "\(origin), which it matches exactly")
                : (false, "\(origin), which it reads as it is (\(storeModel.schemaDifferences.count) schema differences)")
        }
        let file = source.file ?? ""
        do {
            let statements = try StoreMigrationPlan.statements(forStoreAt: location.storeURL, model: source.model)
            return statements.isEmpty
                ? (true, "\(file), which the store matches")
                : (false, "\(file), to which the store needs migrating (\(statements.count) statements)")
        } catch let error as MigrationError {
            return (false, "\(file), to which the store cannot migrate: \(error)")
        } catch {
            throw DocStoreError.from(error, path: location.path)
        }
    }

    /// Whether the store keeps a model cache, and whether it was used and why not.
    private func modelCacheDescription(_ summary: StoreSummary) -> String {
        guard summary.hasModelCache else { return "no" }
        guard let storeModel = source.storeModel else { return "yes (Z_MODELCACHE)" }
        if storeModel.source == .modelCache { return "yes (Z_MODELCACHE), used" }
        return "yes (Z_MODELCACHE), not used: " + (storeModel.modelCacheProblem ?? "")
    }

    private func hashesDescription(_ summary: StoreSummary) -> String {
        let count = summary.versionHashes.count
        let recorded = count == 0 ? "none recorded" : "recorded for \(count) \(count == 1 ? "entity" : "entities")"
        guard source.inferred == nil else { return recorded }
        let differing = source.model.entities.filter { summary.versionHashes[$0.name] != $0.versionHash }.map(\.name)
        let extra = Set(summary.versionHashes.keys).subtracting(source.model.entities.map(\.name))
        if differing.isEmpty && extra.isEmpty { return recorded + ", equal to the model's" }
        return recorded + ", differing from the model's for " + (differing + extra.sorted()).joined(separator: ", ")
    }
}
