import CLinux
import Determinism
import Dispatch
@testable import FaultProxy
import Glibc
import HTTPServer
import TestSupport
import Transport
import XCTest

final class FaultProxyTests: XCTestCase {
    func testWithoutToxicsBytesPassUnchanged() throws {
        let harness = try ProxiedServer()
        defer { harness.stop() }
        let response = try fetch(harness.proxyURL + "/size/100000").get()
        XCTAssertEqual(response.body, Array(repeating: UInt8(ascii: "x"), count: 100_000))
        XCTAssertTrue(eventually { harness.proxy.stats.bytesDownstream > 100_000 })
        XCTAssertGreaterThan(harness.proxy.stats.bytesUpstream, 0)
        XCTAssertEqual(harness.proxy.stats.connectionsAccepted, 1)
    }

    // MARK: - Toxicity and seeds

    /// Opens `count` connections one after another; each sends a request and reads to EOF.
    private func answeredCount(_ harness: ProxiedServer, connections count: Int) throws -> Int {
        var answered = 0
        for _ in 0..<count {
            let client = try LoopbackSocket(port: harness.proxy.port, receiveTimeoutMillis: 3_000)
            client.get("/")
            if !client.readAll().bytes.isEmpty { answered += 1 }
        }
        return answered
    }

    func testToxicityZeroNeverAppliesAndOneAlwaysApplies() throws {
        let never = try ProxiedServer(toxics: [ToxicSpec("limit_data", toxicity: 0, ["bytes": 0])])
        defer { never.stop() }
        XCTAssertEqual(try answeredCount(never, connections: 20), 20)
        XCTAssertEqual(never.proxy.stats.toxics["limit_data"]?.connectionsSkipped, 20)

        let always = try ProxiedServer(toxics: [ToxicSpec("limit_data", toxicity: 1, ["bytes": 0])])
        defer { always.stop() }
        XCTAssertEqual(try answeredCount(always, connections: 20), 0)
        XCTAssertTrue(eventually { always.proxy.stats.toxics["limit_data"]?.connectionsSelected == 20 })
    }

    func testHalfToxicityAppliesToAboutHalfOfConnections() throws {
        let harness = try ProxiedServer(toxics: [ToxicSpec("limit_data", toxicity: 0.5, ["bytes": 0])])
        defer { harness.stop() }
        let answered = try answeredCount(harness, connections: 60)
        XCTAssert((15...45).contains(answered), "\(answered) of 60 answered")
        let applied = harness.proxy.decisionLog.filter(\.applied).count
        XCTAssertEqual(applied, 60 - answered, "the log says which connections were cut")
    }

    private func decisions(seed: UInt64, connections: Int) throws -> [Bool] {
        let harness = try ProxiedServer(seed: seed, toxics: [ToxicSpec("latency", toxicity: 0.5)])
        defer { harness.stop() }
        for _ in 0..<connections { _ = try LoopbackSocket(port: harness.proxy.port, receiveTimeoutMillis: 3_000) }
        XCTAssertTrue(eventually { harness.proxy.decisionLog.count == connections })
        let log = harness.proxy.decisionLog
        XCTAssertEqual(log.map(\.connection), (1...UInt64(connections)).map { $0 })
        return log.map(\.applied)
    }

    func testSameSeedGivesSameDecisionsOverAHundredConnections() throws {
        let first = try decisions(seed: 7, connections: 100)
        let again = try decisions(seed: 7, connections: 100)
        let other = try decisions(seed: 8, connections: 100)
        XCTAssertEqual(first, again)
        XCTAssertNotEqual(first, other)
        XCTAssert((30...70).contains(first.filter { $0 }.count))
        XCTAssertEqual(first, (1...100).map {
            ToxicDecision.applies(seed: 7, connection: UInt64($0), toxic: "latency", toxicity: 0.5)
        })
    }

    func testRampedToxicityGrowsFromNothingToFullOverTheRamp() throws {
        var spec = ToxicSpec("latency", toxicity: 1)
        spec.rampNanos = 2_000_000_000
        let clock = ManualClock()
        let harness = try ProxiedServer(seed: 3, toxics: [spec], clock: clock)
        defer { harness.stop() }
        var clients: [LoopbackSocket] = []
        for _ in 0..<20 { clients.append(try LoopbackSocket(port: harness.proxy.port, receiveTimeoutMillis: 3_000)) }
        XCTAssertTrue(eventually { harness.proxy.decisionLog.count == 20 })
        // Opened at the ramp's start (the manual clock has not moved): at toxicity 0 none is picked.
        XCTAssertEqual(harness.proxy.decisionLog.filter(\.applied).count, 0)
        clock.advance(by: 2_100_000_000)
        for _ in 0..<20 { clients.append(try LoopbackSocket(port: harness.proxy.port, receiveTimeoutMillis: 3_000)) }
        XCTAssertTrue(eventually { harness.proxy.decisionLog.count == 40 })
        // After the ramp the toxicity is 1: every new connection is picked; the early ones keep their decision.
        let log = harness.proxy.decisionLog
        XCTAssertEqual(log.dropFirst(20).filter(\.applied).count, 20)
        XCTAssertEqual(log.prefix(20).filter(\.applied).count, 0)
    }

    // MARK: - Live changes

    /// Toxics set while a kept-alive connection is open act on its next bytes, and taking them away frees it.
    /// The proxy runs on a manual clock: the delayed answer is held until the test moves ten virtual seconds,
    /// so nothing depends on how fast the machine is.
    func testSetToxicsReachesDataOnALiveConnection() throws {
        let clock = ManualClock()
        let harness = try ProxiedServer(clock: clock)
        defer { harness.stop() }
        let queue = DispatchQueue(label: "test.live")
        nonisolated(unsafe) var client: HTTPClient!
        queue.sync { client = HTTPClient(queue: queue) }
        defer { queue.sync { client.close() } }
        let url = harness.proxyURL + "/"
        func get() -> DispatchSemaphore {
            let done = DispatchSemaphore(value: 0)
            queue.async { client.send(ClientRequest(method: "GET", url: url)) { _ in done.signal() } }
            return done
        }
        XCTAssertEqual(get().wait(timeout: .now() + 5), .success, "answered at once without toxics")
        try harness.proxy.setToxics([ToxicSpec("latency", ["latency": 10_000])])
        let held = get()
        XCTAssertTrue(eventually { harness.proxy.stats.bytesUpstream > 0 })
        XCTAssertEqual(held.wait(timeout: .now() + .milliseconds(200)), .timedOut,
                       "held: ten virtual seconds have not passed")
        clock.advance(by: 10_000_000_000)
        XCTAssertEqual(held.wait(timeout: .now() + 5), .success, "released when the clock moved")
        try harness.proxy.setToxics([])
        XCTAssertEqual(get().wait(timeout: .now() + 5), .success, "answered without moving the clock")
        XCTAssertEqual(harness.server.stats.connectionsAccepted, 1, "one kept-alive connection throughout")
    }

    func testDelaysFollowTheInjectedClock() throws {
        let server = HTTPServer(handler: HTTPClosureHandler { _, respond in respond(.text(200, "ok")) })
        try server.start()
        defer { server.stop() }
        let clock = ManualClock()
        let proxy = FaultProxy(upstreamPort: server.port, seed: 1, clock: clock)
        let toxics = [ToxicSpec("latency", ["latency": 10_000])]
        try proxy.setToxics(toxics)
        try proxy.start()
        defer { proxy.stop() }
        let client = try LoopbackSocket(port: proxy.port, receiveTimeoutMillis: 3_000)
        client.get("/")
        XCTAssertTrue(eventually { proxy.stats.bytesUpstream > 0 })
        usleep(20_000)
        XCTAssertEqual(proxy.stats.bytesDownstream, 0, "held: ten virtual seconds have not passed")
        clock.advance(by: 10_000_000_000)  // the clock wakes the proxy's loop: nothing else nudges it
        XCTAssertEqual(body(of: client.readAll().bytes), Array("ok".utf8))
    }

    // MARK: - Failures and shutdown

    func testUpstreamConnectFailureClosesTheClient() throws {
        let listener = clinux_listen_tcp("127.0.0.1", 0, 1)
        let deadPort = Int(clinux_local_port(listener))
        close(listener)  // nothing listens there now
        let proxy = FaultProxy(upstreamPort: deadPort, seed: 1)
        try proxy.start()
        defer { proxy.stop() }
        let client = try LoopbackSocket(port: proxy.port, receiveTimeoutMillis: 3_000)
        client.get("/")
        XCTAssertTrue(client.readAll().bytes.isEmpty)
        XCTAssertTrue(eventually { proxy.stats.upstreamConnectFailures == 1 })
    }

    func testStopFreesThePortAndClosesEveryDescriptor() throws {
        let server = HTTPServer(handler: HTTPClosureHandler { _, _ in })  // holds every answer
        try server.start()
        defer { server.stop() }
        let before = socketAndEpollDescriptors()
        let proxy = FaultProxy(upstreamPort: server.port, seed: 1)
        // Requests held in the proxy for a second: every connection is open, with bytes in flight, at stop().
        try proxy.setToxics([ToxicSpec("latency", direction: .upstream, ["latency": 1_000])])
        try proxy.start()
        let port = proxy.port
        var clients: [LoopbackSocket] = []
        for _ in 0..<5 {
            let client = try LoopbackSocket(port: port, receiveTimeoutMillis: 3_000)
            client.get("/")
            clients.append(client)
        }
        XCTAssertTrue(eventually { proxy.stats.connectionsOpen == 5 })
        proxy.stop()
        for client in clients { XCTAssertEqual(client.readAll().errno, 0, "closed by the proxy") }
        clients.removeAll()
        XCTAssertTrue(eventually { socketAndEpollDescriptors().isSubset(of: before) },
                      "descriptors left open: \(socketAndEpollDescriptors().subtracting(before).sorted())")
        let rebound = clinux_listen_tcp("127.0.0.1", Int32(port), 16)
        XCTAssertGreaterThanOrEqual(rebound, 0, "the port is free again")
        if rebound >= 0 { close(rebound) }
        XCTAssertThrowsError(try proxy.start()) { XCTAssertEqual($0 as? FaultProxyError, .notStartable) }
    }
}
