import Foundation

/// Fetches a ``FlickrRequest`` page by page into files, each read by ``FlickrFeedReader`` as it
/// arrives: a failure response stops the fetch at once (no further request), `pages` says when
/// there are no more, and the files are then imported together by
/// ``FeedImporter/importFeedsTogether(_:rules:now:)`` — the same reader and the same importer
/// as `vacation import`, so a fetch imports exactly what importing its responses would.
///
/// Nothing is imported while fetching: the vacation is not held (nor locked) while the network
/// is slow or retried, and a fetch that fails half-way leaves it untouched.
///
/// ```swift
/// let fetcher = FlickrFetcher(client: client, request: request, apiKey: key, folder: temporaryFolder)
/// let fetched = try fetcher.fetchPages(maximum: 3)
/// importer.importFeedsTogether(fetched.pages.map { .file($0.file) }, rules: DraftRules())
/// ```
package struct FlickrFetcher {
    /// One page, saved and read.
    package struct Page: Sendable, Equatable {
        package var number: Int
        /// The response as it arrived, byte for byte.
        package var file: URL
        package var summary: FeedSummary
        /// The ids of the page's photos, in order, as the feed gives them.
        package var photoIDs: [String]
        /// The entries of a top-places list.
        package var places: [FlickrPlace]
    }

    /// What a fetch brought.
    package struct Pages: Sendable, Equatable {
        package var pages: [Page] = []
        /// Requests sent, retries included.
        package var requests = 0
        /// The pages Flickr says the list has (from the first page), when it says.
        var pagesAvailable: Int?

        package var photoCount: Int { pages.reduce(0) { $0 + $1.summary.photoCount } }
    }

    package let client: FlickrClient
    package let request: FlickrRequest
    package let apiKey: String
    /// Where the responses are saved (the caller's temporary folder).
    package let folder: URL
    /// Hears of each retry.
    package var retrying: (_ label: String, _ note: FlickrClient.RetryNote) -> Void = { _, _ in }
    /// Hears of each page read, with the number of pages the fetch expects (once known).
    package var pageRead: (_ page: Page, _ expected: Int?) -> Void = { _, _ in }

    package init(client: FlickrClient, request: FlickrRequest, apiKey: String, folder: URL) {
        self.client = client
        self.request = request
        self.apiKey = apiKey
        self.folder = folder
    }

    /// Fetches pages 1, 2, … up to `maximum`, stopping early at the last page Flickr has (its
    /// `pages`), at an empty page, or after a response that tells no paging.
    ///
    /// - Throws: ``FetchError``: `.unavailable` when a page could not be had after the retries,
    ///   `.badResponse` for a failure response or an answer that is not the list asked for.
    package func fetchPages(maximum: Int) throws(FetchError) -> Pages {
        var result = Pages()
        var number = 1
        while number <= maximum {
            let page = try fetchPage(number, requests: &result.requests)
            if number == 1 { result.pagesAvailable = page.summary.paging?.pages }
            result.pages.append(page)
            pageRead(page, result.pagesAvailable.map { min($0, maximum) })
            guard request.query.isPhotoList, let pages = page.summary.paging?.pages, number < pages,
                  page.summary.photoCount > 0 || !page.summary.problems.isEmpty else { break }
            number += 1
        }
        return result
    }

    /// Fetches one page (the top-places list is page 1), retrying, and reads it.
    package func fetchPage(_ number: Int, requests: inout Int) throws(FetchError) -> Page {
        let label = request.query.isPhotoList ? "page \(number) of \(request.query.method)" : request.query.method
        let host = request.endpoint.host ?? "Flickr"
        let outcome = client.get(request.url(page: number, apiKey: apiKey), retrying: { note in retrying(label, note) })
        let response: HTTPResponse
        switch outcome {
        case let .gaveUp(reason, attempts, _):
            requests += attempts
            throw FetchError(.unavailable, "Cannot fetch \(label) from \(host): \(reason)")
        case let .answered(answer, attempts):
            requests += attempts
            response = answer
        }
        let file = folder.appendingPathComponent(request.query.isPhotoList ? "page-\(number).json" : "top-places.json")
        do {
            try response.body.write(to: file)
        } catch {
            throw FetchError(.failed, "Cannot save \(label) in \(folder.path): \(error.localizedDescription)")
        }
        var photoIDs: [String] = []
        var places: [FlickrPlace] = []
        let summary: FeedSummary
        do {
            summary = try FlickrFeedReader.read(contentsOf: file, photo: { photoIDs.append($0.id) },
                                                place: { places.append($0) })
        } catch {
            guard (200..<300).contains(response.status) || error.flickrCode != nil else {
                // Not Flickr's answer but the server's: a 404 from a wrong FLICKR_API_BASE, a 403.
                throw FetchError(.unavailable, "Cannot fetch \(label): \(host) answered HTTP \(response.status)")
            }
            throw FetchError(.badResponse, "\(label): \(error)", flickrCode: error.flickrCode)
        }
        guard (200..<300).contains(response.status) else {
            throw FetchError(.unavailable, "Cannot fetch \(label): \(host) answered HTTP \(response.status)")
        }
        let expected: FeedContent = request.query.isPhotoList ? .photos : .places
        guard summary.content == expected else {
            let held = summary.content == .places ? "a top-places list" : summary.content == .photos ? "a photo list"
                : "one photos.getInfo photo"
            throw FetchError(.badResponse, "\(label): Flickr answered with \(held), not the \(expected == .photos ? "photo list" : "top-places list") asked for")
        }
        return Page(number: number, file: file, summary: summary, photoIDs: photoIDs, places: places)
    }
}

private extension Error {
    var flickrCode: Int? { (self as? FeedError)?.flickrCode }
}
