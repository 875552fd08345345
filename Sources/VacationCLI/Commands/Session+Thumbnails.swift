import CommandLineKit
import Documents
import Foundation
import ObjectGraph
import Vacations

/// The vacation's local thumbnails (`AdditionalContent/Thumbnails/<id>.jpg`): kept by
/// `fetch --thumbnails`, named by `show`, removed by `unvisit` and `toggle` once their change
/// has committed.
extension Session {
    /// Thumbnails are small and many: fewer attempts, and a shorter time before giving up, than
    /// an API page gets.
    static let thumbnailAttempts = 3
    static let thumbnailGiveUp: Duration = .seconds(20)

    /// Downloads the thumbnails of these photos (the ones a fetch brought) that have no local
    /// copy yet, with those whose download failed before; failures are listed on stderr and
    /// kept in the list to try again on the next `fetch --thumbnails`.
    func keepThumbnails(of ids: [String], in document: ManagedDocument, policy: RetryPolicy,
                        redact: KeyRedactor) throws -> ThumbnailDownloader.Report {
        let store = ThumbnailStore(bundle: document.bundle)
        var wanted: [String] = []
        var seen = Set<String>()
        for id in ids + store.idsToFetch() where seen.insert(id).inserted { wanted.append(id) }
        let context = try document.newRootContext(name: "thumbnails")
        var urls: [String: String] = [:]
        var present = Set<String>()
        for photo in try context.fetch(FetchRequest<Photo>(predicate: "unique IN %@", wanted)) {
            present.insert(photo.unique)
            if let url = photo.thumbnailURL { urls[photo.unique] = url }
        }
        // Photos unvisited since are no longer wanted; the ones with a copy need none.
        let targets = wanted.filter { present.contains($0) && store.localFile(for: $0) == nil }
            .map { ThumbnailDownloader.Target(id: $0, url: urls[$0]) }

        var thumbnailPolicy = policy
        thumbnailPolicy.maximumAttempts = min(policy.maximumAttempts, Self.thumbnailAttempts)
        thumbnailPolicy.giveUpAfter = min(policy.giveUpAfter, Self.thumbnailGiveUp)
        let downloader = ThumbnailDownloader(client: FlickrClient(transport: URLSessionTransport(), policy: thumbnailPolicy),
                                             store: store)
        var bar: ProgressBar<SinkStream>?
        if environment.errorsIsTerminal && !targets.isEmpty {
            bar = ProgressBar(total: targets.count, label: "Thumbnails", output: SinkStream(sink: environment.errors),
                              isTerminal: true, width: environment.terminalWidth)
        }
        let report = downloader.download(targets) { done in bar?.update(completed: done) }
        bar?.finish()
        for failure in report.failed {
            warn(redact("thumbnail of \(failure.id) not kept: \(failure.reason); the next fetch --thumbnails tries again"))
        }
        do {
            try store.setIDsToFetch(report.failed.map(\.id))
        } catch {
            warn(redact("cannot keep the list of thumbnails to fetch again: \(error)"))
        }
        return report
    }

    /// The local copy of a photo's thumbnail, when there is one.
    func thumbnailFile(of id: String, in document: ManagedDocument) -> String? {
        ThumbnailStore(bundle: document.bundle).localFile(for: id)?.path
    }

    /// Removes the thumbnails of photos that a committed unvisit removed; a file that cannot go
    /// is a warning (the photos are gone already).
    ///
    /// `undo` of an unvisit brings the photos back, not their thumbnails: it should call
    /// `ThumbnailStore.markToFetch(ids)`, so that the next `fetch --thumbnails` brings them back.
    func removeThumbnails(of ids: [String], in document: ManagedDocument) {
        for (id, reason) in ThumbnailStore(bundle: document.bundle).remove(ids) {
            warn("cannot remove the thumbnail of \(id): \(reason)")
        }
    }
}
