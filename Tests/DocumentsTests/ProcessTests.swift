@testable import Documents
import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

/// Behaviour between processes, with real `vacations-test-helper` processes.
@Suite("Between processes")
struct ProcessTests {
    @Test("a second writer waits for the lock, then fails busy; the CLI's exit code is 75")
    func secondWriterFailsBusy() async throws {
        let test = try TestLibrary()
        let holder = try HelperProcess("hold", test.root, "Shared")
        try await holder.waitForLine("holding")

        let waiter = try HelperProcess("open", test.root, "Shared", "--wait", "0.3")
        #expect(try await waiter.waitForLine("busy") == "busy: Document \"Shared\" is busy: another process is writing to it (waited 0.3 s)")
        #expect(try await waiter.waitForExit() == .exited(75))

        let started = ContinuousClock.now
        let busy = DocumentError(.busy(waited: .milliseconds(200)), .document("Shared"))
        #expect(throws: busy) { try test.library.delete("Shared", wait: .milliseconds(200)) }
        #expect(ContinuousClock.now - started >= .milliseconds(200))
        #expect(throws: busy) { try test.library.rename("Shared", to: "Other", wait: .milliseconds(200)) }
        try await openInProcess(test, expecting: busy)

        holder.closeInput()
        #expect(try await holder.waitForExit() == .exited(0))
        try test.library.rename("Shared", to: "Other", wait: .zero)
    }

    @MainActor
    private func openInProcess(_ test: TestLibrary, expecting error: DocumentError) throws {
        #expect(throws: error) { try test.library.open(named: "Shared", wait: .milliseconds(200)) }
        #expect(try test.library.document(named: "Shared").state == .closed)
    }

    @Test("a waiting writer gets the lock as soon as the holder exits")
    func waiterGetsTheLockWhenTheHolderExits() async throws {
        let test = try TestLibrary()
        let holder = try HelperProcess("hold", test.root, "Shared")
        try await holder.waitForLine("holding")
        let waiter = try HelperProcess("open", test.root, "Shared", "--wait", "10")
        try await waiter.waitForLine("trying")
        try await Task.sleep(for: .milliseconds(300))
        #expect(waiter.outputLines == ["trying"])
        holder.closeInput()
        #expect(try await holder.waitForExit() == .exited(0))
        let line = try await waiter.waitForLine("opened after")
        #expect(try #require(Int(line.split(separator: " ")[2])) >= 300)
        #expect(try await waiter.waitForExit() == .exited(0))
    }

    @Test("a holder killed with SIGKILL never leaves the document locked")
    func killedHolderReleasesTheLock() async throws {
        let test = try TestLibrary()
        let holder = try HelperProcess("hold", test.root, "Shared")
        try await holder.waitForLine("holding")
        let waiter = try HelperProcess("open", test.root, "Shared", "--wait", "10")
        try await waiter.waitForLine("trying")
        try await Task.sleep(for: .milliseconds(100))
        #expect(waiter.outputLines == ["trying"])
        holder.send(SIGKILL)
        #expect(try await holder.waitForExit() == .signalled(SIGKILL))
        try await waiter.waitForLine("opened after")
        #expect(try await waiter.waitForExit() == .exited(0))
        try test.library.delete("Shared", wait: .zero)
    }

    @Test("a reader opens with editing disabled and sees a consistent store while another process writes")
    @MainActor
    func readerDuringWrites() async throws {
        let test = try TestLibrary()
        let writer = try HelperProcess("write-batches", test.root, "Busy", "--size", "50")
        try await writer.waitForLine("writing")
        let reader = try test.library.open(named: "Busy", mode: .readOnly)
        #expect(reader.state == .editingDisabled)
        var seen: [Int64] = []
        for _ in 0..<20 {
            let (entries, batches) = try reader.coordinator.withConnection { connection in
                try connection.transaction {
                    (try connection.scalar("SELECT count(*) FROM ZENTRY")?.integerValue ?? -1,
                     try connection.scalar("SELECT ZVALUE FROM ZCOUNTER")?.integerValue ?? -1)
                }
            }
            #expect(entries == 50 * batches)
            seen.append(batches)
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(seen.allSatisfy { $0 >= 1 })
        #expect(seen.last ?? 0 > seen.first ?? 0)   // the writer went on meanwhile
        try reader.close()
        writer.send(SIGKILL)
        _ = try await writer.waitForExit()
    }

    @Test("backups taken while another process writes restore to consistent documents")
    func backupDuringWrites() async throws {
        let test = try TestLibrary()
        let writer = try HelperProcess("write-batches", test.root, "Busy", "--size", "50")
        try await writer.waitForLine("writing")
        var backups: [BackupInfo] = []
        for _ in 0..<3 {
            backups.append(try test.library.backup("Busy"))
            try await Task.sleep(for: .milliseconds(30))
        }
        writer.send(SIGKILL)
        #expect(try await writer.waitForExit() == .signalled(SIGKILL))

        var batches: [Int64] = []
        for (index, backup) in backups.enumerated() {
            let name = try test.library.restore(backup, as: "Restored \(index)")
            let store = try Connection(path: try test.library.bundle(forDocumentNamed: name).storeURL.path)
            #expect(try store.integrityCheck() == ["ok"])
            let entries = try store.scalar("SELECT count(*) FROM ZENTRY")?.integerValue ?? -1
            let counter = try store.scalar("SELECT ZVALUE FROM ZCOUNTER")?.integerValue ?? -1
            #expect(counter >= 1)
            #expect(entries == 50 * counter)
            #expect(try store.scalar("SELECT count(DISTINCT ZBATCH) FROM ZENTRY")?.integerValue == counter)
            batches.append(counter)
        }
        #expect(batches == batches.sorted())
        // The original, after the kill, is consistent too, and at least as far along.
        let original = try test.rows("Busy", "SELECT (SELECT count(*) FROM ZENTRY), (SELECT ZVALUE FROM ZCOUNTER)")
        #expect(original[0][0].integerValue == 50 * (original[0][1].integerValue ?? 0))
        #expect(original[0][1].integerValue ?? 0 >= batches.last ?? 0)
    }

    @Test("SIGTERM and SIGINT save a document's unsaved edits before the process ends", arguments: [SIGTERM, SIGINT])
    func stopSignalsSave(signal: Int32) async throws {
        let test = try TestLibrary()
        let editor = try HelperProcess("edit-and-wait", test.root, "Edited", "unsaved until signal \(signal)")
        try await editor.waitForLine("edited")
        #expect(try test.entryTexts("Edited") == [])
        editor.send(signal)
        let termination = try await editor.waitForExit()
        #expect(termination == .signalled(signal), "\(termination) \(editor.standardError) \(editor.outputLines)")
        #expect(try test.entryTexts("Edited") == ["unsaved until signal \(signal)"])
        try test.library.delete("Edited", wait: .zero)   // and the lock went with the process
    }

    @Test("restoring over a document that another process writes waits, then fails busy, leaving both in place")
    func restoreOverBusyDocument() async throws {
        let test = try TestLibrary()
        let holder = try HelperProcess("hold", test.root, "Shared")
        try await holder.waitForLine("holding")
        let backup = try test.library.backup("Shared")
        #expect(throws: DocumentError(.busy(waited: .milliseconds(200)), .document("Shared"))) {
            try test.library.restore(backup, replacing: true, wait: .milliseconds(200))
        }
        #expect(test.entries() == ["Backups", "Shared.vacation"])
        holder.closeInput()
        #expect(try await holder.waitForExit() == .exited(0))
        try test.library.restore(backup, replacing: true, wait: .zero)
        #expect(test.entries() == ["Backups", "Shared.vacation"])
    }
}
