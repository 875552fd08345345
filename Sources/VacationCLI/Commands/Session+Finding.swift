import CommandLineKit
import Documents
import Foundation
import ObjectGraph
import Vacations

/// `search`, `album create|list|delete` (README.md, "Search and smart albums").
extension Session {
    func search(_ text: String, limit: Int?) throws -> Int32 {
        // The words are checked before the vacation is opened: text without words is a usage
        // error whatever the vacation.
        do {
            _ = try SearchQuery(text)
        } catch {
            throw CommandFailure.usage("Cannot search for \"\(text)\": \(error.message)",
                                       hint: "Give one or more words; word* matches every word that starts with word.")
        }
        return try reading(globals.vacation) { context, _ in
            try renderPhotos(try VacationSearch.photos(matching: text, limit: limit, in: context), from: context)
            return ExitCode.success
        }
    }

    func albumCreate(_ name: String, predicate: String) throws -> Int32 {
        let vacation = try vacationName()
        // The name and the predicate's syntax are checked before the vacation is opened.
        try albumFailures(vacation: vacation) { _ = try VacationAlbums.checkedName(name) }
        _ = try PhotoSelection(format: predicate)
        let document = try library.open(vacation, access: .write)
        defer { try? document.close() }
        let context = try document.newRootContext(name: "album")
        let album = try albumFailures(vacation: vacation) {
            try VacationAlbums.create(name: name, predicate: predicate, in: context, now: environment.now())
        }
        try context.save()
        try document.save()
        let photos = try PhotoSelection(format: predicate).count(in: context)
        if json {
            emit(.object([("vacation", .string(vacation)), ("name", .string(album.name)), ("where", .string(album.predicate)),
                          ("photos", .integer(Int64(photos)))]))
        } else {
            say("Created the album \"\(album.name)\" (\(Rendering.plural(photos, "photo")) now)")
        }
        return ExitCode.success
    }

    func albumList() throws -> Int32 {
        try reading(globals.vacation) { context, _ in
            let albums = try VacationAlbums.list(in: context)
            for album in albums {
                if let problem = album.problem { warn("album \"\(album.name)\": \(problem)") }
            }
            if json {
                emit(.array(albums.map { album in
                    .object([("name", .string(album.name)), ("where", .string(album.predicate)),
                             ("photos", album.photos.map { .integer(Int64($0)) } ?? .null)])
                }))
                return ExitCode.success
            }
            var table = TextTable(columns: [.init("ALBUM", maximumWidth: 32), .init("PHOTOS", alignment: .right),
                                            .init("WHERE", maximumWidth: 60)])
            for album in albums { table.addRow([album.name, album.photos.map(String.init) ?? "?", album.predicate]) }
            if !albums.isEmpty { say(table.rendered()) }
            return ExitCode.success
        }
    }

    func albumDelete(_ name: String) throws -> Int32 {
        let vacation = try vacationName()
        let document = try library.open(vacation, access: .write)
        defer { try? document.close() }
        let context = try document.newRootContext(name: "album")
        try albumFailures(vacation: vacation) { try VacationAlbums.delete(name: name, in: context) }
        try context.save()
        try document.save()
        if json {
            emit(.object([("vacation", .string(vacation)), ("deleted", .string(name.precomposedStringWithCanonicalMapping))]))
        } else {
            say("Deleted the album \"\(name.precomposedStringWithCanonicalMapping)\"")
        }
        return ExitCode.success
    }

    /// Runs `body`, turning album errors into the contract's failures: an unusable name 64, a
    /// name taken 1, an unknown album 66.
    func albumFailures<T>(vacation: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as AlbumError {
            switch error.kind {
            case .invalidName(let reason): throw CommandFailure.usage("Invalid album name \"\(error.name)\": \(reason)")
            case .alreadyExists:
                throw CommandFailure.failed("An album \"\(error.name)\" already exists in the vacation \"\(vacation)\"",
                                            hint: "Nothing was changed. Delete it first, or choose another name.")
            case .notFound:
                throw CommandFailure.notFound("No album \"\(error.name)\" in the vacation \"\(vacation)\"",
                                              hint: "Run 'vacation album list' to see the albums.")
            }
        }
    }

    /// The photos as `photos` shows them: JSON objects, or a table for people.
    /// Prints photos as `photos` does; a fault that failed to load while rendering is an error,
    /// never a photo shown without its values.
    func renderPhotos(_ photos: [Photo], from context: ObjectContext) throws {
        if json {
            let value = JSONValue.array(photos.map(Rendering.json))
            try context.throwIfLoadFailed()
            emit(value)
            return
        }
        var table = TextTable(columns: [.init("ID"), .init("TITLE", maximumWidth: 40), .init("PLACE", maximumWidth: 32),
                                        .init("TAGS", maximumWidth: 32), .init("TAKEN")])
        for photo in photos {
            table.addRow([photo.unique, photo.displayTitle, photo.place?.name ?? "", photo.tagNames.joined(separator: ", "),
                          Rendering.shortDate(photo.dateTaken)])
        }
        try context.throwIfLoadFailed()
        if !photos.isEmpty { say(table.rendered()) }
    }
}
