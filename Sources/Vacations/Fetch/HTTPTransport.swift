import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
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
///
/// URLSession lives in `libVacationsHTTP.so` (the `VacationsHTTP` target), loaded the first time
/// a transport is made: linking FoundationNetworking into the `vacation` binary would load
/// libcurl and some thirty libraries behind it into every process, about 8 ms of CPU at the
/// start of every command, fetching or not. The library is looked for beside the running
/// executable, then where the dynamic loader looks.
package final class URLSessionTransport: HTTPTransport, Sendable {
    private typealias Deliver = @convention(c) (UnsafeMutableRawPointer?, Int32, Int64,
                                                UnsafePointer<UInt8>?, Int64, UnsafePointer<UInt8>?, Int64) -> Void
    private typealias Get = @convention(c) (UnsafePointer<CChar>, Double, UnsafeMutableRawPointer?, Deliver) -> Void

    /// The library's entry point, or why it could not be loaded.
    private static let entry: Result<Get, TransportFailure> = loadLibrary()

    package init() {}

    package func get(_ url: URL, timeout: Duration) -> Result<HTTPResponse, TransportFailure> {
        let function: Get
        switch Self.entry {
        case .success(let loaded): function = loaded
        case .failure(let failure): return .failure(failure)
        }
        let box = DeliveredAnswer(timeout: timeout)
        // The library calls back once, before it returns: the box outlives the call.
        withExtendedLifetime(box) {
            function(url.absoluteString, RetryPolicy.seconds(timeout), Unmanaged.passUnretained(box).toOpaque()) {
                context, outcome, status, headers, headersCount, body, bodyCount in
                guard let context else { return }
                let box = Unmanaged<DeliveredAnswer>.fromOpaque(context).takeUnretainedValue()
                box.receive(outcome: outcome, status: Int(status),
                            headers: headers.map { Data(bytes: $0, count: Int(headersCount)) } ?? Data(),
                            body: body.map { Data(bytes: $0, count: Int(bodyCount)) } ?? Data())
            }
        }
        return box.result ?? .failure(.timedOut(timeout))
    }

    private static func loadLibrary() -> Result<Get, TransportFailure> {
        let name = "libVacationsHTTP.so"
        var candidates = [name]
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.insert(URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent(name).path, at: 0)
        }
        var reasons: [String] = []
        for candidate in candidates {
            guard let handle = dlopen(candidate, RTLD_NOW | RTLD_LOCAL) else {
                reasons.append(dlerror().map { String(cString: $0) } ?? candidate)
                continue
            }
            guard let symbol = dlsym(handle, "vacations_http_get") else {
                reasons.append("\(candidate) has no vacations_http_get")
                continue
            }
            return .success(unsafeBitCast(symbol, to: Get.self))
        }
        return .failure(.fatal("cannot load the HTTP library \(name) (build it with swift build): " + reasons.joined(separator: "; ")))
    }
}

/// What the library delivered, read back on the calling thread once the call returns (the
/// library calls back on that same thread, before returning; the lock keeps the sanitizers and
/// the compiler sure of it).
private final class DeliveredAnswer: @unchecked Sendable {
    private let lock = NSLock()
    private let timeout: Duration
    private var stored: Result<HTTPResponse, TransportFailure>?

    init(timeout: Duration) { self.timeout = timeout }

    func receive(outcome: Int32, status: Int, headers: Data, body: Data) {
        let detail = String(decoding: body, as: UTF8.self)
        let value: Result<HTTPResponse, TransportFailure>
        switch outcome {
        case 0:
            var fields: [String: String] = [:]
            let parts = headers.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            var index = 0
            while index + 1 < parts.count {
                if fields[parts[index]] == nil { fields[parts[index]] = parts[index + 1] }
                index += 2
            }
            value = .success(HTTPResponse(status: status, headers: fields, body: body))
        case 1: value = .failure(.timedOut(timeout))
        case 2: value = .failure(.connection(detail))
        case 3: value = .failure(.interrupted(detail))
        default: value = .failure(.fatal(detail))
        }
        lock.lock()
        defer { lock.unlock() }
        stored = value
    }

    var result: Result<HTTPResponse, TransportFailure>? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
