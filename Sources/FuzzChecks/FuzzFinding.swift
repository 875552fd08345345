import Foundation

/// Something a fuzz target's input made the code do that it must never do: a wrong kind of
/// error, a broken invariant, a result that two paths disagree on. The libFuzzer entry points
/// trap on it (so the fuzzer saves the input); the regression tests report it.
public struct FuzzFinding: Error, CustomStringConvertible, Sendable {
    public var target: FuzzTarget
    public var message: String

    public init(_ target: FuzzTarget, _ message: String) {
        self.target = target
        self.message = message
    }

    public var description: String { "fuzz-\(target.rawValue): \(message)" }
}

/// The fuzz targets: one per input surface, each with its own check, seed corpus
/// (`Fuzz/Corpus/<name>/`) and regression inputs (`Fuzz/Regressions/<name>/`).
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// Flickr REST XML through `FlickrFeedReader` and the import rules.
    case xml
    /// Flickr JSON and JSONP through `FlickrFeedReader` and the import rules.
    case json
    /// `--where` predicates: parsed, printed back, compiled to SQL and run, evaluated in memory.
    case predicate
    /// `vacation` command lines through `VacationCommandLine.parse`.
    case arguments
    /// Compiled Core Data models (`.mom`) and `Z_MODELCACHE` contents through `CompiledModelReader`.
    case model
    /// Sync's change files through `ChangeFile.read` and the sync rules.
    case change

    /// Runs this target's check on one input.
    ///
    /// ```swift
    /// try FuzzTarget.predicate.check(Data("title CONTAINS 'sea'".utf8))
    /// ```
    /// - Throws: `FuzzFinding` when the input makes the code misbehave.
    public func check(_ data: Data) throws(FuzzFinding) {
        switch self {
        case .xml, .json: try FeedChecks.check(data, target: self)
        case .predicate: try PredicateChecks.check(data)
        case .arguments: try ArgumentChecks.check(data)
        case .model: try ModelChecks.check(data)
        case .change: try ChangeFileChecks.check(data)
        }
    }

    /// Whether the target wants this input at all: the feed targets leave each other's format
    /// to each other, so that neither spends its time on the other's inputs.
    public func accepts(_ data: Data) -> Bool {
        switch self {
        case .xml: return FeedChecks.sniffedFormat(data).map { $0 == .xml } ?? true
        case .json: return FeedChecks.sniffedFormat(data).map { $0 != .xml } ?? true
        case .predicate, .arguments, .model, .change: return true
        }
    }

    /// The body of `LLVMFuzzerTestOneInput`: 0 when the input was checked, -1 when the target
    /// does not want it (libFuzzer then leaves it out of the corpus); traps on a finding.
    public func fuzz(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> CInt {
        let data = Data(bytes: bytes, count: size)
        guard accepts(data) else { return -1 }
        do {
            try check(data)
        } catch {
            // A trap is how libFuzzer learns of a finding: it saves the input as crash-<sha1>.
            fatalError(error.description)
        }
        return 0
    }
}
