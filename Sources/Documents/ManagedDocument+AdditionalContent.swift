import Foundation

// Files the document owns, beside its store in `AdditionalContent/`. Each is written
// atomically (a temporary file, flushed, renamed over the old one) when the caller writes it,
// not at the next save: the files and the store are not one transaction.
extension ManagedDocument {
    /// Writes `data` as the additional file `fileName`, replacing it atomically.
    ///
    /// ```swift
    /// try document.writeAdditionalContent(Data(jpeg), named: "cover.jpg")
    /// ```
    /// - Throws: `DocumentError`: `invalidName` (file names follow the document naming rules),
    ///   `readOnly`, `closed`, `unsafePath`, `io`.
    public func writeAdditionalContent(_ data: Data, named fileName: String) throws(DocumentError) {
        let path = try additionalContentPath(fileName, writing: true)
        try FileSystem.writeAtomically(data, to: path)
    }

    /// The contents of the additional file `fileName`, or nil when there is none.
    ///
    /// - Throws: `DocumentError`: `invalidName`, `closed`, `unsafePath`, `io`.
    public func additionalContent(named fileName: String) throws(DocumentError) -> Data? {
        let path = try additionalContentPath(fileName, writing: false)
        switch FileSystem.kind(at: path) {
        case nil: return nil
        case .file:
            guard let data = FileManager.default.contents(atPath: path) else {
                throw .system("read", path, errno: errno)
            }
            return data
        case .symbolicLink: throw DocumentError(.unsafePath(reason: "it is a symbolic link"), .path(path))
        case .directory, .other: throw DocumentError(.corrupt(detail: "it is not a file"), .path(path))
        }
    }

    /// Removes the additional file `fileName`, if there is one.
    ///
    /// - Throws: as `writeAdditionalContent(_:named:)`.
    func removeAdditionalContent(named fileName: String) throws(DocumentError) {
        let path = try additionalContentPath(fileName, writing: true)
        guard FileSystem.kind(at: path) != nil else { return }
        guard unlink(path) == 0 else { throw .system("remove", path, errno: errno) }
    }

    /// The names of the additional files, sorted.
    func additionalContentNames() throws(DocumentError) -> [String] {
        _ = try openSession()
        let folder = bundle.additionalContentURL.path
        guard FileSystem.kind(at: folder) == .directory else { return [] }
        return try FileSystem.entries(of: folder)
            .filter { !$0.hasPrefix(".") && FileSystem.kind(at: folder + "/" + $0) == .file }
            .sorted()
    }

    /// The path of an additional file, checked: a valid name, an open document (writable when
    /// writing), a real `AdditionalContent` folder (made when writing).
    private func additionalContentPath(_ fileName: String, writing: Bool) throws(DocumentError) -> String {
        let name = try DocumentName(fileName, subject: { .path($0) })
        let session = try openSession()
        if writing && session.mode == .readOnly { throw DocumentError(.readOnly, subject) }
        let folder = bundle.additionalContentURL.path
        switch FileSystem.kind(at: folder) {
        case .directory: break
        case nil where writing: try FileSystem.makeDirectory(folder)
        case nil: break
        case .symbolicLink: throw DocumentError(.unsafePath(reason: "AdditionalContent is a symbolic link"), subject)
        case .file, .other: throw DocumentError(.corrupt(detail: "AdditionalContent is not a folder"), subject)
        }
        return folder + "/" + name.rawValue
    }
}
