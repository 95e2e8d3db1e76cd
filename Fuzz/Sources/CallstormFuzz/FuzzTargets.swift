import Credentials
@testable import Driver
import Foundation
import OTLP
@testable import HTTPServer
import Determinism
import PushGateway
import WebSocket
@testable import Scenario
#if canImport(Glibc)
import Glibc
#endif

/// The inputs callstorm takes from outside, each as one libFuzzer target (`make fuzz`, docs in Fuzz/README.md).
/// Built with `-sanitize=fuzzer` the module exports `LLVMFuzzerTestOneInput`; built plainly it is a replayer
/// (`CallstormFuzz TARGET FILE|DIR...`) that the test suite runs over the committed corpora and crashers.
/// Uses `@testable` imports, so it is built in the debug configuration only.
enum FuzzTarget: String, CaseIterable, Sendable {
    /// Scenario YAML: libyaml, the decoder, every section's validation.
    case scenario
    /// The HTTP/1.1 request parser, fed in two pieces split where the first byte says, and the CONNECT head
    /// reader (head end, request line, authority, the APNs target policy) on the whole input.
    case http1
    /// A real h2c/HTTP/1.1 server on loopback with the push gateway behind it: bytes go down a fresh connection
    /// (after the HTTP/2 preface when the first byte is even), so HTTP2Connection, HPACK and the gateway see them.
    /// The server answers CONNECT to the APNs hosts as the gateway does, so input that begins `CONNECT ` goes
    /// through the socket-level CONNECT reader (peeked heads, split heads, refusals, the tunnel's TLS start).
    case http2
    /// Target responses: the reference protocol's conversation, split and push JSON, and `capture` JSON paths;
    /// the one-pass scan and the view readers against the JSONLite tree they replaced (JSONScanFuzz.swift).
    case json
    /// Push requests at the gateway: APNs validation of headers and payload from the input, and FCM v1 bodies.
    case push
    /// WebSocket frames (RFC 6455): the frame parser and message assembler for both roles, fed in chunks, and
    /// the client state machine after a valid handshake.
    case websocket
    /// SIP messages (RFC 3261) as UDP datagrams or a TCP stream in chunks, then every helper a UA reads them with
    /// (SIPFuzz.swift).
    case sip
    /// A collector's answer to an OTLP export: byte 0 picks the status (200, 400, 429, 503), bytes 1...4 are the
    /// Retry-After text, the rest the protobuf body (partial success or google.rpc.Status), read both ways.
    case otlp
    /// rtpengine's ng control protocol: the datagram (cookie, space, bencoded dictionary) and the bare bencode
    /// reader both ways, a round trip of what decodes, and the typed `query` answer (BencodeFuzz.swift).
    case bencode
    /// RTP packets (RFC 3550): a header round trip, or datagrams through one media stream's books (MediaFuzz.swift).
    case rtp
    /// RTCP compound datagrams: SR, RR and the rest, with a write/parse round trip of the reports.
    case rtcp
    /// HTTP/1.1 responses for HTTPWire's client parser, split where byte 0 says, checked against a whole-input
    /// parse (HTTP1ResponseFuzz.swift).
    case http1Response = "http1-response"
    /// A run's recorder snapshot, segment line or bare recorder, read by hand and by JSONDecoder, which must agree
    /// whenever both read it (RecorderFuzz.swift).
    case recorder
    /// A run's history.jsonl, read whole and line by line by the fixed-shape reader and the general scanner, which
    /// must agree whenever the fixed-shape reader reads a line (HistoryFuzz.swift).
    case history

    func run(_ input: UnsafeBufferPointer<UInt8>) {
        let bytes = Array(input)
        switch self {
        case .scenario: fuzzScenario(bytes)
        case .http1: fuzzHTTP1(bytes)
        case .http2: Loopback.shared.send(bytes)
        case .json: fuzzJSON(bytes)
        case .push: fuzzPush(bytes)
        case .websocket: fuzzWebSocket(bytes)
        case .sip: fuzzSIP(bytes)
        case .otlp: fuzzOTLP(bytes)
        case .bencode: fuzzBencode(bytes)
        case .rtp: fuzzRTP(bytes)
        case .rtcp: fuzzRTCP(bytes)
        case .http1Response: fuzzHTTP1Response(bytes)
        case .recorder: fuzzRecorder(bytes)
        case .history: fuzzHistory(bytes)
        }
    }
}

private func fuzzOTLP(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let status = [200, 400, 429, 503][Int(first & 3)]
    let retryAfter = String(decoding: bytes.dropFirst().prefix(4), as: UTF8.self)
    let body = Array(bytes.dropFirst(5))
    _ = OTLPExportResponse.parse(status: status, retryAfter: retryAfter, body: body)
    _ = OTLPExportResponse.parse(status: 200, retryAfter: nil, body: Array(bytes.dropFirst()))
    var reader = ProtoReader(bytes)
    while (try? reader.next()) != nil {}
}

private func fuzzScenario(_ bytes: [UInt8]) {
    switch ScenarioLoader.parse(bytes: bytes, file: "fuzz.yaml", knownFlows: ScenarioLoader.defaultKnownFlows) {
    case .success(let scenario):
        _ = scenario.describe()
    case .failure(let errors):
        _ = errors.description
    }
}

private let connectPolicy = APNsGateway.connectPolicy()

private func fuzzConnect(_ bytes: [UInt8]) {
    let end = bytes.withUnsafeBufferPointer { ConnectHead.headEnd($0) }
    precondition(end.map { $0 <= bytes.count } ?? true, "a head end past the input")
    switch ConnectHead.decide(Array(bytes[..<(end ?? bytes.count)]), policy: connectPolicy) {
    case .tunnel(let target):
        precondition(ConnectHead.authority(target) != nil, "a tunnel to a target that is not host:port")
    case .refuse(let status, _, let reason):
        precondition([400, 403, 413, 431, 501, 505].contains(status), "unexpected status \(status): \(reason)")
        _ = ConnectHead.refusal(status, reason: reason)
    }
}

/// Also a differential check: each request read on the connection's parser (whose header lines may come from
/// its cache of lines sent before, HTTP1LineCache) must read as its own bytes read by a fresh parser.
private func fuzzHTTP1(_ bytes: [UInt8]) {
    fuzzConnect(bytes)
    var parser = HTTP1RequestParser(maxHeaderBytes: 8192, maxBodyBytes: 64 * 1024)
    let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    var buffer: [UInt8] = []
    var failed = false
    var consumed = 0, requestStart = 0
    for piece in [bytes[..<split], bytes[split...]] where !failed {
        buffer.append(contentsOf: piece)
        var index = 0
        buffer.withUnsafeBufferPointer { pointer in
            while true {
                switch parser.next(pointer, &index) {
                case .needMore: return
                case .expectContinue: continue
                case .request(let request):
                    checkReadAlone(request, Array(bytes[requestStart..<(consumed + index)]))
                    requestStart = consumed + index
                case .failure:
                    failed = true
                    return
                }
            }
        }
        precondition(index <= buffer.count, "the parser consumed more than it was given")
        buffer.removeFirst(index)
        consumed += index
    }
}

private func checkReadAlone(_ request: HTTP1ParsedRequest, _ bytes: [UInt8]) {
    var alone = HTTP1RequestParser(maxHeaderBytes: 8192, maxBodyBytes: 64 * 1024)
    var index = 0
    var event = bytes.withUnsafeBufferPointer { alone.next($0, &index) }
    if case .expectContinue = event { event = bytes.withUnsafeBufferPointer { alone.next($0, &index) } }
    guard case .request(let single) = event else { preconditionFailure("a request read alone gave \(event)") }
    precondition(index == bytes.count && single.method == request.method && single.target == request.target
        && single.headers == request.headers && single.body == request.body && single.keepAlive == request.keepAlive,
        "a request read on its connection differs from its bytes read alone")
}

private let captureEndpoint = APIMapping.Endpoint(method: "POST", path: "/", captures: [
    "conversation.id": "$.call.callId", "member": "$.members[1].id", "deep": "$.a.b[0].c[2]", "root": "$",
])

/// A mapping of another shape (nested paths, words mapped, no version), read by the same code.
private let foreignReader: ViewReader = {
    var push = APIMapping.PushFields(conversation: "$.call.id", event: "$.type")
    push.view = "$.call"
    let view = ViewMapping(id: "$.id", state: "$.phase", version: "$.rev", members: "$.people", memberID: "$.who",
                           memberStatus: "$.st", states: ["idle": ["invited"], "left": ["over"]], response: "$.call",
                           split: "$.child")
    return ViewReader(view: view, push: push)
}()

/// Paths that overlap (the push's fields inside its view, an index step on the members' list, the split view at
/// the response's path): several pattern nodes on one value.
private let overlapReader: ViewReader = {
    var push = APIMapping.PushFields(conversation: "$.c.id", event: "$.c.members[0].st")
    (push.view, push.handle, push.capabilities, push.version) = ("$.c", "$.c.members[0].h", "$.c.can", "$.c.rev")
    (push.reason, push.into, push.sentAt) = ("$.why", "$[0]", "$.c.members[1]")
    var view = ViewMapping(id: "$.id", state: "$.st", version: "$.rev", ended: "$.over", endedReason: "$.why",
                           members: "$.members", memberID: "$.who", memberStatus: "$.st", memberHandle: "$.h",
                           response: "$.c", split: "$.c")
    view.capabilities = "$.can"
    return ViewReader(view: view, push: push)
}()

private func fuzzJSON(_ bytes: [UInt8]) {
    fuzzJSONScan(bytes, readers: [.reference, foreignReader, overlapReader])
    _ = ViewReader.reference.response(bytes)
    _ = ViewReader.reference.answer(bytes, split: true)
    _ = ViewReader.reference.push(bytes)
    _ = foreignReader.response(bytes)
    _ = foreignReader.push(bytes)
    _ = foreignReader.answer(bytes, split: true)
    _ = TargetAPI.captures(captureEndpoint, from: bytes)
}

private struct AcceptAll: PushSink {
    func accept(_ push: APNsPush) -> APNsRejection? { nil }
}

private let validator = APNsValidator(configuration: .init(bundleID: "com.example.callstorm"))
private let fcm = FCMIngress(projectID: "fuzz-project")
private let voipHeaders: [(name: String, value: String)] = [
    ("apns-push-type", "voip"), ("apns-topic", "com.example.callstorm.voip"), ("apns-priority", "10"),
    ("apns-expiration", "0"),
]

/// The first line of the input (up to a newline) becomes header values, the rest the body.
private func fuzzPush(_ bytes: [UInt8]) {
    let newline = bytes.firstIndex(of: 10) ?? 0
    let line = String(decoding: bytes[..<newline], as: UTF8.self)
    let body = Array(bytes[(bytes.isEmpty ? 0 : min(bytes.count, newline + 1))...])
    var headers = voipHeaders
    let fields = line.split(separator: "|", omittingEmptySubsequences: false)
    let names = ["apns-push-type", "apns-topic", "apns-priority", "apns-expiration", "apns-collapse-id", "apns-id"]
    for (name, value) in zip(names, fields) {
        headers.removeAll { $0.name == name }
        headers.append((name, String(value)))
    }
    let token = String(repeating: "ab", count: 32)
    _ = validator.validate(method: "POST", path: "/3/device/\(token)", headers: headers, body: body,
                           apnsID: "0a0b0c0d-0000-4000-8000-000000000001", nowNanos: 1, nowEpochSeconds: 1_800_000_000)
    let request = HTTPRequest(method: "POST", path: "/v1/projects/fuzz-project/messages:send",
                              headers: [HTTPHeader(name: "authorization", value: "Bearer x"),
                                        HTTPHeader(name: "content-type", value: "application/json")],
                              body: body)
    _ = fcm.validate(request, messageID: "0:1%1", nowNanos: 1)
    _ = ViewReader.reference.push(body)
}

/// One server for the whole fuzzing process; each input goes down a new connection.
private final class Loopback: @unchecked Sendable {
    static let shared = Loopback()
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    let server: HTTPServer
    let port: UInt16

    private init() {
        var configuration = HTTPServerConfiguration()
        configuration.maxBodyBytes = 16 * 1024
        // A CA kept across fuzzing runs in one temporary directory: the TLS served inside CONNECT tunnels.
        if let material = try? LocalCertificateAuthority.ensure(
            stateDirectory: NSTemporaryDirectory() + "callstorm-fuzz-state").material {
            configuration.connect = APNsGateway.connectPolicy(tunnelTLS: TLSFiles(
                certificatePath: material.certificatePath, keyPath: material.keyPath,
                clientCAPath: material.caCertificatePath))
        }
        let gateway = APNsGateway(configuration: .init(validator: .init(bundleID: "com.example.callstorm")),
                                  sink: AcceptAll())
        server = HTTPServer(configuration: configuration, handler: gateway)
        do { try server.start() } catch { fatalError("fuzz server did not start: \(error)") }
        port = UInt16(server.port)
    }

    func send(_ bytes: [UInt8]) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let payload = (bytes.first.map { $0 & 1 == 0 } ?? true) ? Self.preface + bytes.dropFirst() : Array(bytes)
        var offset = 0
        while offset < payload.count {
            let n = payload[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }
            offset += n
        }
        shutdown(fd, Int32(SHUT_WR))
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        while scratch.withUnsafeMutableBytes({ recv(fd, $0.baseAddress, $0.count, 0) }) > 0 {}
    }
}

/// Byte 0: bit 0 picks the role the bytes are received by, the rest the chunk size; the frames follow.
private func fuzzWebSocket(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let body = Array(bytes.dropFirst())
    let role: Role = first & 1 == 0 ? .client : .server
    let chunk = max(1, Int(first >> 1))
    var reader = MessageReader(role: role, maxMessageBytes: 4096)
    var start = 0
    reading: while start < body.count {
        reader.append(Array(body[start..<min(body.count, start + chunk)]))
        start += chunk
        while true {
            do {
                guard let message = try reader.next() else { break }
                if case .text(let text) = message { precondition(text.utf8.count <= 4096) }
            } catch {
                _ = (error.closeCode, error.kind, error.description)
                break reading
            }
        }
    }
    guard role == .client else { return }
    // The same bytes after a 101: what the client state machine answers must parse as masked frames.
    let url = WebSocketURL(secure: false, host: "127.0.0.1", port: 1, resource: "/")
    guard var client = try? ClientConnection(url: url, random: SeededRandom(seed: 1), maxMessageBytes: 4096) else {
        return
    }
    let request = String(decoding: client.outbound, as: UTF8.self)
    let key = request.split(separator: "\r\n").first { $0.hasPrefix("Sec-WebSocket-Key: ") }?.dropFirst(19) ?? ""
    client.didWrite(client.pendingBytes)
    let head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Accept: \(Handshake.accept(forKey: String(key)))\r\n\r\n"
    _ = client.receive(Array(head.utf8) + body)
    var echo = MessageReader(role: .server, maxMessageBytes: 4096)
    echo.append(client.outbound)
    while let message = try? echo.next() { _ = message }
}
