import Foundation
import ObjectGraph

// Live changes: a document whose store keeps persistent history follows the commits other
// processes make to it (a script importing into a vacation a viewer has open). The coordinator
// notices them (`observesOtherProcesses`: SQLite's `data_version`, then the history after its
// last token) and hands them to every context as it hands them its own background saves; the
// document then merges them into the view context on the main actor, so that results
// controllers on it report the inserts, moves and deletes at once.
extension ManagedDocument {
    func startLiveChanges(_ coordinator: StoreCoordinator) {
        guard coordinator.tracksHistory, configuration.followsOtherProcesses else { return }
        coordinator.observesOtherProcesses = true
        let changes = coordinator.otherProcessChanges()
        liveChangesTask = Task { [weak self] in
            for await _ in changes {
                guard let self, !Task.isCancelled else { return }
                session?.container.viewContext.mergePendingChanges()
            }
        }
    }

    func stopLiveChanges() {
        liveChangesTask?.cancel()
        liveChangesTask = nil
        session?.container.coordinator.observesOtherProcesses = false
    }
}
