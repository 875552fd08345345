import CommandLineKit
import Foundation
import VacationCLI

// Wires the process's arguments, streams and terminal to the CLI, then exits with its code.
let code = VacationCLI.run(Array(CommandLine.arguments.dropFirst()), environment: .process())
exit(code)
