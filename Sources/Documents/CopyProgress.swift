/// How far a copy of a store (a backup, a duplicate, a restore) has got, in SQLite pages.
///
/// ```swift
/// try library.backup("Paris") { progress in bar.update(progress.fractionCompleted) }
/// ```
public struct CopyProgress: Sendable, Equatable {
    package var pagesCopied: Int
    package var totalPages: Int

    /// Progress of `pagesCopied` pages out of `totalPages`.
    public init(pagesCopied: Int, totalPages: Int) {
        self.pagesCopied = pagesCopied
        self.totalPages = totalPages
    }

    /// From 0 to 1.
    public var fractionCompleted: Double {
        totalPages == 0 ? 1 : Double(pagesCopied) / Double(totalPages)
    }
}
