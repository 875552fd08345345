/// Where the parsers deliver records: the caller's callbacks, plus the running counts and
/// problems that become the ``FeedSummary``.
struct FeedSink {
    let photo: (FlickrPhoto) throws -> Void
    let place: (FlickrPlace) throws -> Void
    var photoCount = 0
    var placeCount = 0
    var problems: [FeedProblem] = []
    /// The paging of the (first) photo list, when it has any.
    var paging: FeedPaging?

    mutating func deliver(_ record: PhotoRecord) throws {
        switch record.finish() {
        case let .photo(photo):
            try self.photo(photo)
            photoCount += 1
        case let .problem(problem):
            problems.append(problem)
        }
    }

    mutating func deliver(_ record: PlaceRecord) throws {
        switch record.finish() {
        case let .place(place):
            try self.place(place)
            placeCount += 1
        case let .problem(problem):
            problems.append(problem)
        }
    }

    mutating func skip(id: String?, reason: String) {
        problems.append(FeedProblem(id: id, reason: reason))
    }
}
