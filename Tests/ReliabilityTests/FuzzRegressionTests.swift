import CommandLineKit
import Foundation
import FuzzChecks
import Testing

/// Every seed and every input a fuzzer once failed on, through the same checks the fuzz targets
/// run (`Fuzz/Corpus/<target>/`, `Fuzz/Regressions/<target>/`). A finding fixed stays fixed.
@Suite("Fuzz corpora and regression inputs")
struct FuzzRegressionTests {
    static let fuzzFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    static func inputs(_ kind: String, _ target: FuzzTarget) -> [URL] {
        let folder = fuzzFolder.appendingPathComponent(kind).appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder.appendingPathComponent($0) }
    }

    @Test("every seed input passes its target's check", arguments: FuzzTarget.allCases)
    func seeds(target: FuzzTarget) throws {
        let inputs = Self.inputs("Corpus", target)
        #expect(inputs.count >= 5, "the \(target) corpus is nearly empty")
        for input in inputs {
            let data = try Data(contentsOf: input)
            do {
                try target.check(data)
            } catch {
                Issue.record("\(input.lastPathComponent): \(error)")
            }
        }
    }

    @Test("every input a fuzzer found a problem with passes now", arguments: FuzzTarget.allCases)
    func regressions(target: FuzzTarget) throws {
        for input in Self.inputs("Regressions", target) {
            let data = try Data(contentsOf: input)
            do {
                try target.check(data)
            } catch {
                Issue.record("\(input.lastPathComponent): \(error)")
            }
        }
    }
}
