import CommandLineKit
import Documents
import Foundation
import ObjectGraph
import Vacations

/// `photos`, `show`, `tags`, `places`. Each checks that everything it read loaded
/// (`throwIfLoadFailed()`) before it prints: a failed load reads as empty and must not be shown.
extension Session {
    func photos(_ options: VacationCommand.PhotosOptions) throws -> Int32 {
        let query = PhotoQuery(tag: options.tag, place: options.place, predicate: options.predicate,
                               sortKeys: options.sortKeys, descending: options.descending, limit: options.limit,
                               album: options.album)
        let name = try vacationName()
        return try reading(name) { context, _ in
            try renderPhotos(try albumFailures(vacation: name) { try VacationQueries.photos(query, in: context) }, from: context)
            return ExitCode.success
        }
    }

    func show(_ id: String) throws -> Int32 {
        let name = try vacationName()
        return try reading(name) { context, document in
            guard FlickrNames.canonicalID(id) != nil, let photo = try VacationQueries.photo(id: id, in: context) else {
                throw CommandFailure.notFound("No photo \(id) in the vacation \"\(name)\"")
            }
            let thumbnailFile = thumbnailFile(of: photo.unique, in: document)
            if json {
                guard case .object(let members) = Rendering.json(photo) else { return ExitCode.success }
                try context.throwIfLoadFailed()
                emit(.object(members + [("thumbnailFile", .string(thumbnailFile))]))
                return ExitCode.success
            }
            var table = TextTable(columns: [.init(""), .init("")], showsHeader: false)
            let rows: [(String, String?)] = [
                ("ID", photo.unique), ("Title", photo.displayTitle), ("Description", photo.subtitle),
                ("Place", photo.place?.name), ("Tags", photo.tagNames.isEmpty ? nil : photo.tagNames.joined(separator: ", ")),
                ("Taken", photo.dateTaken.map { Rendering.shortDate($0) }), ("Uploaded", photo.dateUploaded.map { Rendering.shortDate($0) }),
                ("Owner", photo.owner), ("Location", photo.latitude.flatMap { lat in photo.longitude.map { "\(lat), \($0)" } }),
                ("Media", photo.media), ("Image", photo.imageURL), ("Thumbnail", photo.thumbnailURL),
                ("Thumbnail file", thumbnailFile),
                ("Visited", photo.visited.map { Rendering.shortDate($0) }),
            ]
            for (label, value) in rows {
                // Descriptions may span lines; show the first, the JSON form keeps them all.
                if let value, !value.isEmpty { table.addRow([label, value.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""]) }
            }
            try context.throwIfLoadFailed()
            say(table.rendered())
            return ExitCode.success
        }
    }

    func tags() throws -> Int32 {
        try reading(globals.vacation) { context, _ in
            let tags = try VacationQueries.tagCounts(in: context)
            if json {
                // A loop, not `map`: a closure made here is main-actor isolated, and Swift 6 checks
                // the executor at each call (about 270 instructions a tag).
                var values: [JSONValue] = []
                values.reserveCapacity(tags.count)
                for tag in tags { values.append(.object([("name", .string(tag.name)), ("count", .integer(tag.count))])) }
                let value = JSONValue.array(values)
                try context.throwIfLoadFailed()
                emit(value)
                return ExitCode.success
            }
            var table = TextTable(columns: [.init("TAG"), .init("PHOTOS", alignment: .right)])
            for tag in tags { table.addRow([tag.name, String(tag.count)]) }
            try context.throwIfLoadFailed()
            if !tags.isEmpty { say(table.rendered()) }
            return ExitCode.success
        }
    }

    func places() throws -> Int32 {
        try reading(globals.vacation) { context, _ in
            let places = try VacationQueries.places(in: context)
            if json {
                let value = JSONValue.array(places.map { place in
                    .object([("name", .string(place.name)), ("photos", .integer(Int64(place.photos))),
                             ("firstVisited", .date(place.firstVisited))])
                })
                try context.throwIfLoadFailed()
                emit(value)
                return ExitCode.success
            }
            var table = TextTable(columns: [.init("PLACE"), .init("PHOTOS", alignment: .right), .init("FIRST VISITED")])
            for place in places { table.addRow([place.name, String(place.photos), Rendering.shortDate(place.firstVisited)]) }
            try context.throwIfLoadFailed()
            if !places.isEmpty { say(table.rendered()) }
            return ExitCode.success
        }
    }
}
