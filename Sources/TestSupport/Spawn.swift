import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Starts processes with `posix_spawn` and waits for them with `waitpid`.
///
/// Foundation's `Process` watches children from a run-loop thread whose teardown crashes under
/// ThreadSanitizer on Linux (`__CFFinalizeRunLoop` allocating after TSan's per-thread cache is
/// gone), so the tests start processes without it.
///
/// ```swift
/// let child = try Spawn.start("/bin/echo", ["hi"], output: .file(url))
/// let status = child.wait()
/// ```
public final class Spawn: @unchecked Sendable {
    // `pid` is set once; `exit` is written by `wait` under the lock.
    public let pid: pid_t
    private let lock = NSLock()
    private var exit: Termination?

    /// How a process ended.
    public enum Termination: Equatable, Sendable {
        case exited(Int32)
        case signalled(Int32)
    }

    /// Where a standard stream goes.
    public enum Stream {
        case inherit
        case null
        case file(URL)
        /// A file descriptor the caller owns (a pipe end); it is duplicated into the child.
        case descriptor(Int32)
    }

    private init(pid: pid_t) { self.pid = pid }

    /// Held while a process starts, so that descriptors being made close-on-exec by another
    /// thread are never inherited half-way.
    private static let startLock = NSLock()

    /// Runs `body` (which makes descriptors and starts a process with `startLocked`) under the
    /// start lock.
    public static func whileStarting<T>(_ body: () throws -> T) rethrows -> T {
        startLock.lock()
        defer { startLock.unlock() }
        return try body()
    }

    /// Starts `path` with `arguments` (not including the program name) and `environment`.
    public static func start(_ path: String, _ arguments: [String], environment: [String: String]? = nil,
                             input: Stream = .null, output: Stream = .inherit, errors: Stream = .inherit,
                             closing: [Int32] = []) throws -> Spawn {
        try whileStarting {
            try startLocked(path, arguments, environment: environment, input: input, output: output, errors: errors, closing: closing)
        }
    }

    /// `start`, for callers already inside `whileStarting`.
    public static func startLocked(_ path: String, _ arguments: [String], environment: [String: String]? = nil,
                                   input: Stream = .null, output: Stream = .inherit, errors: Stream = .inherit,
                                   closing: [Int32] = []) throws -> Spawn {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (stream, target, flags) in [(input, Int32(0), O_RDONLY), (output, 1, O_WRONLY | O_CREAT | O_TRUNC), (errors, 2, O_WRONLY | O_CREAT | O_TRUNC)] {
            switch stream {
            case .inherit: break
            case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", flags, 0o644)
            case .file(let url): posix_spawn_file_actions_addopen(&actions, target, url.path, flags, 0o644)
            case .descriptor(let descriptor): posix_spawn_file_actions_adddup2(&actions, descriptor, target)
            }
        }
        for descriptor in closing { posix_spawn_file_actions_addclose(&actions, descriptor) }
        var variables = environment ?? ProcessInfo.processInfo.environment
        variables["SWIFT_BACKTRACE"] = variables["SWIFT_BACKTRACE"] ?? "enable=no"
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard code == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: path, NSLocalizedDescriptionKey: String(cString: strerror(code))])
        }
        return Spawn(pid: pid)
    }

    /// Waits for the process to end (once; later calls return the same answer).
    @discardableResult
    public func wait() -> Termination {
        lock.lock()
        defer { lock.unlock() }
        if let exit { return exit }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WTERMSIG, which Swift does not import as functions.
        let signal = status & 0x7F
        let result: Termination = signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
        exit = result
        return result
    }

    /// The termination if the process has ended, without blocking.
    public func poll() -> Termination? {
        lock.lock()
        defer { lock.unlock() }
        if let exit { return exit }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        let signal = status & 0x7F
        let result: Termination = signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
        exit = result
        return result
    }

    public var isRunning: Bool { poll() == nil }

    public func send(_ signal: Int32) { kill(pid, signal) }
}

/// Runs `body` on a new POSIX thread of its own: for readers that block in `read(2)`, which
/// would starve Dispatch's small pool of worker threads, and which must not touch Foundation's
/// run loops (see `Spawn`).
public func startThread(_ body: @escaping @Sendable () -> Void) {
    final class Box: @unchecked Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let code = pthread_create(&thread, nil, { context in
        guard let context else { return nil }
        let box = Unmanaged<Box>.fromOpaque(context).takeRetainedValue()
        box.body()
        return nil
    }, box)
    if code == 0 {
        pthread_detach(thread)
    } else {
        Unmanaged<Box>.fromOpaque(box).release()
        body()
    }
}
