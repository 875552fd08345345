import Foundation
import Testing
import TestSupport
@testable import Vacations

/// OGC's KML 2.2 schema, fetched by `Scripts/fetch-schemas.sh` into `.build/schemas/`, and
/// libxml2's validator (`xmllint`, Debian's libxml2-utils). CI fetches and installs both
/// (.ci/run): there, a missing one is a failure, not a skip.
enum KMLSchema {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let path = packageRoot.appendingPathComponent(".build/schemas/kml22/ogckml22.xsd").path
    static let validator = "/usr/bin/xmllint"
    static let isAtHand = FileManager.default.fileExists(atPath: path) && FileManager.default.isExecutableFile(atPath: validator)
    static let mustRun = ProcessInfo.processInfo.environment["CI"] != nil

    /// xmllint's verdict on `text`: nil when it validates, else its messages.
    static func problems(_ text: String) throws -> String? {
        let directory = try TemporaryDirectory(prefix: "kml-schema")
        let file = directory.path("export.kml")
        try Data(text.utf8).write(to: file)
        let result = try ProductProcess.runExternal(validator, ["--noout", "--nonet", "--schema", path, file.path])
        return result.status == 0 ? nil : result.errors
    }
}

@Suite("KML exports validate against OGC's KML 2.2 schema")
struct ExportSchemaTests {
    @Test("the KML export of hostile text, places, unplaced and undated photos validates against the schema",
          .enabled(if: KMLSchema.isAtHand || KMLSchema.mustRun,
                   "no KML schema here: run Scripts/fetch-schemas.sh and apt-get install libxml2-utils (CI does both)"))
    func hostileExportValidates() throws {
        guard KMLSchema.isAtHand else {
            Issue.record("CI must have the KML schema and xmllint: .ci/run runs Scripts/fetch-schemas.sh and installs libxml2-utils")
            return
        }
        let harness = try ExportHarness()
        try ExportFormatTests.fill(harness)
        let (text, summary) = try harness.export(.kml)
        #expect(summary.written == 4)
        #expect(try KMLSchema.problems(text) == nil)

        let empty = try ExportHarness()
        #expect(try KMLSchema.problems(try empty.export(.kml).text) == nil)
    }

    @Test("the validator is live: a Placemark with its children out of the schema's order is refused",
          .enabled(if: KMLSchema.isAtHand || KMLSchema.mustRun,
                   "no KML schema here: run Scripts/fetch-schemas.sh and apt-get install libxml2-utils (CI does both)"))
    func validatorRefusesWrongOrder() throws {
        guard KMLSchema.isAtHand else {
            Issue.record("CI must have the KML schema and xmllint: .ci/run runs Scripts/fetch-schemas.sh and installs libxml2-utils")
            return
        }
        let wrong = """
            <?xml version="1.0" encoding="UTF-8"?>
            <kml xmlns="http://www.opengis.net/kml/2.2"><Document><Placemark>\
            <Point><coordinates>1,2</coordinates></Point><name>late</name></Placemark></Document></kml>
            """
        let problems = try KMLSchema.problems(wrong)
        #expect(problems?.contains("fails to validate") == true)
    }
}
