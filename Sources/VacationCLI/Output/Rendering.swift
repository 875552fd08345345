import CommandLineKit
import Foundation
import Vacations

/// How the CLI shows things: JSON objects with the contract's keys, and text for people.
enum Rendering {
    /// A photo as `photos --json` and `show --json` give it.
    static func json(_ photo: Photo) -> JSONValue {
        .object([
            ("id", .string(photo.unique)),
            ("title", .string(photo.displayTitle)),
            ("subtitle", .string(photo.subtitle)),
            ("imageURL", .string(photo.imageURL)),
            ("thumbnailURL", .string(photo.thumbnailURL)),
            ("place", .string(photo.place?.name)),
            ("tags", .array(photo.tagNames.map { .string($0) })),
            ("dateTaken", .date(photo.dateTaken)),
            ("dateUploaded", .date(photo.dateUploaded)),
            ("owner", .string(photo.owner)),
            ("latitude", .number(photo.latitude)),
            ("longitude", .number(photo.longitude)),
            ("media", .string(photo.media)),
            ("visited", .date(photo.visited)),
        ])
    }

    /// `2023-04-01 10:15` in UTC, or "" for none.
    static func shortDate(_ date: Date?) -> String {
        guard let date else { return "" }
        let full = JSONValue.formatDate(date)
        return String(full.prefix(16)).replacingOccurrences(of: "T", with: " ")
    }

    static func day(_ date: Date?) -> String {
        guard let date else { return "" }
        return String(JSONValue.formatDate(date).prefix(10))
    }

    /// `1.2 MB`, `340 KB`, `12 B`.
    static func size(_ bytes: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: value < 10 ? "%.1f %@" : "%.0f %@", value, units[unit])
    }

    static func plural(_ count: Int, _ word: String) -> String {
        "\(count) \(word)\(count == 1 ? "" : "s")"
    }
}
