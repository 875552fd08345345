import Foundation
import SQLiteDB
import Testing
import TestSupport

/// `Connection.closeAllBeforeExit`: a process that exits with its connections still held (the
/// `vacation` binary after a read keeps its objects rather than free them) closes them first as
/// their deinits would, in a separate process here, since it closes every connection of its own.
@Suite("Connections closed before exit")
struct ExitClosingTests {
    private func files(_ directory: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
    }

    @Test("idle connections held at exit are closed as their deinits would: the WAL checkpointed, -wal and -shm gone")
    func idleConnectionsClose() throws {
        let directory = try TemporaryDirectory(prefix: "exit-closing")
        let store = directory.path("store.sqlite").path
        for value in [7, 8] {
            let result = try ProductProcess.run("vacations-test-helper", ["connections-exit", store, String(value)])
            #expect(result.status == 0, "\(result.errors)")
            #expect(try files(directory) == ["store.sqlite"])
        }
        let connection = try Connection(path: store, configuration: .init(readOnly: true))
        #expect(try connection.scalar("SELECT group_concat(V) FROM T") == .text("7,8"))
    }

    @Test("a connection inside a transaction is left to the exit: its write is rolled back at the next open, the rest kept")
    func transactionLeftToExit() throws {
        let directory = try TemporaryDirectory(prefix: "exit-closing")
        let store = directory.path("store.sqlite").path
        let result = try ProductProcess.run("vacations-test-helper", ["connections-exit", store, "7", "--in-transaction"])
        #expect(result.status == 0, "\(result.errors)")
        // The connection left open keeps the WAL files; the next open recovers from them.
        #expect(try files(directory) == ["store.sqlite", "store.sqlite-shm", "store.sqlite-wal"])
        let connection = try Connection(path: store)
        #expect(try connection.scalar("SELECT group_concat(V) FROM T") == .text("7"))
        #expect(try connection.scalar("PRAGMA integrity_check") == .text("ok"))
    }
}
