import Foundation
import ObjectGraph
import SQLiteDB

/// A smart album as `album list` shows it: its name, its predicate as typed, and how many
/// photos match it now.
package struct SmartAlbumSummary: Sendable, Equatable {
    package var name: String
    /// The predicate as typed (`album create NAME --where PREDICATE`).
    package var predicate: String
    package var created: Date?
    /// The photos it holds now; nil when its predicate no longer runs (see `problem`).
    package var photos: Int?
    /// Why the predicate no longer runs (a store edited by hand), when it does not.
    package var problem: String?
}

/// What an album command cannot do: an unusable name, a name taken, an album that is not there.
package struct AlbumError: Error, CustomStringConvertible, Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// The name is empty, too long or holds control characters (a usage error).
        case invalidName(reason: String)
        case alreadyExists
        case notFound
    }

    package var kind: Kind
    package var name: String

    package init(_ kind: Kind, name: String) {
        self.kind = kind
        self.name = name
    }

    package var description: String {
        switch kind {
        case .invalidName(let reason): "Invalid album name \"\(name)\": \(reason)"
        case .alreadyExists: "An album \"\(name)\" already exists"
        case .notFound: "No album \"\(name)\" in the vacation"
        }
    }
}

/// Smart albums: saved predicates over a vacation's photos (README.md, "Search and smart albums"). An album keeps its
/// predicate's text, not its photos: `photos --album NAME` runs the predicate against the
/// vacation as it is now.
///
/// ```swift
/// try VacationAlbums.create(name: "Sea", predicate: "ANY tags.name == 'sea'", in: context)
/// try context.save()
/// let albums = try VacationAlbums.list(in: context)     // [SmartAlbumSummary(name: "Sea", …, photos: 12)]
/// ```
package enum VacationAlbums {
    /// The longest name, in UTF-8 bytes (as for vacation names).
    static let maximumNameBytes = 200

    /// The name as stored: NFC, and checked.
    ///
    /// - Throws: `AlbumError.invalidName` for an empty or blank name, one over 200 bytes, or one
    ///   holding control characters.
    package static func checkedName(_ name: String) throws(AlbumError) -> String {
        let normalized = name.precomposedStringWithCanonicalMapping
        if normalized.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw AlbumError(.invalidName(reason: "a name cannot be empty"), name: name)
        }
        if normalized.utf8.count > maximumNameBytes {
            throw AlbumError(.invalidName(reason: "a name can be at most \(maximumNameBytes) bytes long"), name: name)
        }
        if normalized.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw AlbumError(.invalidName(reason: "a name cannot hold control characters"), name: name)
        }
        return normalized
    }

    /// The album named `name`, or nil.
    package static func album(named name: String, in context: ObjectContext) throws -> Album? {
        try context.fetch(FetchRequest<Album>(predicate: .key("name", .equalTo, name.precomposedStringWithCanonicalMapping),
                                              limit: 1)).first
    }

    /// Makes an album in `context` (the caller saves). The predicate must run against the
    /// vacation's photos now: it is parsed, checked against the model and counted.
    ///
    /// - Throws: `AlbumError` (invalid name, name taken), `QueryError` for a predicate that does
    ///   not parse or that the model or the store refuses.
    @discardableResult
    package static func create(name: String, predicate: String, in context: ObjectContext, now: Date = Date()) throws -> Album {
        let name = try checkedName(name)
        _ = try PhotoSelection(format: predicate).count(in: context)
        if try album(named: name, in: context) != nil { throw AlbumError(.alreadyExists, name: name) }
        let album = Album(context: context)
        album.name = name
        album.predicate = predicate
        album.created = now.wholeSecondsSinceReferenceDate
        return album
    }

    /// Deletes the album `name` in `context` (the caller saves).
    ///
    /// - Throws: `AlbumError.notFound`.
    package static func delete(name: String, in context: ObjectContext) throws {
        guard let album = try album(named: name, in: context) else { throw AlbumError(.notFound, name: name) }
        context.delete(album)
    }

    /// Every album, by name (ignoring case, then exactly), each with its photos counted now.
    package static func list(in context: ObjectContext) throws -> [SmartAlbumSummary] {
        let albums = try context.fetch(FetchRequest<Album>())
            .sorted { ($0.name.lowercased(), $0.name) < ($1.name.lowercased(), $1.name) }
        return try albums.map { album in
            var summary = SmartAlbumSummary(name: album.name, predicate: album.predicate, created: album.created)
            do {
                summary.photos = try PhotoSelection(format: album.predicate).count(in: context)
            } catch let error as QueryError {
                summary.problem = error.message
            }
            return summary
        }
    }

    /// The selection an album stands for.
    ///
    /// - Throws: `AlbumError.notFound`, `QueryError` when its predicate no longer parses.
    package static func selection(ofAlbum name: String, in context: ObjectContext) throws -> PhotoSelection {
        guard let album = try album(named: name, in: context) else { throw AlbumError(.notFound, name: name) }
        do {
            return try PhotoSelection(format: album.predicate)
        } catch {
            throw QueryError(message: "album \"\(album.name)\": \(error.message)")
        }
    }
}

extension PhotoSelection {
    /// Photos in both selections.
    package func and(_ other: PhotoSelection) -> PhotoSelection {
        switch (predicate, other.predicate) {
        case (nil, _): other
        case (_, nil): self
        case (let left?, let right?): PhotoSelection(predicate: .and([left, right]))
        }
    }

    /// How many photos the selection holds now.
    ///
    /// - Throws: `QueryError` for a predicate the model or the store refuses.
    package func count(in context: ObjectContext) throws -> Int {
        do {
            return try context.count(for: FetchRequest<Photo>(predicate: predicate))
        } catch let error as FetchRequestError {
            throw QueryError(message: "invalid predicate: \(error)")
        } catch let error as ObjectPredicateError {
            throw QueryError(message: "invalid predicate: \(error)")
        } catch let error as SQLiteError where error.resultCode == 1 || error.resultCode == 18 {
            // As in `resolve(in:)`: a predicate SQLite cannot run (too deep, too many values).
            throw QueryError(message: "invalid predicate: the store cannot run it: \(error.message)")
        }
    }
}

extension Date {
    /// Whole seconds, as every date of the CLI's JSON is written.
    var wholeSecondsSinceReferenceDate: Date {
        Date(timeIntervalSinceReferenceDate: timeIntervalSinceReferenceDate.rounded(.down))
    }
}
