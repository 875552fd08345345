import ObjectGraphTestModels
import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

@Suite("Fetching: requests, order, windows, pending changes")
struct FetchBasicsTests {
    private func seed(_ store: TestStore) throws {
        let context = store.context()
        for (index, title) in ["Tram 28", "Alfama", "Belém", "Cais", "Douro"].enumerated() {
            let photo = Photo(context: context)
            photo.unique = String(index + 1)
            photo.title = title
            photo.dateTaken = Date(timeIntervalSinceReferenceDate: Double(index) * 3600)
        }
        try context.save()
    }

    @Test("fetches by equality, sorts by a key, windows with limit and offset")
    func basics() throws {
        let store = try TestStore()
        try seed(store)
        let context = store.context()
        let one = try context.fetch(FetchRequest<Photo>(predicate: "unique == %@", "3"))
        #expect(one.map(\.title) == ["Belém"])
        let sorted = try context.fetch(FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("title")]))
        #expect(sorted.map(\.title) == ["Alfama", "Belém", "Cais", "Douro", "Tram 28"])
        let window = try context.fetch(FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("dateTaken", ascending: false)], limit: 2, offset: 1))
        #expect(window.map(\.unique) == ["4", "3"])
        #expect(try context.count(for: FetchRequest<Photo>()) == 5)
        #expect(try context.count(for: FetchRequest<Photo>(limit: 2, offset: 4)) == 1)
        #expect(try context.fetchObjectIDs(FetchRequest<Photo>(predicate: "unique IN %@", ["1", "5", "9"])).count == 2)
    }

    @Test("fetched objects are the context's registered instances")
    func uniquing() throws {
        let store = try TestStore()
        try seed(store)
        let context = store.context()
        let first = try context.fetch(FetchRequest<Photo>(predicate: "unique == %@", "1"))
        let again = try context.fetch(FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("unique")]))
        #expect(first[0] === again[0])
    }

    @Test("unsaved inserts, updates and deletes are honoured, and can be ignored")
    func pendingChanges() throws {
        let store = try TestStore()
        try seed(store)
        let context = store.context()
        let inserted = Photo(context: context)
        inserted.unique = "6"
        inserted.title = "Alcântara"
        let photos = try context.fetch(FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("title")]))
        photos.first { $0.title == "Douro" }?.title = "Aveiro"
        context.delete(try #require(photos.first { $0.title == "Cais" }))
        let request = FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("title")], limit: 3)
        #expect(try context.fetch(request).map(\.title) == ["Alcântara", "Alfama", "Aveiro"])
        #expect(try context.count(for: FetchRequest<Photo>()) == 5)
        var storeOnly = FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("title")])
        storeOnly.includesPendingChanges = false
        #expect(try context.fetch(storeOnly).map(\.unique) == ["2", "3", "4", "5", "1"])
        let byTitle = try context.fetch(FetchRequest<Photo>(predicate: "title == %@", "Douro"))
        #expect(byTitle.isEmpty)
    }

    @Test("subentities are included unless the request says otherwise")
    func subentities() throws {
        let store = try TestStore()
        let context = store.context()
        let picture = Picture(context: context)
        picture.caption = "p"
        let clip = Clip(context: context)
        clip.caption = "c"
        try context.save()
        #expect(try context.count(for: FetchRequest<Media>()) == 2)
        #expect(try context.fetch(FetchRequest<Picture>()).map(\.caption) == ["p"])
        var only = FetchRequest<Media>()
        only.includesSubentities = false
        #expect(try context.count(for: only) == 0)
    }

    @Test("unknown entities and unsubstituted variables are refused before any SQL")
    func errors() throws {
        let store = try TestStore()
        let context = store.context()
        #expect(throws: FetchRequestError.self) { try context.fetch(FetchRequest<ManagedObject>(entityName: "Nope")) }
        let error = #expect(throws: FetchRequestError.self) { try context.fetch(FetchRequest<Photo>(predicate: "unique == $ID")) }
        #expect(error?.description == "the predicate's variable $ID has no value; substitute it first")
    }

    @Test("a child context sees its parent's unsaved changes, and its parent sees the child's after it saves")
    func childSeesParent() throws {
        let store = try TestStore()
        try seed(store)
        let parent = store.context()
        let parentPhoto = Photo(context: parent)
        parentPhoto.unique = "7"
        parentPhoto.title = "Sintra"
        let child = parent.newChildContext()
        #expect(try child.fetch(FetchRequest<Photo>(predicate: "unique == %@", "7")).first?.title == "Sintra")
        let childPhoto = try #require(child.fetch(FetchRequest<Photo>(predicate: "unique == %@", "1")).first)
        childPhoto.title = "Tram 15"
        try child.save()
        #expect(try store.rows("SELECT count(*) FROM ZPHOTO WHERE ZTITLE = 'Tram 15'") == [[.integer(0)]])
        #expect(try parent.fetch(FetchRequest<Photo>(predicate: "unique == %@", "1")).first?.title == "Tram 15")
        try parent.save()
        #expect(try store.rows("SELECT ZUNIQUE FROM ZPHOTO WHERE ZTITLE IN ('Tram 15', 'Sintra') ORDER BY 1") == [[.text("1")], [.text("7")]])
    }
}

@Suite("Relationship prefetching keeps queries bounded")
struct PrefetchTests {
    @Test("touching photo.place.name over 10,000 photos takes a bounded number of queries, and two with prefetching")
    func bounded() throws {
        let store = try TestStore()
        let context = store.context()
        let places = (0..<50).map { index -> Place in
            let place = Place(context: context)
            place.name = "Place \(index)"
            return place
        }
        for index in 0..<10_000 {
            let photo = Photo(context: context)
            photo.unique = String(index)
            photo.place = places[index % places.count]
        }
        try context.save()
        let recorder = SQLTraceRecorder()
        try store.sql { recorder.attach(to: $0) }

        var request = FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("unique")])
        request.relationshipKeyPathsForPrefetching = ["place"]
        let prefetched = store.context()
        let names = try prefetched.fetch(request).map { $0.place?.name ?? "" }
        #expect(Set(names).count == 50)
        #expect(recorder.selects.count == 2)

        recorder.clear()
        let plain = store.context()
        let again = try plain.fetch(FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("unique")])).map { $0.place?.name ?? "" }
        #expect(again == names)
        // One query for the photos; the 50 place faults fire together, a batch at a time.
        #expect(recorder.selects.count == 2)
    }
}
