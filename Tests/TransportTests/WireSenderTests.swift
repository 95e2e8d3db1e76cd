import Dispatch
import EventPolling
import Foundation
import HTTPServer
import Transport
import XCTest

/// The wire client behind `HTTPClient`'s call shape gives what libcurl gives for the same requests: statuses,
/// bodies, request shapes as the server saw them, headers, and the same error kinds.
final class WireSenderTests: XCTestCase {
    private var server: HTTPServer!
    private var pair: ClientPair!

    override func setUpWithError() throws {
        server = HTTPServer(handler: HTTPClosureHandler { request, respond in
            switch request.path {
            case "/shape":
                let body = String(decoding: request.body, as: UTF8.self)
                respond(.text(201, "\(request.method) x=\(request.header("x-test") ?? "-") body=\(body)"))
            case "/never": break  // holds the answer forever
            default: respond(.text(404, "no"))
            }
        })
        try server.start()
        pair = try ClientPair()
    }

    override func tearDown() {
        pair.close()
        server.stop()
    }

    private func send(_ request: ClientRequest, wire: Bool) -> Result<ClientResponse, TransportError> {
        pair.send(request, wire: wire)
    }

    private var base: String { "http://127.0.0.1:\(server.port)" }

    func testTheSameRequestsGetTheSameAnswersAsLibcurl() throws {
        let requests = [
            ClientRequest(method: "POST", url: base + "/shape", headers: ["X-Test: one"], body: Array("abc".utf8)),
            ClientRequest(method: "GET", url: base + "/shape"),
            ClientRequest(method: "PUT", url: base + "/shape", headers: ["X-Test:two"]),
            ClientRequest(method: "GET", url: base + "/missing"),
        ]
        for request in requests {
            let byCurl = try send(request, wire: false).get()
            let byWire = try send(request, wire: true).get()
            XCTAssertEqual(byWire.status, byCurl.status, request.method)
            XCTAssertEqual(String(decoding: byWire.body, as: UTF8.self),
                           String(decoding: byCurl.body, as: UTF8.self), request.method)
            XCTAssertEqual(byWire.header("server"), "callstorm")
            XCTAssertEqual(byWire.header("content-type"), byCurl.header("content-type"))
        }
    }

    func testFailuresKeepLibcurlsKinds() throws {
        var held = ClientRequest(method: "GET", url: base + "/never", timeoutMillis: 200)
        held.freshConnection = true
        XCTAssertEqual(send(held, wire: true).failure?.kind, send(held, wire: false).failure?.kind)
        XCTAssertEqual(send(held, wire: true).failure?.kind, "timeout")
        let probe = HTTPServer(handler: HTTPClosureHandler { _, respond in respond(.text(200, "")) })
        try probe.start()
        let closedPort = probe.port
        probe.stop()
        let refused = ClientRequest(method: "GET", url: "http://127.0.0.1:\(closedPort)/")
        XCTAssertEqual(send(refused, wire: true).failure?.kind, "refused")
        XCTAssertEqual(send(refused, wire: false).failure?.kind, "refused")
    }

    func testHTTP2AndProxiesAreLeftToLibcurl() {
        var configuration = HTTPClient.Configuration()
        configuration.version = .http2TLS
        XCTAssertThrowsError(try ClientPair(configuration: configuration))
        configuration.version = .http1
        configuration.proxy = "http://127.0.0.1:3128"
        XCTAssertThrowsError(try ClientPair(configuration: configuration))
    }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
