import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few file-system operations the documents layer needs beyond Foundation: atomic renames
/// that never replace, atomic exchanges, `lstat`-based checks that never follow symbolic links.
package enum FileSystem {
    /// What a directory entry is, seen without following symbolic links.
    enum EntryKind: Equatable {
        case directory, file, symbolicLink, other
    }

    /// A file's identity: stays the same across renames, differs between files.
    struct Identity: Hashable, Sendable {
        var device: UInt64
        var inode: UInt64
    }

    /// The kind of entry at `path`, or nil when nothing is there.
    static func kind(at path: String) -> EntryKind? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .directory
        case S_IFREG: return .file
        case S_IFLNK: return .symbolicLink
        default: return .other
        }
    }

    static func identity(at path: String) -> Identity? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    static func identity(ofDescriptor descriptor: Int32) -> Identity? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// The canonical absolute path (symbolic links resolved), or nil when `path` does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// True when `path` is `root` itself or lies below it (both canonical).
    static func isInside(_ path: String, root: String) -> Bool {
        path == root || path.hasPrefix(root.hasSuffix("/") ? root : root + "/")
    }

    /// The modification time of `path` (not following links), or nil.
    static func modificationDate(at path: String) -> Date? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    }

    static func makeDirectory(_ path: String) throws(DocumentError) {
        guard mkdir(path, 0o755) == 0 else { throw .system("create folder", path, errno: errno) }
    }

    /// Makes `path` and its missing parents; refuses when any existing part is not a folder.
    static func makeDirectories(_ path: String) throws(DocumentError) {
        if kind(at: path) == .directory { return }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw .wrapping(error, operation: "create folder", path: path)
        }
        guard FileSystem.realPath(path) != nil else { throw .system("create folder", path, errno: ENOENT) }
    }

    /// Removes `path` and everything below it; symbolic links are removed, never followed.
    static func removeTree(_ path: String) throws(DocumentError) {
        guard kind(at: path) != nil else { return }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw .wrapping(error, operation: "remove", path: path)
        }
    }

    // MARK: Renaming

    /// Renames `source` to `destination`, failing with `alreadyExists` rather than replacing
    /// anything there.
    static func renameWithoutReplacing(_ source: String, to destination: String,
                                       subject: DocumentError.Subject) throws(DocumentError) {
        if let renameAt2, renameAt2(AT_FDCWD, source, AT_FDCWD, destination, renameNoReplace) == 0 { return }
        let code = renameAt2 == nil ? ENOSYS : errno
        switch code {
        case EEXIST, ENOTEMPTY:
            throw DocumentError(.alreadyExists, subject)
        case ENOSYS, EINVAL:
            // The file system cannot refuse atomically: check, then rename (a narrow race remains).
            guard kind(at: destination) == nil else { throw DocumentError(.alreadyExists, subject) }
            guard rename(source, destination) == 0 else { throw .system("rename", source, errno: errno) }
        default:
            throw .system("rename", source, errno: code)
        }
    }

    /// Swaps the entries at `first` and `second` in one step, so that neither path is ever
    /// missing.
    static func exchange(_ first: String, _ second: String) throws(DocumentError) {
        if let renameAt2, renameAt2(AT_FDCWD, first, AT_FDCWD, second, renameExchange) == 0 { return }
        let code = renameAt2 == nil ? ENOSYS : errno
        guard code == ENOSYS || code == EINVAL else { throw .system("exchange", first, errno: code) }
        // No atomic exchange here: three renames, with a brief moment where `second` is missing.
        let parking = second + ".exchange-" + UUID().uuidString
        guard rename(second, parking) == 0 else { throw .system("rename", second, errno: errno) }
        guard rename(first, second) == 0 else {
            let failure = errno
            _ = rename(parking, second)
            throw .system("rename", first, errno: failure)
        }
        guard rename(parking, first) == 0 else { throw .system("rename", parking, errno: errno) }
    }

    // MARK: Files

    /// Writes `data` to `path` through a temporary file in the same folder, flushed and renamed
    /// into place: readers see the old contents or the new, never a part.
    package static func writeAtomically(_ data: Data, to path: String) throws(DocumentError) {
        let folder = (path as NSString).deletingLastPathComponent
        let temporary = folder + "/.writing-" + UUID().uuidString
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw .system("write", path, errno: errno) }
        var failure: Int32 = 0
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count, failure == 0 {
                let written = write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
                if written < 0 {
                    if errno != EINTR { failure = errno }
                } else {
                    offset += written
                }
            }
        }
        if failure == 0, fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        if failure == 0, rename(temporary, path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temporary)
            throw .system("write", path, errno: failure)
        }
    }

    /// Copies the folder `source` to `destination` (which must not exist): folders and regular
    /// files only; symbolic links and special files are left out, so a copy never reaches outside.
    static func copyTree(from source: String, to destination: String) throws(DocumentError) {
        switch kind(at: source) {
        case .directory:
            try makeDirectory(destination)
            let entries: [String]
            do {
                entries = try FileManager.default.contentsOfDirectory(atPath: source)
            } catch {
                throw .wrapping(error, operation: "read folder", path: source)
            }
            for entry in entries.sorted() {
                try copyTree(from: source + "/" + entry, to: destination + "/" + entry)
            }
        case .file:
            do {
                try FileManager.default.copyItem(atPath: source, toPath: destination)
            } catch {
                throw .wrapping(error, operation: "copy", path: source)
            }
        case .symbolicLink, .other, nil:
            return
        }
    }

    /// Bytes taken by the regular files at or below `path`, not following symbolic links.
    static func size(of path: String) -> Int64 {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0 }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            return Int64(info.st_size)
        case S_IFDIR:
            // A size shown in listings, an estimate by nature: what cannot be read counts 0.
            return entriesIfReadable(of: path).reduce(0) { $0 + size(of: path + "/" + $1) }
        default:
            return 0
        }
    }

    /// Names in the folder `path` (without `.` and `..`); none when it does not exist.
    ///
    /// - Throws: `DocumentError` of kind `io` when the folder exists but cannot be read: a
    ///   listing that failed is never an empty one.
    static func entries(of path: String) throws(DocumentError) -> [String] {
        guard let directory = opendir(path) else {
            if errno == ENOENT { return [] }
            throw .system("read folder", path, errno: errno)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else { break }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        if errno != 0 { throw .system("read folder", path, errno: errno) }
        return names
    }

    /// `entries(of:)` for best-effort housekeeping (clearing abandoned staging folders), where a
    /// folder that cannot be read simply has nothing to clear now: the next run tries again.
    static func entriesIfReadable(of path: String) -> [String] {
        do {
            return try entries(of: path)
        } catch {
            return []
        }
    }
}

// `renameat2` is not in the Glibc module (it needs _GNU_SOURCE): look it up at run time.
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
