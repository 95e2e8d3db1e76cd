import Credentials
import Dispatch
import EventPolling
import Foundation
import HTTP2Wire
import HTTPServer
import Locking
import PushGateway
import PushModel
import TestSupport
import XCTest

/// The HTTP/2 client against the real push gateway on loopback, over TLS with ALPN h2: many pushes on one
/// connection, answers with APNs reasons, the gateway's GOAWAY, a stream the server resets, a request that
/// outlives its timeout.
final class H2ClientTests: XCTestCase {
    private let bundle = "com.example.callstorm"
    private let deviceToken = String(repeating: "0a1b", count: 16)
    private var directory: URL!
    private var server: HTTPServer!
    private var thread: EventThread!
    private var client: H2Client!
    private let sink = GoAwaySink()

    override func setUpWithError() throws {
        directory = try TemporaryDirectory.make("h2client")
        let material = try LocalCertificateAuthority.ensure(stateDirectory: directory.path).material
        let gateway = APNsGateway(configuration: .init(validator: .init(bundleID: bundle, keys: nil)), sink: sink)
        var config = HTTPServerConfiguration()
        config.tls = TLSFiles(certificatePath: material.certificatePath, keyPath: material.keyPath)
        server = HTTPServer(configuration: config, handler: gateway)
        try server.start()
        let tls = try H2Client.tls(caFile: material.caCertificatePath)
        thread = EventThread(queue: DispatchQueue(label: "test.h2client"), name: "test.h2client")
        let port = server.port
        client = thread.sync { H2Client(thread: thread, host: "127.0.0.1", port: port, tls: tls) }
    }

    override func tearDown() {
        thread?.sync { client?.close() }
        thread?.stop()
        thread?.waitUntilStopped()
        server?.stop()
        if let directory { TemporaryDirectory.remove(directory) }
    }

    private let bearer: String = {
        let signer = ProviderTokenSigner(keyID: "KEYID12345", teamID: "TEAM123456", key: try! ES256Key.generate())
        return "bearer " + signer.token(issuedAt: Int64(Date().timeIntervalSince1970))!
    }()

    private func push(_ body: String, timeoutMillis: Int = 10_000, extra: [H2Field] = []) -> H2Request {
        H2Request(method: "POST", path: "/3/device/\(deviceToken)",
                  fields: [H2Field("authorization", bearer), H2Field("apns-push-type", "voip"),
                           H2Field("apns-topic", bundle + ".voip"), H2Field("apns-priority", "10"),
                           H2Field("apns-expiration", "0"), H2Field("content-type", "application/json")] + extra,
                  body: Array(body.utf8), timeoutMillis: timeoutMillis)
    }

    /// Sends `requests` in one batch of the client's thread and waits for every answer, in sending order.
    private func exchange(_ requests: [H2Request]) -> [Result<H2Response, H2Error>] {
        let results = Mutex<[Int: Result<H2Response, H2Error>]>([:])
        thread.sync {
            for (i, request) in requests.enumerated() {
                client.send(request) { result in results.withLock { $0[i] = result } }
            }
        }
        XCTAssertTrue(eventually(30) { results.withLock { $0.count } == requests.count }, "answers missing")
        return results.withLock { all in (0..<requests.count).compactMap { all[$0] } }
    }

    private var stats: H2Client.Stats { thread.sync { client.stats } }

    func testManyPushesInOneBatchShareOneConnection() {
        let results = exchange((0..<300).map { push(#"{"uuid":"u\#($0)"}"#) })
        XCTAssertEqual(results.compactMap { try? $0.get().status }, Array(repeating: 200, count: 300))
        XCTAssertEqual(sink.accepted, 300)
        XCTAssertEqual(stats.opened, 1)
        XCTAssertEqual(thread.sync { client.openConnections }, 1)
    }

    /// The fields kept per request and the `moreFields` after them make one header block: every push's own
    /// `apns-id` (sent never indexed) reaches the gateway as given, across requests that reuse the laid-out
    /// pseudo-fields, and a request with another path and no extra field between them loses nothing.
    func testEachPushsOwnApnsIDInMoreFieldsReachesTheGatewayAsGiven() throws {
        let ids = (0..<40).map { String(format: "5f0c4a1e-1d2b-4c3d-9e8f-%012lx", $0) }
        var requests = ids.map { id -> H2Request in
            var request = push(#"{"uuid":"\#(id)"}"#)
            request.moreFields = [H2Field("apns-id", id)]
            return request
        }
        requests.insert(push(#"{"uuid":"plain"}"#), at: 20)
        let results = exchange(requests)
        XCTAssertEqual(results.compactMap { try? $0.get().status }, Array(repeating: 200, count: 41))
        XCTAssertEqual(sink.apnsIDs.filter { ids.contains($0) }, ids, "an apns-id was lost, changed or reordered")
        XCTAssertEqual(sink.apnsIDs.count, 41)
    }

    func testAReasonAnswerComesBackWithItsStatusAndBody() throws {
        let results = exchange([push(#"{"uuid":"r","callstorm-answer":{"reason":"TooManyRequests"}}"#),
                                push(#"{"uuid":"ok"}"#)])
        let refused = try results[0].get()
        XCTAssertEqual(refused.status, 429)
        XCTAssertEqual(String(decoding: refused.body, as: UTF8.self), #"{"reason":"TooManyRequests"}"#)
        XCTAssertEqual(try results[1].get().status, 200)
        XCTAssertEqual(stats.opened, 1)
    }

    func testPushesInFlightAtAGoAwayAreAnsweredAndLaterOnesTakeANewConnection() {
        sink.goAwayAfter(1)
        let first = exchange((0..<50).map { push(#"{"uuid":"a\#($0)"}"#) })
        XCTAssertEqual(first.compactMap { try? $0.get().status }, Array(repeating: 200, count: 50))
        XCTAssertTrue(eventually { self.stats.goAways >= 1 }, "no GOAWAY reached the client")
        let later = exchange((0..<20).map { push(#"{"uuid":"b\#($0)"}"#) })
        XCTAssertEqual(later.compactMap { try? $0.get().status }, Array(repeating: 200, count: 20))
        XCTAssertEqual(stats.opened, 2)
        XCTAssertEqual(sink.accepted, 70, "a push was lost or sent twice")
        XCTAssertTrue(eventually { self.thread.sync { self.client.openConnections } == 1 }, "the old connection stays")
    }

    func testAStreamTheServerResetsFailsAloneAndTheConnectionCarriesOn() throws {
        // Three 22 KB fields pass the gateway's 64 KiB header limit: it resets that stream, not the connection.
        let big = String(repeating: "x", count: 22 * 1024)
        let results = exchange([push(#"{"uuid":"big"}"#, extra: (0..<3).map { H2Field("x-pad-\($0)", big) }),
                                push(#"{"uuid":"after"}"#)])
        guard case .failure(.streamReset) = results[0] else { return XCTFail("expected a reset, got \(results[0])") }
        XCTAssertEqual(try results[1].get().status, 200)
        XCTAssertEqual(stats.opened, 1)
    }

    func testAnAnswerLaterThanTheTimeoutFailsThatRequestOnly() throws {
        let results = exchange([push(#"{"uuid":"slow","callstorm-answer":{"status":200,"delay_ms":3000}}"#,
                                     timeoutMillis: 200),
                                push(#"{"uuid":"quick"}"#)])
        XCTAssertEqual(results[0].failureValue, .timeout(millis: 200))
        XCTAssertEqual(try results[1].get().status, 200)
        XCTAssertEqual(stats.opened, 1)
    }

    func testAServerThatIsGoneFailsTheRequestWithoutAConnection() {
        let port = server.port
        server.stop()
        server = nil
        let tls = thread.sync { client.tlsContext }
        let orphan = thread.sync { H2Client(thread: thread, host: "127.0.0.1", port: port, tls: tls) }
        let result = Mutex<Result<H2Response, H2Error>?>(nil)
        thread.sync { orphan.send(push("{}")) { r in result.withLock { $0 = r } } }
        XCTAssertTrue(eventually { result.withLock { $0 } != nil })
        guard case .failure(let error) = result.withLock({ $0 })! else { return XCTFail("answered without a server") }
        XCTAssertNotEqual(error, .clientClosed)
        thread.sync { orphan.close() }
    }
}

private extension Result {
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// Accepts every push; asks the gateway for a GOAWAY after the push numbered `goAwayAfter` (from 1).
final class GoAwaySink: PushSink {
    private let state = Mutex((count: 0, goAwayAt: 0, ids: [String]()))

    func goAwayAfter(_ n: Int) { state.withLock { $0.goAwayAt = n } }

    var accepted: Int { state.withLock { $0.count } }
    /// The `apns-id` of every push accepted, in arrival order.
    var apnsIDs: [String] { state.withLock { $0.ids } }

    func accept(_ push: APNsPush) -> APNsRejection? { answer(push).rejection }

    func answer(_ push: APNsPush) -> PushSinkAnswer {
        let goAway = state.withLock { s -> Bool in
            s.count += 1
            s.ids.append(push.apnsID)
            return s.count == s.goAwayAt
        }
        return PushSinkAnswer(rejection: nil, goAway: goAway)
    }
}
