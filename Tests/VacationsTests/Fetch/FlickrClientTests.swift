import Foundation
import Testing
import TestSupport
@testable import Vacations

/// A transport that answers from a script, on a simulated clock: a timeout costs its whole
/// timeout, an answer costs `answerTime`.
final class ScriptedTransport: HTTPTransport, @unchecked Sendable {
    // Read and written under `lock` only.
    private let lock = NSLock()
    private var script: [Result<HTTPResponse, TransportFailure>]
    private var fallback: Result<HTTPResponse, TransportFailure>
    private(set) var timeouts: [Duration] = []
    let clock: SimulatedClock
    let answerTime: Double

    init(_ script: [Result<HTTPResponse, TransportFailure>], then fallback: Result<HTTPResponse, TransportFailure> = .success(HTTPResponse(status: 200)),
         clock: SimulatedClock, answerTime: Double = 0.05) {
        self.script = script
        self.fallback = fallback
        self.clock = clock
        self.answerTime = answerTime
    }

    var attempts: Int {
        lock.lock()
        defer { lock.unlock() }
        return timeouts.count
    }

    var timeoutsSeen: [Duration] {
        lock.lock()
        defer { lock.unlock() }
        return timeouts
    }

    func get(_ url: URL, timeout: Duration) -> Result<HTTPResponse, TransportFailure> {
        lock.lock()
        timeouts.append(timeout)
        let result = script.isEmpty ? fallback : script.removeFirst()
        lock.unlock()
        if case .failure(.timedOut) = result {
            clock.advance(RetryPolicy.seconds(timeout))
            return .failure(.timedOut(timeout))
        }
        clock.advance(answerTime)
        return result
    }
}

/// Seconds that pass only when told to.
final class SimulatedClock: @unchecked Sendable {
    // Read and written under `lock` only.
    private let lock = NSLock()
    private var seconds = 1000.0
    private(set) var sleeps: [Duration] = []

    var now: Double {
        lock.lock()
        defer { lock.unlock() }
        return seconds
    }

    func advance(_ amount: Double) {
        lock.lock()
        seconds += amount
        lock.unlock()
    }

    func sleep(_ duration: Duration) {
        lock.lock()
        seconds += RetryPolicy.seconds(duration)
        sleeps.append(duration)
        lock.unlock()
    }

    var slept: [Duration] {
        lock.lock()
        defer { lock.unlock() }
        return sleeps
    }
}

@Suite("Flickr client: retries, backoff, Retry-After, the limit")
struct FlickrClientTests {
    static let url = URL(fileURLWithPath: "/")  // never opened: the transport is scripted
    static let wallClock = Date(timeIntervalSince1970: 1_700_000_000)

    func client(_ transport: ScriptedTransport, policy: RetryPolicy = RetryPolicy()) -> FlickrClient {
        let clock = transport.clock
        return FlickrClient(transport: transport, policy: policy, clock: { clock.now }, sleep: { clock.sleep($0) },
                            now: { Self.wallClock })
    }

    static func status(_ code: Int, _ headers: [String: String] = [:]) -> Result<HTTPResponse, TransportFailure> {
        .success(HTTPResponse(status: code, headers: headers))
    }

    @Test("an answer that is not retried comes back from the first attempt, whatever its status", arguments: [200, 204, 301, 400, 403, 404, 410])
    func final(_ status: Int) {
        let transport = ScriptedTransport([Self.status(status)], clock: SimulatedClock())
        let outcome = client(transport).get(Self.url)
        #expect(outcome == .answered(HTTPResponse(status: status), attempts: 1))
        #expect(transport.clock.slept.isEmpty)
    }

    @Test("5xx, 429, timeouts, connection failures and cut transfers are retried, with a note before each retry")
    func retried() {
        let failures: [Result<HTTPResponse, TransportFailure>] = [
            Self.status(500), Self.status(503), Self.status(429), .failure(.timedOut(.seconds(15))),
            .failure(.connection("refused")), .failure(.interrupted("reset")),
        ]
        for failure in failures {
            let transport = ScriptedTransport([failure, failure], clock: SimulatedClock())
            var notes: [FlickrClient.RetryNote] = []
            let outcome = client(transport).get(Self.url) { notes.append($0) }
            #expect(outcome == .answered(HTTPResponse(status: 200), attempts: 3))
            #expect(notes.map(\.nextAttempt) == [2, 3])
            #expect(notes.allSatisfy { $0.maximumAttempts == 6 })
            #expect(transport.clock.slept == notes.map(\.wait))
        }
    }

    @Test("a failure that retrying cannot mend is given up at once")
    func fatal() {
        let transport = ScriptedTransport([.failure(.fatal("unsupported URL"))], clock: SimulatedClock())
        #expect(client(transport).get(Self.url) == .gaveUp(reason: "unsupported URL", attempts: 1, unreachable: false))
    }

    @Test("six attempts at most, then the last problem with the count")
    func exhausted() {
        let cases: [(Result<HTTPResponse, TransportFailure>, String, Bool)] = [
            (Self.status(503), "HTTP 503, 6 attempts", false),
            (.failure(.connection("Connection refused")), "cannot connect (Connection refused), 6 attempts", true),
            (.failure(.interrupted("transfer closed with 9 bytes remaining to read")),
             "the transfer was cut short (transfer closed with 9 bytes remaining to read), 6 attempts", false),
        ]
        for (failure, reason, unreachable) in cases {
            let transport = ScriptedTransport([], then: failure, clock: SimulatedClock())
            var notes = 0
            #expect(client(transport).get(Self.url) { _ in notes += 1 } == .gaveUp(reason: reason, attempts: 6, unreachable: unreachable))
            #expect(transport.attempts == 6)
            #expect(notes == 5)
        }
    }

    @Test("Retry-After in seconds or as an HTTP date replaces the backoff; a wait past the limit gives up")
    func retryAfter() {
        let cases: [(String, Duration)] = [
            ("7", .seconds(7)), ("0", .zero),
            ("Tue, 14 Nov 2023 22:13:40 GMT", .seconds(20)),  // the wall clock is 22:13:20
            ("Sun, 06 Nov 1994 08:49:37 GMT", .zero),
        ]
        for (header, wait) in cases {
            let transport = ScriptedTransport([Self.status(429, ["Retry-After": header])], clock: SimulatedClock())
            #expect(client(transport).get(Self.url) == .answered(HTTPResponse(status: 200), attempts: 2))
            #expect(transport.clock.slept == [wait], "\(header)")
        }
        let transport = ScriptedTransport([Self.status(503, ["retry-after": "61"])], clock: SimulatedClock())
        #expect(client(transport).get(Self.url) == .gaveUp(
            reason: "HTTP 503, and the server asks to wait 61 s (Retry-After), past the 60 s a request may take; 1 attempt",
            attempts: 1, unreachable: false))
        #expect(transport.clock.slept.isEmpty)
    }

    @Test("with the defaults, a server that never answers is given up within 60 s, each attempt waiting at most 15 s")
    func limit() {
        let transport = ScriptedTransport([], then: .failure(.timedOut(.seconds(15))), clock: SimulatedClock())
        let start = transport.clock.now
        let outcome = client(transport).get(Self.url)
        let elapsed = transport.clock.now - start
        guard case let .gaveUp(reason, attempts, unreachable) = outcome else {
            Issue.record("expected to give up, got \(outcome)")
            return
        }
        #expect(elapsed <= 60 + 1e-6)
        #expect(unreachable)
        #expect(attempts == transport.attempts)
        #expect((3...4).contains(attempts), "\(attempts) attempts")
        #expect(reason == "no answer within 15 s, \(attempts) attempts in 60 s")
        #expect(transport.timeoutsSeen.allSatisfy { $0 <= .seconds(15) && $0 > .zero })
    }

    @Test("random mixes of failures never outlive the limit nor the attempts")
    func randomized() {
        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        print("FlickrClientTests.randomized seed: \(seed)")
        var generator = SplitMix64(seed: seed)
        for _ in 0..<300 {
            var policy = RetryPolicy()
            policy.maximumAttempts = Int.random(in: 1...10, using: &generator)
            policy.giveUpAfter = .milliseconds(Int64.random(in: 1...120_000, using: &generator))
            policy.requestTimeout = .milliseconds(Int64.random(in: 1...30_000, using: &generator))
            policy.baseDelay = .milliseconds(Int64.random(in: 0...5_000, using: &generator))
            let kinds: [Result<HTTPResponse, TransportFailure>] = [
                Self.status(500), Self.status(429, ["Retry-After": String(Int.random(in: 0...90, using: &generator))]),
                .failure(.timedOut(.zero)), .failure(.connection("x")), .failure(.interrupted("y")), Self.status(200),
            ]
            let script = (0..<12).map { _ in kinds[Int.random(in: 0..<kinds.count, using: &generator)] }
            let transport = ScriptedTransport(script, then: Self.status(503), clock: SimulatedClock(), answerTime: 0.01)
            let start = transport.clock.now
            let outcome = client(transport, policy: policy).get(Self.url, random: &generator) { _ in }
            let elapsed = transport.clock.now - start
            #expect(elapsed <= RetryPolicy.seconds(policy.giveUpAfter) + 0.01 * Double(policy.maximumAttempts), "seed \(seed)")
            #expect(transport.attempts <= policy.maximumAttempts, "seed \(seed)")
            switch outcome {
            case let .answered(response, attempts): #expect(response.status == 200 && attempts == transport.attempts)
            case let .gaveUp(_, attempts, _): #expect(attempts == transport.attempts)
            }
        }
    }
}

@Suite("Retry policy: jittered exponential backoff and Retry-After")
struct RetryPolicyTests {
    @Test("retry n waits between half and all of min(8 s, 500 ms × 2ⁿ⁻¹)")
    func backoff() {
        var generator = SplitMix64(seed: 7)
        let policy = RetryPolicy()
        for retry in 1...12 {
            let ceiling = min(8.0, 0.5 * pow(2, Double(retry - 1)))
            var seen: [Double] = []
            for _ in 0..<200 {
                let wait = RetryPolicy.seconds(policy.delay(beforeRetry: retry, random: &generator))
                #expect(wait >= ceiling / 2 - 1e-9 && wait <= ceiling + 1e-9, "retry \(retry): \(wait)")
                seen.append(wait)
            }
            // Jittered: the waits spread over the range, not one value.
            #expect((seen.max() ?? 0) - (seen.min() ?? 0) > ceiling / 4)
        }
        var fast = RetryPolicy()
        fast.baseDelay = .zero
        #expect(fast.delay(beforeRetry: 3, random: &generator) == .zero)
    }

    @Test("Retry-After: whole seconds, the three HTTP date forms, nothing else")
    func parsing() {
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        let cases: [(String, Duration?)] = [
            ("120", .seconds(120)), (" 3 ", .seconds(3)), ("0", .zero),
            ("Sun, 06 Nov 1994 08:49:47 GMT", .seconds(10)),
            ("Sunday, 06-Nov-94 08:49:57 GMT", .seconds(20)),
            ("Sun Nov  6 08:50:07 1994", .seconds(30)),
            ("Sun, 06 Nov 1994 08:00:00 GMT", .zero),
            ("99999999999999999999999", .seconds(1_000_000_000)),
            ("-5", nil), ("1.5", nil), ("soon", nil), ("", nil),
        ]
        for (header, expected) in cases {
            #expect(RetryPolicy.retryAfter(header, now: now) == expected, "\(header)")
        }
    }
}
