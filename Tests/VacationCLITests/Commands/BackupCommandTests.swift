import CommandLineKit
import Foundation
import Testing
import TestSupport
@testable import VacationCLI

@MainActor
@Suite("vacation backup, backups, restore")
struct BackupCommandTests {
    @Test("a backup is listed, restores under a new name, and over the original only with --force")
    func backupAndRestore() throws {
        let cli = try CLIRunner()
        _ = try cli.run("import", SampleFiles.sample("kyoto.json"))
        let backup = try cli.run("backup", "--json")
        #expect(backup.code == 0)
        let name = try #require(backup.object["name"] as? String)
        #expect((backup.object["bytes"] as? Int ?? 0) > 0)
        let list = try cli.run("backups", "--json").array
        #expect(list.map { $0["name"] as? String } == [name])
        #expect(list.first?["path"] as? String == backup.object["path"] as? String)
        _ = try cli.run("unvisit", "53318277912")
        #expect(try cli.run("restore", name).code == 1)
        #expect(try cli.run("restore", name, "--as", "Kyoto Again").code == 0)
        #expect(try cli.run("--vacation", "Kyoto Again", "photos", "--json").array.count == 10)
        #expect(try cli.run("photos", "--json").array.count == 9)
        #expect(try cli.run("restore", name, "--force").code == 0)
        #expect(try cli.run("photos", "--json").array.count == 10)
        #expect(try cli.run("check").code == 0)
        let byPath = try cli.run("restore", try #require(list.first?["path"] as? String), "--as", "From Path")
        #expect(byPath.code == 0)
    }

    @Test("keep prunes old backups; --to writes elsewhere; an unknown backup is 66")
    func keepAndDestination() throws {
        let cli = try CLIRunner()
        for _ in 0..<3 { #expect(try cli.run("backup", "--keep", "2").code == 0) }
        #expect(try cli.run("backups", "--json").array.count == 2)
        let elsewhere = cli.directory.path("elsewhere").path
        let outside = try cli.run("backup", "--to", elsewhere, "--json")
        #expect((outside.object["path"] as? String)?.hasPrefix(elsewhere) == true)
        let missing = try cli.run("restore", "1999-01-01T00-00-00Z")
        #expect(missing.code == 66)
        #expect(missing.errors.hasPrefix("Error: No such backup \"1999-01-01T00-00-00Z\""))
    }
}
