/// The photo fields a Flickr response may or may not carry: what tells "absent" (unknown,
/// leave the stored value alone) from "present but empty" (clear it), ARCHITECTURE.md §3.
///
/// One member per stored attribute of ``Photo`` that a feed fills; latitude and longitude go
/// together as ``coordinates``. A photo's place is not here: a record that names no place
/// keeps the photo's place, whatever the response.
///
/// ```swift
/// let bare = DraftRules().draft(from: FlickrPhoto(id: "1", title: "Sunset"))
/// bare.unknown.contains(.tags)   // true: visiting keeps the photo's tags
/// ```
public struct PhotoFields: OptionSet, Sendable, Hashable {
    public let rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    public static let title = PhotoFields(rawValue: 1 << 0)
    /// The description (`description` extra, getInfo's `<description>`), kept as `subtitle`.
    public static let subtitle = PhotoFields(rawValue: 1 << 1)
    /// The owner's name (`ownername`, getInfo's `username`). The user id alone stands in for a
    /// name the photo lacks; it never replaces one.
    public static let owner = PhotoFields(rawValue: 1 << 2)
    public static let dateTaken = PhotoFields(rawValue: 1 << 3)
    public static let dateUploaded = PhotoFields(rawValue: 1 << 4)
    /// Latitude and longitude, as one.
    public static let coordinates = PhotoFields(rawValue: 1 << 5)
    public static let imageURL = PhotoFields(rawValue: 1 << 6)
    public static let thumbnailURL = PhotoFields(rawValue: 1 << 7)
    public static let media = PhotoFields(rawValue: 1 << 8)
    public static let tags = PhotoFields(rawValue: 1 << 9)

    public static let all: PhotoFields = [
        .title, .subtitle, .owner, .dateTaken, .dateUploaded, .coordinates, .imageURL, .thumbnailURL, .media, .tags,
    ]
}
