#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The one thread that polls every observing coordinator's store, each at its own interval
/// (ARCHITECTURE.md §9).
///
/// A thread per observing coordinator cost every open of a document that keeps history a
/// thread's creation, its stack and its exit, even when the document was closed before anything
/// could change (`open-first-page`, README.md "Performance"). This thread is started by the
/// first watcher of the process and then serves them all: a watcher joins and leaves a table,
/// and the thread sleeps until the earliest watcher is due. With none, it keeps its 25 ms tick
/// for `lingerNanoseconds` before it waits for one to join: a document opened again within that
/// time (an app going from one vacation to the next, a viewer reopening) joins without waking
/// the thread, whose wake-up would cost the opening thread a futex call and, on a busy machine,
/// its turn on the processor.
/// A poll never waits for a store that is busy (a save, a transaction): that store is looked at
/// again at its next tick, so one busy store does not hold back the others.
final class ChangeWatchLoop: @unchecked Sendable {
    static let shared = ChangeWatchLoop()
    /// The thread's name as tools show it (Linux keeps 15 bytes of a thread's name).
    static let threadName = "change-watcher"

    private struct Entry {
        let watcher: ChangeWatcher
        /// When the watcher is next polled, in nanoseconds of the monotonic clock.
        var due: UInt64
    }

    // Everything below is touched only with `mutex` held: that is what makes the class Sendable.
    private var entries: [ObjectIdentifier: Entry] = [:]
    private var isThreadStarted = false
    /// When the thread wakes next by itself; nil while it waits for a watcher to join.
    private var wakeTime: UInt64?
    /// Since when no watcher has been in the table; nil while there is one.
    private var idleSince: UInt64?
    /// How long the thread keeps ticking with no watcher before it waits for one.
    static let lingerNanoseconds: UInt64 = 2_000_000_000
    static let idleTickNanoseconds: UInt64 = 25_000_000
    // Both live at fixed addresses of their own: a pthread mutex or condition must not move.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    private init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        // With default attributes (and a clock the system has) these cannot fail: POSIX allows
        // only resource errors, which glibc never reports for them.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        #if os(Linux)
        // Deadlines on the monotonic clock: setting the wall clock neither stalls nor hurries polls.
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        #endif
        let conditionStatus = pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
        let mutexStatus = pthread_mutex_init(mutex, nil)
        precondition(conditionStatus == 0 && mutexStatus == 0, "pthread init failed: \(conditionStatus), \(mutexStatus)")
    }

    // The shared instance lives as long as the process; nothing to tear down.

    /// Starts polling `watcher` every `watcher.intervalNanoseconds`, the first time one interval
    /// from now.
    func add(_ watcher: ChangeWatcher) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        let due = Self.now() &+ watcher.intervalNanoseconds
        entries[ObjectIdentifier(watcher)] = Entry(watcher: watcher, due: due)
        guard isThreadStarted else {
            isThreadStarted = true
            Thread { [self] in run() }.start()
            return
        }
        // A thread that wakes by itself before this watcher is due finds it then.
        if wakeTime.map({ due < $0 }) ?? true { pthread_cond_signal(condition) }
    }

    /// Stops polling `watcher`; a poll already under way finishes.
    func remove(_ watcher: ChangeWatcher) {
        pthread_mutex_lock(mutex)
        entries[ObjectIdentifier(watcher)] = nil
        pthread_mutex_unlock(mutex)
    }

    /// How many watchers are polled now (for tests).
    var watcherCount: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return entries.count
    }

    private func run() {
        // Named from inside: Foundation passes a running thread's name to the system.
        Thread.current.name = Self.threadName
        pthread_mutex_lock(mutex)
        while true {
            let now = Self.now()
            var due: [ChangeWatcher] = []
            for (key, entry) in entries where entry.due <= now {
                due.append(entry.watcher)
                entries[key]?.due = now &+ entry.watcher.intervalNanoseconds
            }
            if !due.isEmpty {
                wakeTime = nil
                pthread_mutex_unlock(mutex)
                for watcher in due { watcher.poll() }
                pthread_mutex_lock(mutex)
                continue
            }
            let next: UInt64?
            if let earliest = entries.values.lazy.map(\.due).min() {
                idleSince = nil
                next = earliest
            } else {
                let since = idleSince ?? now
                idleSince = since
                next = now &- since < Self.lingerNanoseconds ? now &+ Self.idleTickNanoseconds : nil
            }
            wakeTime = next
            if let next {
                var deadline = timespec(tv_sec: Int(next / 1_000_000_000), tv_nsec: Int(next % 1_000_000_000))
                pthread_cond_timedwait(condition, mutex, &deadline)
            } else {
                idleSince = nil
                pthread_cond_wait(condition, mutex)
            }
        }
    }

    /// The monotonic clock, in nanoseconds (the clock the condition's deadlines are on).
    private static func now() -> UInt64 {
        var time = timespec()
        #if os(Linux)
        clock_gettime(CLOCK_MONOTONIC, &time)
        #else
        clock_gettime(CLOCK_REALTIME, &time)
        #endif
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}
