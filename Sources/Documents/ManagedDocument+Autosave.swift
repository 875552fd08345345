import Foundation
import ObjectGraph

// Autosave, debounced: a save runs `autosaveDelay` after the last change that the document
// hears of, so a burst of edits makes one save.
//
// The document hears of a change when the view context saves into the writer or merges a save
// made elsewhere (`observeChanges`), and when the caller says so with `noteChanges()`. Edits
// that are not saved into the writer make no notification (the object graph reports changes
// only on save), so a light check also runs every `autosaveDelay` and starts the countdown
// when it finds unsaved changes: those are saved within two delays.
//
// A failed autosave leaves `savingError` in the state, keeps the changes, and is retried after
// a growing pause (the delay, doubled after each further failure, at most a minute). While `inConflict`, autosave
// waits for `resolveConflicts(_:)` or `revert()`: retrying cannot settle a conflict.
extension ManagedDocument {
    /// The longest pause between retries of a failing autosave.
    static let longestRetryPause = Duration.seconds(60)

    /// Tells the document that something changed, so that autosave saves it soon
    /// (`UIDocument.updateChangeCount(.done)`).
    ///
    /// ```swift
    /// photo.title = "Sunset"
    /// document.noteChanges()
    /// ```
    public func noteChanges() {
        guard let session, session.mode == .readWrite, !isSaving, let delay = configuration.autosaveDelay else { return }
        scheduleAutosave(after: delay)
    }

    /// Starts autosave for a document just opened for writing.
    func startAutosave(observing viewContext: ObjectContext) {
        session?.changeObservation = viewContext.observeChanges { [weak self] changes in
            guard changes.reason != .discarded else { return }
            // The view context belongs to the main actor, where it calls its observers.
            MainActor.assumeIsolated { self?.noteChanges() }
        }
        guard let delay = configuration.autosaveDelay else { return }
        changeWatchTask = Task { [weak self] in
            while !Task.isCancelled {
                do { try await Task.sleep(for: delay) } catch { return }
                guard let self else { return }
                // Only the view context: it is ours, so looking costs no lock and no wait.
                if autosaveTask == nil && !state.contains(.inConflict) && session?.container.viewContext.hasChanges == true {
                    scheduleAutosave(after: delay)
                }
            }
        }
    }

    func stopAutosave() {
        autosaveTask?.cancel()
        autosaveTask = nil
        changeWatchTask?.cancel()
        changeWatchTask = nil
    }

    /// (Re)starts the countdown to the next autosave: a change during the countdown restarts it.
    func scheduleAutosave(after delay: Duration) {
        autosaveTask?.cancel()
        autosaveTask = Task { [weak self] in
            do { try await Task.sleep(for: delay) } catch { return }
            // A countdown whose time ran out while the main actor was busy may be cancelled by a
            // later change before it gets to run: it must not save then.
            guard !Task.isCancelled else { return }
            self?.autosave()
        }
    }

    /// Saves now if anything is unsaved; on failure, schedules a retry.
    func autosave() {
        autosaveTask = nil
        guard let session, session.mode == .readWrite, !state.contains(.inConflict),
              hasUnsavedChanges || isMetadataStale else { return }
        do {
            try saveChanges()
        } catch {
            guard !state.contains(.inConflict), let delay = configuration.autosaveDelay else { return }
            failedAutosaves += 1
            let factor = 1 << min(failedAutosaves - 1, 16)
            scheduleAutosave(after: min(delay * factor, Self.longestRetryPause))
        }
    }
}
