import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The folder an HTML album is written to, written atomically: the album is built in a hidden
/// sibling folder, then renamed into place (or exchanged with the album it replaces, in one
/// step), so that a failed export leaves nothing half-written and the old album, if any, whole.
///
/// Only a missing folder, an empty one, or an album this command wrote before (it holds the
/// marker file `.vacation-album`) is replaced: any other folder is refused, so that `--to ~`
/// can never delete a home folder. A symbolic link is followed to the folder it names.
///
/// ```swift
/// let folder = try AlbumFolder(destination: "/tmp/album")
/// try folder.writeFile(named: "index.html", bytes)
/// try folder.commit()                                   // or folder.discard()
/// ```
package final class AlbumFolder {
    /// The file that marks a folder as an album this command may replace.
    static let markerName = ".vacation-album"
    static let thumbnailsFolderName = "thumbnails"

    /// Where the album ends up (symbolic links resolved).
    package let destination: String
    /// Where it is built.
    package let staging: String
    private var replacesExisting: Bool
    private var hasThumbnailsFolder = false
    private var finished = false

    /// Checks the destination and makes the staging folder.
    ///
    /// - Throws: `ExportError.destinationInTheWay` for a file, or a folder that is neither
    ///   empty nor an album; `ExportError.cannotWrite` when the parent folder is missing or
    ///   not writable.
    package init(destination path: String) throws(ExportError) {
        var resolved = path
        while resolved.count > 1 && resolved.hasSuffix("/") { resolved.removeLast() }
        if Self.kind(at: resolved) == S_IFLNK {
            guard let target = realpath(resolved, nil) else {
                throw .cannotWrite(path: path, reason: "it is a symbolic link to nothing")
            }
            resolved = String(cString: target)
            free(target)
        }
        destination = resolved
        switch Self.kind(at: resolved) {
        case nil:
            replacesExisting = false
        case S_IFDIR?:
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: resolved)) ?? []
            guard entries.isEmpty || entries.contains(Self.markerName) else {
                throw .destinationInTheWay(path: path, reason: "it is a folder that holds other files and is not an album "
                                           + "(an album holds \(Self.markerName)); give a new or empty folder")
            }
            replacesExisting = true
        default:
            throw .destinationInTheWay(path: path, reason: "it is a file, not a folder")
        }
        let url = URL(fileURLWithPath: resolved)
        let parent = url.deletingLastPathComponent().path
        var parentInfo = stat()
        guard stat(parent, &parentInfo) == 0, parentInfo.st_mode & S_IFMT == S_IFDIR else {
            throw .cannotWrite(path: path, reason: "no such folder: \(parent)")
        }
        staging = parent + "/." + url.lastPathComponent.prefix(64) + ".album-" + UUID().uuidString
        guard mkdir(staging, 0o755) == 0 else { throw .system(path, errno: errno) }
    }

    deinit { discard() }

    /// Writes a file of the album (a name, no folders).
    func writeFile(named name: String, _ bytes: [UInt8]) throws(ExportError) {
        try Self.write(bytes, to: staging + "/" + name, reportingAs: destination + "/" + name)
    }

    /// Opens a file of the album for streaming: its bytes go through `output`.
    func fileOutput(named name: String) throws(ExportError) -> (output: ExportOutput, close: () throws -> Void) {
        let path = staging + "/" + name
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw .system(destination + "/" + name, errno: errno) }
        let reported = destination + "/" + name
        let output = ExportOutput { bytes in try Self.writeAll(bytes, to: descriptor, reportingAs: reported) }
        let close: () throws -> Void = {
            defer { _ = Foundation.close(descriptor) }
            try output.finish()
            guard fsync(descriptor) == 0 else { throw ExportError.system(reported, errno: errno) }
        }
        return (output, close)
    }

    /// Copies a local thumbnail into the album's `thumbnails/` folder; returns its relative path.
    /// `source` must be a regular file (a symbolic link is refused, never followed).
    func copyThumbnail(from source: String, as fileName: String) throws(ExportError) -> String? {
        guard Self.kind(at: source) == S_IFREG, let data = FileManager.default.contents(atPath: source) else { return nil }
        if !hasThumbnailsFolder {
            guard mkdir(staging + "/" + Self.thumbnailsFolderName, 0o755) == 0 else { throw .system(destination, errno: errno) }
            hasThumbnailsFolder = true
        }
        let relative = Self.thumbnailsFolderName + "/" + fileName
        try Self.write(Array(data), to: staging + "/" + relative, reportingAs: destination + "/" + relative)
        return relative
    }

    /// Puts the album in place: renamed to the destination, or exchanged with the old album,
    /// which is then removed.
    package func commit() throws(ExportError) {
        try writeFile(named: Self.markerName, Array("An album written by 'vacation export html'; the next export replaces it.\n".utf8))
        if replacesExisting {
            if let renameAt2, renameAt2(AT_FDCWD, staging, AT_FDCWD, destination, renameExchange) == 0 {
                // Exchanged: the staging path holds the old album.
            } else {
                let code = renameAt2 == nil ? ENOSYS : errno
                guard code == ENOSYS || code == EINVAL else { throw .system(destination, errno: code) }
                // No atomic exchange on this file system: park the old album, move the new one in,
                // and put the old one back if that fails.
                let parked = staging + ".old"
                guard rename(destination, parked) == 0 else { throw .system(destination, errno: errno) }
                guard rename(staging, destination) == 0 else {
                    let failure = errno
                    _ = rename(parked, destination)
                    throw .system(destination, errno: failure)
                }
                _ = rename(parked, staging)
            }
        } else if let renameAt2, renameAt2(AT_FDCWD, staging, AT_FDCWD, destination, renameNoReplace) == 0 {
            // In place, and nothing was replaced.
        } else {
            let code = renameAt2 == nil ? ENOSYS : errno
            guard code == ENOSYS || code == EINVAL, Self.kind(at: destination) == nil, rename(staging, destination) == 0 else {
                throw .system(destination, errno: code == ENOSYS || code == EINVAL ? errno : code)
            }
        }
        finished = true
        // The staging path now holds the old album (or nothing): remove it.
        try? FileManager.default.removeItem(atPath: staging)   // an old album left behind is only clutter
    }

    /// Removes the staging folder and what was built in it.
    package func discard() {
        guard !finished else { return }
        finished = true
        try? FileManager.default.removeItem(atPath: staging)   // nothing else can be done about a failed clean-up
    }

    // MARK: Files

    static func kind(at path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & S_IFMT
    }

    private static func write(_ bytes: [UInt8], to path: String, reportingAs reported: String) throws(ExportError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw .system(reported, errno: errno) }
        defer { close(descriptor) }
        try writeAll(bytes, to: descriptor, reportingAs: reported)
    }

    static func writeAll(_ bytes: [UInt8], to descriptor: Int32, reportingAs reported: String) throws(ExportError) {
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
        if failure != 0 { throw .system(reported, errno: failure) }
    }
}

// `renameat2` is not in the Glibc module (it needs _GNU_SOURCE): look it up at run time, as
// the documents layer does.
private typealias RenameAt2Function = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32

private let renameNoReplace: UInt32 = 1   // RENAME_NOREPLACE
private let renameExchange: UInt32 = 2    // RENAME_EXCHANGE

private let renameAt2: RenameAt2Function? = {
    #if os(Linux)
    guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "renameat2") else { return nil }
    return unsafeBitCast(symbol, to: RenameAt2Function.self)
    #else
    return nil
    #endif
}()
