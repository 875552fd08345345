import Foundation
import Testing
@testable import Vacations

/// Everything a feed yielded, collected for assertions.
struct CollectedFeed {
    var photos: [FlickrPhoto] = []
    var places: [FlickrPlace] = []
    var summary: FeedSummary?

    var problems: [FeedProblem] { summary?.problems ?? [] }

    func photo(_ id: String) -> FlickrPhoto? {
        photos.first { $0.id == id }
    }
}

enum Feeds {
    /// A fixture copied from `shared/fixtures/flickr/`.
    static func fixtureURL(_ name: String) throws -> URL {
        try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures/flickr"))
    }

    static func readFixture(_ name: String) throws -> CollectedFeed {
        try read(url: fixtureURL(name))
    }

    static func read(url: URL) throws -> CollectedFeed {
        var feed = CollectedFeed()
        feed.summary = try FlickrFeedReader.read(contentsOf: url, photo: { feed.photos.append($0) },
                                                 place: { feed.places.append($0) })
        return feed
    }

    static func read(_ text: String) throws -> CollectedFeed {
        try read(data: Data(text.utf8))
    }

    static func read(data: Data) throws -> CollectedFeed {
        var feed = CollectedFeed()
        feed.summary = try FlickrFeedReader.read(data: data, photo: { feed.photos.append($0) },
                                                 place: { feed.places.append($0) })
        return feed
    }

    /// The `FeedError` that reading `data` throws, or `nil` if it reads.
    static func error(_ data: Data) -> FeedError? {
        do {
            _ = try read(data: data)
            return nil
        } catch let error as FeedError {
            return error
        } catch {
            Issue.record("unexpected error type: \(error)")
            return nil
        }
    }

    static func error(_ text: String) -> FeedError? {
        error(Data(text.utf8))
    }

    /// `yyyy-MM-dd HH:mm:ss` in UTC.
    static func date(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.date(from: text)
    }

    /// A well-formed search response around `photos` (XML photo elements).
    static func xml(_ photos: String) -> String {
        """
        <?xml version="1.0" encoding="utf-8" ?>
        <rsp stat="ok">
        <photos page="1" pages="1" perpage="100" total="1">
        \(photos)
        </photos>
        </rsp>
        """
    }

    /// A well-formed JSON search response around `photos` (JSON photo objects).
    static func json(_ photos: String) -> String {
        #"{"photos":{"page":1, "pages":1, "perpage":100, "total":"1", "photo":["# + photos + #"]}, "stat":"ok"}"#
    }
}
