import Foundation

/// Downloads thumbnails into a ``ThumbnailStore``, a few at a time. Only `http` and `https`
/// URLs are fetched (a feed is untrusted: a `file:` URL must not copy a local file in), only a
/// whole JPEG answer is kept, and each is retried by the client's policy; once a download was
/// given up for want of a connection or an answer in time, the rest are not tried (they would
/// wait as long each). Failures are reported by id, never fatal.
///
/// ```swift
/// let report = ThumbnailDownloader(client: client, store: thumbnails)
///     .download([.init(id: "7093101501", url: "https://live.staticflickr.com/…_s.jpg")]) { done in … }
/// report.failed   // [(id, reason)]
/// ```
package struct ThumbnailDownloader: Sendable {
    package struct Target: Sendable, Equatable {
        package var id: String
        package var url: String?
        package init(id: String, url: String?) {
            self.id = id
            self.url = url
        }
    }

    package struct Report: Sendable, Equatable {
        /// In the order given.
        package var downloaded: [String] = []
        package var failed: [Failure] = []
    }

    package struct Failure: Sendable, Equatable, CustomStringConvertible {
        package var id: String
        package var reason: String
        package var description: String { "\(id): \(reason)" }
    }

    /// Thumbnails are small: anything larger is not one.
    static let maximumSize = 8 * 1024 * 1024

    package var client: FlickrClient
    package var store: ThumbnailStore
    /// Downloads at once.
    package var concurrency = 4

    package init(client: FlickrClient, store: ThumbnailStore) {
        self.client = client
        self.store = store
    }

    /// Downloads each target; `progress` is called on the calling thread with the number done,
    /// about ten times a second and once at the end.
    package func download(_ targets: [Target], progress: (Int) -> Void = { _ in }) -> Report {
        let state = DownloadState(count: targets.count)
        let group = DispatchGroup()
        let workers = max(1, min(concurrency, targets.count))
        for _ in 0..<workers {
            // Threads of their own, not Dispatch's pool: each blocks while URLSession, which
            // works on that pool, answers; blocking the pool's threads starves it.
            group.enter()
            let thread = Thread { [self] in
                while let index = state.nextIndex() {
                    let outcome = state.isServerDown ? .failure("not tried: the thumbnail server was given up on")
                        : downloadOne(targets[index], state: state)
                    state.finish(index, outcome)
                }
                group.leave()
            }
            thread.start()
        }
        while group.wait(timeout: .now() + 0.1) == .timedOut {
            progress(state.doneCount)
        }
        progress(state.doneCount)
        var report = Report()
        for (target, outcome) in zip(targets, state.outcomes) {
            switch outcome {
            case .success?: report.downloaded.append(target.id)
            case .failure(let reason)?: report.failed.append(Failure(id: target.id, reason: reason))
            case nil: report.failed.append(Failure(id: target.id, reason: "not tried"))
            }
        }
        return report
    }

    private func downloadOne(_ target: Target, state: DownloadState) -> DownloadState.Outcome {
        guard let text = target.url, !text.isEmpty else { return .failure("the photo has no thumbnail URL") }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host != nil else {
            return .failure("the thumbnail URL is not an http or https URL")
        }
        switch client.get(url) {
        case let .gaveUp(reason, _, unreachable):
            // One thumbnail that keeps failing is its own; a server out of reach is everyone's.
            if unreachable { state.serverGaveUp() }
            return .failure(reason)
        case .answered(let response, _):
            guard response.status == 200 else { return .failure("HTTP \(response.status)") }
            guard response.body.count <= Self.maximumSize else { return .failure("larger than \(Self.maximumSize) bytes") }
            guard response.body.starts(with: [0xFF, 0xD8, 0xFF]) else { return .failure("the answer is not a JPEG image") }
            do {
                try store.write(response.body, for: target.id)
                return .success
            } catch {
                return .failure(error.description)
            }
        }
    }
}

/// The shared work list of the download workers.
private final class DownloadState: @unchecked Sendable {
    enum Outcome: Sendable {
        case success
        case failure(String)
    }

    // Every member is read and written under `lock`.
    private let lock = NSLock()
    private var next = 0
    private let count: Int
    private var done = 0
    private var down = false
    private var results: [Outcome?]

    init(count: Int) {
        self.count = count
        results = Array(repeating: nil, count: count)
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    func nextIndex() -> Int? {
        locked {
            guard next < count else { return nil }
            defer { next += 1 }
            return next
        }
    }

    func finish(_ index: Int, _ outcome: Outcome) {
        locked {
            results[index] = outcome
            done += 1
        }
    }

    func serverGaveUp() { locked { down = true } }
    var isServerDown: Bool { locked { down } }
    var doneCount: Int { locked { done } }
    var outcomes: [Outcome?] { locked { results } }
}
