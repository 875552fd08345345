#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value that threads share, behind a `pthread_mutex_t`: `Synchronization.Mutex` with a lock
/// that ThreadSanitizer understands.
///
/// On Linux, this toolchain's ThreadSanitizer does not model `Mutex`: four threads changing a
/// dictionary inside `Mutex.withLock`, race-free by construction, draw "data race" reports under
/// contention, so a real race would read like the false ones. ThreadSanitizer intercepts
/// `pthread_mutex_lock`: the same program behind `Locked` draws none, and a report is a real race.
///
/// ```swift
/// let counts = Locked<[String: Int]>([:])
/// counts.withLock { $0["sea", default: 0] += 1 }
/// let sea = counts.withLock { $0["sea"] }   // Optional(1)
/// ```
public final class Locked<Value: ~Copyable>: @unchecked Sendable {
    // The mutex lives at a fixed address of its own: a pthread mutex must not move once in use.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Only ever touched between lock and unlock, which is what makes the class Sendable.
    @usableFromInline var value: Value

    /// A lock around `initialValue`.
    public init(_ initialValue: consuming sending Value) {
        value = initialValue
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        // With default attributes this cannot fail (POSIX allows only resource errors, which
        // glibc never reports for a plain mutex).
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock; `body` may change it.
    ///
    /// Not re-entrant: calling `withLock` on the same instance from inside `body` deadlocks, as
    /// with `Mutex`.
    ///
    /// - Throws: what `body` throws (the lock is released first).
    @inlinable
    public func withLock<Result: ~Copyable, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Runs `body` as `withLock` does when the lock is free now; nil at once when another
    /// thread holds it.
    @inlinable
    public func withLockIfAvailable<Result: ~Copyable, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return .some(try body(&value))
    }
}
