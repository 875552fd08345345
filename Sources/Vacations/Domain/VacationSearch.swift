import Foundation
import ObjectGraph

/// `vacation search`: full text over the photos' titles, descriptions, owners, tags and place
/// names, through the object graph's search index (`SearchQuery` for the language).
///
/// ```swift
/// let photos = try VacationSearch.photos(matching: "belem lis*", limit: 20, in: context)
/// ```
package enum VacationSearch {
    /// The photos whose text holds every word, best match first (bm25), then by date taken
    /// (photos without one first, as `photos` sorts them), then in the order they joined the
    /// vacation. Their places and tags come loaded.
    ///
    /// - Throws: `QueryError` for text without words.
    package static func photos(matching text: String, limit: Int? = nil, in context: ObjectContext) throws -> [Photo] {
        var request: SearchRequest<Photo>
        do {
            request = try SearchRequest<Photo>(text, sortedBy: [ObjectSortDescriptor("dateTaken")], limit: limit)
        } catch {
            throw QueryError(message: error.message)
        }
        request.relationshipKeyPathsForPrefetching = ["place", "tags"]
        return try context.search(request)
    }
}
