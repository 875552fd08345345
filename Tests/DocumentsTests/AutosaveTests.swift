@testable import Documents
import Foundation
import ObjectGraph
import SQLiteDB
import Locking
import Testing

@MainActor
@Suite("Autosave")
struct AutosaveTests {
    /// Records when each store commit of a document is heard of (each writer save is one).
    final class CommitRecorder: Sendable {
        private final class Times: Sendable {
            let value = Locked<[ContinuousClock.Instant]>([])
        }

        private let times = Times()
        private let task: Task<Void, Never>

        init(_ coordinator: StoreCoordinator) {
            let stream = coordinator.changes()
            let times = self.times
            task = Task.detached { for await _ in stream { times.value.withLock { $0.append(.now) } } }
        }

        deinit { task.cancel() }
        var commits: [ContinuousClock.Instant] { times.value.withLock { $0 } }
    }

    /// A temporary trigger on the document's own connection that makes every insert of an entry
    /// fail, as a full disk would: the store stays untouched.
    func refuseEntryInserts(_ document: ManagedDocument) throws {
        try document.coordinator.withConnection { connection in
            try connection.execute("CREATE TEMP TRIGGER refuse BEFORE INSERT ON main.ZENTRY BEGIN SELECT RAISE(ABORT, 'disk says no'); END")
        }
    }

    func allowEntryInserts(_ document: ManagedDocument) throws {
        try document.coordinator.withConnection { try $0.execute("DROP TRIGGER temp.refuse") }
    }

    @Test("a change is saved by itself a short time after it is noted")
    func autosaveAfterNotedChange() async throws {
        let test = try TestLibrary(autosaveDelay: .milliseconds(50))
        let document = try test.library.create(named: "Paris")
        let entry = Entry(context: try document.viewContext)
        entry.text = "autosaved"
        document.noteChanges()
        #expect(try test.entryCount("Paris") == 0)
        #expect(try await eventually { try test.entryCount("Paris") == 1 })
        #expect(!document.hasUnsavedChanges)
        #expect(document.state == .normal)
        try document.close()
    }

    @Test("a burst of changes makes one save, no sooner than the delay after the last of them")
    func burstIsDebounced() async throws {
        let delay = Duration.milliseconds(200)
        let test = try TestLibrary(autosaveDelay: delay)
        let document = try test.library.create(named: "Paris")
        let recorder = CommitRecorder(try document.coordinator)
        var lastChange = ContinuousClock.now
        for index in 0..<4 {
            if index > 0 { usleep(100_000) }   // the main actor stays busy, as during a long edit
            let entry = Entry(context: try document.viewContext)
            entry.text = "edit \(index)"
            document.noteChanges()
            lastChange = .now
        }
        #expect(try await eventually { try test.entryCount("Paris") == 4 })
        try await Task.sleep(for: .milliseconds(50))
        #expect(recorder.commits.count == 1)
        // Without the debounce the first countdown, started 300 ms earlier, would have saved as
        // soon as the main actor was free, before the delay after the last change.
        #expect(recorder.commits.allSatisfy { $0 - lastChange >= delay })
        try document.close()
        #expect(recorder.commits.count == 1)
    }

    @Test("saving the view context into the writer schedules an autosave to the store")
    func viewContextSaveSchedulesAutosave() async throws {
        let test = try TestLibrary(autosaveDelay: .milliseconds(50))
        let document = try test.library.create(named: "Paris")
        let entry = Entry(context: try document.viewContext)
        entry.text = "via the writer"
        try document.viewContext.save()
        #expect(document.hasUnsavedChanges)
        #expect(try await eventually { try test.entryCount("Paris") == 1 })
        try document.close()
    }

    @Test("edits nobody notes are found and saved within two delays")
    func unnotedEditsAreSaved() async throws {
        let test = try TestLibrary(autosaveDelay: .milliseconds(50))
        let document = try test.library.create(named: "Paris")
        let entry = Entry(context: try document.viewContext)
        entry.text = "silent"
        #expect(try await eventually { try test.entryCount("Paris") == 1 })
        try document.close()
    }

    @Test("a failed autosave keeps the changes, reports savingError, and is retried until it succeeds")
    func failedAutosaveIsRetried() async throws {
        let test = try TestLibrary(autosaveDelay: .milliseconds(30))
        let document = try test.library.create(named: "Paris")
        var seen: [DocumentState] = []
        let observation = document.observeState { seen.append($0) }
        try refuseEntryInserts(document)
        let entry = Entry(context: try document.viewContext)
        entry.text = "kept"
        document.noteChanges()
        #expect(await eventually { document.state == .savingError })
        #expect(document.lastSaveError?.kind == .saveFailed(detail:
            "SQLite error 19: disk says no - while executing INSERT INTO ZENTRY (Z_PK, Z_ENT, Z_OPT, ZBATCH, ZTEXT) VALUES (?, ?, ?, ?, ?)"))
        #expect(document.hasUnsavedChanges)
        #expect(try test.entryCount("Paris") == 0)
        try await Task.sleep(for: .milliseconds(100))
        #expect(document.state == .savingError)

        try allowEntryInserts(document)
        #expect(await eventually { document.state == .normal })
        #expect(try test.entryTexts("Paris") == ["kept"])
        #expect(document.lastSaveError == nil)
        #expect(seen == [.savingError, .normal])
        observation.cancel()
        try document.close()
    }

    @Test("close with a failing save throws, keeps the document open with its changes")
    func failingCloseKeepsDocumentOpen() throws {
        let test = try TestLibrary()
        let document = try test.library.create(named: "Paris")
        try refuseEntryInserts(document)
        let entry = Entry(context: try document.viewContext)
        entry.text = "kept"
        let error = #expect(throws: DocumentError.self) { try document.close() }
        #expect(error?.description.hasPrefix("Document \"Paris\" could not be saved (the changes are kept in memory): SQLite error 19: disk says no") == true)
        #expect(document.isOpen)
        #expect(document.state == .savingError)
        #expect(document.hasUnsavedChanges)
        try allowEntryInserts(document)
        try document.close()
        #expect(document.state == .closed)
        #expect(try test.entryTexts("Paris") == ["kept"])
    }

    @Test("autosave waits while the document is in conflict")
    func noAutosaveInConflict() async throws {
        let test = try TestLibrary(autosaveDelay: .milliseconds(30))
        let document = try test.library.create(named: "Paris")
        let counter = Counter(context: try document.viewContext)
        counter.name = "visits"
        try document.save()
        let id = counter.objectID
        try document.newBackgroundContext().performAndWait { context in
            try context.existingObject(with: id, as: Counter.self).value = 99
            try context.save()
        }
        counter.value = 5
        document.noteChanges()
        #expect(await eventually { document.state == [.savingError, .inConflict] })
        try await Task.sleep(for: .milliseconds(150))
        #expect(document.state == [.savingError, .inConflict])
        #expect(try test.rows("Paris", "SELECT ZVALUE FROM ZCOUNTER") == [[.integer(99)]])
        try document.revert()
        #expect(document.state == .normal)
        try document.close()
        #expect(try test.rows("Paris", "SELECT ZVALUE FROM ZCOUNTER") == [[.integer(99)]])
    }
}

@MainActor
@Suite("Stop signals")
struct StopSignalTests {
    final class Record: Sendable {
        let terminated = Locked<[Int32]>([])
        let stopped = Locked<[Int32]>([])
    }

    @Test("a caught signal runs the stop work on the main actor, then terminates with that signal")
    func signalRunsStopThenTerminates() async throws {
        let test = try TestLibrary()
        let document = try test.library.create(named: "Paris")
        let entry = Entry(context: try document.viewContext)
        entry.text = "saved on stop"
        let record = Record()
        let monitor = StopSignalMonitor(signals: [SIGUSR1], gracePeriod: .seconds(60), onStop: { signal in
            record.stopped.withLock { $0.append(signal) }
            try? document.close()
        }, terminate: { signal in record.terminated.withLock { $0.append(signal) } })
        monitor.start()
        defer { monitor.cancel() }
        kill(getpid(), SIGUSR1)   // process-directed, as signals from outside are
        #expect(await eventually { record.terminated.withLock { $0 } == [SIGUSR1] })
        #expect(record.stopped.withLock { $0 } == [SIGUSR1])
        #expect(document.state == .closed)
        #expect(try test.entryTexts("Paris") == ["saved on stop"])
    }

    @Test("when the main actor is busy past the grace period, the process stops anyway")
    func gracePeriodEndsTheWait() {
        let record = Record()
        let monitor = StopSignalMonitor(signals: [], gracePeriod: .milliseconds(50),
                                        onStop: { signal in record.stopped.withLock { $0.append(signal) } },
                                        terminate: { signal in record.terminated.withLock { $0.append(signal) } })
        monitor.handle(signal: SIGTERM)
        Thread.sleep(forTimeInterval: 0.3)   // the main actor is blocked, as a synchronous import would block it
        #expect(record.terminated.withLock { $0 } == [SIGTERM])
        #expect(record.stopped.withLock { $0 } == [])
    }

    @Test("a second signal stops at once")
    func secondSignalStopsAtOnce() {
        let record = Record()
        let monitor = StopSignalMonitor(signals: [], gracePeriod: .seconds(30),
                                        onStop: { signal in record.stopped.withLock { $0.append(signal) } },
                                        terminate: { signal in record.terminated.withLock { $0.append(signal) } })
        monitor.handle(signal: SIGINT)
        monitor.handle(signal: SIGINT)
        #expect(record.terminated.withLock { $0 } == [SIGINT])
    }
}
