@testable import Documents
import Foundation
import Testing

/// A refused name and why; shown escaped in test output (some hold NUL or 201 bytes).
struct HostileName: Sendable, CustomTestStringConvertible {
    var name: String
    var reason: String
    init(_ name: String, _ reason: String) {
        self.name = name
        self.reason = reason
    }
    var testDescription: String { quoted(name) }
}

@Suite("Document names")
struct DocumentNameTests {
    static let hostileNames: [HostileName] = [
        HostileName("", "a name cannot be empty"),
        HostileName(".hidden", "a name cannot start with \".\""),
        HostileName(".", "a name cannot start with \".\""),
        HostileName("..", "a name cannot start with \".\""),
        HostileName("../x", "a name cannot start with \".\""),
        HostileName("a/b", "a name cannot contain \"/\""),
        HostileName("/etc/passwd", "a name cannot contain \"/\""),
        HostileName("a\u{0}b", "a name cannot contain NUL"),
        HostileName(String(repeating: "a", count: 201), "a name can take at most 200 bytes in UTF-8; this one takes 201"),
        HostileName(String(repeating: "é", count: 100) + "a", "a name can take at most 200 bytes in UTF-8; this one takes 201"),
    ]

    @Test("hostile names are refused with the reason", arguments: hostileNames)
    func hostileNamesAreRefused(hostile: HostileName) {
        #expect(throws: DocumentError(.invalidName(reason: hostile.reason), .document(hostile.name))) {
            try DocumentName(hostile.name)
        }
    }

    @Test("names up to 200 bytes are kept as typed, in NFC")
    func acceptableNamesAreKept() throws {
        for name in ["My Vacation", "Café", "東京 2024", "a.b", "trailing dot.", "👩‍👩‍👧 trip", String(repeating: "a", count: 200),
                     String(repeating: "é", count: 100)] {
            #expect(try DocumentName(name).rawValue == name.precomposedStringWithCanonicalMapping)
        }
    }

    @Test("NFD input is stored as NFC, and counted after normalising")
    func decomposedInputIsNormalised() throws {
        let decomposed = "Cafe\u{301}"
        #expect(Array(try DocumentName(decomposed).rawValue.utf8) == Array("Caf\u{E9}".utf8))
        // 100 × "e + combining acute" is 300 bytes in NFD but 200 in NFC: accepted.
        let long = String(repeating: "e\u{301}", count: 100)
        #expect(try DocumentName(long).rawValue.utf8.count == 200)
    }

    @Test("error descriptions are one line that names the document")
    func descriptionsAreOneLine() {
        let cases: [(DocumentError, String)] = [
            (DocumentError(.invalidName(reason: "a name cannot contain NUL"), .document("a\u{0}b")),
             "Invalid name \"a\\u{0}b\": a name cannot contain NUL"),
            (DocumentError(.notFound, .document("Paris")), "Document \"Paris\" does not exist"),
            (DocumentError(.alreadyExists, .document("Paris")), "Document \"Paris\" already exists"),
            (DocumentError(.busy(waited: .seconds(10)), .document("Paris")),
             "Document \"Paris\" is busy: another process is writing to it (waited 10 s)"),
            (DocumentError(.busy(waited: .milliseconds(250)), .document("Paris")),
             "Document \"Paris\" is busy: another process is writing to it (waited 0.25 s)"),
            (DocumentError(.locked, .document("Paris")), "Document \"Paris\" is open in this process; close it first"),
            (DocumentError(.notFound, .backup("2024-05-01T12-30-05Z")), "Backup \"2024-05-01T12-30-05Z\" does not exist"),
            (DocumentError(.ambiguous(candidates: ["A", "B"]), .backup("x")),
             "Backup \"x\" exists for several documents (A, B); name the document"),
            (DocumentError(.io(operation: "remove", detail: "Permission denied"), .path("/x/y")),
             "Cannot remove /x/y: Permission denied"),
        ]
        for (error, text) in cases {
            #expect(error.description == text)
            #expect(!error.description.contains("\n"))
        }
        let long = DocumentError(.notFound, .document(String(repeating: "x", count: 200) + "\nmore"))
        #expect(long.description == "Document \"" + String(repeating: "x", count: 77) + "…\" does not exist")
    }
}

@Suite("Library location")
struct LibraryLocationTests {
    @Test("--library wins over everything, relative to the current folder")
    func optionWins() {
        let environment = ["VACATION_LIBRARY": "/env/lib", "XDG_DATA_HOME": "/xdg", "HOME": "/home/ana"]
        #expect(DocumentLibrary.location(option: "/opt/lib", environment: environment).path == "/opt/lib")
        #expect(DocumentLibrary.location(option: "lib", environment: environment, currentDirectory: "/work").path == "/work/lib")
        #expect(DocumentLibrary.location(option: "../lib", environment: environment, currentDirectory: "/work/a").path == "/work/lib")
        #expect(DocumentLibrary.location(option: "~/lib", environment: environment).path == "/home/ana/lib")
    }

    @Test("then $VACATION_LIBRARY, then $XDG_DATA_HOME/vacation, then ~/.local/share/vacation")
    func environmentOrder() {
        #expect(DocumentLibrary.location(option: nil, environment: ["VACATION_LIBRARY": "/env/lib", "XDG_DATA_HOME": "/xdg", "HOME": "/h"])
            .path == "/env/lib")
        #expect(DocumentLibrary.location(option: nil, environment: ["XDG_DATA_HOME": "/xdg", "HOME": "/h"]).path == "/xdg/vacation")
        #expect(DocumentLibrary.location(option: nil, environment: ["HOME": "/h"]).path == "/h/.local/share/vacation")
    }

    @Test("empty values count as unset, and a relative XDG_DATA_HOME is ignored")
    func emptyAndRelativeValues() {
        let environment = ["VACATION_LIBRARY": "", "XDG_DATA_HOME": "relative/data", "HOME": "/h"]
        #expect(DocumentLibrary.location(option: "", environment: environment).path == "/h/.local/share/vacation")
        #expect(DocumentLibrary.location(option: nil, environment: ["XDG_DATA_HOME": "", "HOME": "/h"]).path == "/h/.local/share/vacation")
    }

    @Test("the variable and folder names are parameters")
    func namesAreParameters() {
        let environment = ["PHOTOS_LIBRARY": "/p", "XDG_DATA_HOME": "/xdg"]
        #expect(DocumentLibrary.location(option: nil, environment: environment, variable: "PHOTOS_LIBRARY").path == "/p")
        #expect(DocumentLibrary.location(option: nil, environment: ["XDG_DATA_HOME": "/xdg"], folderName: "photos").path == "/xdg/photos")
    }
}
