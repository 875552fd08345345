import Documents
import Foundation

/// The local copies of a vacation's thumbnails: `AdditionalContent/Thumbnails/<id>.jpg` in its
/// bundle (README.md, "Straight from Flickr"), so backups, which copy the bundle, carry them.
///
/// Each file is written whole or not at all (a temporary file in the same folder, flushed, then
/// renamed into place), so a reader never sees half a thumbnail. Ids whose download failed are
/// listed in `Thumbnails/.to-fetch`, for the next `vacation fetch --thumbnails` to try again.
///
/// The files and the store are not one transaction: a thumbnail is written after the import
/// that brought its photo committed, and removed after the unvisit that removed it committed.
/// An undo that brings a photo back should call ``markToFetch(_:)`` so that the next
/// `fetch --thumbnails` brings its thumbnail back too.
///
/// ```swift
/// let thumbnails = ThumbnailStore(bundle: document.bundle)
/// try thumbnails.write(jpeg, for: "7093101501")
/// thumbnails.localFile(for: "7093101501")   // …/AdditionalContent/Thumbnails/7093101501.jpg
/// ```
package struct ThumbnailStore: Sendable {
    package static let folderName = "Thumbnails"
    /// The list of ids to try again, one a line.
    static let toFetchFileName = ".to-fetch"

    /// `<bundle>/AdditionalContent`.
    package let additionalContent: URL
    /// `<bundle>/AdditionalContent/Thumbnails`.
    package var folder: URL { additionalContent.appendingPathComponent(Self.folderName, isDirectory: true) }

    package init(bundle: DocumentBundle) {
        additionalContent = bundle.additionalContentURL
    }

    /// Where the thumbnail of photo `id` goes; `nil` for an id that is not a Flickr id (a
    /// canonical decimal number), so no id can name a path elsewhere.
    package func file(for id: String) -> URL? {
        guard let canonical = FlickrNames.canonicalID(id), canonical == id else { return nil }
        return folder.appendingPathComponent(id + ".jpg")
    }

    /// The local copy of photo `id`'s thumbnail, when there is one (a regular file).
    package func localFile(for id: String) -> URL? {
        guard let file = file(for: id), Self.kind(of: file.path) == .file else { return nil }
        return file
    }

    /// Writes photo `id`'s thumbnail atomically, making the folders it needs.
    /// - Throws: ``ThumbnailError`` when the id is not a Flickr id, a folder is a symbolic link
    ///   or not a folder, or the file cannot be written.
    package func write(_ data: Data, for id: String) throws(ThumbnailError) {
        guard let file = file(for: id) else { throw ThumbnailError("\(id) is not a Flickr photo id") }
        try makeFolders()
        try Self.writeAtomically(data, to: file.path)
    }

    /// Removes the thumbnails of these photos, where there are any.
    /// - Returns: the ids whose file could not be removed, with the reason.
    @discardableResult
    package func remove(_ ids: some Sequence<String>) -> [(id: String, reason: String)] {
        var failures: [(id: String, reason: String)] = []
        for id in ids {
            guard let file = file(for: id), Self.kind(of: file.path) != nil else { continue }
            if unlink(file.path) != 0 && errno != ENOENT {
                failures.append((id, String(cString: strerror(errno))))
            }
        }
        return failures
    }

    /// The ids listed to fetch again, in order, without repeats.
    package func idsToFetch() -> [String] {
        let file = folder.appendingPathComponent(Self.toFetchFileName)
        guard Self.kind(of: file.path) == .file, let data = FileManager.default.contents(atPath: file.path) else { return [] }
        var seen = Set<String>()
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
            .filter { self.file(for: $0) != nil && seen.insert($0).inserted }
    }

    /// Replaces the list of ids to fetch again (an empty list removes the file).
    package func setIDsToFetch(_ ids: [String]) throws(ThumbnailError) {
        let file = folder.appendingPathComponent(Self.toFetchFileName)
        if ids.isEmpty {
            if Self.kind(of: file.path) == .file, unlink(file.path) != 0, errno != ENOENT {
                throw ThumbnailError("cannot remove \(file.path): \(String(cString: strerror(errno)))")
            }
            return
        }
        try makeFolders()
        try Self.writeAtomically(Data(ids.map { $0 + "\n" }.joined().utf8), to: file.path)
    }

    /// Adds ids to the list of thumbnails to fetch again (for an undo that brings photos back).
    package func markToFetch(_ ids: [String]) throws(ThumbnailError) {
        var list = idsToFetch()
        let known = Set(list)
        list += ids.filter { file(for: $0) != nil && !known.contains($0) }
        try setIDsToFetch(list)
    }

    // MARK: Files

    enum Kind { case file, directory, symbolicLink, other }

    static func kind(of path: String) -> Kind? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        case S_IFLNK: return .symbolicLink
        default: return .other
        }
    }

    private func makeFolders() throws(ThumbnailError) {
        for folder in [additionalContent, folder] {
            switch Self.kind(of: folder.path) {
            case .directory?: continue
            case nil:
                if mkdir(folder.path, 0o755) != 0 && errno != EEXIST {
                    throw ThumbnailError("cannot make \(folder.path): \(String(cString: strerror(errno)))")
                }
                guard Self.kind(of: folder.path) == .directory else { throw ThumbnailError("\(folder.path) is not a folder") }
            case .symbolicLink?:
                throw ThumbnailError("\(folder.path) is a symbolic link; thumbnails are not written through one")
            case .file?, .other?:
                throw ThumbnailError("\(folder.path) is not a folder")
            }
        }
    }

    /// `FileSystem.writeAtomically` (a temporary file, flushed, renamed), its failure in this
    /// error's words.
    private static func writeAtomically(_ data: Data, to path: String) throws(ThumbnailError) {
        do {
            try FileSystem.writeAtomically(data, to: path)
        } catch {
            guard case .io(_, let detail) = error.kind else { throw ThumbnailError("cannot write \(path): \(error)") }
            throw ThumbnailError("cannot write \(path): \(detail)")
        }
    }
}

/// A thumbnail that could not be kept or removed; one line.
package struct ThumbnailError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
