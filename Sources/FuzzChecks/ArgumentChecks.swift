import CommandLineKit
import Foundation
import VacationCLI

/// The arguments target's check: the first byte is the screen width for help text, the rest is
/// the command line, arguments separated by NUL bytes. The parser always answers with a command,
/// help, the version or a one-line usage error (exit code 64), and what it hands the commands
/// can be used as it is (a `--wait` that makes a `Duration`).
enum ArgumentChecks {
    static func check(_ data: Data) throws(FuzzFinding) {
        let width = Int(data.first ?? 80)
        let argv = data.dropFirst().split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        let arguments = data.count <= 1 ? [] : argv
        switch VacationCommandLine.parse(arguments, screenWidth: width) {
        case .success(.run(let invocation)):
            let wait = invocation.globals.waitSeconds
            guard wait.isFinite, wait >= 0 else {
                throw FuzzFinding(.arguments, "\(arguments) gives --wait \(wait)")
            }
            _ = invocation.globals.waitDuration
        case .success(.help(_, let text)):
            guard text.hasPrefix("OVERVIEW: ") else {
                throw FuzzFinding(.arguments, "\(arguments) gives help that does not start with OVERVIEW: \(text.prefix(80).debugDescription)")
            }
        case .success(.version(let version)):
            guard !version.isEmpty, !version.contains("\n") else {
                throw FuzzFinding(.arguments, "\(arguments) gives the version \(version.debugDescription)")
            }
        case .failure(let error):
            let text = error.description
            guard text.hasPrefix("Error: "), error.exitCode == 64 else {
                throw FuzzFinding(.arguments, "\(arguments) gives the usage error \(text.debugDescription) with exit code \(error.exitCode)")
            }
        }
    }
}
