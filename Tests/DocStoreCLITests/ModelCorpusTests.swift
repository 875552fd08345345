import Foundation
import Testing
import TestSupport

/// Every model of the Core Data corpus (`CoreDataFilesTests/Fixtures/coredata-more`: real models
/// from other projects) loads, and `docstore model --json` shows what its XML declares. The XML
/// is read independently by `Scripts/compare_model.py` (Python's xml.etree), which compares it
/// with the built docstore's output and lists every difference.
@Suite("Every model of the corpus loads and matches its XML")
struct ModelCorpusTests {
    static let corpus = Fixtures.root.deletingLastPathComponent().appendingPathComponent("coredata-more")
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/compare_model.py")

    /// Every `.xcdatamodel` folder of the corpus (each version of each bundle), relative to it.
    static let versions: [String] = {
        let walker = FileManager.default.enumerator(atPath: corpus.path)
        var found: [String] = []
        while let path = walker?.nextObject() as? String {
            if path.hasSuffix(".xcdatamodel") { found.append(path) }
        }
        return found.sorted()
    }()

    @Test("the corpus holds the models it should")
    func corpusIsThere() {
        #expect(Self.versions.count == 37)
        #expect(Self.versions.contains("phimage__MomXML/Tests/Model.xcdatamodeld/Model.xcdatamodel"))
        #expect(Self.versions.contains("magicalpanda__MagicalRecord/Tests/Fixtures/TestModel.xcdatamodeld/TestModel.xcdatamodel"))
    }

    @Test("docstore model --json shows every entity, attribute, relationship, constraint and index the XML declares",
          arguments: versions)
    func matchesXML(version: String) throws {
        let folder = Self.corpus.appendingPathComponent(version)
        let run = try ProductProcess.run("docstore", ["model", folder.path, "--json"])
        #expect(run.status == 0 && run.errors.isEmpty, "\(version): \(run.errors)")
        let directory = try TemporaryDirectory(prefix: "corpus")
        let loaded = directory.path("model.json")
        try Data(run.output.utf8).write(to: loaded)
        let comparison = try ProductProcess.runExternal("/usr/bin/env", [
            "python3", Self.script.path, folder.appendingPathComponent("contents").path, loaded.path])
        #expect(comparison.status == 0, "\(version): \(comparison.errors)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(comparison.output.utf8)) as? [String: Any])
        #expect(summary["differences"] as? [String] == [], "\(version)")
        #expect((summary["entities"] as? Int ?? 0) > 0, "\(version)")
        #expect((summary["attributes"] as? Int ?? 0) + (summary["relationships"] as? Int ?? 0) > 0, "\(version)")
    }

    @Test("the comparison finds a difference when there is one")
    func comparisonCanFail() throws {
        let folder = Self.corpus.appendingPathComponent("magicalpanda__MagicalRecord/Tests/Fixtures/TestModel.xcdatamodeld/TestModel.xcdatamodel")
        let run = try ProductProcess.run("docstore", ["model", folder.path, "--json"])
        let tampered = run.output
            .replacingOccurrences(of: "\"deleteRule\": \"cascade\"", with: "\"deleteRule\": \"nullify\"")
            .replacingOccurrences(of: "\"type\": \"Boolean\"", with: "\"type\": \"String\"")
        let directory = try TemporaryDirectory(prefix: "corpus")
        try Data(tampered.utf8).write(to: directory.path("model.json"))
        let comparison = try ProductProcess.runExternal("/usr/bin/env", [
            "python3", Self.script.path, folder.appendingPathComponent("contents").path, directory.path("model.json").path])
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(comparison.output.utf8)) as? [String: Any])
        let differences = try #require(summary["differences"] as? [String])
        #expect(differences.contains("SingleRelatedEntity.testAbstractToManyRelationship.deleteRule: XML says 'cascade', docstore 'nullify'"))
        #expect(differences.contains("SingleEntityWithNoRelationships.booleanTestAttribute.type: XML says 'Boolean', docstore 'String'"))
    }
}
