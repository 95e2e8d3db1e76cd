import StreamIO
import Dispatch
import EventPolling
import HTTPWire
import WebSocketClient
#if canImport(Glibc)
import Glibc
#endif

/// Devices' HTTP/1.1 requests through `HTTPWire.WireClient` instead of libcurl, with `HTTPClient`'s call shape
/// (`send(ClientRequest, completion:)` and `close()` on the worker's queue, the same `ClientResponse` and
/// `TransportError` kinds), so a driver loop can hold either. The raw-GET bench measured it at several times
/// libcurl's requests per client CPU-second (docs/BENCHMARKS.md).
///
/// It carries what the wire client has: HTTP/1.1 over TCP or TLS (verified against `caFile` or the system store),
/// keep-alive, fresh connections, timeouts. It refuses at creation a configuration that needs libcurl: HTTP/2, a
/// proxy, a client certificate.
///
/// Ownership rule: as `HTTPClient`'s: every method on `events.queue`, every completion there.
public final class WireSender: @unchecked Sendable {
    public let queue: DispatchQueue
    private let client: WireClient
    private var closed = false
    /// Request heads already written (`head(_:_:sendsBody:)`); a traced call's own header line makes its own.
    private var heads: [(lines: [String], sendsBody: Bool, head: WireRequest.Head)] = []
    static let keptHeads = 32
    /// The last request's origin and the URL bytes that gave it (`WireOrigin.Known`): a device's requests go to
    /// one target, so the next URL's origin is usually this one, found by comparing bytes.
    private var knownOrigin: WireOrigin.Known?
    /// Connections open at once to one origin, whatever the idle cache's size: each is an fd of the worker's.
    static let connectionCeiling = 4_096

    /// Call on `events.queue`.
    public init(events: EventThread, configuration: HTTPClient.Configuration) throws(TransportError) {
        guard case .http1 = configuration.version, configuration.proxy == nil,
              configuration.clientCertificatePath == nil else {
            throw .other(code: -1, message: "the wire client speaks HTTP/1.1 without a proxy or client certificate; "
                         + "use the curl client for HTTP/2, proxies and mutual TLS")
        }
        var wire = WireClient.Configuration()
        // libcurl's maxConnections is the size of its cache of idle connections, not a limit on connections in
        // use: a burst opens as many as it needs. The same here, with a ceiling against running out of fds.
        wire.maxIdlePerOrigin = configuration.maxConnections
        wire.maxConnectionsPerOrigin = max(configuration.maxConnections, Self.connectionCeiling)
        wire.connectTimeoutMillis = configuration.connectTimeoutMillis
        wire.limits.maxBodyBytes = configuration.maxResponseBytes
        queue = events.queue
        if let caFile = configuration.caFile {
            // A named CA file is read now, so an unreadable one stops the run before it starts.
            let tls: ClientTLS
            do {
                tls = try ClientTLS(caFile: caFile)
            } catch {
                throw .tls("\(error)")
            }
            client = WireClient(thread: events, configuration: wire, tls: tls)
        } else {
            // The system store is loaded on the first https request: ~200 M instructions (16 % of a 500-call
            // callgrind run of Benchmarks/scenarios/vs-locust.yaml) that a plain-HTTP target never needs.
            client = WireClient(thread: events, configuration: wire) {
                do {
                    return .success(try ClientTLS(caFile: nil))
                } catch {
                    return .failure(.tls("\(error)"))
                }
            }
        }
    }

    /// Sends `request`; `completion` runs on `queue` exactly once. `headers` are `name: value` lines, read as
    /// libcurl reads them (`WireSender+Headers`); the body goes out as libcurl sends it: always for POST, never
    /// for GET, for other methods when it is not empty.
    public func send(_ request: ClientRequest, completion: @escaping HTTPClient.Completion) {
        guard !closed else { return completion(.failure(.other(code: -1, message: "client closed"))) }
        var wire: WireRequest
        do {
            let sendsBody = request.method == "POST" || (request.method != "GET" && !request.body.isEmpty)
            wire = try WireRequest(method: request.method, url: request.url, body: sendsBody ? request.body : nil,
                                   timeoutMillis: request.timeoutMillis, known: &knownOrigin) { origin throws(WireError) in
                try head(origin, request.headers, sendsBody: sendsBody)
            }
        } catch {
            return completion(.failure(Self.transportError(error)))
        }
        wire.freshConnection = request.freshConnection
        wire.collectsHeaders = request.collectsHeaders
        client.send(wire) { result in
            switch result {
            case .success(let response):
                completion(.success(ClientResponse(status: response.status, body: response.body,
                                                   headers: response.headers.map { ($0.name.lowercased(), $0.value) })))
            case .failure(let error):
                completion(.failure(Self.transportError(error)))
            }
        }
    }

    /// The head (`Host` and header lines) of a request to `origin` with header lines `lines`: the one kept for the
    /// same origin, lines and body rule, or a new one, kept while fewer than `keptHeads` are. A device's requests
    /// have a few shapes (the mapping's endpoints against one target), and reading the lines as libcurl does and
    /// checking and writing each name and value cost ~5,000 instructions a request (the capacity flow, issue 33).
    /// Lines compare as Strings: the same template's lines share their storage, so most compare by identity.
    private func head(_ origin: WireOrigin, _ lines: [String], sendsBody: Bool) throws(WireError) -> WireRequest.Head {
        for i in heads.indices where heads[i].sendsBody == sendsBody && heads[i].lines == lines
            && heads[i].head.origin == origin {
            return heads[i].head
        }
        let head = try WireRequest.Head(origin: origin, headers: Self.headers(lines, sendsBody: sendsBody))
        if heads.count < Self.keptHeads { heads.append((lines, sendsBody, head)) }
        return head
    }

    /// Fails every request in flight and closes every connection. Call on `queue`.
    public func close() {
        guard !closed else { return }
        closed = true
        client.close()
    }

    /// The libcurl transport's error for the same failure, so counters keep their keys.
    static func transportError(_ error: WireError) -> TransportError {
        switch error {
        case .refused: return .refused
        case .connectFailed(_, _, let code) where code == ECONNRESET:
            // As HTTPClient books curl's COULDNT_CONNECT with ECONNRESET: a proxy resetting at once.
            return .reset("connection reset by peer during connect")
        case .resolveFailed, .connectFailed: return .connect(error.description)
        case .connectTimeout, .responseTimeout: return .timeout
        case .tls(let why): return .tls(why)
        case .connectionClosed(let part): return .reset(part)
        case .malformed(let why): return .protocolError(why.description)
        case .responseTooLarge(let limit): return .responseTooLarge(limit: limit)
        case .badURL, .badHeader, .noTLSContext, .clientClosed: return .other(code: -1, message: error.description)
        }
    }
}
