import Foundation
import Testing
import TestSupport
@testable import Vacations

@Suite("An import's tally of outcomes, kept in bits")
struct OutcomeTallyTests {
    @Test("a key set answers as a set of integers does, across pages, at the edges of Int64 and after removals")
    func keySetIsASet() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("key set, seed \(seed)")
        var generator = SplitMix64(seed: seed)
        let edges: [Int64] = [0, 1, 63, 64, 4_095, 4_096, 4_097, -1, -4_096, -4_097, .max, .min, .max - 1, .min + 1]
        var keys = KeySetProbe()
        for key in edges { keys.insert(key) }
        for _ in 0..<20_000 {
            // Runs of nearby keys, as a chunk's photos, and jumps between pages.
            let base = Int64.random(in: 0...3, using: &generator) == 0 ? Int64.random(in: -50_000...50_000, using: &generator) : 9_000
            let key = base + Int64.random(in: 0...300, using: &generator)
            switch Int.random(in: 0...3, using: &generator) {
            case 0: keys.remove(key)
            case 1: _ = keys.contains(key)
            default: keys.insert(key)
            }
        }
        for key in edges { keys.remove(key) }
        for key in Array(keys.reference).prefix(500) { keys.remove(key) }
        keys.checkAll()
    }

    @Test("each photo is counted once: added stays added, a change wins over no change, in any order across chunks")
    func tallyCountsEachPhotoOnce() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("outcome tally, seed \(seed)")
        var generator = SplitMix64(seed: seed)
        for _ in 0..<50 {
            var tally = FeedImporter.OutcomeTally()
            var reference: [Int64: VisitOutcome] = [:]
            var nextNewKey: Int64 = 10_000
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                var chunk: [(outcome: VisitOutcome, key: Int64)] = []
                for _ in 0..<Int.random(in: 0...40, using: &generator) {
                    switch Int.random(in: 0...3, using: &generator) {
                    case 0:
                        nextNewKey += 1
                        chunk.append((.added, nextNewKey))
                        reference[nextNewKey] = .added
                    case 1 where nextNewKey > 10_000:
                        // A photo this import added, listed again.
                        let key = Int64.random(in: 10_001...nextNewKey, using: &generator)
                        chunk.append((Bool.random(using: &generator) ? .updated : .unchanged, key))
                    default:
                        let key = Int64.random(in: 1...60, using: &generator) * 97
                        let outcome: VisitOutcome = Bool.random(using: &generator) ? .updated : .unchanged
                        chunk.append((outcome, key))
                        if reference[key] != .updated { reference[key] = outcome }
                    }
                }
                tally.add(chunk)
            }
            #expect(tally.added == reference.values.filter { $0 == .added }.count, "seed \(seed)")
            #expect(tally.updated == reference.values.filter { $0 == .updated }.count, "seed \(seed)")
            #expect(tally.unchanged == reference.values.filter { $0 == .unchanged }.count, "seed \(seed)")
        }
    }
}

/// A key set beside a `Set<Int64>`, compared at every step.
private struct KeySetProbe {
    var keys = FeedImporter.KeySet()
    var reference: Set<Int64> = []

    mutating func insert(_ key: Int64) {
        let inserted = keys.insert(key)
        #expect(inserted == reference.insert(key).inserted, "insert \(key)")
        #expect(keys.count == reference.count)
    }

    mutating func remove(_ key: Int64) {
        keys.remove(key)
        reference.remove(key)
        #expect(keys.count == reference.count, "remove \(key)")
    }

    mutating func contains(_ key: Int64) -> Bool {
        let answer = keys.contains(key)
        #expect(answer == reference.contains(key), "contains \(key)")
        return answer
    }

    mutating func checkAll() {
        for key in reference {
            let found = keys.contains(key)
            #expect(found, "\(key)")
        }
        for key in [Int64](-5_000...60_000) where !reference.contains(key) && keys.contains(key) {
            Issue.record("\(key) is in the key set only")
        }
        #expect(keys.count == reference.count)
    }
}
