import Foundation
import Locking
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one-writer rule: an exclusive `flock` on the bundle folder, held while a process writes.
///
/// Why `flock` on the folder: it needs no extra file in the bundle, it belongs to the open file
/// description (so the kernel drops it when the holder exits or is killed, and `O_CLOEXEC`
/// keeps it out of child processes), and on Linux it is independent of the POSIX `fcntl` locks
/// SQLite takes on the store inside. Readers take no lock: they open the store read-only and
/// WAL gives them a consistent snapshot while the writer works.
///
/// `flock` locks of one process conflict with each other too, so this process also keeps a
/// table of the bundles it holds or reads, and refuses a second use at once (`locked`) instead
/// of waiting on itself.
///
/// ```swift
/// let lock = try DocumentLock.acquire(bundlePath, subject: .document("Paris"), wait: .seconds(10))
/// defer { lock.release() }
/// ```
final class DocumentLock: Sendable {
    enum Use: Sendable { case exclusive, reading }

    /// The bundle folder's identity (it follows the folder through renames).
    let identity: FileSystem.Identity
    let use: Use
    private let descriptor: Int32?
    private let isReleased = Locked(false)

    /// Bundles this process uses, with how many uses each.
    private static let inProcess = Locked<[FileSystem.Identity: (use: Use, count: Int)]>([:])

    private init(identity: FileSystem.Identity, use: Use, descriptor: Int32?) {
        self.identity = identity
        self.use = use
        self.descriptor = descriptor
    }

    deinit { release() }

    /// Takes the exclusive lock on the folder at `path`, waiting up to `wait` for another
    /// process to let go.
    ///
    /// - Throws: `busy` after the wait, `locked` when this process uses the bundle already,
    ///   `notFound`, `unsafePath` for a symbolic link, `io`.
    static func acquire(_ path: String, subject: DocumentError.Subject, wait: Duration) throws(DocumentError) -> DocumentLock {
        let deadline = ContinuousClock.now + wait
        var pause = Duration.milliseconds(2)
        while true {
            let descriptor = try openFolder(path, subject: subject)
            guard let identity = FileSystem.identity(ofDescriptor: descriptor) else {
                close(descriptor)
                throw .system("inspect", path, errno: errno)
            }
            while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
                let code = errno
                if code == EINTR { continue }
                guard code == EWOULDBLOCK else {
                    close(descriptor)
                    throw .system("lock", path, errno: code)
                }
                if isUsedInProcess(identity) {
                    close(descriptor)
                    throw DocumentError(.locked, subject)
                }
                let now = ContinuousClock.now
                guard now < deadline else {
                    close(descriptor)
                    throw DocumentError(.busy(waited: wait), subject)
                }
                Thread.sleep(forTimeInterval: timeInterval(min(pause, deadline - now)))
                pause = min(pause * 2, .milliseconds(50))
            }
            // While we waited the folder may have been renamed, replaced or deleted: the lock is
            // good only if the path still names the folder we locked.
            guard FileSystem.identity(at: path) == identity else {
                close(descriptor)
                guard ContinuousClock.now < deadline else { throw DocumentError(.busy(waited: wait), subject) }
                continue
            }
            let registered = inProcess.withLock { table -> Bool in
                guard table[identity] == nil else { return false }
                table[identity] = (.exclusive, 1)
                return true
            }
            guard registered else {
                close(descriptor)
                throw DocumentError(.locked, subject)
            }
            return DocumentLock(identity: identity, use: .exclusive, descriptor: descriptor)
        }
    }

    /// Takes the lock only if nobody holds it now; nil otherwise.
    static func acquireIfFree(_ path: String) -> DocumentLock? {
        // For housekeeping only (clearing abandoned folders): a lock that cannot be taken, for
        // whatever reason, means the folder is left alone, the safe answer.
        try? acquire(path, subject: .path(path), wait: .zero)
    }

    /// Records that this process reads the bundle at `path` (no file lock: readers never block
    /// a writer), so that it is not renamed or deleted from under the reader by this process.
    ///
    /// - Throws: `locked` when this process already writes the bundle.
    static func markReading(_ path: String, subject: DocumentError.Subject) throws(DocumentError) -> DocumentLock {
        guard let identity = FileSystem.identity(at: path) else { throw DocumentError(.notFound, subject) }
        let conflict = inProcess.withLock { table -> Bool in
            if let entry = table[identity] {
                guard entry.use == .reading else { return true }
                table[identity] = (.reading, entry.count + 1)
            } else {
                table[identity] = (.reading, 1)
            }
            return false
        }
        guard !conflict else { throw DocumentError(.locked, subject) }
        return DocumentLock(identity: identity, use: .reading, descriptor: nil)
    }

    /// Lets go of the lock (or the reading mark); safe to call more than once.
    func release() {
        let isFirstRelease = isReleased.withLock { released in
            defer { released = true }
            return !released
        }
        guard isFirstRelease else { return }
        Self.inProcess.withLock { table in
            guard let entry = table[identity] else { return }
            if entry.count <= 1 { table[identity] = nil } else { table[identity] = (entry.use, entry.count - 1) }
        }
        if let descriptor {
            flock(descriptor, LOCK_UN)
            close(descriptor)
        }
    }

    private static func isUsedInProcess(_ identity: FileSystem.Identity) -> Bool {
        inProcess.withLock { $0[identity] != nil }
    }

    /// Opens a folder for locking without following a symbolic link.
    private static func openFolder(_ path: String, subject: DocumentError.Subject) throws(DocumentError) -> Int32 {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor < 0 else { return descriptor }
        let code = errno
        switch code {
        case ENOENT: throw DocumentError(.notFound, subject)
        case ELOOP, ENOTDIR:
            if FileSystem.kind(at: path) == .symbolicLink {
                throw DocumentError(.unsafePath(reason: "its bundle is a symbolic link"), subject)
            }
            throw DocumentError(.corrupt(detail: "its bundle is not a folder"), subject)
        default: throw .system("open", path, errno: code)
        }
    }
}

func timeInterval(_ duration: Duration) -> TimeInterval {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) + Double(attoseconds) / 1e18
}
