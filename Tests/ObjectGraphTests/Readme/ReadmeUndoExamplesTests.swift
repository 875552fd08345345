import ObjectGraphTestModels
import Foundation
import ObjectGraph
import Testing
import TestSupport

// README.md's undo examples ("Undo in a context"; "History: `vacation log` and `vacation undo`"),
// compiled and run. Keep them in step with the README.

@Suite("README examples: undo")
struct ReadmeUndoExamplesTests {
    @Test("the undo-in-a-context example runs as written and restores what it says")
    func undoInAContext() throws {
        let store = try TestStore()
        let context = store.context()
        let lisbon = Place(context: context)
        lisbon.name = "Lisbon"
        let sea = Tag(context: context)
        sea.name = "sea"
        let photo = Photo(context: context)
        photo.unique = "1"
        photo.title = "Dawn"
        photo.tags = [sea]
        let note = Note(context: context)
        note.text = "cold"
        note.photo = photo
        try context.save()

        // README example begins.
        let undo = ContextUndoManager(levelsOfUndo: 50)
        context.undoManager = undo
        photo.title = "Sunset"
        photo.place = lisbon
        context.processPendingChanges()     // ends the event: the two changes are one group
        try undo.undo()                     // title and place are back, lisbon.photos too
        // README example pauses.
        #expect(photo.title == "Dawn" && photo.place == nil && lisbon.photos.isEmpty)
        // README example resumes.
        try undo.redo()
        undo.beginUndoGrouping(); context.delete(photo); try undo.endUndoGrouping()
        try undo.undo()                     // the photo is back with its place, tags and notes
        // README example ends.

        #expect(!photo.isDeleted && photo.title == "Sunset" && photo.place === lisbon && lisbon.photos == [photo])
        #expect(photo.tags == [sea] && photo.notes == [note])
    }

    @Test("the operation log example runs as written: one operation, undone")
    func operationLog() throws {
        let store = try TestStore(tracksHistory: true)
        let coordinator = store.coordinator
        let context = store.context()
        let place = Place(context: context)
        place.name = "Lisbon"

        // README example begins.
        try coordinator.recordOperations(author: "importer")       // every commit from now on is logged
        try context.save()
        try coordinator.beginOperation(author: "cleanup")          // the next commits are another operation
        let log = try coordinator.loggedOperations(limit: 10)      // newest first
        let newer = try coordinator.loggedOperations(since: log[0].token)   // [] until the next commit
        let undone = try coordinator.undoLatestOperation(author: "undo")   // nil when there is none
        // README example ends.

        #expect(log.map(\.author) == ["importer"] && log.first?.inserted == ["Place": 1])
        #expect(newer.isEmpty && undone?.author == "importer")
        #expect(try store.rows("SELECT count(*) FROM ZPLACE") == [[.integer(0)]])
        #expect(try coordinator.loggedOperations().map(\.author) == ["undo", "importer"])
    }
}
