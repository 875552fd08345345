import Foundation

/// A feed's bytes, read in fixed-size chunks from a file descriptor or from memory and
/// checked as UTF-8 on the way in. Only one chunk is held at a time, so memory stays flat
/// whatever the size of the feed.
///
/// Parsers either look at the buffered window and consume it (the JSON tokenizer, the
/// sniffer) or copy it out with ``read(into:)`` (libxml2's input callback).
package final class FeedInput {
    static let chunkSize = 64 * 1024

    private enum Source {
        case descriptor(Int32, closeWhenDone: Bool)
        case memory(Data, position: Int)
    }

    private var source: Source
    /// Where the feed comes from, for I/O error messages.
    let name: String
    private let storage: UnsafeMutableRawBufferPointer
    /// The unread bytes are `storage[start..<end]`.
    private(set) var start = 0
    private(set) var end = 0
    /// Absolute offset of `storage[start]` in the feed.
    private(set) var offsetOfStart = 0
    private(set) var reachedEnd = false
    private var validator = UTF8Validator()

    private init(source: Source, name: String) {
        self.source = source
        self.name = name
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 8)
    }

    deinit {
        storage.deallocate()
        if case let .descriptor(descriptor, true) = source { _ = close(descriptor) }
    }

    /// Opens a file for reading.
    /// - Throws: ``FeedError`` of kind `.io` naming the path and the system's reason.
    package convenience init(contentsOf url: URL) throws {
        let path = url.path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            throw FeedError(.io, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        self.init(source: .descriptor(descriptor, closeWhenDone: true), name: path)
    }

    /// Reads from an open file handle, such as standard input; the handle stays open.
    convenience init(fileHandle: FileHandle, name: String = "standard input") {
        self.init(source: .descriptor(fileHandle.fileDescriptor, closeWhenDone: false), name: name)
    }

    convenience init(data: Data, name: String = "data") {
        self.init(source: .memory(data, position: 0), name: name)
    }

    /// The buffered bytes not yet consumed.
    var window: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: storage[start..<end])
    }

    /// Marks `count` buffered bytes as consumed.
    func consume(_ count: Int) {
        start += count
        offsetOfStart += count
    }

    /// Appends the next chunk of the feed to the window, keeping what is unconsumed.
    /// - Returns: `false` at the end of the feed or when the window is full.
    /// - Throws: ``FeedError`` `.io` on a read error, `.notUTF8` on bytes that are not UTF-8.
    @discardableResult
    func fill() throws -> Bool {
        if reachedEnd { return false }
        if start > 0 {
            // Keep the unconsumed tail at the front so the next read has room.
            let pending = end - start
            if pending > 0, let base = storage.baseAddress {
                memmove(base, base + start, pending)
            }
            start = 0
            end = pending
        }
        guard end < storage.count, let base = storage.baseAddress else { return false }
        let count = try readSource(into: UnsafeMutableRawBufferPointer(start: base + end, count: storage.count - end))
        if count == 0 {
            reachedEnd = true
            if let offset = validator.unfinishedSequence() {
                // A download cut in the middle of a character is cut short, not mis-encoded.
                throw FeedError(.truncated, at: .byteOffset(offset), "the input ends inside a UTF-8 sequence")
            }
            return false
        }
        let fresh = UnsafeRawBufferPointer(start: base + end, count: count)
        let freshOffset = offsetOfStart + (end - start)
        if let offset = validator.check(fresh, at: freshOffset) {
            // The bad sequence may have begun in an earlier read: describe it from the window,
            // which the fresh bytes extend.
            let buffered = UnsafeRawBufferPointer(start: base + start, count: end - start + count)
            throw FeedError(.notUTF8, at: .byteOffset(offset), describeBytes(at: offset - offsetOfStart, in: buffered))
        }
        end += count
        return true
    }

    /// Copies up to `buffer.count` bytes out, reading the next chunk when the window is empty.
    /// - Returns: the number of bytes copied; 0 only at the end of the feed.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if start == end {
            guard try fill() else { return 0 }
        }
        let count = min(buffer.count, end - start)
        if count > 0, let target = buffer.baseAddress, let base = storage.baseAddress {
            memcpy(target, base + start, count)
        }
        consume(count)
        return count
    }

    private func readSource(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        switch source {
        case let .descriptor(descriptor, _):
            while true {
                let count = Foundation.read(descriptor, buffer.baseAddress, buffer.count)
                if count >= 0 { return count }
                if errno == EINTR { continue }
                throw FeedError(.io, "cannot read \(name): \(String(cString: strerror(errno)))")
            }
        case let .memory(data, position):
            // `position` counts from the start of `data`, which may be a slice.
            let count = min(buffer.count, data.count - position)
            if count > 0 {
                data.withUnsafeBytes { bytes in
                    buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[position..<(position + count)]))
                }
            }
            source = .memory(data, position: position + count)
            return count
        }
    }

    /// Up to four bytes from `index`; a sequence whose start was consumed already is shown from
    /// the first byte still held.
    private func describeBytes(at index: Int, in bytes: UnsafeRawBufferPointer) -> String {
        let from = min(max(0, index), bytes.count)
        let shown = bytes[from..<min(bytes.count, from + 4)].map { "0x" + String($0, radix: 16, uppercase: true) }
        return "bytes " + shown.joined(separator: " ")
    }
}
