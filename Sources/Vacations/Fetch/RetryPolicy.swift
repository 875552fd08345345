import Foundation

/// When a request to Flickr is tried again, and when it is given up (README.md, "Straight from Flickr": timeouts,
/// connection failures, interrupted transfers, 5xx and 429 are retried with backoff; the
/// service is given up within 60 s).
///
/// The wait before retry *n* (1-based) is exponential with "equal jitter": half of
/// `min(maximumDelay, baseDelay × 2ⁿ⁻¹)` plus a random part up to the other half, so that
/// clients that failed together do not come back together. A `Retry-After` header (seconds or
/// an HTTP date) replaces the computed wait. A request is given up after `maximumAttempts`, or
/// as soon as the next wait would end past `giveUpAfter` from its first attempt; each attempt's
/// timeout is cut to the time left, so a request never outlives `giveUpAfter`.
///
/// ```swift
/// var policy = RetryPolicy()
/// policy.baseDelay = .milliseconds(5)     // tests: VACATION_FETCH_RETRY_BASE_MS=5
/// policy.delay(beforeRetry: 3, random: &generator)   // between 10 and 20 ms
/// ```
package struct RetryPolicy: Sendable, Equatable {
    /// The first retry waits between half this and this (default 500 ms).
    package var baseDelay: Duration = .milliseconds(500)
    /// No computed wait is longer (default 8 s).
    var maximumDelay: Duration = .seconds(8)
    /// Attempts per request, the first one included (default 6).
    package var maximumAttempts = 6
    /// A request is given up this long after its first attempt started, at the latest (60 s).
    package var giveUpAfter: Duration = .seconds(60)
    /// How long one attempt waits for an answer (default 15 s).
    package var requestTimeout: Duration = .seconds(15)

    package init() {}

    /// The wait before retry `retry` (1 for the first retry), jittered.
    package func delay(beforeRetry retry: Int, random: inout some RandomNumberGenerator) -> Duration {
        let base = Self.seconds(baseDelay)
        let exponent = Double(min(max(retry - 1, 0), 30))
        let ceiling = min(Self.seconds(maximumDelay), base * pow(2, exponent))
        let half = ceiling / 2
        let jitter = half > 0 ? Double.random(in: 0...half, using: &random) : 0
        return Self.duration(half + jitter)
    }

    /// The wait a `Retry-After` header asks for: whole seconds, or an HTTP date (IMF-fixdate,
    /// RFC 850 or asctime, RFC 9110 §10.2.3) taken against `now`; a date in the past is no
    /// wait. `nil` when the header is neither.
    static func retryAfter(_ header: String, now: Date) -> Duration? {
        let text = header.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }) {
            // Beyond any budget; more digits than an Int holds mean the same.
            guard let seconds = Int64(text), seconds < 1_000_000_000 else { return .seconds(1_000_000_000) }
            return .seconds(seconds)
        }
        // asctime pads the day with a space: "Sun Nov  6 08:49:37 1994".
        let collapsed = text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        for format in httpDateFormats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: collapsed) {
                return duration(max(0, date.timeIntervalSince(now)))
            }
        }
        return nil
    }

    private static let httpDateFormats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz",   // Sun, 06 Nov 1994 08:49:37 GMT
        "EEEE, dd-MMM-yy HH:mm:ss zzz",    // Sunday, 06-Nov-94 08:49:37 GMT
        "EEE MMM d HH:mm:ss yyyy",         // Sun Nov  6 08:49:37 1994
    ]

    package static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    package static func duration(_ seconds: Double) -> Duration {
        guard seconds.isFinite, seconds > 0 else { return .zero }
        return .nanoseconds(Int64(min(seconds, 1e9) * 1e9))
    }
}
