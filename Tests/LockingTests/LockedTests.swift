import Dispatch
import Locking
import Testing

@Suite("Locked: a value behind a pthread mutex")
struct LockedTests {
    private struct Refusal: Error, Equatable {
        let value: Int
    }

    @Test("eight threads adding 10,000 times each to one dictionary lose no update")
    func contention() {
        let counts = Locked<[Int: Int]>([:])
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for step in 0..<10_000 {
                counts.withLock { $0[step % 10, default: 0] += 1 }
            }
            counts.withLock { $0[100 + thread] = thread }
        }
        let snapshot = counts.withLock { $0 }
        #expect((0..<10).map { snapshot[$0] } == Array(repeating: 8_000, count: 10))
        #expect((0..<8).map { snapshot[100 + $0] } == Array(0..<8))
    }

    @Test("withLock returns what its body returns and rethrows what it throws, releasing the lock")
    func resultsAndErrors() {
        let value = Locked(41)
        #expect(value.withLock { number -> String in
            number += 1
            return "now \(number)"
        } == "now 42")
        #expect(throws: Refusal(value: 42)) {
            try value.withLock { number throws(Refusal) in throw Refusal(value: number) }
        }
        // Still free to take: the throw released it.
        #expect(value.withLock { $0 } == 42)
    }
}
