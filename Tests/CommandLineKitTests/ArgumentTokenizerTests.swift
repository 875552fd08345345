import Testing
import CommandLineKit

@Suite("Tokenizer")
struct ArgumentTokenizerTests {
    func kinds(_ arguments: [String]) -> [ArgumentToken.Kind] {
        ArgumentTokenizer.tokenize(arguments).map(\.kind)
    }

    @Test("splits --opt=value at the first equals sign only")
    func longOptionWithAttachedValue() {
        #expect(kinds(["--limit=5"]) == [.longOption(name: "--limit", attachedValue: "5")])
        #expect(kinds(["--where=a=b"]) == [.longOption(name: "--where", attachedValue: "a=b")])
        #expect(kinds(["--place="]) == [.longOption(name: "--place", attachedValue: "")])
    }

    @Test("keeps --opt and its value as two tokens")
    func longOptionThenValue() {
        #expect(kinds(["--limit", "5"]) == [.longOption(name: "--limit", attachedValue: nil), .value("5")])
    }

    @Test("reads -abc as combined short options")
    func combinedShortOptions() {
        #expect(kinds(["-h"]) == [.shortOptions(["h"])])
        #expect(kinds(["-vfh"]) == [.shortOptions(["v", "f", "h"])])
    }

    @Test("treats a lone dash as a value meaning standard input")
    func loneDash() {
        #expect(kinds(["-"]) == [.value("-")])
    }

    @Test("ends options at --, after which everything is a positional value")
    func terminator() {
        let tokens = ArgumentTokenizer.tokenize(["a", "--", "--force", "-h", "--", "-"])
        #expect(tokens.map(\.kind) == [.value("a"), .terminator, .value("--force"), .value("-h"), .value("--"), .value("-")])
        #expect(tokens.map(\.isAfterTerminator) == [false, false, true, true, true, true])
        #expect(tokens.map(\.index) == [0, 1, 2, 3, 4, 5])
    }

    @Test("reads negative numbers as values, not options")
    func negativeNumbers() {
        for number in ["-5", "-1.5", "-.5", "-0", "-2e3", "-2E-3", "-12345678901234567890"] {
            #expect(kinds([number]) == [.value(number)], "\(number)")
        }
        for notNumber in ["-e", "-5x", "-1.2.3", "-2e", "-e5", "-.", "-1-2"] {
            #expect(kinds([notNumber]) == [.shortOptions(Array(notNumber.dropFirst()))], "\(notNumber)")
        }
    }

    @Test("keeps the empty string as a value")
    func emptyString() {
        #expect(kinds([""]) == [.value("")])
        #expect(kinds(["--vacation", ""]) == [.longOption(name: "--vacation", attachedValue: nil), .value("")])
    }

    @Test("keeps unicode words and values intact")
    func unicode() {
        #expect(kinds(["東京"]) == [.value("東京")])
        #expect(kinds(["--vacation=Café 🏖️"]) == [.longOption(name: "--vacation", attachedValue: "Café 🏖️")])
        #expect(kinds(["-é"]) == [.shortOptions(["é"])])
        #expect(kinds(["👨‍👩‍👧"]) == [.value("👨‍👩‍👧")])
    }

    @Test("reads dash runs as long options that no command declares")
    func oddDashes() {
        #expect(kinds(["---x"]) == [.longOption(name: "---x", attachedValue: nil)])
        #expect(kinds(["--=x"]) == [.longOption(name: "--", attachedValue: "x")])
    }

    @Test("keeps the original text and position of each word")
    func originals() {
        let tokens = ArgumentTokenizer.tokenize(["--a=b", "-c", "d"])
        #expect(tokens.map(\.original) == ["--a=b", "-c", "d"])
        #expect(tokens.map(\.index) == [0, 1, 2])
    }
}
