import CommandLineKit
import Foundation
import Testing
import TestSupport
@testable import VacationCLI

@MainActor
@Suite("vacation search: words, diacritics, prefixes, ranking, hostile text, the sqlite3 shell")
struct SearchCommandTests {
    private func sample() throws -> CLIRunner {
        let cli = try CLIRunner()
        #expect(try cli.run(SampleFiles.importAll).code == 0)
        return cli
    }

    private func ids(_ result: CLIRunner.Result) -> [String] {
        result.array.compactMap { $0["id"] as? String }
    }

    @Test("a word finds the photos holding it, best first, in photos' table; case and diacritics do not count")
    func words() throws {
        let cli = try sample()
        let text = try cli.run("search", "belem")
        #expect(text.code == 0)
        #expect(text.errors == "")
        #expect(text.output == """
            ID           TITLE                PLACE                     TAGS                              TAKEN
            52814571233  Pastéis de Belém 🥮  Lisbon, Lisbon, Portugal  belém, food, lisbon, pastel_de_…  2023-04-01 11:02
            52814563021  Torre de Belém ☀️    Lisbon, Lisbon, Portugal  belém, lisbon, manueline, tower…  2023-04-01 10:15

            """)
        for spelling in ["belem", "Belém", "BELÉM", "Bele\u{301}m", "BeLeM"] {
            #expect(ids(try cli.run("search", spelling, "--json")) == ["52814571233", "52814563021"], "\(spelling)")
        }
        // Every word must match, in any order, in any field: title, description, tags, place, owner.
        #expect(ids(try cli.run("search", "temple", "kyoto", "--json")) == ["53322413309", "53319659377", "53318277912"])
        #expect(ids(try cli.run("search", "kyoto temple", "--json")) == ids(try cli.run("search", "temple kyoto", "--json")))
        #expect(ids(try cli.run("search", "tram*", "--json")) == ["52815120999", "52815120874"])
        #expect(ids(try cli.run("search", "reykjav*", "--json")) == ["53108729433", "53104419627", "53105881466", "53104425190", "53105887024"])
        #expect(ids(try cli.run("search", "ANA sousa", "--limit", "3", "--json")) == ["52823000017", "52820315508", "52821774019"])
        #expect(ids(try cli.run("search", "ana sousa", "--limit", "0", "--json")) == [])
    }

    @Test("--json gives the same objects as photos --json; no match is [] and exit 0")
    func json() throws {
        let cli = try sample()
        let all = try cli.run("photos", "--json").array
        let found = try cli.run("search", "porto", "--json")
        #expect(found.code == 0)
        #expect(ids(found).count == 7)
        for object in found.array {
            let same = all.first { $0["id"] as? String == object["id"] as? String }
            #expect(same.map { NSDictionary(dictionary: $0) } == NSDictionary(dictionary: object))
            #expect(object.keys.sorted() == (same?.keys.sorted() ?? []))
        }
        let none = try cli.run("search", "zzzz", "--json")
        #expect(none.code == 0 && none.output == "[]\n" && none.errors == "")
        let noneText = try cli.run("search", "zzzz")
        #expect(noneText.code == 0 && noneText.output == "" && noneText.errors == "")
    }

    @Test("hostile text is searched as words: no FTS5 syntax, no error")
    func hostile() throws {
        let cli = try sample()
        let texts = ["\"NEAR(", "title:torre", "torre AND", "AND", "OR NOT", "x -belem", "^belem", "+belem", "belem\"", "\"belem",
                     "{title}: belem", "belem NEAR/2 torre", "(belem)", "belem OR porto", "Robert'); DROP TABLE ZPHOTO;--", "%s%n",
                     "belem*torre", "\u{0}belem", String(repeating: "a ", count: 2_000)]
        for text in texts {
            let result = try cli.run("search", text, "--json")
            #expect(result.code == 0, "\(text)")
            #expect(result.errors == "", "\(text)")
        }
        // A text that starts with '-' follows '--', as any argument that looks like an option.
        #expect(ids(try cli.run("search", "--json", "--", "-belem")) == ["52814571233", "52814563021"])
        #expect(try cli.run("search", "-belem").code == 64)
        #expect(ids(try cli.run("search", "title:torre", "--json")) == [])
        #expect(ids(try cli.run("search", "(belem) \"torre\"", "--json")) == ["52814563021"])
        #expect(try cli.run("check").code == 0)
    }

    @Test("text without words is a usage error (64) that says so, with nothing on standard output")
    func noWords() throws {
        let cli = try sample()
        let cases: [([String], String)] = [
            ([""], "Error: Cannot search for \"\": the search text is empty: give the words to look for\n"),
            (["   "], "Error: Cannot search for \"   \": the search text is empty: give the words to look for\n"),
            (["*"], "Error: Cannot search for \"*\": the search text has no words to look for (only letters and digits are searched)\n"),
            (["!!", "?"], "Error: Cannot search for \"!! ?\": the search text has no words to look for (only letters and digits are searched)\n"),
            (["🏖☀️"], "Error: Cannot search for \"🏖☀️\": the search text has no words to look for (only letters and digits are searched)\n"),
        ]
        for (words, message) in cases {
            let result = try cli.run(["search"] + words)
            #expect(result.code == 64, "\(words)")
            #expect(result.output == "", "\(words)")
            #expect(result.errors == message + "Give one or more words; word* matches every word that starts with word.\n", "\(words)")
        }
        #expect(try cli.run("search").code == 64)
        #expect(try cli.run("search", "belem", "--limit", "-1").code == 64)
        let unknown = try cli.run("--vacation", "Nowhere", "search", "belem")
        #expect(unknown.code == 66)
        #expect(unknown.errors.hasPrefix("Error: No such vacation \"Nowhere\""))
    }

    /// Runs SQL on a vacation's store with the `sqlite3` shell, as a person might.
    private func shell(_ cli: CLIRunner, _ sql: String) throws {
        let store = cli.directory.path("library", "My Vacation.vacation", "StoreContent", "persistentStore").path
        let shell = "/usr/bin/sqlite3"
        try #require(FileManager.default.isExecutableFile(atPath: shell), "Debian's sqlite3 shell is needed (.ci/run installs it)")
        let errors = cli.directory.path("sqlite3-errors.txt")
        let process = try Spawn.start(shell, [store, sql], output: .null, errors: .file(errors))
        #expect(process.wait() == .exited(0), "\((try? String(contentsOf: errors, encoding: .utf8)) ?? "")")
    }

    @Test("the sqlite3 shell writes a vacation and the index follows: search finds the new state and check passes")
    func sqliteShellWrites() throws {
        let cli = try sample()
        try shell(cli, """
            UPDATE ZPLACE SET ZNAME = 'Lisboa, Portugal' WHERE ZNAME = 'Lisbon, Lisbon, Portugal';
            INSERT INTO ZPHOTO (Z_PK, Z_ENT, Z_OPT, ZUNIQUE, ZTITLE, ZOWNER, ZPLACE)
                VALUES (1000, 2, 1, '999', 'Zebra crossing', 'Zé', (SELECT Z_PK FROM ZPLACE WHERE ZNAME = 'Lisboa, Portugal'));
            UPDATE Z_PRIMARYKEY SET Z_MAX = 1000 WHERE Z_NAME = 'Photo';
            INSERT INTO Z_2TAGS (Z_2PHOTOS, Z_4TAGS) VALUES (1000, (SELECT Z_PK FROM ZTAG WHERE ZNAME = 'food'));
            UPDATE ZTAG SET ZCOUNT = ZCOUNT + 1 WHERE ZNAME = 'food';
            UPDATE ZPHOTO SET ZTITLE = 'Torre nova' WHERE ZUNIQUE = '52814563021';
            DELETE FROM Z_2TAGS WHERE Z_2PHOTOS = (SELECT Z_PK FROM ZPHOTO WHERE ZUNIQUE = '52814571233')
                AND Z_4TAGS = (SELECT Z_PK FROM ZTAG WHERE ZNAME = 'belém');
            UPDATE ZTAG SET ZCOUNT = ZCOUNT - 1 WHERE ZNAME = 'belém';
            """)
        #expect(ids(try cli.run("search", "lisboa", "--json")).count == 8)
        #expect(ids(try cli.run("search", "lisbon", "--json")).contains("999") == false)
        #expect(ids(try cli.run("search", "zebra food ze", "--json")) == ["999"])
        #expect(ids(try cli.run("search", "torre nova", "--json")) == ["52814563021"])
        // Pastéis lost its tag but keeps "Belém" in its title; Torre's title no longer has it.
        #expect(ids(try cli.run("search", "belem", "--json")) == ["52814571233", "52814563021"])
        #expect(ids(try cli.run("search", "belem pastry", "--json")) == ["52814571233"])
        #expect(try cli.run("check").output == "Vacation \"My Vacation\" is sound: no problems found.\n")
        try shell(cli, """
            DELETE FROM Z_2TAGS WHERE Z_2PHOTOS = 1000;
            UPDATE ZTAG SET ZCOUNT = ZCOUNT - 1 WHERE ZNAME = 'food';
            DELETE FROM ZPHOTO WHERE Z_PK = 1000;
            """)
        #expect(ids(try cli.run("search", "zebra", "--json")) == [])
        #expect(try cli.run("check").code == 0)
        // Text written into the index itself is drift, which check reports.
        try shell(cli, "UPDATE FTS_ZPHOTO_SEARCH SET title = 'hacked' WHERE title = 'Torre nova'")
        let check = try cli.run("check")
        #expect(check.code == 1)
        #expect(check.output == """
            Vacation "My Vacation" has 1 problem:
              1 photo has stale text in the search index: 52814563021

            """)
    }

    @Test("a vacation whose index was dropped gets it back on its next command, reading ones included")
    func droppedIndex() throws {
        let cli = try sample()
        try shell(cli, "DROP TABLE FTS_ZPHOTO_SEARCH")
        #expect(ids(try cli.run("search", "belem", "--json")) == ["52814571233", "52814563021"])
        try shell(cli, "DROP TRIGGER FTS_ZPHOTO_SEARCH_UPDATE; UPDATE ZPHOTO SET ZTITLE = 'Lighthouse' WHERE ZUNIQUE = '52814563021'")
        #expect(try cli.run("check").code == 0)
        #expect(ids(try cli.run("search", "lighthouse", "--json")).contains("52814563021"))
    }
}
