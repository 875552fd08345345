import Foundation
import Synchronization

/// Where the CLI writes: standard output or standard error, or a buffer in tests.
public protocol OutputSink: AnyObject, Sendable {
    func write(_ text: String)
}

/// Writes to a file descriptor, unbuffered, as UTF-8.
public final class FileDescriptorSink: OutputSink {
    private let descriptor: Int32

    public init(descriptor: Int32) { self.descriptor = descriptor }

    public func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Foundation.write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            if written <= 0 {
                if written < 0 && errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}

/// Collects what is written, for tests.
public final class BufferSink: OutputSink {
    private let buffer = Mutex("")

    public init() {}

    public func write(_ text: String) { buffer.withLock { $0 += text } }

    public var text: String { buffer.withLock { $0 } }
}

/// A `TextOutputStream` over a sink, for code written against streams (the progress bar).
struct SinkStream: TextOutputStream {
    let sink: OutputSink
    mutating func write(_ string: String) { sink.write(string) }
}
