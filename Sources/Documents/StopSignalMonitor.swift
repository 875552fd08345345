import Dispatch
import Foundation
import Locking
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns SIGINT and SIGTERM into an orderly stop: `onStop` runs on the main actor (the
/// documents save and close there), then the process ends as the signal would have ended it.
///
/// The signals are caught by a handler that hands them to a private queue (see `SignalRelay`),
/// not to the main queue, so that they are noticed even while the main thread is busy; if the
/// main actor does not get to `onStop` within `gracePeriod` (a synchronous caller blocking the
/// main thread), or a second signal arrives, the process stops anyway: unsaved work is lost,
/// but SQLite's transactions keep every store consistent. `terminate` is injectable so that
/// tests can watch it run.
///
/// ```swift
/// let monitor = StopSignalMonitor(onStop: { _ in _ = ManagedDocument.closeAll() })
/// monitor.start()
/// ```
public final class StopSignalMonitor: Sendable {
    /// What ends the process with a signal's status; tests pass their own.
    public typealias Terminate = @Sendable (Int32) -> Void

    private struct State {
        var isStarted = false
        var isStopping = false
        var hasTerminated = false
    }

    package let signals: [Int32]
    let gracePeriod: Duration
    private let onStop: @Sendable @MainActor (Int32) -> Void
    private let terminate: Terminate
    private let queue = DispatchQueue(label: "vacations.stop-signals")
    private let state = Locked(State())

    /// A monitor of `signals` that calls `onStop` on the main actor and ends the process with
    /// `terminate` once it returns, or after `gracePeriod` if it does not; `start()` installs it.
    public init(signals: [Int32] = [SIGINT, SIGTERM], gracePeriod: Duration = .seconds(5),
                onStop: @escaping @Sendable @MainActor (Int32) -> Void,
                terminate: @escaping Terminate = StopSignalMonitor.terminateProcess) {
        self.signals = signals
        self.gracePeriod = gracePeriod
        self.onStop = onStop
        self.terminate = terminate
    }

    /// Starts catching the signals (their previous action is suspended meanwhile).
    package func start() {
        let isFirst = state.withLock { state in
            defer { state.isStarted = true }
            return !state.isStarted
        }
        if isFirst { SignalRelay.shared.add(self, signals: signals) }
    }

    /// Stops catching the signals and gives them back their previous action.
    package func cancel() {
        let wasStarted = state.withLock { state in
            defer { state.isStarted = false }
            return state.isStarted
        }
        if wasStarted { SignalRelay.shared.remove(self) }
    }

    deinit { cancel() }

    /// What happens when `signal` arrives; called by the relay, and by tests.
    package func handle(signal signalNumber: Int32) {
        let isFirst = state.withLock { state in
            defer { state.isStopping = true }
            return !state.isStopping
        }
        guard isFirst else {
            finish(signalNumber)
            return
        }
        queue.asyncAfter(deadline: .now() + timeInterval(gracePeriod)) { [self] in finish(signalNumber) }
        Task { @MainActor [self] in
            onStop(signalNumber)
            finish(signalNumber)
        }
    }

    private func finish(_ signalNumber: Int32) {
        let isFirst = state.withLock { state in
            defer { state.hasTerminated = true }
            return !state.hasTerminated
        }
        if isFirst { terminate(signalNumber) }
    }

    /// Ends the process as `signal` does by default, so that the parent sees it killed by that
    /// signal (a shell shows 128 + n).
    public static let terminateProcess: Terminate = { signalNumber in
        signal(signalNumber, SIG_DFL)
        // The calling thread may block the signal (threads inherit masks): unblock it here.
        var mask = sigset_t()
        sigemptyset(&mask)
        sigaddset(&mask, signalNumber)
        pthread_sigmask(SIG_UNBLOCK, &mask, nil)
        raise(signalNumber)
        _exit(128 + signalNumber)
    }
}
