import Foundation
import SQLiteFaultVFS

/// The kinds of I/O call that the fault-injecting VFS counts (see `SQLiteFaultVFS.h`).
public enum FaultKind: Int, CaseIterable, Sendable, CustomStringConvertible {
    case open, read, write, truncate, sync, fileSize, lock, walIndexMap, walIndexLock, delete, access

    public var description: String {
        switch self {
        case .open: "open"
        case .read: "read"
        case .write: "write"
        case .truncate: "truncate"
        case .sync: "sync"
        case .fileSize: "file size"
        case .lock: "lock"
        case .walIndexMap: "WAL index map"
        case .walIndexLock: "WAL index lock"
        case .delete: "delete"
        case .access: "access"
        }
    }
}

/// Fails SQLite's I/O calls on the files under one folder, as SQLite's own I/O-error tests do:
/// count the calls an operation makes, then run it again with call N failing (once, or with
/// every call from N on failing: `persistent`).
///
/// Creating a session installs the fault-injecting VFS as the process's default (connections
/// opened before keep theirs). Files outside every session's folder pass straight through, so
/// sessions of tests that run at the same time do not disturb each other or other tests.
///
/// ```swift
/// let faults = try FaultSession(folder: directory.url)
/// let calls = try faults.counting { try runOperation() }
/// faults.arm(failing: 3)
/// #expect(throws: SQLiteError.self) { try runOperation() }
/// faults.disarm()
/// ```
public final class FaultSession: @unchecked Sendable {
    // The C side keeps its counters in atomics; this object only holds the session's slot.
    public let folder: URL
    private let slot: Int32

    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    /// Opens a session for the files under `folder`.
    ///
    /// - Throws: `Unavailable` when the VFS cannot be installed or every session slot is taken.
    public init(folder: URL) throws {
        let code = vacations_fault_vfs_install()
        guard code == 0 else { throw Unavailable(description: "the fault-injecting VFS could not be installed (SQLite code \(code))") }
        // SQLite names files by their real path; the folder must be named the same way.
        let path = folder.resolvingSymlinksInPath().standardizedFileURL.path
        self.folder = URL(fileURLWithPath: path, isDirectory: true)
        slot = vacations_fault_session_open(path)
        guard slot >= 0 else { throw Unavailable(description: "every fault session slot is taken") }
    }

    deinit { vacations_fault_session_close(slot) }

    /// Starts counting from zero, failing call `call` (1-based; 0 fails nothing) and, when
    /// `persistent`, every call after it. With `kinds`, only calls of those kinds are counted
    /// (and failed); all of them otherwise.
    public func arm(failing call: Int, persistent: Bool = false, kinds: Set<FaultKind> = []) {
        let mask = kinds.reduce(UInt32(0)) { $0 | (1 << UInt32($1.rawValue)) }
        vacations_fault_session_arm(slot, Int64(call), persistent ? 1 : 0, mask)
    }

    /// Stops counting and failing.
    public func disarm() { vacations_fault_session_disarm(slot) }

    /// Calls counted since the session was last armed.
    public var calls: Int { Int(vacations_fault_session_calls(slot)) }

    /// Calls failed since the session was last armed.
    public var failures: Int { Int(vacations_fault_session_failures(slot)) }

    /// The kind of the first call failed since the session was last armed.
    public var firstFailureKind: FaultKind? { FaultKind(rawValue: Int(vacations_fault_session_first_failure_kind(slot))) }

    /// Calls counted since the session was last armed, by kind.
    public var callsByKind: [FaultKind: Int] {
        Dictionary(uniqueKeysWithValues: FaultKind.allCases.map { ($0, Int(vacations_fault_session_calls_of_kind(slot, Int32($0.rawValue)))) })
    }

    /// Runs `body` with the session counting and failing nothing; returns how many calls it made.
    public func counting(_ body: () throws -> Void) rethrows -> Int {
        arm(failing: 0)
        defer { disarm() }
        try body()
        return calls
    }

    /// Runs `body` with call `call` failing (and every later one, when `persistent`), then
    /// disarms, whatever `body` does.
    public func failing<T>(call: Int, persistent: Bool = false, kinds: Set<FaultKind> = [], _ body: () throws -> T) rethrows -> T {
        arm(failing: call, persistent: persistent, kinds: kinds)
        defer { disarm() }
        return try body()
    }
}
