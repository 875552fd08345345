import Foundation
import ObjectGraph

// Live changes: a document whose store keeps persistent history follows the commits other
// processes make to it (a script importing into a vacation a viewer has open). The coordinator
// notices them (`observesOtherProcesses`: SQLite's `data_version`, then the history after its
// last token) and hands them to every context as it hands them its own background saves; the
// document then merges them into the view context on the main actor, so that results
// controllers on it report the inserts, moves and deletes at once.
//
// No task waits for them: the watching thread hands each change set to a handler that asks the
// main actor to merge, so that a document closed before anything changed (a viewer opened for
// one look) costs no task and no stream.
extension ManagedDocument {
    func startLiveChanges(_ coordinator: StoreCoordinator) {
        guard coordinator.tracksHistory, configuration.followsOtherProcesses else { return }
        coordinator.observesOtherProcesses = true
        coordinator.onOtherProcessChanges { [weak self] _ in
            Task { @MainActor [weak self] in self?.mergeOtherProcessChanges() }
        }
    }

    func stopLiveChanges() {
        session?.container.coordinator.observesOtherProcesses = false
    }

    private func mergeOtherProcessChanges() {
        session?.container.viewContext.mergePendingChanges()
    }
}
