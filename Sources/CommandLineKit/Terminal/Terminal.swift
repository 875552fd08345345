#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Facts about the terminal a file descriptor is attached to.
///
///     if Terminal.isTerminal(fd: STDERR_FILENO) { … show a progress bar … }
///     let columns = Terminal.width(fd: STDOUT_FILENO, environment: ProcessInfo.processInfo.environment)
package enum Terminal {
    /// Whether `fd` is a terminal (`isatty`).
    package static func isTerminal(fd: Int32) -> Bool {
        isatty(fd) == 1
    }

    /// The width of the terminal on `fd` in columns: the window size the kernel reports
    /// (`TIOCGWINSZ`), else a positive `COLUMNS` from `environment`, else 80.
    package static func width(fd: Int32, environment: [String: String]) -> Int {
        if let columns = windowColumns(fd: fd), columns > 0 {
            return columns
        }
        return fallbackWidth(environment: environment)
    }

    /// The width used when the window size is unknown: `COLUMNS`, else 80.
    package static func fallbackWidth(environment: [String: String]) -> Int {
        if let text = environment["COLUMNS"], let columns = Int(text), columns > 0 {
            return columns
        }
        return 80
    }

    /// The column count from `ioctl(TIOCGWINSZ)`, or `nil` when `fd` is not a terminal.
    package static func windowColumns(fd: Int32) -> Int? {
        var size = winsize()
        #if canImport(Glibc)
        let result = withUnsafeMutablePointer(to: &size) { ioctl(fd, UInt(TIOCGWINSZ), $0) }
        #else
        let result = withUnsafeMutablePointer(to: &size) { ioctl(fd, TIOCGWINSZ, $0) }
        #endif
        guard result == 0 else { return nil }
        return Int(size.ws_col)
    }

    /// Whether colour may be used: not when `NO_COLOR` is set to anything non-empty
    /// (https://no-color.org), nor when the output is not a terminal.
    package static func allowsColor(fd: Int32, environment: [String: String]) -> Bool {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        return isTerminal(fd: fd)
    }
}

/// A `TextOutputStream` that writes straight to a file descriptor, unbuffered, so that
/// progress redraws show at once and interleave correctly with other writes to stderr.
///
///     var standardError = FileDescriptorOutputStream(fd: STDERR_FILENO)
///     print("Error: …", to: &standardError)
package struct FileDescriptorOutputStream: TextOutputStream, Sendable {
    package let fd: Int32

    package init(fd: Int32) {
        self.fd = fd
    }

    package mutating func write(_ string: String) {
        var bytes = Array(string.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            guard var pointer = buffer.baseAddress else { return }
            var remaining = buffer.count
            while remaining > 0 {
                #if canImport(Glibc)
                let written = Glibc.write(fd, pointer, remaining)
                #else
                let written = Darwin.write(fd, pointer, remaining)
                #endif
                if written < 0 {
                    if errno == EINTR { continue }
                    return  // A closed or broken stream loses the text rather than crash.
                }
                remaining -= written
                pointer += written
            }
        }
    }
}
