import Foundation
import Testing
import TestSupport
import Vacations

/// Feeds are read 64 KB at a time: what straddles two reads must read as it would in one.
@Suite("Read boundaries")
struct ReadBoundaryTests {
    /// A JSON feed whose title puts `bytes` at `offset` of the file.
    private func feed(with bytes: [UInt8], at offset: Int) -> Data {
        let head = Array(#"{"photos":{"photo":[{"id":"1","title":""#.utf8)
        let tail = Array(#""}]},"stat":"ok"}"#.utf8)
        return Data(head + Array(repeating: UInt8(ascii: "a"), count: offset - head.count) + bytes + tail)
    }

    @Test("a bad UTF-8 sequence begun in one read and ended in the next is refused with its offset, never a crash",
          arguments: [[0xE5, 0x41], [0xF0, 0x9F, 0x41], [0xF0, 0x9F, 0x97, 0x41], [0xED, 0xA0, 0x80], [0xC3, 0xC3]])
    func badSequenceAcrossReads(bytes: [UInt8]) throws {
        let directory = try TemporaryDirectory(prefix: "boundary")
        for offset in (65_536 - 4)...(65_536 + 1) {
            let url = directory.path("feed-\(offset).json")
            try feed(with: bytes, at: offset).write(to: url)
            do {
                try FlickrFeedReader.read(contentsOf: url, photo: { _ in })
                Issue.record("\(bytes) at \(offset) was read")
            } catch let error as FeedError {
                #expect(error.kind == .notUTF8, "\(bytes) at \(offset): \(error)")
                #expect(error.position == .byteOffset(offset), "\(bytes) at \(offset): \(error)")
            }
        }
    }

    @Test("good multi-byte characters across the boundary read whole")
    func goodSequenceAcrossReads() throws {
        let directory = try TemporaryDirectory(prefix: "boundary")
        for character in ["é", "東", "🗼"] {
            for offset in (65_536 - 4)...(65_536 + 1) {
                let url = directory.path("feed.json")
                try feed(with: Array(character.utf8), at: offset).write(to: url)
                var titles: [String] = []
                try FlickrFeedReader.read(contentsOf: url, photo: { titles.append($0.title ?? "") })
                #expect(titles.first?.hasSuffix(character) == true, "\(character) at \(offset)")
            }
        }
    }
}
