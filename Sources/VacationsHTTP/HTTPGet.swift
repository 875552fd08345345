import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// `vacation fetch`'s HTTP GET over Foundation's URLSession (libcurl on Linux), in a library of
// its own that the `vacation` binary loads only when it fetches (`URLSessionTransport` in
// Vacations). Linking FoundationNetworking pulls in libcurl and some thirty libraries behind it
// (TLS, Kerberos, LDAP, IDN…), whose loading and relocation cost every process about 8 ms of
// CPU at start, `vacation tags` as much as `vacation fetch` (README.md, "A million photos at
// the prompt"). The library speaks C across the boundary: no Swift type is shared, so nothing
// of the caller's modules is linked twice.

/// How an answer ends; the numbers are the boundary's (`URLSessionTransport` reads them).
private enum Outcome: Int32 {
    case answer = 0, timedOut = 1, connection = 2, interrupted = 3, fatal = 4
}

/// The callback's type: the caller's context, the outcome, the HTTP status, the headers as
/// `name NUL value NUL` pairs, and the body (for a failure: its description in UTF-8).
public typealias VacationsHTTPDeliver = @convention(c) (UnsafeMutableRawPointer?, Int32, Int64,
                                                       UnsafePointer<UInt8>?, Int64, UnsafePointer<UInt8>?, Int64) -> Void

/// The one session of the process: no cache, no cookies, no credentials stored; redirects
/// followed as URLSession does.
private let session: URLSession = {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.urlCache = nil
    configuration.httpCookieStorage = nil
    configuration.httpShouldSetCookies = false
    configuration.urlCredentialStorage = nil
    return URLSession(configuration: configuration)
}()

/// Sends one GET of `url` and calls `deliver` once, before returning, with the whole answer or
/// why there is none; the answer must come whole within `timeoutSeconds`.
@_cdecl("vacations_http_get")
public func vacationsHTTPGet(_ url: UnsafePointer<CChar>, _ timeoutSeconds: Double, _ context: UnsafeMutableRawPointer?,
                             _ deliver: VacationsHTTPDeliver) {
    let finished = get(String(cString: url), timeoutSeconds: timeoutSeconds)
    var headerBytes: [UInt8] = []
    for (name, value) in finished.headers {
        headerBytes += Array(name.utf8) + [0] + Array(value.utf8) + [0]
    }
    headerBytes.withUnsafeBufferPointer { headers in
        finished.body.withUnsafeBytes { body in
            deliver(context, finished.outcome.rawValue, Int64(finished.status), headers.baseAddress, Int64(headers.count),
                    body.bindMemory(to: UInt8.self).baseAddress, Int64(body.count))
        }
    }
}

private struct Finished {
    var outcome: Outcome
    var status = 0
    var headers: [(String, String)] = []
    var body = Data()

    static func failure(_ outcome: Outcome, _ detail: String) -> Finished {
        Finished(outcome: outcome, body: Data(detail.utf8))
    }
}

private func get(_ text: String, timeoutSeconds seconds: Double) -> Finished {
    guard let url = URL(string: text) else { return .failure(.fatal, "not a URL: \(text)") }
    // libcurl takes whole seconds (a fraction would mean none): the deadline below is the
    // real one, URLSession's own a backstop.
    var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: max(1, seconds.rounded(.up) + 1))
    request.httpMethod = "GET"
    request.setValue("vacation-fetch", forHTTPHeaderField: "User-Agent")
    let box = AnswerBox()
    let done = DispatchSemaphore(value: 0)
    let task = session.dataTask(with: request) { data, response, error in
        box.set(answer(data: data, response: response, error: error))
        done.signal()
    }
    task.resume()
    // The whole answer within the timeout, however slowly it trickles.
    if done.wait(timeout: .now() + seconds) == .timedOut {
        task.cancel()
        return Finished(outcome: .timedOut)
    }
    return box.value ?? Finished(outcome: .timedOut)
}

private func answer(data: Data?, response: URLResponse?, error: Error?) -> Finished {
    if let error { return classify(error) }
    guard let http = response as? HTTPURLResponse else { return .failure(.interrupted, "no HTTP answer") }
    var headers: [(String, String)] = []
    var lowercased: [String: String] = [:]
    for (name, value) in http.allHeaderFields {
        if let name = name as? String, let value = value as? String {
            headers.append((name.lowercased(), value))
            lowercased[name.lowercased()] = value
        }
    }
    let body = data ?? Data()
    // libcurl reports a short body itself; this catches one it let through. A compressed
    // body's length is not comparable, so only an identity body is checked.
    if lowercased["content-encoding"] == nil, let declared = lowercased["content-length"].flatMap({ Int($0) }), body.count < declared {
        return .failure(.interrupted, "\(body.count) of \(declared) bytes")
    }
    return Finished(outcome: .answer, status: http.statusCode, headers: headers, body: body)
}

private func classify(_ error: Error) -> Finished {
    guard let error = error as? URLError else { return .failure(.interrupted, String(describing: type(of: error))) }
    let detail = error.localizedDescription
    switch error.code {
    case .timedOut:
        return Finished(outcome: .timedOut)
    case .cannotFindHost, .cannotConnectToHost, .dnsLookupFailed, .notConnectedToInternet,
         .internationalRoamingOff, .callIsActive, .dataNotAllowed, .secureConnectionFailed:
        return .failure(.connection, detail)
    case .networkConnectionLost, .badServerResponse, .zeroByteResource, .cannotParseResponse,
         .cannotDecodeRawData, .cannotDecodeContentData, .unknown:
        // libcurl's partial transfers ("transfer closed with 92 bytes remaining to read")
        // arrive as `.unknown`.
        return .failure(.interrupted, detail)
    default:
        return .failure(.fatal, detail)
    }
}

/// Carries the answer from URLSession's queue to the waiting thread; the semaphore orders the
/// write before the read, the lock keeps the sanitizers and the compiler sure of it.
private final class AnswerBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Finished?

    func set(_ value: Finished) {
        lock.lock()
        defer { lock.unlock() }
        stored = value
    }

    var value: Finished? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
