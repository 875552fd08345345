/// Reads Flickr JSON and JSONP feeds on top of ``JSONTokenizer``: one record at a time,
/// each delivered as soon as its object closes.
struct JSONFeedParser {
    private var tokens: JSONTokenizer
    private let format: FeedFormat
    private var content: FeedContent?
    private var stat: String?
    private var failureCode: Int?
    private var failureMessage: String?
    /// What an unclaimed kind of response holds, found in a member: thrown once the whole
    /// document is read, since `stat` (a failure wins) may come last.
    private var refusal: String?
    /// The first member of the top object that holds an object or array of no kind read, to name
    /// what the response holds.
    private var otherMember: String?

    /// Reads a whole JSON or JSONP feed, delivering records to `sink`.
    static func parse(_ input: FeedInput, format: FeedFormat, into sink: inout FeedSink) throws -> FeedContent {
        var parser = JSONFeedParser(tokens: JSONTokenizer(input: input, format: format), format: format)
        return try parser.readDocument(into: &sink)
    }

    private init(tokens: JSONTokenizer, format: FeedFormat) {
        self.tokens = tokens
        self.format = format
    }

    private var isFailure: Bool { stat == "fail" }

    // MARK: Document structure

    private mutating func readDocument(into sink: inout FeedSink) throws -> FeedContent {
        try tokens.skipByteOrderMark()
        if format == .jsonp { try tokens.readCallbackOpening() }
        let rootOffset = tokens.offset
        guard try tokens.next() == .beginObject else {
            throw FeedError(.wrongRoot, format: format, at: .byteOffset(rootOffset), "expected a JSON object at the top")
        }
        while try tokens.next() == .key {
            try readRootMember(into: &sink)
        }
        try tokens.finishDocument()
        if isFailure || failureCode != nil && stat == nil {
            throw FeedError(.flickrFailure(code: failureCode ?? 0,
                                           message: failureMessage ?? "Flickr reported a failure without a message"),
                            format: format)
        }
        if let stat, stat != "ok" {
            throw FeedError(.wrongRoot, format: format, "\"stat\" is \"\(stat)\": expected \"ok\" or \"fail\"")
        }
        if let refusal { throw FeedError.unclaimed(refusal, format: format) }
        guard let content else {
            if stat != nil, let otherMember {
                throw FeedError.unclaimed(UnclaimedResponses.named(otherMember, format: format), format: format)
            }
            throw FeedError(.wrongRoot, format: format, "the response holds no photos, photo or places")
        }
        return content
    }

    /// One member of the top object; the ones that are no content are skipped.
    private mutating func readRootMember(into sink: inout FeedSink) throws {
        if tokens.textEquals("stat") {
            stat = try readScalar()
        } else if tokens.textEquals("code") {
            failureCode = try readScalar().flatMap { Int($0) }
        } else if tokens.textEquals("message") {
            failureMessage = try readScalar()
        } else if isFailure {
            // Nothing of a failure response reaches the caller.
            try tokens.skipValue()
        } else if tokens.textEquals("photos") {
            content = content ?? .photos
            try readList(itemKey: "photo", into: &sink) { parser, sink in
                try sink.deliver(parser.readPhotoObject())
            }
        } else if tokens.textEquals("photoset") || tokens.textEquals("gallery") {
            let isPhotoset = tokens.textEquals("photoset")
            let members = try readList(itemKey: "photo", into: &sink) { parser, sink in
                try sink.deliver(parser.readPhotoObject())
            }
            // photosets.getPhotos pages its photos; photosets.getInfo and galleries.getInfo hold
            // an object of the same name with a title and description and no photos.
            if let members, !members.contains("photo") && members.isDisjoint(with: UnclaimedResponses.pagingNames) {
                refusal = refusal ?? (isPhotoset ? UnclaimedResponses.photosetInfo : UnclaimedResponses.galleryInfo)
            } else {
                content = content ?? .photos
            }
        } else if tokens.textEquals("photo") {
            if try expectRecordObject(into: &sink) {
                let record = try readPhotoObject()
                if record.hasInfoStructure {
                    content = content ?? .singlePhoto
                    try sink.deliver(record)
                } else {
                    refusal = refusal ?? record.otherKind
                }
            } else {
                content = content ?? .singlePhoto
            }
        } else if tokens.textEquals("places") {
            let members = try readList(itemKey: "place", into: &sink) { parser, sink in
                try sink.deliver(parser.readPlaceObject())
            }
            if let members, let placesRefusal = UnclaimedResponses.topPlacesRefusal(members) {
                refusal = refusal ?? placesRefusal
            } else {
                content = content ?? .places
            }
        } else {
            let name = tokens.textString
            switch try tokens.next() {
            case .beginObject, .beginArray:
                otherMember = otherMember ?? name
                try tokens.skipRestOfContainer()
            default:
                break
            }
        }
    }

    /// `{"page":1, …, "photo":[{…}, {…}]}`: calls `readItem` after each item's `{`.
    /// - Returns: the names of the list object's members, or `nil` when it is not an object.
    @discardableResult
    private mutating func readList(
        itemKey: StaticString, into sink: inout FeedSink,
        _ readItem: (inout JSONFeedParser, inout FeedSink) throws -> Void
    ) throws -> Set<String>? {
        let opening = try tokens.next()
        guard opening == .beginObject else {
            if opening == .beginArray { try tokens.skipRestOfContainer() }
            sink.skip(id: nil, reason: "the \(itemKey) list is not a JSON object")
            return nil
        }
        var members: Set<String> = []
        var paging: FeedPaging?
        defer {
            // A photo list's paging (the first list's, should a response hold two).
            if itemKey.description == "photo", sink.paging == nil { sink.paging = paging }
        }
        while try tokens.next() == .key {
            let name = tokens.textString
            members.insert(name)
            guard tokens.textEquals(itemKey) else {
                if UnclaimedResponses.pagingNames.contains(name) {
                    if let value = try readScalar() { paging = paging ?? FeedPaging(); paging?.set(name, value) }
                } else {
                    try tokens.skipValue()
                }
                continue
            }
            switch try tokens.next() {
            case .beginArray:
                while true {
                    let token = try tokens.next()
                    if token == .endArray { break }
                    if token == .beginObject {
                        try readItem(&self, &sink)
                    } else {
                        sink.skip(id: nil, reason: "the \(itemKey) record is not a JSON object")
                        if token == .beginArray { try tokens.skipRestOfContainer() }
                    }
                }
            case .beginObject:
                // A list of one, written as a bare object.
                try readItem(&self, &sink)
            case .literalTrue, .literalFalse, .null, .string, .number, .key, .endObject, .endArray:
                sink.skip(id: nil, reason: "\"\(itemKey)\" is not a list of records")
            }
        }
        return members
    }

    /// Reads the `{` of a record; a value of any other kind is skipped and reported.
    private mutating func expectRecordObject(into sink: inout FeedSink) throws -> Bool {
        let token = try tokens.next()
        if token == .beginObject { return true }
        if token == .beginArray { try tokens.skipRestOfContainer() }
        sink.skip(id: nil, reason: "the photo record is not a JSON object")
        return false
    }

    // MARK: Records

    /// A photo object, after its `{`: search extras as members; getInfo's nested objects.
    private mutating func readPhotoObject() throws -> PhotoRecord {
        var record = PhotoRecord()
        while try tokens.next() == .key {
            guard let field = lookup(FlickrKeys.photo) else {
                try tokens.skipValue()
                continue
            }
            try readField(field, into: &record) { parser, nested, record in
                record.noteContainer(field)
                switch field {
                case .owner: try parser.readMembers(FlickrKeys.owner, into: &record)
                case .dates: try parser.readMembers(FlickrKeys.dates, into: &record)
                case .location: try parser.readMembers(FlickrKeys.location, into: &record)
                case .tags: try parser.readTagsObject(into: &record)
                default: try parser.readContent(of: nested, into: &record)
                }
            }
        }
        return record
    }

    /// A top-places entry, after its `{`.
    private mutating func readPlaceObject() throws -> PlaceRecord {
        var record = PlaceRecord()
        while try tokens.next() == .key {
            guard let field = lookup(FlickrKeys.place) else {
                try tokens.skipValue()
                continue
            }
            switch try tokens.next() {
            case .string, .number:
                tokens.text.withUnsafeBytes { record.set(field, $0) }
            case .beginObject, .beginArray:
                try tokens.skipRestOfContainer()
            default:
                break
            }
        }
        return record
    }

    /// Reads a member's value: text (a string or a number) is stored, `null` and booleans
    /// are ignored, an object goes to `readObject` (after its `{`), an array is skipped.
    private mutating func readField(
        _ field: FeedKey, into record: inout PhotoRecord,
        readObject: (inout JSONFeedParser, FeedKey, inout PhotoRecord) throws -> Void
    ) throws {
        switch try tokens.next() {
        case .string, .number:
            tokens.text.withUnsafeBytes { record.set(field, $0) }
        case .beginObject:
            try readObject(&self, field, &record)
        case .beginArray:
            // getExif's `exif` and getFavorites' `person` are arrays: they tell the response's kind.
            if field == .exif || field == .person { record.noteContainer(field) }
            try tokens.skipRestOfContainer()
        default:
            break
        }
    }

    /// Members of a nested object such as getInfo's `owner`, `dates` or `location`.
    private mutating func readMembers(_ keys: KeyTable<FeedKey>, into record: inout PhotoRecord) throws {
        while try tokens.next() == .key {
            guard let field = lookup(keys) else {
                try tokens.skipValue()
                continue
            }
            // `locality`, `region`, `country` are `{"_content": "Zagreb", …}`.
            try readField(field, into: &record) { parser, nested, record in
                try parser.readContent(of: nested, into: &record)
            }
        }
    }

    /// `{"_content": "text", …}`: the text goes to `field`.
    private mutating func readContent(of field: FeedKey, into record: inout PhotoRecord) throws {
        while try tokens.next() == .key {
            if tokens.textEquals("_content") {
                try readField(field, into: &record) { parser, _, _ in try parser.tokens.skipRestOfContainer() }
            } else {
                try tokens.skipValue()
            }
        }
    }

    /// getInfo's `{"tag": [{"raw": "Luka", "_content": "luka"}, …]}`.
    private mutating func readTagsObject(into record: inout PhotoRecord) throws {
        while try tokens.next() == .key {
            guard tokens.textEquals("tag") else {
                try tokens.skipValue()
                continue
            }
            switch try tokens.next() {
            case .beginArray:
                tagList: while true {
                    switch try tokens.next() {
                    case .endArray: break tagList
                    case .beginObject: try readContent(of: .tag, into: &record)
                    case .string, .number: tokens.text.withUnsafeBytes { record.set(.tag, $0) }
                    case .beginArray: try tokens.skipRestOfContainer()
                    default: break
                    }
                }
            case .beginObject:
                try readContent(of: .tag, into: &record)
            case .string, .number:
                tokens.text.withUnsafeBytes { record.set(.tag, $0) }
            default:
                break
            }
        }
    }

    // MARK: Helpers

    private func lookup(_ keys: KeyTable<FeedKey>) -> FeedKey? {
        tokens.text.withUnsafeBytes { keys.lookup($0) }
    }

    /// A member's value as text when it is a string or a number; containers are skipped.
    private mutating func readScalar() throws -> String? {
        switch try tokens.next() {
        case .string, .number: return tokens.textString
        case .beginObject, .beginArray:
            try tokens.skipRestOfContainer()
            return nil
        default: return nil
        }
    }
}
