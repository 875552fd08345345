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
package struct PhotoFields: OptionSet, Sendable, Hashable {
    package let rawValue: UInt16

    package init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    package static let title = PhotoFields(rawValue: 1 << 0)
    /// The description (`description` extra, getInfo's `<description>`), kept as `subtitle`.
    package static let subtitle = PhotoFields(rawValue: 1 << 1)
    /// The owner's name (`ownername`, getInfo's `username`). The user id alone stands in for a
    /// name the photo lacks; it never replaces one.
    package static let owner = PhotoFields(rawValue: 1 << 2)
    package static let dateTaken = PhotoFields(rawValue: 1 << 3)
    package static let dateUploaded = PhotoFields(rawValue: 1 << 4)
    /// Latitude and longitude, as one.
    package static let coordinates = PhotoFields(rawValue: 1 << 5)
    package static let imageURL = PhotoFields(rawValue: 1 << 6)
    package static let thumbnailURL = PhotoFields(rawValue: 1 << 7)
    package static let media = PhotoFields(rawValue: 1 << 8)
    package static let tags = PhotoFields(rawValue: 1 << 9)

    package static let all: PhotoFields = [
        .title, .subtitle, .owner, .dateTaken, .dateUploaded, .coordinates, .imageURL, .thumbnailURL, .media, .tags,
    ]
}
