import Foundation
import Testing
import TestSupport
@testable import VacationCLI

@MainActor
@Suite("Library settings that cannot be read")
struct LibrarySettingsTests {
    @Test("settings that are not a property list fail every command, never send it to \"My Vacation\" instead")
    func unreadableSettings() throws {
        let cli = try CLIRunner()
        #expect(try cli.run("create", "Japan").code == 0)
        #expect(try cli.run("default", "Japan").code == 0)
        let settings = URL(fileURLWithPath: cli.library).appendingPathComponent("Library.plist")
        try Data("not a property list".utf8).write(to: settings)
        let before = try FileManager.default.contentsOfDirectory(atPath: cli.library).sorted()
        for arguments in [["list"], ["photos"], ["import", SampleFiles.sample("kyoto.json")]] {
            let result = try cli.run(arguments)
            #expect(result.code == 1, "\(arguments)")
            #expect(result.errors.hasPrefix("Error: ") && result.errors.contains("Library.plist"), "\(result.errors)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.library).sorted() == before)
        try FileManager.default.removeItem(at: settings)
        #expect(try cli.run("default").output == "My Vacation\n")
    }
}
