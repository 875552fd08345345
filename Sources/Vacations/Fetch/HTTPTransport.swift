import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A complete HTTP answer: the status, the headers (names in lower case) and the whole body.
package struct HTTPResponse: Sendable, Equatable {
    package var status: Int
    package var headers: [String: String]
    package var body: Data

    package init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }

    package func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Why an attempt got no complete answer.
package enum TransportFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// No answer within the attempt's timeout.
    case timedOut(Duration)
    /// No connection: refused, unreachable, a name that does not resolve.
    case connection(String)
    /// The answer was cut short: fewer bytes than its `Content-Length`, an unfinished chunked
    /// body, the connection reset or lost while answering.
    case interrupted(String)
    /// A failure that trying again cannot mend: a certificate refused, a URL not understood.
    case fatal(String)

    /// Timeouts, connection failures and interrupted transfers may pass; the rest will not.
    var isRetryable: Bool {
        if case .fatal = self { return false }
        return true
    }

    /// No connection, or no answer in time: the server, not one resource, is the trouble.
    var isUnreachable: Bool {
        switch self {
        case .timedOut, .connection: true
        case .interrupted, .fatal: false
        }
    }

    package var description: String {
        switch self {
        case .timedOut(let timeout): "no answer within \(Self.format(timeout))"
        case .connection(let detail): "cannot connect (\(detail))"
        case .interrupted(let detail): "the transfer was cut short (\(detail))"
        case .fatal(let detail): detail
        }
    }

    /// `15 s`, `0.25 s`.
    static func format(_ duration: Duration) -> String {
        let seconds = RetryPolicy.seconds(duration)
        if seconds == seconds.rounded() { return "\(Int(seconds)) s" }
        return "\((seconds * 1000).rounded() / 1000) s"
    }
}

/// Sends one GET and waits for the whole answer. `URLSessionTransport` is the real one;
/// tests of the retry rules give a scripted one.
package protocol HTTPTransport: Sendable {
    func get(_ url: URL, timeout: Duration) -> Result<HTTPResponse, TransportFailure>
}

/// GET over Foundation's `URLSession` (libcurl on Linux): no cache, no cookies, no credentials
/// stored; redirects followed as URLSession does.
package final class URLSessionTransport: HTTPTransport, @unchecked Sendable {
    // URLSession is safe to use from any thread; the class holds nothing else.
    private let session: URLSession

    package init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCredentialStorage = nil
        session = URLSession(configuration: configuration)
    }

    deinit { session.finishTasksAndInvalidate() }

    package func get(_ url: URL, timeout: Duration) -> Result<HTTPResponse, TransportFailure> {
        let seconds = RetryPolicy.seconds(timeout)
        // libcurl takes whole seconds (a fraction would mean none): the deadline below is the
        // real one, URLSession's own a backstop.
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData,
                                 timeoutInterval: max(1, seconds.rounded(.up) + 1))
        request.httpMethod = "GET"
        request.setValue("vacation-fetch", forHTTPHeaderField: "User-Agent")
        let box = AnswerBox()
        let done = DispatchSemaphore(value: 0)
        let task = session.dataTask(with: request) { data, response, error in
            box.set(Self.answer(data: data, response: response, error: error, timeout: timeout))
            done.signal()
        }
        task.resume()
        // The whole answer within the timeout, however slowly it trickles.
        if done.wait(timeout: .now() + seconds) == .timedOut {
            task.cancel()
            return .failure(.timedOut(timeout))
        }
        return box.value ?? .failure(.timedOut(timeout))
    }

    private static func answer(data: Data?, response: URLResponse?, error: Error?, timeout: Duration)
        -> Result<HTTPResponse, TransportFailure> {
        if let error {
            return .failure(classify(error, timeout: timeout))
        }
        guard let http = response as? HTTPURLResponse else {
            return .failure(.interrupted("no HTTP answer"))
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        let body = data ?? Data()
        // libcurl reports a short body itself; this catches one it let through. A compressed
        // body's length is not comparable, so only an identity body is checked.
        if headers["content-encoding"] == nil, let declared = headers["content-length"].flatMap({ Int($0) }),
           body.count < declared {
            return .failure(.interrupted("\(body.count) of \(declared) bytes"))
        }
        return .success(HTTPResponse(status: http.statusCode, headers: headers, body: body))
    }

    private static func classify(_ error: Error, timeout: Duration) -> TransportFailure {
        guard let error = error as? URLError else { return .interrupted(String(describing: type(of: error))) }
        let detail = error.localizedDescription
        switch error.code {
        case .timedOut:
            return .timedOut(timeout)
        case .cannotFindHost, .cannotConnectToHost, .dnsLookupFailed, .notConnectedToInternet,
             .internationalRoamingOff, .callIsActive, .dataNotAllowed, .secureConnectionFailed:
            return .connection(detail)
        case .networkConnectionLost, .badServerResponse, .zeroByteResource, .cannotParseResponse,
             .cannotDecodeRawData, .cannotDecodeContentData, .unknown:
            // libcurl's partial transfers ("transfer closed with 92 bytes remaining to read")
            // arrive as `.unknown`.
            return .interrupted(detail)
        default:
            return .fatal(detail)
        }
    }
}

/// Carries the answer from URLSession's queue to the waiting thread; the semaphore orders the
/// write before the read, the lock keeps the sanitizers and the compiler sure of it.
private final class AnswerBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Result<HTTPResponse, TransportFailure>?

    func set(_ value: Result<HTTPResponse, TransportFailure>) {
        lock.lock()
        defer { lock.unlock() }
        stored = value
    }

    var value: Result<HTTPResponse, TransportFailure>? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
