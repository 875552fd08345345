import Foundation

/// Everything that can go wrong in the documents layer, with the document or path it concerns.
///
/// Its description is one line that names the subject, ready for an `Error:` line:
///
/// ```swift
/// do { _ = try library.open(named: "Paris", wait: .seconds(10)) }
/// catch let error as DocumentError where error.kind == .busy(waited: .seconds(10)) {
///     print(error)   // Document "Paris" is busy: another process is writing to it (waited 10 s)
/// }
/// ```
public struct DocumentError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// The name breaks the naming rules (empty, `.`-leading, `/`, NUL, over 200 bytes).
        case invalidName(reason: String)
        case notFound
        case alreadyExists
        /// Another process holds the document for writing; this one gave up after `waited`.
        case busy(waited: Duration)
        /// This process has the document open, so it cannot be renamed, deleted or replaced.
        case locked
        /// The document is open with editing disabled.
        case readOnly
        /// The document is closed.
        case closed
        /// The bundle or its store is damaged or not a store at all.
        case corrupt(detail: String)
        /// The store was made by a model this one cannot migrate from.
        case migrationFailed(detail: String)
        /// Saving failed; the changes are still in memory.
        case saveFailed(detail: String)
        /// A path escapes the library or goes through a symbolic link.
        case unsafePath(reason: String)
        /// A backup name matches backups of several documents.
        case ambiguous(candidates: [String])
        /// The file system refused an operation.
        case io(operation: String, detail: String)
    }

    /// What an error is about.
    public enum Subject: Sendable, Equatable, CustomStringConvertible {
        case document(String)
        case backup(String)
        case path(String)

        /// The subject as the one-line description names it: `Document "Paris"`, `Backup "…"`, or the path.
        public var description: String {
            switch self {
            case .document(let name): "Document \(quoted(name))"
            case .backup(let name): "Backup \(quoted(name))"
            case .path(let path): path
            }
        }
    }

    /// What went wrong.
    public var kind: Kind
    /// The document, backup or path it went wrong with.
    public var subject: Subject

    /// An error of `kind` about `subject`.
    public init(_ kind: Kind, _ subject: Subject) {
        self.kind = kind
        self.subject = subject
    }

    /// One line naming the subject and what went wrong, e.g. `Document "Paris" is busy: …`.
    public var description: String {
        switch kind {
        case .invalidName(let reason):
            switch subject {
            case .document(let name), .backup(let name): "Invalid name \(quoted(name)): \(reason)"
            case .path(let path): "Invalid name \(quoted(path)): \(reason)"
            }
        case .notFound: "\(subject) does not exist"
        case .alreadyExists: "\(subject) already exists"
        case .busy(let waited):
            "\(subject) is busy: another process is writing to it (waited \(seconds(waited)))"
        case .locked: "\(subject) is open in this process; close it first"
        case .readOnly: "\(subject) is open with editing disabled"
        case .closed: "\(subject) is closed"
        case .corrupt(let detail): "\(subject) is damaged: \(detail)"
        case .migrationFailed(let detail): "\(subject) cannot be upgraded to this version of the model: \(detail)"
        case .saveFailed(let detail): "\(subject) could not be saved (the changes are kept in memory): \(detail)"
        case .unsafePath(let reason): "\(subject) is refused: \(reason)"
        case .ambiguous(let candidates):
            "\(subject) exists for several documents (\(candidates.joined(separator: ", "))); name the document"
        case .io(let operation, let detail): "Cannot \(operation) \(subject): \(detail)"
        }
    }
}

/// A name in double quotes, with control characters escaped and very long names shortened,
/// so that a description always stays on one readable line.
func quoted(_ text: String) -> String {
    var shown = ""
    for scalar in text.unicodeScalars {
        if scalar.properties.generalCategory == .control {
            shown += "\\u{" + String(scalar.value, radix: 16) + "}"
        } else {
            shown.unicodeScalars.append(scalar)
        }
    }
    if shown.count > 80 { shown = shown.prefix(77) + "…" }
    return "\"" + shown + "\""
}

/// `10 s`, `0.5 s`: a duration as people read it.
func seconds(_ duration: Duration) -> String {
    let (whole, attoseconds) = duration.components
    if attoseconds == 0 { return "\(whole) s" }
    let value = Double(whole) + Double(attoseconds) / 1e18
    return "\((value * 1000).rounded() / 1000) s"
}

extension DocumentError {
    /// An `io` error from the C library's `errno`.
    static func system(_ operation: String, _ path: String, errno code: Int32) -> DocumentError {
        DocumentError(.io(operation: operation, detail: String(cString: strerror(code))), .path(path))
    }

    /// Wraps any error from a file operation as `io`, keeping document errors as they are.
    static func wrapping(_ error: any Error, operation: String, path: String) -> DocumentError {
        if let error = error as? DocumentError { return error }
        return DocumentError(.io(operation: operation, detail: describe(error)), .path(path))
    }
}

/// An error's own description; for Foundation's errors, their localized description and the
/// underlying POSIX error rather than a dump of the error value.
func describe(_ error: any Error) -> String {
    guard error is CocoaError || type(of: error) is NSError.Type else { return String(describing: error) }
    let nsError = error as NSError
    if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError {
        return "\(nsError.localizedDescription) (\(underlying.localizedDescription))"
    }
    return nsError.localizedDescription
}
