import Foundation
import SIP
@testable import SIPClient
import TestSupport
import XCTest

/// `device.sockets: shared`: one UDP socket for a pool's agents, each datagram handed to the agent its `csdev`
/// parameter names (a response's top Via, a request's Request-URI), a datagram that names none counted and dropped.
final class SharedSocketTests: XCTestCase {
    func testTwoAgentsOnOneSharedSocketEachGetTheirOwnResponsesAndRequests() throws {
        let proxy = try UDPProbe()
        defer { proxy.close() }
        let harness = try PoolHarness(proxyPort: proxy.port)
        defer { harness.close() }
        harness.queue.sync { harness.pool.socketsShared = true }
        let alice = try harness.add(SIPAccount(user: "alice", domain: "127.0.0.1", password: "x"), .udp, seed: 1)
        let bob = try harness.add(SIPAccount(user: "bob", domain: "127.0.0.1", password: "x"), .udp, seed: 2)
        let port = try XCTUnwrap(harness.localPort(alice))
        XCTAssertEqual(harness.localPort(bob), port, "one socket: one port")

        harness.perform(alice) { $0.register(now: $1) }
        harness.perform(bob) { $0.register(now: $1) }
        var requests: [String: String] = [:]  // by user
        for _ in 0..<2 {
            let got = try XCTUnwrap(proxy.receive(timeoutMillis: 5_000))
            XCTAssertEqual(got.port, port, "sent from the shared socket")
            let text = String(decoding: got.bytes, as: UTF8.self)
            requests[text.contains("From: <sip:alice@") ? "alice" : "bob"] = text
        }
        let aliceRegister = try XCTUnwrap(requests["alice"]), bobRegister = try XCTUnwrap(requests["bob"])
        XCTAssertTrue(line(aliceRegister, "Via:").hasSuffix(";rport;csdev=\(alice)"), aliceRegister)
        XCTAssertTrue(line(bobRegister, "Contact:").contains(";transport=udp;csdev=\(bob)>"), bobRegister)

        // Bob's answer reaches bob alone (its Via, as a proxy returns it with rport and received filled in).
        proxy.send(ProxyMessages.okay(bobRegister), toPort: port)
        XCTAssertTrue(eventually { harness.events(bob).contains(.registered(expires: 600)) }, "\(harness.events(bob))")
        XCTAssertFalse(harness.events(alice).contains(.registered(expires: 600)))
        proxy.send(ProxyMessages.okay(aliceRegister), toPort: port)
        XCTAssertTrue(eventually { harness.events(alice).contains(.registered(expires: 600)) })

        // A request to bob's Contact (the Request-URI a proxy's lookup makes of it) reaches bob alone.
        let contact = String(line(bobRegister, "Contact:").drop { $0 != "<" }.dropFirst().prefix { $0 != ">" })
        proxy.send(options(to: contact, proxyPort: proxy.port), toPort: port)
        XCTAssertTrue(eventually { harness.counters().requestsReceived["OPTIONS"] == 1 })
        try harness.queue.sync {
            XCTAssertEqual(try XCTUnwrap(harness.pool.agent(bob)).counters.requestsReceived["OPTIONS"], 1)
            XCTAssertNil(try XCTUnwrap(harness.pool.agent(alice)).counters.requestsReceived["OPTIONS"])
        }
        XCTAssertNil(harness.counters().stray["no_device"])
        // Three datagrams came (two 200s and the OPTIONS), each through a read of the shared socket.
        let books = harness.counters().sharedSocket
        XCTAssertEqual(books["datagrams"], 3, "\(books)")
        XCTAssertEqual(books["reads"].map { (1...3).contains($0) }, true, "\(books)")
    }

    func testADatagramThatNamesNoLiveAgentIsCountedAndNotDelivered() throws {
        let proxy = try UDPProbe()
        defer { proxy.close() }
        let harness = try PoolHarness(proxyPort: proxy.port)
        defer { harness.close() }
        harness.queue.sync { harness.pool.socketsShared = true }
        let alice = try harness.add(SIPAccount(user: "alice", domain: "127.0.0.1", password: "x"), .udp, seed: 1)
        let port = try XCTUnwrap(harness.localPort(alice))
        let uri = "sip:alice@127.0.0.1:\(port);transport=udp"
        proxy.send(options(to: uri, proxyPort: proxy.port), toPort: port)  // no csdev at all
        proxy.send(options(to: uri + ";csdev=99", proxyPort: proxy.port), toPort: port)  // no such agent
        XCTAssertTrue(eventually { harness.counters().stray["no_device"] == 2 }, "\(harness.counters())")
        harness.close(alice)
        proxy.send(options(to: uri + ";csdev=\(alice)", proxyPort: proxy.port), toPort: port)  // closed
        XCTAssertTrue(eventually { harness.counters().stray["no_device"] == 3 }, "\(harness.counters())")
        XCTAssertNil(harness.counters().requestsReceived["OPTIONS"], "none reached an agent")
    }

    func testTheDemultiplexingKeyIsReadOffTheTopViaOrTheRequestURI() {
        func key(_ text: String) -> Int? { Array(text.utf8).withUnsafeBytes { SharedDemux.agent(in: $0) } }
        XCTAssertEqual(key("INVITE sip:b@127.0.0.1:5;transport=udp;csdev=42 SIP/2.0\r\nVia: x;csdev=7\r\n\r\n"), 42)
        XCTAssertEqual(key("SIP/2.0 200 OK\r\nFrom: <sip:a;csdev=9>\r\nv : SIP/2.0/UDP h;branch=z;rport=5;csdev=7,"
                           + " SIP/2.0/UDP p;csdev=8\r\nVia: SIP/2.0/UDP q;csdev=6\r\n\r\n"), 7,
                       "the top Via, compact form, up to its comma")
        XCTAssertNil(key("SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP h;branch=z\r\nContact: <sip:a;csdev=3>\r\n\r\n"))
        XCTAssertNil(key("SIP/2.0 200 OK\r\n\r\nVia: x;csdev=3\r\n"), "a Via in the body is not a header")
        XCTAssertNil(key("BYE sip:b@h SIP/2.0\r\nVia: x;csdev=3\r\n\r\n"), "a request is read by its URI alone")
        XCTAssertNil(key("hello"))
    }

    /// The bytes an agent writes with the mode off: no `csdev` anywhere (the wire transcript tests pin them all).
    func testAnAgentWithItsOwnSocketWritesNoDemultiplexingParameter() {
        let account = SIPAccount(user: "alice", domain: "127.0.0.1", password: "x")
        let own = account.localHeaders(transport: .udp, host: "127.0.0.1", port: 5_060)
        let shared = account.localHeaders(transport: .udp, host: "127.0.0.1", port: 5_060, demux: 3)
        XCTAssertEqual(own.via(branch: "b"), "SIP/2.0/UDP 127.0.0.1:5060;branch=b;rport")
        XCTAssertEqual(own.contact, "<sip:alice@127.0.0.1:5060;transport=udp>")
        XCTAssertEqual(shared.contact, "<sip:alice@127.0.0.1:5060;transport=udp;csdev=3>")
        XCTAssertEqual(shared.via(branch: "z9hG4bKb"), "SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bKb;rport;csdev=3")
        XCTAssertEqual(shared.moved(toPort: 40_001).via(branch: "b"),
                       "SIP/2.0/UDP 127.0.0.1:40001;branch=b;rport;csdev=3")
    }

    private func line(_ message: String, _ name: String) -> String {
        message.components(separatedBy: "\r\n").first { $0.hasPrefix(name) } ?? ""
    }

    /// The proxy's OPTIONS to `uri`, its branch and Call-ID told apart by the URI's length.
    private func options(to uri: String, proxyPort: Int) -> [UInt8] {
        ProxyMessages.options(to: uri, tag: "o\(uri.count)", proxyPort: proxyPort)
    }
}
