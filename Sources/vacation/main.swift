import CommandLineKit
import Foundation
// Imported here so that this file, compiled against the static Swift modules (Package.swift),
// names every archive `fetch` needs for the linker: FoundationNetworking's own libraries.
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import VacationCLI

// Wires the process's arguments, streams and terminal to the CLI, then exits with its code
// (closing the connections a read kept for the exit).
let code = VacationCLI.run(Array(CommandLine.arguments.dropFirst()), environment: .process())
VacationCLI.exitProcess(code)
