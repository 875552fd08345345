import Dispatch
import Foundation
import Locking
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Delivers signals to `StopSignalMonitor`s with the self-pipe trick: a `sigaction` handler
/// writes the signal's number to a pipe, and a dispatch source reads it on a private queue.
///
/// Why not `DispatchSource.makeSignalSource`: on Linux libdispatch reads signals through a
/// `signalfd`, which sees a signal only while every thread blocks it; in a process with many
/// threads the kernel may hand the signal to a thread that does not, and the "ignore"
/// disposition the source needs then drops it. A handler runs on whichever thread gets it.
final class SignalRelay: Sendable {
    static let shared = SignalRelay()

    private struct State {
        var monitors: [ObjectIdentifier: (monitor: WeakMonitor, signals: [Int32])] = [:]
        var previousActions: [Int32: sigaction] = [:]
        var source: (any DispatchSourceRead)?
    }

    private struct WeakMonitor {
        weak var monitor: StopSignalMonitor?
    }

    private let state = Locked(State())
    private let queue = DispatchQueue(label: "vacations.signal-relay")

    /// Starts relaying `signals` to `monitor`.
    func add(_ monitor: StopSignalMonitor, signals: [Int32]) {
        state.withLock { state in
            if state.source == nil {
                let source = DispatchSource.makeReadSource(fileDescriptor: signalPipe.read, queue: queue)
                source.setEventHandler { [weak self] in self?.drain() }
                source.resume()
                state.source = source
            }
            state.monitors[ObjectIdentifier(monitor)] = (WeakMonitor(monitor: monitor), signals)
            for signalNumber in signals where state.previousActions[signalNumber] == nil {
                var action = sigaction()
                action.__sigaction_handler.sa_handler = relaySignal
                sigemptyset(&action.sa_mask)
                action.sa_flags = SA_RESTART
                var previous = sigaction()
                sigaction(signalNumber, &action, &previous)
                state.previousActions[signalNumber] = previous
            }
        }
    }

    /// Stops relaying to `monitor`; signals nobody watches any more get their old action back.
    func remove(_ monitor: StopSignalMonitor) {
        state.withLock { state in
            state.monitors[ObjectIdentifier(monitor)] = nil
            let watched = Set(state.monitors.values.flatMap(\.signals))
            for (signalNumber, previous) in state.previousActions where !watched.contains(signalNumber) {
                var action = previous
                sigaction(signalNumber, &action, nil)
                state.previousActions[signalNumber] = nil
            }
        }
    }

    /// Reads the signal numbers the handler wrote and hands each to the monitors watching it.
    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { read(signalPipe.read, $0.baseAddress, $0.count) }
        guard count > 0 else { return }
        let monitors = state.withLock { state in state.monitors.values.compactMap { entry in
            entry.monitor.monitor.map { ($0, entry.signals) }
        } }
        for byte in buffer.prefix(count) {
            for (monitor, signals) in monitors where signals.contains(Int32(byte)) {
                monitor.handle(signal: Int32(byte))
            }
        }
    }
}

/// The pipe between the signal handler and the relay: made once, before any handler is
/// installed; close-on-exec, and non-blocking so that the handler never waits.
private let signalPipe: (read: Int32, write: Int32) = {
    var descriptors: [Int32] = [-1, -1]
    guard pipe(&descriptors) == 0 else { return (-1, -1) }
    for descriptor in descriptors {
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }
    return (descriptors[0], descriptors[1])
}()

/// The signal handler: only `write`, which is async-signal-safe.
private func relaySignal(_ signalNumber: Int32) {
    var byte = UInt8(truncatingIfNeeded: signalNumber)
    let savedErrno = errno
    _ = write(signalPipe.write, &byte, 1)
    errno = savedErrno
}
