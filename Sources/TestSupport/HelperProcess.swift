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
    // The child and the pipe ends are set up in init and only read afterwards; output goes
    // through the mutexes.
    private let child: Spawn
    private let inputWriter: Int32
    private let inputClosed = Mutex(false)
    private let shared = Shared()

    public typealias Termination = Spawn.Termination

    public convenience init(_ arguments: String...) throws {
        try self.init(arguments: arguments)
    }

    public init(arguments: [String]) throws {
        var input: [Int32] = [0, 0], output: [Int32] = [0, 0], errors: [Int32] = [0, 0]
        // Close-on-exec, so that no other child (a later helper) inherits these pipes and keeps them
        // open; the child's own streams are duplicated onto 0, 1 and 2, which clears the flag.
        // (Spawn's lock keeps other threads from starting a process between pipe and fcntl.)
        child = try Spawn.whileStarting {
            guard pipe(&input) == 0, pipe(&output) == 0, pipe(&errors) == 0 else { throw HelperFailure("no pipes: \(errno)") }
            for descriptor in input + output + errors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
            return try Spawn.startLocked(try Self.executableURL().path, arguments, input: .descriptor(input[0]),
                                         output: .descriptor(output[1]), errors: .descriptor(errors[1]))
        }
        close(input[0])
        close(output[1])
        close(errors[1])
        inputWriter = input[1]
        let outputReader = output[0], errorReader = errors[0]
        startThread { [shared] in
            var pending = ""
            Self.drain(outputReader) { chunk in
                pending += chunk
                while let newline = pending.firstIndex(of: "\n") {
                    let line = String(pending[..<newline])
                    pending = String(pending[pending.index(after: newline)...])
                    shared.lines.withLock { $0.append(line) }
                }
            }
            close(outputReader)
        }
        startThread { [shared] in
            Self.drain(errorReader) { chunk in shared.errorText.withLock { $0 += chunk } }
            close(errorReader)
        }
    }

    /// Reads a descriptor to its end with plain `read(2)`.
    private static func drain(_ descriptor: Int32, _ body: (String) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return }
            body(String(decoding: buffer[0..<count], as: UTF8.self))
        }
    }

    deinit {
        if child.isRunning {
            child.send(SIGKILL)
            child.wait()
        }
        closeInput()
    }

    public var outputLines: [String] { shared.lines.withLock { $0 } }
    public var standardError: String { shared.errorText.withLock { $0 } }

    /// What the reader threads fill in.
    private final class Shared: Sendable {
        let lines = Mutex<[String]>([])
        let errorText = Mutex<String>("")
    }

    /// Waits for an output line that starts with `prefix`, and returns it.
    @discardableResult
    public func waitForLine(_ prefix: String, timeout: Duration = .seconds(60)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = outputLines.first(where: { $0.hasPrefix(prefix) }) { return line }
            if !child.isRunning {
                try await Task.sleep(for: .milliseconds(50))   // let the reader catch up
                if let line = outputLines.first(where: { $0.hasPrefix(prefix) }) { return line }
                throw HelperFailure("helper exited without saying \"\(prefix)\"; output \(outputLines), errors \(standardError)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        // A waiter that could not run for a while (every shared thread busy) looks once more
        // before it says the line never came.
        if let line = outputLines.first(where: { $0.hasPrefix(prefix) }) { return line }
        throw HelperFailure("no \"\(prefix)\" from the helper within \(timeout); output \(outputLines), errors \(standardError)")
    }

    public func send(_ signal: Int32) { child.send(signal) }

    /// Writes a line to the helper's standard input.
    public func write(line: String) {
        var bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeMutableBytes { Foundation.write(inputWriter, $0.baseAddress, $0.count) }
    }

    public func closeInput() {
        inputClosed.withLock { closed in
            if !closed { close(inputWriter) }
            closed = true
        }
    }

    /// Waits for the process to end and says how.
    public func waitForExit(timeout: Duration = .seconds(60)) async throws -> Termination {
        let deadline = ContinuousClock.now + timeout
        while child.isRunning {
            guard ContinuousClock.now < deadline else { throw HelperFailure("the helper is still running after \(timeout)") }
            try await Task.sleep(for: .milliseconds(5))
        }
        return child.wait()
    }

    /// The helper binary, next to the test bundle in the build products folder.
    public static func executableURL() throws -> URL {
        try ProductProcess.url(of: "vacations-test-helper")
    }
}

public struct HelperFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
