import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP/1.1 server on 127.0.0.1 for tests, on a port the system picks: each request is
/// recorded, then answered as the handler says — an answer, an answer after a delay, a body cut
/// short of its `Content-Length`, or a connection reset. One POSIX thread accepts, one serves
/// each connection (`startThread`: none of Dispatch's or Swift concurrency's few threads is held
/// by a slow answer), and every answer closes its connection. Nothing but the loopback address
/// is ever bound, so no test reaches the internet.
///
/// ```swift
/// let server = try FakeHTTPServer { request in .respond(status: 200, body: Data("ok".utf8)) }
/// defer { server.stop() }
/// // GET server.baseURL + "anything"
/// #expect(server.requests.count == 1)
/// ```
public final class FakeHTTPServer: @unchecked Sendable {
    /// A request as received.
    public struct Request: Sendable, Equatable {
        public var method: String
        /// The path and query as sent.
        public var target: String
        public var path: String
        /// Query parameters, percent-decoded (the last of a repeated name wins).
        public var query: [String: String]
        /// Header names in lower case.
        public var headers: [String: String]
    }

    /// How to answer.
    public indirect enum Answer: Sendable {
        case respond(status: Int, headers: [String: String] = [:], body: Data = Data())
        /// Headers that promise `declaredLength` bytes, then `body` (shorter), then the connection closes.
        case truncated(status: Int = 200, body: Data, declaredLength: Int)
        /// The connection is reset (RST) without an answer.
        case reset
        /// Waits, then answers; a client that gave up meanwhile finds the connection closed.
        case delayed(seconds: Double, Answer)

        /// A JSON body with status 200.
        public static func json(_ text: String, status: Int = 200) -> Answer {
            .respond(status: status, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
        }
    }

    public let port: UInt16
    public var baseURL: String { "http://127.0.0.1:\(port)/" }

    // `listener` and `handler` are immutable; `recorded` and `stopped` are read and written under `lock`.
    private let listener: Int32
    private let handler: @Sendable (Request) -> Answer
    private let lock = NSLock()
    private var recorded: [Request] = []
    private var stopped = false
    private let acceptorDone = DispatchSemaphore(value: 0)

    /// Starts listening at once.
    public init(handler: @escaping @Sendable (Request) -> Answer) throws {
        self.handler = handler
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { throw Self.error("socket") }
        var reuse: Int32 = 1
        setsockopt(socketFD, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(socketFD, 64) == 0 else {
            close(socketFD)
            throw Self.error("bind/listen")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketFD, $0, &length) }
        }
        guard named == 0 else {
            close(socketFD)
            throw Self.error("getsockname")
        }
        listener = socketFD
        port = UInt16(bigEndian: address.sin_port)
        startThread { [self] in acceptLoop() }
    }

    /// Every request received so far, in order.
    public var requests: [Request] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    /// Stops accepting and closes the listening socket (connections being served finish).
    public func stop() {
        lock.lock()
        let wasStopped = stopped
        stopped = true
        lock.unlock()
        guard !wasStopped else { return }
        acceptorDone.wait()
        close(listener)
    }

    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    private func acceptLoop() {
        defer { acceptorDone.signal() }
        while !isStopped {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            startThread { [self] in serve(connection) }
        }
    }

    private func serve(_ connection: Int32) {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let request = readRequest(connection) else {
            close(connection)
            return
        }
        lock.lock()
        recorded.append(request)
        lock.unlock()
        perform(handler(request), on: connection)
    }

    private func perform(_ answer: Answer, on connection: Int32) {
        switch answer {
        case let .delayed(seconds, then):
            Thread.sleep(forTimeInterval: seconds)
            perform(then, on: connection)
        case let .respond(status, headers, body):
            send(head(status: status, headers: headers, length: body.count) + body, on: connection)
            close(connection)
        case let .truncated(status, body, declaredLength):
            send(head(status: status, headers: [:], length: declaredLength) + body, on: connection)
            close(connection)
        case .reset:
            var linger = linger(l_onoff: 1, l_linger: 0)
            setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
            close(connection)
        }
    }

    private func head(status: Int, headers: [String: String], length: Int) -> Data {
        var text = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(length)\r\nConnection: close\r\n\r\n"
        return Data(text.utf8)
    }

    private func send(_ data: Data, on connection: Int32) {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count, let base = bytes.baseAddress {
                let sent = Self.sendWithoutSignal(connection, base + offset, bytes.count - offset)
                if sent <= 0 { return }
                offset += sent
            }
        }
    }

    /// A client that hung up must not kill the test process with SIGPIPE.
    private static func sendWithoutSignal(_ connection: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        return Glibc.send(connection, bytes, count, Int32(MSG_NOSIGNAL))
        #else
        var on: Int32 = 1
        setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        return Darwin.send(connection, bytes, count, 0)
        #endif
    }

    /// Reads the request line and headers (bodies are not read: every request here is a GET).
    private func readRequest(_ connection: Int32) -> Request? {
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        let terminator: [UInt8] = [13, 10, 13, 10]
        while buffer.count < 65_536 {
            let count = recv(connection, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            buffer += chunk[0..<count]
            if buffer.count >= 4, (0...(buffer.count - 4)).contains(where: { Array(buffer[$0..<($0 + 4)]) == terminator }) { break }
        }
        let text = String(decoding: buffer, as: UTF8.self)
        let lines = text.components(separatedBy: "\r\n")
        let parts = lines.first?.split(separator: " ").map(String.init) ?? []
        guard parts.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let target = parts[1]
        let pieces = target.split(separator: "?", maxSplits: 1).map(String.init)
        var query: [String: String] = [:]
        if pieces.count == 2 {
            for pair in pieces[1].split(separator: "&") {
                let nameValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let name = nameValue[0].removingPercentEncoding ?? nameValue[0]
                let value = nameValue.count > 1 ? (nameValue[1].removingPercentEncoding ?? nameValue[1]) : ""
                query[name] = value
            }
        }
        return Request(method: parts[0], target: target, path: pieces.first ?? "/", query: query, headers: headers)
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 204: "No Content"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status"
        }
    }

    private static func error(_ call: String) -> NSError {
        NSError(domain: NSPOSIXErrorDomain, code: Int(errno), userInfo: [NSLocalizedDescriptionKey: "\(call) failed: errno \(errno)"])
    }
}
