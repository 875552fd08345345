import Foundation
import Synchronization

/// A `vacations-test-helper` process: started with arguments, its output read line by line on a
/// thread of its own (so that it never blocks on a full pipe), signalled, waited for.
///
/// ```swift
/// let holder = try HelperProcess("hold", library.root, "Paris")
/// try await holder.waitForLine("holding")
/// holder.send(SIGKILL)
/// ```
public final class HelperProcess: @unchecked Sendable {
    // `process` and the pipes are set up in init and only read afterwards; output goes
    // through the mutex.
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()
    private let lines = Mutex<[String]>([])
    private let errorText = Mutex<String>("")

    public enum Termination: Equatable, Sendable {
        case exited(Int32)
        case signalled(Int32)
    }

    public convenience init(_ arguments: String...) throws {
        try self.init(arguments: arguments)
    }

    public init(arguments: [String]) throws {
        process.executableURL = try Self.executableURL()
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outputHandle = output.fileHandleForReading
        let errorHandle = errors.fileHandleForReading
        Thread.detachNewThread { [self] in
            var pending = ""
            while case let data = outputHandle.availableData, !data.isEmpty {
                pending += String(decoding: data, as: UTF8.self)
                while let newline = pending.firstIndex(of: "\n") {
                    let line = String(pending[..<newline])
                    pending = String(pending[pending.index(after: newline)...])
                    lines.withLock { $0.append(line) }
                }
            }
        }
        Thread.detachNewThread { [self] in
            while case let data = errorHandle.availableData, !data.isEmpty {
                errorText.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
        }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    public var outputLines: [String] { lines.withLock { $0 } }
    public var standardError: String { errorText.withLock { $0 } }

    /// Waits for an output line that starts with `prefix`, and returns it.
    @discardableResult
    public func waitForLine(_ prefix: String, timeout: Duration = .seconds(60)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = outputLines.first(where: { $0.hasPrefix(prefix) }) { return line }
            if !process.isRunning, outputLines.first(where: { $0.hasPrefix(prefix) }) == nil {
                try await Task.sleep(for: .milliseconds(50))   // let the reader catch up
                if let line = outputLines.first(where: { $0.hasPrefix(prefix) }) { return line }
                throw HelperFailure("helper exited without saying \"\(prefix)\"; output \(outputLines), errors \(standardError)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw HelperFailure("no \"\(prefix)\" from the helper within \(timeout); output \(outputLines), errors \(standardError)")
    }

    public func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Writes a line to the helper's standard input.
    public func write(line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    public func closeInput() { try? input.fileHandleForWriting.close() }

    /// Waits for the process to end and says how.
    public func waitForExit(timeout: Duration = .seconds(60)) async throws -> Termination {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else { throw HelperFailure("the helper is still running after \(timeout)") }
            try await Task.sleep(for: .milliseconds(5))
        }
        return process.terminationReason == .uncaughtSignal ? .signalled(process.terminationStatus) : .exited(process.terminationStatus)
    }

    /// The helper binary, next to the test bundle in the build products folder.
    public static func executableURL() throws -> URL {
        let name = "vacations-test-helper"
        var folders = [Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        folders += folders.map { $0.deletingLastPathComponent() }
        for folder in folders {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw HelperFailure("\(name) not found near \(folders.map(\.path))")
    }
}

public struct HelperFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
