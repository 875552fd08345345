import Foundation

/// Sends GETs and retries them by a ``RetryPolicy``: a timeout, a connection failure, an
/// interrupted transfer, a 5xx or a 429 is tried again after a jittered, growing wait (or the
/// wait `Retry-After` asks for), until the policy gives up. Any other answer (2xx, 3xx, 4xx) is
/// returned as it is: what it means is the caller's to say.
///
/// ```swift
/// let client = FlickrClient(transport: URLSessionTransport(), policy: RetryPolicy())
/// switch client.get(url, retrying: { note in print(note) }) {
/// case .answered(let response, _): …
/// case .gaveUp(let reason, _): …          // exit 69
/// }
/// ```
package struct FlickrClient: Sendable {
    /// What came of a request.
    package enum Outcome: Sendable, Equatable {
        /// An answer that is not retried, after `attempts` attempts.
        case answered(HTTPResponse, attempts: Int)
        /// The policy gave up; `reason` says what the last attempt met (no URL, no key), and
        /// `unreachable` whether that was no connection or no answer in time (rather than an
        /// answer that kept failing).
        case gaveUp(reason: String, attempts: Int, unreachable: Bool)
    }

    /// What a retry is about to do, for a warning line.
    package struct RetryNote: Sendable, Equatable, CustomStringConvertible {
        /// What the failed attempt met, e.g. "HTTP 503".
        package var problem: String
        /// The attempt that comes next (2 for the first retry), of `maximumAttempts`.
        var nextAttempt: Int
        package var maximumAttempts: Int
        package var wait: Duration

        package var description: String {
            "\(problem); trying again (attempt \(nextAttempt) of \(maximumAttempts))"
        }
    }

    package var transport: any HTTPTransport
    package var policy: RetryPolicy
    /// Seconds on a clock that never goes back.
    package var clock: @Sendable () -> Double
    /// Waits; tests give one that only advances their clock.
    package var sleep: @Sendable (Duration) -> Void
    /// The wall clock, for `Retry-After` dates.
    package var now: @Sendable () -> Date

    package init(transport: any HTTPTransport, policy: RetryPolicy,
                clock: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime },
                sleep: @escaping @Sendable (Duration) -> Void = { Thread.sleep(forTimeInterval: RetryPolicy.seconds($0)) },
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.transport = transport
        self.policy = policy
        self.clock = clock
        self.sleep = sleep
        self.now = now
    }

    /// GETs `url`, retrying as the policy says; `retrying` hears of each retry before its wait.
    package func get(_ url: URL, retrying: (RetryNote) -> Void = { _ in }) -> Outcome {
        var random = SystemRandomNumberGenerator()
        return get(url, random: &random, retrying: retrying)
    }

    /// As `get(_:retrying:)`, with the jitter drawn from `random` (tests seed it).
    package func get(_ url: URL, random: inout some RandomNumberGenerator, retrying: (RetryNote) -> Void) -> Outcome {
        let start = clock()
        let limit = RetryPolicy.seconds(policy.giveUpAfter)
        var attempt = 0
        while true {
            attempt += 1
            let left = limit - (clock() - start)
            let timeout = min(policy.requestTimeout, RetryPolicy.duration(max(left, 0.001)))
            let problem: String
            var askedWait: Duration?
            var unreachable = false
            switch transport.get(url, timeout: timeout) {
            case .success(let response):
                guard Self.isRetryable(status: response.status) else { return .answered(response, attempts: attempt) }
                problem = "HTTP \(response.status)"
                askedWait = response.header("retry-after").flatMap { RetryPolicy.retryAfter($0, now: now()) }
            case .failure(let failure):
                unreachable = failure.isUnreachable
                guard failure.isRetryable else { return .gaveUp(reason: failure.description, attempts: attempt, unreachable: false) }
                // An attempt's timeout may have been cut to the time left; the message names the
                // one the policy gives.
                if case .timedOut = failure {
                    problem = TransportFailure.timedOut(policy.requestTimeout).description
                } else {
                    problem = failure.description
                }
            }
            if attempt >= policy.maximumAttempts {
                return .gaveUp(reason: "\(problem), \(Self.attempts(attempt))", attempts: attempt, unreachable: unreachable)
            }
            let wait = askedWait ?? policy.delay(beforeRetry: attempt, random: &random)
            let elapsed = clock() - start
            if elapsed + RetryPolicy.seconds(wait) >= limit {
                if let askedWait {
                    let asked = TransportFailure.format(.seconds(RetryPolicy.seconds(askedWait).rounded(.up)))
                    return .gaveUp(reason: "\(problem), and the server asks to wait \(asked) (Retry-After), past the "
                                   + "\(TransportFailure.format(policy.giveUpAfter)) a request may take; \(Self.attempts(attempt))",
                                   attempts: attempt, unreachable: unreachable)
                }
                return .gaveUp(reason: "\(problem), \(Self.attempts(attempt)) in \(TransportFailure.format(policy.giveUpAfter))",
                               attempts: attempt, unreachable: unreachable)
            }
            retrying(RetryNote(problem: problem, nextAttempt: attempt + 1, maximumAttempts: policy.maximumAttempts, wait: wait))
            sleep(wait)
        }
    }

    /// 429 (Too Many Requests) and the 5xx server errors pass; other answers are final.
    static func isRetryable(status: Int) -> Bool {
        status == 429 || (500...599).contains(status)
    }

    private static func attempts(_ count: Int) -> String {
        count == 1 ? "1 attempt" : "\(count) attempts"
    }
}
