#if canImport(Glibc)
import Glibc
#endif
import Testing
import CommandLineKit

@Suite("Terminal")
struct TerminalTests {
    /// A pipe, closed when the test ends.
    struct Pipe: ~Copyable {
        let read: Int32
        let write: Int32

        init() throws {
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { throw PipeError() }
            (read, write) = (fds[0], fds[1])
        }

        deinit {
            close(read)
            close(write)
        }
    }

    struct PipeError: Error {}

    @Test("says a pipe and /dev/null are not terminals")
    func notTerminals() throws {
        let pipe = try Pipe()
        #expect(!Terminal.isTerminal(fd: pipe.read))
        #expect(!Terminal.isTerminal(fd: pipe.write))
        let devNull = open("/dev/null", O_WRONLY)
        defer { close(devNull) }
        #expect(!Terminal.isTerminal(fd: devNull))
        #expect(!Terminal.isTerminal(fd: -1))
    }

    @Test("falls back to COLUMNS, then 80, when the width is unknown")
    func fallbackWidth() throws {
        let pipe = try Pipe()
        #expect(Terminal.windowColumns(fd: pipe.write) == nil)
        #expect(Terminal.width(fd: pipe.write, environment: ["COLUMNS": "132"]) == 132)
        for bad in ["", "abc", "0", "-5", "1e3", " 90"] {
            #expect(Terminal.width(fd: pipe.write, environment: ["COLUMNS": bad]) == 80, "\(bad)")
        }
        #expect(Terminal.width(fd: pipe.write, environment: [:]) == 80)
    }

    /// Opens a pseudo-terminal pair through /dev/ptmx, or `nil` where there is none.
    /// The Glibc module does not export `posix_openpt`, so this uses the Linux ioctls
    /// behind it (TIOCSPTLCK to unlock, TIOCGPTN for the follower's number).
    func openPseudoTerminal() -> (controller: Int32, follower: Int32)? {
        #if os(Linux)
        let controller = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        guard controller >= 0 else { return nil }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        let unlockRequest: UInt = 0x4004_5431  // TIOCSPTLCK
        let numberRequest: UInt = 0x8004_5430  // TIOCGPTN
        guard withUnsafeMutablePointer(to: &unlock, { ioctl(controller, unlockRequest, $0) }) == 0,
              withUnsafeMutablePointer(to: &number, { ioctl(controller, numberRequest, $0) }) == 0 else {
            close(controller)
            return nil
        }
        let follower = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        guard follower >= 0 else {
            close(controller)
            return nil
        }
        return (controller, follower)
        #else
        return nil
        #endif
    }

    @Test("reads a pseudo-terminal's width with TIOCGWINSZ")
    func pseudoTerminal() throws {
        // Machines without pseudo-terminals still run the pipe tests.
        guard let (controller, follower) = openPseudoTerminal() else { return }
        defer {
            close(follower)
            close(controller)
        }
        var size = winsize()
        size.ws_col = 123
        size.ws_row = 45
        let result = withUnsafeMutablePointer(to: &size) { ioctl(controller, UInt(TIOCSWINSZ), $0) }
        #expect(result == 0)
        #expect(Terminal.isTerminal(fd: follower))
        #expect(Terminal.width(fd: follower, environment: ["COLUMNS": "50"]) == 123)
        #expect(Terminal.allowsColor(fd: follower, environment: [:]))
        #expect(!Terminal.allowsColor(fd: follower, environment: ["NO_COLOR": "1"]))
        #expect(Terminal.allowsColor(fd: follower, environment: ["NO_COLOR": ""]))
    }

    @Test("falls back to COLUMNS on a terminal that reports no width")
    func zeroWidthTerminal() throws {
        guard let (controller, follower) = openPseudoTerminal() else { return }
        defer {
            close(follower)
            close(controller)
        }
        var size = winsize()
        _ = withUnsafeMutablePointer(to: &size) { ioctl(controller, UInt(TIOCSWINSZ), $0) }
        #expect(Terminal.width(fd: follower, environment: ["COLUMNS": "77"]) == 77)
    }

    @Test("allows no colour on a pipe")
    func noColorOnPipe() throws {
        let pipe = try Pipe()
        #expect(!Terminal.allowsColor(fd: pipe.write, environment: [:]))
    }

    @Test("writes text unbuffered to a file descriptor")
    func fileDescriptorStream() throws {
        let pipe = try Pipe()
        var stream = FileDescriptorOutputStream(fd: pipe.write)
        print("héllo 東京 🗼", to: &stream)
        stream.write("")
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(pipe.read, &buffer, buffer.count)
        #expect(String(decoding: buffer.prefix(max(0, count)), as: UTF8.self) == "héllo 東京 🗼\n")
    }
}
