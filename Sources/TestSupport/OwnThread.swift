import Foundation

/// Runs blocking work — a child process, a socket, a sleep — on a thread of its own and awaits
/// it, so that it holds none of Swift concurrency's cooperative threads (as many as cores: two
/// blocked tests can stall every other async test of the run).
///
/// ```swift
/// let result = try await onOwnThread { try ProductProcess.run("vacation", ["list"]) }
/// ```
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.start()
    }
}
