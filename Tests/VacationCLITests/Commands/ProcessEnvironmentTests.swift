import Foundation
import Testing
@testable import VacationCLI

/// The CLI reads its environment from `environ` rather than `ProcessInfo` (issue 22, session
/// 29): the same dictionary, whatever the entries hold.
@Suite("The process environment")
struct ProcessEnvironmentTests {
    @Test("the environment read from environ is ProcessInfo's, non-ASCII and odd entries included")
    func sameAsProcessInfo() {
        // Names of this test's own; nothing else reads them.
        let entries = ["VACATIONS_TEST_ENV_PLAIN": "value=with=equals", "VACATIONS_TEST_ENV_CAFE\u{301}": "Caf\u{E9}",
                       "VACATIONS_TEST_ENV_EMPTY": "", "VACATIONS_TEST_ENV_MARK": "\u{301}=x"]
        for (name, value) in entries { setenv(name, value, 1) }
        defer { for name in entries.keys { unsetenv(name) } }
        let variables = CLIEnvironment.processVariables()
        #expect(variables == ProcessInfo.processInfo.environment)
        for (name, value) in entries where name != "VACATIONS_TEST_ENV_MARK" { #expect(variables[name] == value, "\(name)") }
        // As Foundation splits it: "=" with a combining mark after it is not a character "=", so
        // the entry splits at the next "=".
        #expect(variables["VACATIONS_TEST_ENV_MARK=\u{301}"] == "x")
        #expect(variables["VACATIONS_TEST_ENV_MARK"] == nil)
    }
}
