import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The formats `vacation export` writes.
package enum ExportFormat: String, Sendable, CaseIterable {
    case geojson, kml, gpx, csv, html
}

/// Why an export could not be written. One line each, naming the path.
package enum ExportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The output (a file, a folder, a temporary file beside it) could not be made or written.
    case cannotWrite(path: String, reason: String)
    /// The album folder is in the way: a file, or a folder that is not an album.
    case destinationInTheWay(path: String, reason: String)
    /// The store's model lacks Photo, Tag or Place.
    case notAVacation

    package var description: String {
        switch self {
        case .cannotWrite(let path, let reason): "Cannot write \(path): \(reason)"
        case .destinationInTheWay(let path, let reason): "Cannot write the album to \(path): \(reason)"
        case .notAVacation: "The store is not a vacation: its model lacks Photo, Tag or Place"
        }
    }

    static func system(_ path: String, errno code: Int32) -> ExportError {
        .cannotWrite(path: path, reason: String(cString: strerror(code)))
    }
}

/// Where an export's text goes, a buffer at a time: `write` collects UTF-8 and hands it on in
/// blocks of about 64 KB, so that writers can write small pieces without a system call each.
///
/// ```swift
/// let output = ExportOutput { bytes in try file.write(bytes) }
/// try output.write("<gpx>")
/// try output.finish()
/// ```
package final class ExportOutput {
    private var buffer: [UInt8] = []
    private let flushLimit: Int
    private let sink: ([UInt8]) throws -> Void
    /// Bytes handed on so far.
    private(set) var byteCount = 0

    package init(flushLimit: Int = 1 << 16, sink: @escaping ([UInt8]) throws -> Void) {
        self.flushLimit = flushLimit
        self.sink = sink
        buffer.reserveCapacity(flushLimit + 1_024)
    }

    package func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= flushLimit { try flush() }
    }

    /// Hands on what is buffered.
    package func finish() throws { try flush() }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        byteCount += buffer.count
        try sink(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}

/// A file written the safe way: a temporary file in the destination's folder, flushed and then
/// renamed over the destination, so that the destination holds the old contents or the whole
/// new ones, never a part; on failure the temporary file is removed and nothing is left.
///
/// ```swift
/// let file = try AtomicFile(path: "/tmp/trip.gpx")       // makes the temporary file
/// try file.write(bytes)
/// try file.commit()                                       // or file.discard()
/// ```
package final class AtomicFile {
    package let path: String
    private let temporaryPath: String
    private var descriptor: Int32

    /// Creates the temporary file beside `path`.
    ///
    /// - Throws: `ExportError.cannotWrite` when the folder is missing or not writable, or
    ///   `path` is a folder.
    package init(path: String) throws(ExportError) {
        self.path = path
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw .cannotWrite(path: path, reason: "it is a folder")
        }
        temporaryPath = folder + "/." + url.lastPathComponent.prefix(64) + ".export-" + UUID().uuidString
        descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else {
            let code = errno
            throw code == ENOENT ? .cannotWrite(path: path, reason: "no such folder: \(folder)") : .system(path, errno: code)
        }
    }

    deinit { discard() }

    package func write(_ bytes: [UInt8]) throws(ExportError) {
        guard descriptor >= 0 else { throw .cannotWrite(path: path, reason: "the file is closed") }
        var failure: Int32 = 0
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count, failure == 0 {
                let written = Foundation.write(descriptor, raw.baseAddress.map { $0 + offset }, raw.count - offset)
                if written < 0 {
                    if errno != EINTR { failure = errno }
                } else {
                    offset += written
                }
            }
        }
        if failure != 0 { throw .system(path, errno: failure) }
    }

    /// Flushes the file to disk and renames it over the destination.
    package func commit() throws(ExportError) {
        guard descriptor >= 0 else { throw .cannotWrite(path: path, reason: "the file is closed") }
        var failure: Int32 = 0
        if fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0, failure == 0 { failure = errno }
        descriptor = -1
        if failure == 0, rename(temporaryPath, path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temporaryPath)
            throw .system(path, errno: failure)
        }
    }

    /// Removes the temporary file, when it has not been committed.
    package func discard() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        unlink(temporaryPath)
    }
}
