import CommandLineKit
import Foundation
import Testing
import TestSupport
@testable import VacationCLI

@MainActor
@Suite("places: the same text and JSON since its counts come from one aggregate query")
struct PlacesOutputTests {
    @Test("places as text is the table it was when every place's photos were loaded to be counted")
    func text() throws {
        let cli = try CLIRunner()
        _ = try cli.run(SampleFiles.importAll)
        let result = try cli.run("places")
        #expect(result.code == 0)
        #expect(result.errors == "")
        #expect(result.output == """
            PLACE                               PHOTOS  FIRST VISITED
            Lisbon, Lisbon, Portugal                 7  2023-04-01 10:15
            Sintra, Lisbon, Portugal                 2  2023-04-04 11:40
            Porto, Porto, Portugal                   6  2023-04-06 18:44
            Reykjavík, Capital Region, Iceland       5  2023-08-10 09:41
            Southern Region, Iceland                 3  2023-08-12 10:33
            Kyoto, Kyoto Prefecture, Japan          10  2023-11-03 07:12
            New York, NY, United States              7  2024-03-15 06:48

            """)
    }

    @Test("places --json keeps its keys, order and values; an empty vacation prints nothing, or []")
    func json() throws {
        let cli = try CLIRunner()
        #expect(try cli.run("places").output == "")
        #expect(try cli.run("places", "--json").output == "[]\n")
        _ = try cli.run(SampleFiles.importAll)
        let places = try cli.run("places", "--json").array
        #expect(places.allSatisfy { Set($0.keys) == ["name", "photos", "firstVisited"] })
        #expect(places.map { $0["photos"] as? Int } == [7, 2, 6, 5, 3, 10, 7])
        #expect(places.map { $0["firstVisited"] as? String } == [
            "2023-04-01T10:15:00Z", "2023-04-04T11:40:18Z", "2023-04-06T18:44:10Z", "2023-08-10T09:41:27Z",
            "2023-08-12T10:33:50Z", "2023-11-03T07:12:44Z", "2024-03-15T06:48:21Z",
        ])
    }
}
