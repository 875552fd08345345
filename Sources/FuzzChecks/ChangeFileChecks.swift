import Foundation
import Vacations

/// The change-file target's check: any bytes read as a whole change file, an incomplete one or a
/// refused one, with a reason; a whole one obeys every rule, writes back to the same file, and
/// every prefix of it is incomplete (never applied in part, never refused for being short).
enum ChangeFileChecks {
    /// The device and number every input is read as coming from (the seeds are written so).
    static let device = "00000000-0000-4000-8000-000000000007"
    static let sequence: Int64 = 1

    static func check(_ data: Data) throws(FuzzFinding) {
        switch ChangeFile.read(data, device: device, sequence: sequence) {
        case .incomplete(let reason), .refused(let reason):
            guard !reason.isEmpty else { throw FuzzFinding(.change, "a file was turned away without a reason") }
        case .complete(let file):
            for write in file.writes {
                if let problem = SyncValidation.problem(with: write) {
                    throw FuzzFinding(.change, "a whole file holds a write that breaks a rule: \(problem)")
                }
            }
            let written: Data
            do {
                written = try file.encoded()
            } catch {
                throw FuzzFinding(.change, "a file read cannot be written back: \(error)")
            }
            guard ChangeFile.read(written, device: device, sequence: sequence) == .complete(file) else {
                throw FuzzFinding(.change, "a file written back reads differently")
            }
            for length in Set([0, 1, data.count / 2, data.count - 1]) where length >= 0 && length < data.count {
                guard case .incomplete = ChangeFile.read(data.prefix(length), device: device, sequence: sequence) else {
                    throw FuzzFinding(.change, "the first \(length) bytes of a whole file are not read as incomplete")
                }
            }
        }
    }
}
