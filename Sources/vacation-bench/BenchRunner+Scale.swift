import Foundation
import TestSupport

/// `--scale`: a vacation of a million photos (`--scale-photos`) built once with the `vacation`
/// binary, then the commands a person types at the prompt, each run as a whole process from a
/// cold start, beside the same answer from the `sqlite3` shell with hand-written SQL (what a
/// user might script instead). Both answers are checked to hold the same number of rows.
extension BenchRunner {
    struct ScaleCommand {
        var name: String
        var arguments: [String]
        /// The `sqlite3` shell's arguments after the store's path; nil when there is no
        /// single-statement equivalent (`list` reads a hundred stores).
        var shell: [String]?
        var goal: String
        var meets: (Figure) -> Bool
    }

    func measureScale() throws {
        let photos = options.scalePhotos
        let directory = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            .deletingLastPathComponent()
        let vacation = directory.appendingPathComponent("vacation").path
        guard FileManager.default.isExecutableFile(atPath: vacation) else {
            throw BenchError("--scale needs the vacation binary beside vacation-bench (\(vacation)): swift build -c release")
        }
        let shellPath = "/usr/bin/sqlite3"
        guard FileManager.default.isExecutableFile(atPath: shellPath) else { throw BenchError("--scale needs the sqlite3 shell at \(shellPath)") }
        let library = path("scale-library").path
        let feed = path("scale-feed.xml")
        let scaleGenerator = FlickrFeedGenerator(photos: photos)
        progress("scale: generating a feed of \(photos) photos")
        try scaleGenerator.writeXML(to: feed)
        progress("scale: importing it (vacation import)")
        let build = try timed { try runVacation(vacation, library, ["--vacation", "big", "import", feed.path]) }
        progress(String(format: "scale: built in %.1f s; 99 small vacations beside it", build / 1000))
        let small = path("scale-small.xml")
        try FlickrFeedGenerator(photos: 10, firstID: 1_000).writeXML(to: small)
        for index in 1...99 { try runVacation(vacation, library, ["--vacation", "trip \(index)", "import", small.path]) }
        try? FileManager.default.removeItem(at: feed)

        let store = URL(fileURLWithPath: library).appendingPathComponent("big.vacation/StoreContent/persistentStore").path
        let photo = scaleGenerator.id(photos / 2)
        let tag = scaleGenerator.tags(photos / 2)[0]
        let photoColumns = "p.ZUNIQUE, p.ZTITLE, p.ZDATETAKEN, pl.ZNAME, "
            + "(SELECT group_concat(t.ZNAME, ' ') FROM Z_2TAGS j JOIN ZTAG t ON t.Z_PK = j.Z_4TAGS WHERE j.Z_2PHOTOS = p.Z_PK)"
        let fromPhotos = "FROM ZPHOTO p LEFT JOIN ZPLACE pl ON pl.Z_PK = p.ZPLACE"
        let interactive = "< 100 ms, ≤ 2.0×"
        let quick: (Figure) -> Bool = { figure in
            guard case let .time(ours, _) = figure.kind else { return false }
            return ours < 100 && figure.ratio <= 2.0
        }
        let commands = [
            ScaleCommand(name: "photos --limit 50", arguments: ["photos", "--limit", "50"],
                         shell: ["SELECT \(photoColumns) \(fromPhotos) ORDER BY p.ZDATETAKEN, p.ZUNIQUE LIMIT 50"],
                         goal: interactive, meets: quick),
            ScaleCommand(name: "photos --tag T --limit 50", arguments: ["photos", "--tag", tag, "--limit", "50"],
                         shell: ["SELECT \(photoColumns) \(fromPhotos) WHERE p.Z_PK IN (SELECT j.Z_2PHOTOS FROM Z_2TAGS j "
                                 + "JOIN ZTAG t ON t.Z_PK = j.Z_4TAGS WHERE t.ZNAME = '\(tag)') ORDER BY p.ZDATETAKEN, p.ZUNIQUE LIMIT 50"],
                         goal: interactive, meets: quick),
            ScaleCommand(name: "show ID", arguments: ["show", photo],
                         shell: ["SELECT \(photoColumns) \(fromPhotos) WHERE p.ZUNIQUE = '\(photo)'"], goal: interactive, meets: quick),
            ScaleCommand(name: "tags", arguments: ["tags"], shell: ["SELECT ZNAME, ZCOUNT FROM ZTAG ORDER BY ZCOUNT DESC, ZNAME"],
                         goal: interactive, meets: quick),
            ScaleCommand(name: "places", arguments: ["places"],
                         shell: ["SELECT pl.ZNAME, (SELECT count(*) FROM ZPHOTO p WHERE p.ZPLACE = pl.Z_PK), pl.ZFIRSTVISITED "
                                 + "FROM ZPLACE pl ORDER BY pl.ZFIRSTVISITED, pl.ZNAME"], goal: interactive, meets: quick),
            ScaleCommand(name: "search WORD", arguments: ["search", tag, "--limit", "20"],
                         shell: ["SELECT \(photoColumns) FROM FTS_ZPHOTO_SEARCH f JOIN ZPHOTO p ON p.Z_PK = f.rowid "
                                 + "LEFT JOIN ZPLACE pl ON pl.Z_PK = p.ZPLACE WHERE FTS_ZPHOTO_SEARCH MATCH '\"\(tag)\"' "
                                 + "ORDER BY bm25(FTS_ZPHOTO_SEARCH), p.ZDATETAKEN, p.Z_PK LIMIT 20"], goal: interactive, meets: quick),
            ScaleCommand(name: "list (100 vacations)", arguments: ["list"], shell: nil, goal: "< 100 ms") { figure in
                guard case let .time(ours, _) = figure.kind else { return false }
                return ours < 100
            },
            ScaleCommand(name: "check", arguments: ["check"], shell: ["PRAGMA integrity_check"], goal: "≤ 1.5×") { $0.ratio <= 1.5 },
            ScaleCommand(name: "backup", arguments: ["backup"], shell: [".backup '\(path("scale-shell-backup.sqlite").path)'"],
                         goal: "≤ 1.5×") { $0.ratio <= 1.5 },
        ]
        for command in commands {
            try measureScale(command, vacation: vacation, library: library, shellPath: shellPath, store: store, photos: photos)
        }
        // Last: it changes the vacation (and leaves it as it found it).
        try measureScaleToggle(vacation: vacation, library: library, shellPath: shellPath, store: store, generator: scaleGenerator)
    }

    private func measureScale(_ command: ScaleCommand, vacation: String, library: String, shellPath: String, store: String,
                              photos: Int) throws {
        var rows: [Side: Int] = [:]
        var times = try alternate("scale \(command.name)", runs: options.runs, sides: command.shell == nil ? [.ours] : [.ours, .baseline],
                                  { side, round in
            progress("scale \(command.name) round \(round) of \(options.runs) (\(round == 0 ? "warm-up, " : "")\(side == .ours ? "vacation" : "sqlite3"))")
            var output = ""
            let time: Double
            if side == .ours {
                let arguments = ["--library", library, "--vacation", "big", "--json"] + command.arguments
                time = try timedChild { output = try runProcess(vacation, arguments) }
                rows[side] = try Self.jsonRows(output, command: command.name)
                if command.name == "backup" { try Self.removeBackup(output) }
            } else {
                let copy = path("scale-shell-backup.sqlite").path
                if command.name == "backup" { Self.removeStore(copy) }
                time = try timedChild { output = try runProcess(shellPath, ["-readonly", store] + (command.shell ?? [])) }
                // `.backup` prints nothing: its answer is the copy. Removed at once, as ours' is:
                // a copy left until the shell's next round made ours write its 800 MB into memory
                // the kernel had to find afresh, while the shell reused what ours had just freed
                // (on this virtual machine, pages touched for the first time cost the host a fault
                // each: ours 1.4× the shell's time that way, 1.1× with both cleaned up alike).
                rows[side] = command.name == "backup" ? (FileManager.default.fileExists(atPath: copy) ? 1 : 0)
                    : output.split(separator: "\n").count
                if command.name == "backup" { Self.removeStore(copy) }
            }
            return time
        }, afterRound: { _ in
            if command.shell != nil, rows[.ours] != rows[.baseline] {
                throw BenchError("scale \(command.name): vacation answered \(rows[.ours] ?? 0) rows, sqlite3 \(rows[.baseline] ?? 0)")
            }
        })
        if command.shell == nil {
            times.wall[.baseline] = [.nan]
            times.cpu[.baseline] = [.nan]
        }
        record("scale \(command.name)", times, goal: command.goal, photos: photos, meets: command.meets)
    }

    /// Rows of `vacation --json` output: an array's count, one for an object (`show`, `check`, `backup`).
    private static func jsonRows(_ output: String, command: String) throws -> Int {
        let value = try JSONSerialization.jsonObject(with: Data(output.utf8))
        if let array = value as? [Any] { return array.count }
        guard let object = value as? [String: Any] else { throw BenchError("scale \(command): not JSON: \(output.prefix(200))") }
        if let ok = object["ok"] as? Bool, !ok { throw BenchError("scale \(command): check found problems: \(output.prefix(200))") }
        return 1
    }

    /// Removes the backup `vacation backup --json` reported, so that runs do not fill the disk.
    private static func removeBackup(_ output: String) throws {
        guard let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any],
              let path = object["path"] as? String else { throw BenchError("scale backup: no path in \(output.prefix(200))") }
        try FileManager.default.removeItem(atPath: path)
    }

    /// Times `body`, which runs one child process to its end, by the wall clock; the child's CPU
    /// time (user and system, all its threads, its loader too) goes to `lastCPUMilliseconds`:
    /// this process's own CPU time says nothing of a child's, and a loaded machine stretches
    /// wall-clock times much more than CPU times.
    func timedChild(_ body: () throws -> Void) rethrows -> Double {
        let before = Self.childrenCPUMilliseconds()
        let wall = try timed(body)
        lastCPUMilliseconds = Self.childrenCPUMilliseconds() - before
        return wall
    }

    /// User and system time of every child this process has waited for, in milliseconds.
    private static func childrenCPUMilliseconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        #else
        getrusage(RUSAGE_CHILDREN, &usage)
        #endif
        let seconds = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        return seconds * 1_000 + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1_000
    }

    private func runVacation(_ vacation: String, _ library: String, _ arguments: [String]) throws {
        _ = try runProcess(vacation, ["--library", library] + arguments)
    }

    /// Runs a program to its end; its standard output, or an error naming its status.
    func runProcess(_ path: String, _ arguments: [String]) throws -> String {
        let result = try ProductProcess.runExternal(path, arguments)
        guard result.status == 0 else {
            throw BenchError("\(URL(fileURLWithPath: path).lastPathComponent) \(arguments.joined(separator: " ")) "
                             + "exited with \(result.status): \(result.errors.prefix(300))")
        }
        return result.output
    }
}
