import Foundation

/// Runs `body` on a POSIX thread of its own and waits for its result without holding one of
/// Swift concurrency's few threads: a test that computes for seconds (dumping a large store)
/// then leaves other tests' clocks running — helper processes' deadlines among them — even on
/// a machine with two cores.
///
/// ```swift
/// let output = try await onOwnThread { try expensiveDump() }
/// ```
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        startThread { continuation.resume(with: Result { try body() }) }
    }
}
