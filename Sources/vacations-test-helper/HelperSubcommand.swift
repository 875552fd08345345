import Foundation

/// One thing the helper can do: a name, a usage line, and the code, run on the main actor.
struct HelperSubcommand: Sendable {
    var name: String
    var usage: String
    var run: @MainActor @Sendable (HelperArguments) async throws -> Int32

    /// Every subcommand; the first word on the command line chooses one.
    static let all: [HelperSubcommand] = DocumentSubcommands.all + StoreSubcommands.all + VacationSubcommands.all
        + ConnectionSubcommands.all
}

/// A subcommand's arguments: positionals, and `--name value` options.
struct HelperArguments: Sendable {
    var positionals: [String] = []
    var options: [String: String] = [:]

    init(_ words: [String]) {
        var index = 0
        while index < words.count {
            let word = words[index]
            if word.hasPrefix("--") {
                let value = index + 1 < words.count && !words[index + 1].hasPrefix("--") ? words[index + 1] : ""
                options[String(word.dropFirst(2))] = value
                index += value.isEmpty ? 1 : 2
            } else {
                positionals.append(word)
                index += 1
            }
        }
    }

    func positional(_ index: Int, _ what: String) throws -> String {
        guard index < positionals.count else { throw HelperUsageError(message: "missing \(what)") }
        return positionals[index]
    }

    func number(_ option: String, default value: Double) throws -> Double {
        guard let text = options[option] else { return value }
        guard let number = Double(text) else { throw HelperUsageError(message: "--\(option) takes a number, not \(text)") }
        return number
    }

    func has(_ option: String) -> Bool { options[option] != nil }
}

struct HelperUsageError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Unbuffered line output: tests wait for lines while the helper runs.
enum HelperOutput {
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
