import Foundation
import Locking

/// Where the CLI writes: standard output or standard error, or a buffer in tests.
package protocol OutputSink: AnyObject, Sendable {
    func write(_ text: String)
    /// Why a write failed (a full disk, a closed pipe), if one did: the command then failed.
    var writeFailure: String? { get }
}

extension OutputSink {
    package var writeFailure: String? { nil }
}

/// Writes to a file descriptor, unbuffered, as UTF-8.
package final class FileDescriptorSink: OutputSink {
    private let descriptor: Int32
    private let failure = Locked<String?>(nil)

    package init(descriptor: Int32) { self.descriptor = descriptor }

    package var writeFailure: String? { failure.withLock { $0 } }

    /// Writes the text's own UTF-8 storage (no copy of a long answer first).
    package func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
                if written <= 0 {
                    if written < 0 && errno == EINTR { continue }
                    let reason = written < 0 ? String(cString: strerror(errno)) : "nothing was written"
                    failure.withLock { if $0 == nil { $0 = reason } }
                    return
                }
                offset += written
            }
        }
    }
}

/// Collects what is written, for tests.
package final class BufferSink: OutputSink {
    private let buffer = Locked("")

    package init() {}

    package func write(_ text: String) { buffer.withLock { $0 += text } }

    package var text: String { buffer.withLock { $0 } }
}

/// A `TextOutputStream` over a sink, for code written against streams (the progress bar).
package struct SinkStream: TextOutputStream {
    package let sink: OutputSink
    package init(sink: OutputSink) { self.sink = sink }
    package mutating func write(_ string: String) { sink.write(string) }
}
