import Foundation
import ObjectGraph
import SQLiteDB

/// What one sync did.
package struct SyncReport: Sendable, Equatable {
    package struct FileNote: Sendable, Equatable {
        package var path: String
        package var reason: String
    }

    /// Register writes this library made since its last sync, written to the folder.
    package var sent = 0
    /// Writes in the change files applied by this sync.
    package var received = 0
    /// Of those, the writes that won (changed the vacation's synced state).
    package var applied = 0
    /// Change files applied by this sync.
    package var files = 0
    /// Files refused whole (they do not parse, break a rule, or are of a newer format).
    package var refused: [FileNote] = []
    /// Files not whole yet, left for a later sync.
    package var incomplete: [FileNote] = []
    /// Photos that other devices' changes took out of the vacation (their thumbnails can go).
    package var unvisited: [String] = []
    /// Photos that other devices' changes brought into the vacation (their thumbnails are not here).
    package var arrived: [String] = []
    /// Local values that break a sync rule (made outside the importer's rules, by hand), kept
    /// back so that other devices do not refuse the whole file: why, for each.
    package var unsent: [String] = []
    /// This device's older change files deleted by `prune` (after it wrote a snapshot).
    package var pruned = 0
}

/// Syncs one vacation through a shared folder (README.md, "Sync between machines"): writes what this library changed
/// since its last sync as a change file in `<folder>/<vacation>/<device>/`, and applies every
/// change file found there that this vacation has not applied, all in one transaction.
///
/// ```swift
/// let sync = VacationSync(folder: shared, vacation: "Lisbon", device: try SyncDevice.id(inLibrary: library.url))
/// let report = try sync.run(coordinator: document.coordinator)
/// ```
package struct VacationSync: Sendable {
    package let folder: URL
    package let vacation: String
    package let device: String
    package var now: Date
    /// Compacts this device's files: writes a snapshot (every register this vacation holds, each
    /// with the clock it was written with) as a new change file, then deletes this device's
    /// earlier files, whose every write the snapshot holds or has seen overwritten.
    package var prune: Bool

    package init(folder: URL, vacation: String, device: String, now: Date = Date(), prune: Bool = false) {
        self.folder = folder
        self.vacation = vacation
        self.device = device
        self.now = now
        self.prune = prune
    }

    var vacationFolder: URL { folder.appendingPathComponent(vacation, isDirectory: true) }
    var deviceFolder: URL { vacationFolder.appendingPathComponent(device, isDirectory: true) }

    /// A change file found in the folder and read.
    struct Found {
        var key: FileKey
        var path: String
        var file: ChangeFile
    }

    package func run(coordinator: StoreCoordinator) throws -> SyncReport {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw SyncError(.noFolder(folder.path))
        }
        try coordinator.withConnection { connection in try SyncTables(connection: connection).create() }
        // Files committed by an earlier sync that stopped before writing them.
        try flushOutbox(coordinator)
        var report = SyncReport()
        let applied = try coordinator.withConnection { connection in try SyncTables(connection: connection).applied() }
        let scanned = try scan(skipping: applied, report: &report)
        var found = scanned.found, ownHighest = scanned.ownHighest
        let othersThere = scanned.othersThere
        var snapshot: Int64?
        let sent: Int = try coordinator.performTransaction {
            let context = ObjectContext(coordinator: coordinator, name: "sync")
            let state = SyncState(context: context)
            let tables = { (body: (SyncTables) throws -> Void) throws in
                try coordinator.withConnection { connection in try body(SyncTables(connection: connection)) }
            }
            var registers: [SyncRegisterKey: SyncWrite] = [:]
            var counter: Int64 = 0
            var highest: Int64 = 0
            try coordinator.withConnection { connection in
                let sync = SyncTables(connection: connection)
                registers = try sync.registers()
                counter = try sync.counter()
                highest = try sync.highestSequence(of: device)
            }
            // A vacation that synced before, syncing into a folder that holds none of its files
            // (a new folder, a renamed vacation, files deleted by hand): what it sent before is
            // not there, so it sends everything it holds, as a snapshot.
            let snapshotting = prune || (ownHighest == 0 && !registers.isEmpty && (highest > 0 || !othersThere))
            var local = SyncState.changes(current: try state.currentValues(), registers: registers)
            // A value other devices would refuse (one written by hand, say) would make them refuse
            // the whole file: it stays here, reported, and the rest goes.
            for (register, value) in local {
                let trial = SyncWrite(register, value: value, clock: SyncClock(counter: 1, device: device))
                if let problem = SyncValidation.problem(with: trial) {
                    local[register] = nil
                    report.unsent.append(problem)
                }
            }
            found = try refusingBadAlbums(found, in: context, report: &report)

            var photos = Set<String>(), albums = Set<String>()
            for file in found {
                for write in file.file.writes {
                    report.received += 1
                    counter = max(counter, write.clock.counter)
                    if let held = registers[write.register], !write.wins(over: held) { continue }
                    registers[write.register] = write
                    try tables { try $0.store(write) }
                    report.applied += 1
                    switch write.register.entity {
                    case .photo: photos.insert(write.register.key)
                    case .album: albums.insert(write.register.key)
                    case .place: break
                    }
                }
                try tables { try $0.recordApplied(file.key) }
                report.files += 1
            }
            if !local.isEmpty && snapshotting {
                // Into the registers only: the snapshot below carries them.
                counter += 1
                let clock = SyncClock(counter: counter, device: device)
                let writes = local.sorted { $0.key < $1.key }.map { SyncWrite($0.key, value: $0.value, clock: clock) }
                try tables { sync in for write in writes { try sync.store(write) } }
                for write in writes { registers[write.register] = write }
            } else if !local.isEmpty {
                // Later than every write seen, so that what this library did since it last saw
                // the others is the newest word on it.
                counter += 1
                let sequence = max(highest, ownHighest) + 1
                ownHighest = sequence
                let clock = SyncClock(counter: counter, device: device)
                let writes = local.sorted { $0.key < $1.key }.map { SyncWrite($0.key, value: $0.value, clock: clock) }
                let content = try ChangeFile(device: device, sequence: sequence, vacation: vacation, writes: writes).encoded()
                try tables { sync in
                    for write in writes { try sync.store(write) }
                    try sync.recordApplied(FileKey(device: device, sequence: sequence))
                    try sync.addToOutbox(sequence: sequence, content: content)
                }
                for write in writes { registers[write.register] = write }
            }
            if snapshotting {
                let sequence = max(highest, ownHighest) + 1
                snapshot = sequence
                // Placeholders (counter 0) are no one's writes: they stay here.
                let writes = registers.values.filter { $0.clock.counter > 0 }.sorted { $0.register < $1.register }
                let content = try ChangeFile(device: device, sequence: sequence, vacation: vacation, writes: writes).encoded()
                try tables { sync in
                    try sync.recordApplied(FileKey(device: device, sequence: sequence))
                    try sync.addToOutbox(sequence: sequence, content: content)
                }
            }
            try tables { try $0.setCounter(counter) }
            (report.unvisited, report.arrived) = try state.settle(photos: photos, albums: albums, registers: registers, now: now)
            try context.save()
            if try state.settlePlaces(registers: registers) { try context.save() }
            if report.files > 0 {
                // What settling made without a register (a photo or album arriving before the
                // writes of some of its fields, a place made for it) is no change of this
                // library's: noted at the lowest clock, so that the next sync does not send it and
                // any real write of it wins.
                for (register, value) in try state.currentValues() where registers[register] == nil {
                    let placeholder = SyncWrite(register, value: value, clock: SyncClock(counter: 0, device: ""))
                    registers[register] = placeholder
                    try tables { try $0.store(placeholder) }
                }
            }
            return local.count
        }
        report.sent = sent
        try flushOutbox(coordinator)
        if prune, let snapshot { report.pruned = try deleteOwnFiles(before: snapshot) }
        return report
    }

    // MARK: The folder

    /// Reads every change file of every device (this one's too: a vacation made anew, or restored
    /// from an older backup, takes back what it wrote before) that the vacation has not applied.
    /// Also tells whether other devices have folders there.
    private func scan(skipping applied: Set<FileKey>,
                      report: inout SyncReport) throws -> (found: [Found], ownHighest: Int64, othersThere: Bool) {
        let manager = FileManager.default
        var ownHighest: Int64 = 0
        var found: [Found] = []
        guard manager.fileExists(atPath: vacationFolder.path) else { return ([], 0, false) }
        let devices: [String]
        do {
            devices = try manager.contentsOfDirectory(atPath: vacationFolder.path).filter(SyncValidation.isDeviceID).sorted()
        } catch {
            throw SyncError(.io("cannot list \(vacationFolder.path): \(error)"))
        }
        for deviceID in devices {
            let directory = vacationFolder.appendingPathComponent(deviceID, isDirectory: true)
            guard isRegular(directory.path, directory: true), let names = try? manager.contentsOfDirectory(atPath: directory.path) else {
                // Why `try?`: a device folder that cannot be listed is one this sync cannot use; others still apply.
                continue
            }
            let files = names.compactMap { name in ChangeFile.sequence(fromFileName: name).map { (name, $0) } }.sorted { $0.1 < $1.1 }
            for (name, sequence) in files {
                if deviceID == device { ownHighest = max(ownHighest, sequence) }
                let key = FileKey(device: deviceID, sequence: sequence)
                if applied.contains(key) { continue }
                let path = directory.appendingPathComponent(name).path
                guard isRegular(path, directory: false) else {
                    report.refused.append(.init(path: path, reason: "it is not a regular file"))
                    continue
                }
                if let size = (try? manager.attributesOfItem(atPath: path))?[.size] as? NSNumber, size.int64Value > ChangeFile.largestFile {
                    // Why `try?`: the size is a shortcut; a file that cannot be examined fails the read below.
                    report.refused.append(.init(path: path, reason: "it is larger than \(ChangeFile.largestFile >> 20) MiB"))
                    continue
                }
                guard let data = manager.contents(atPath: path) else {
                    report.incomplete.append(.init(path: path, reason: "it cannot be read now"))
                    continue
                }
                switch ChangeFile.read(data, device: deviceID, sequence: sequence) {
                case .complete(let file): found.append(Found(key: key, path: path, file: file))
                case .incomplete(let reason): report.incomplete.append(.init(path: path, reason: reason))
                case .refused(let reason): report.refused.append(.init(path: path, reason: reason))
                }
            }
        }
        return (found, ownHighest, devices.contains { $0 != device })
    }

    /// Whether `path` is a folder (or a regular file), itself, not through a symbolic link.
    private func isRegular(_ path: String, directory: Bool) -> Bool {
        guard let type = try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType else {
            // Why `try?`: a path that cannot be examined is not one to use.
            return false
        }
        return type == (directory ? .typeDirectory : .typeRegular)
    }

    /// Files whose albums' predicates the vacation cannot run are refused whole.
    private func refusingBadAlbums(_ found: [Found], in context: ObjectContext, report: inout SyncReport) throws -> [Found] {
        var kept: [Found] = []
        for file in found {
            var problem: String?
            for write in file.file.writes where write.register.entity == .album && write.register.field == SyncFields.predicate {
                do {
                    _ = try PhotoSelection(format: write.value ?? "").count(in: context)
                } catch let error as QueryError {
                    problem = "album '\(write.register.key)''s predicate cannot run: \(error.message)"
                    break
                }
            }
            if let problem { report.refused.append(.init(path: file.path, reason: problem)) } else { kept.append(file) }
        }
        return kept
    }

    /// Sync writes only into real folders under `folder`: a vacation or device folder that is a
    /// link (anyone with access to the folder can make one) would lead its writes elsewhere.
    private func checkNotLinked() throws {
        for path in [vacationFolder.path, deviceFolder.path] where FileManager.default.fileExists(atPath: path) {
            guard isRegular(path, directory: true) else {
                throw SyncError(.io("\(path) is not a folder of its own (a link, or a file); sync writes nothing through it"))
            }
        }
    }

    /// Deletes this device's change files numbered below `sequence` (its snapshot, written).
    private func deleteOwnFiles(before sequence: Int64) throws -> Int {
        try checkNotLinked()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: deviceFolder.path)) ?? []  // Why `try?`: no folder, no files.
        var deleted = 0
        for name in names {
            guard let number = ChangeFile.sequence(fromFileName: name), number < sequence else { continue }
            do {
                try FileManager.default.removeItem(at: deviceFolder.appendingPathComponent(name))
                deleted += 1
            } catch {
                throw SyncError(.io("cannot delete \(deviceFolder.appendingPathComponent(name).path): \(error)"))
            }
        }
        return deleted
    }

    /// Writes the files the store holds for sending, each atomically (a temporary name in the
    /// same folder, then a rename), then forgets them.
    private func flushOutbox(_ coordinator: StoreCoordinator) throws {
        let outbox = try coordinator.withConnection { connection in try SyncTables(connection: connection).outbox() }
        guard !outbox.isEmpty else { return }
        let manager = FileManager.default
        try checkNotLinked()
        do {
            try manager.createDirectory(at: deviceFolder, withIntermediateDirectories: true)
        } catch {
            throw SyncError(.io("cannot make \(deviceFolder.path): \(error)"))
        }
        try checkNotLinked()
        for (sequence, content) in outbox {
            let name = ChangeFile.fileName(sequence)
            let final = deviceFolder.appendingPathComponent(name)
            // A name no reader takes for a change file (it starts with a dot and ends otherwise).
            let temporary = deviceFolder.appendingPathComponent(".\(name).\(UUID().uuidString.lowercased()).tmp")
            do {
                try content.write(to: temporary)
                let handle = try FileHandle(forUpdating: temporary)
                try handle.synchronize()
                try handle.close()
                if manager.fileExists(atPath: final.path) { try manager.removeItem(at: final) }
                try manager.moveItem(at: temporary, to: final)
            } catch {
                try? manager.removeItem(at: temporary)  // Why `try?`: the write's own error is the one to report.
                throw SyncError(.io("cannot write \(final.path): \(error)"))
            }
            try coordinator.withConnection { connection in try SyncTables(connection: connection).removeFromOutbox(sequence: sequence) }
        }
    }
}
