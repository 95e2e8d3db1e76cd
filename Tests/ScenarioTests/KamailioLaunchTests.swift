import Foundation
import Scenario
import TestSupport
import XCTest

/// `target.sip.kamailio`: a Kamailio the run starts instead of a `registrar` already running, read with its
/// defaults, and refused where it could not serve the scenario, each problem at its place.
final class KamailioLaunchTests: XCTestCase {
    private func load(_ target: String, device: String = "{ signaling: sip }",
                      push: String = "{ listen: \"127.0.0.1:0\", tls: false }",
                      file: String = "sip.yaml") -> Result<Scenario, ScenarioErrors> {
        ScenarioLoader.parse("""
            name: sip
            devices: 10
            load: [{ hold: { rate: 5/s, for: 10s } }]
            target: \(target)
            device: \(device)
            push: \(push)
            mix: { outgoing-1to1: 100 }
            """, file: file)
    }

    private func messages(_ result: Result<Scenario, ScenarioErrors>) -> String {
        guard case .failure(let errors) = result else { return "" }
        return "\(errors)"
    }

    func testKamailioTrueNeedsNoRegistrarAndPushesOnlyForSleepingDevices() throws {
        let sip = try XCTUnwrap(load("{ sip: { kamailio: true, password: secret } }").get().sip)
        XCTAssertEqual(sip.kamailio, KamailioLaunchSpec())
        XCTAssertEqual(sip.host, "127.0.0.1")
        XCTAssertEqual(sip.domain, "127.0.0.1")
        XCTAssertEqual(sip.password, "secret")
        XCTAssertFalse(try XCTUnwrap(sip.kamailio).pushes(devicesSleep: false))
        XCTAssertTrue(try XCTUnwrap(sip.kamailio).pushes(devicesSleep: true))
        let text = try load("{ sip: { kamailio: true } }", device: "{ signaling: sip, sleep: true }").get().describe()
        XCTAssertTrue(text.contains("SIP devices register at a Kamailio the run starts on a free port (push route on"),
                      text)
        // Not the embedded HTTP target, and no unmerge policy: SIP flows cannot merge.
        XCTAssertTrue(text.contains("devices, target SIP server\n"), text)
        XCTAssertFalse(text.contains("server policy"), text)
    }

    func testPushTimeoutAndAConfigBesideTheScenarioAreRead() throws {
        let dir = try TemporaryDirectory.make("kamailio-launch")
        defer { TemporaryDirectory.remove(dir) }
        let config = dir.appendingPathComponent("my.cfg")
        FileManager.default.createFile(atPath: config.path, contents: Data("#!KAMAILIO\n".utf8))
        let scenario = try load("{ sip: { kamailio: { push: true, push_timeout: 4s, config: my.cfg } } }",
                                device: "{ signaling: sip, sleep: true }",
                                file: dir.appendingPathComponent("sip.yaml").path).get()
        XCTAssertEqual(scenario.sip?.kamailio, KamailioLaunchSpec(push: true, pushTimeoutNanos: 4_000_000_000,
                                                                  configuration: dir.path + "/my.cfg"))
    }

    func testForkTurnsOnTheForkingRoutesWithTheirPushRouteOrTheirVariantWithoutTheLateMessage() throws {
        let on = try XCTUnwrap(load("{ sip: { kamailio: { fork: true } } }").get().sip?.kamailio)
        XCTAssertEqual(on.fork, .tellsLateWake)
        XCTAssertTrue(on.pushes(devicesSleep: false), "forking pushes its sleeping devices")
        let noLate = try XCTUnwrap(load("{ sip: { kamailio: { fork: no_late } } }").get().sip?.kamailio)
        XCTAssertEqual(noLate.fork, .noLate)
        XCTAssertNil(try XCTUnwrap(load("{ sip: { kamailio: { fork: false } } }").get().sip?.kamailio).fork)
        XCTAssertTrue(messages(load("{ sip: { kamailio: { fork: sometimes } } }")).contains("'fork'"))
    }

    func testARegistrarBesideKamailioAndNeitherOfThemAreRefused() {
        let both = messages(load("{ sip: { registrar: \"127.0.0.1:5060\", kamailio: true } }"))
        XCTAssertTrue(both.contains("sip.yaml:4:"), both)
        XCTAssertTrue(both.contains("keep one of them"), both)
        let neither = messages(load("{ sip: { domain: example.test } }"))
        XCTAssertTrue(neither.contains("needs 'registrar'"), neither)
        XCTAssertTrue(messages(load("{ sip: { kamailio: false } }")).contains("'kamailio: true'"))
    }

    func testSleepingDevicesNeedThePushRouteOverACleartextGateway() {
        let off = messages(load("{ sip: { kamailio: { push: false } } }", device: "{ signaling: sip, sleep: true }"))
        XCTAssertTrue(off.contains("remove 'push: false'"), off)
        let tls = messages(load("{ sip: { kamailio: true } }", device: "{ signaling: sip, sleep: true }",
                                push: "{ listen: \"127.0.0.1:0\" }"))
        XCTAssertTrue(tls.contains("sip.yaml:4:"), tls)
        XCTAssertTrue(tls.contains("set 'push: { tls: false }'"), tls)
        let timeout = messages(load("{ sip: { kamailio: { push_timeout: 5s } } }"))
        XCTAssertTrue(timeout.contains("'push_timeout' applies to the push route"), timeout)
    }

    func testExplicitSizesAreReadAndSizesOutOfRangeAreRefusedAtTheirPlace() throws {
        let sized = try load("{ sip: { kamailio: { shared_memory_mb: 512, private_memory_mb: 16, children: 4 } } }")
            .get().sip?.kamailio
        XCTAssertEqual(sized, KamailioLaunchSpec(sharedMemoryMB: 512, privateMemoryMB: 16, children: 4))
        let described = try load("{ sip: { kamailio: { shared_memory_mb: 512 } } }").get().describe()
        XCTAssertTrue(described.contains("sized from devices and peak rate, shared_memory_mb 512)"), described)
        XCTAssertEqual(try load("{ sip: { kamailio: true } }").get().sip?.kamailio?.sharedMemoryMB, nil,
                       "unset: callstorm sizes it")
        let text = messages(load(
            "{ sip: { kamailio: { shared_memory_mb: 2, private_memory_mb: 2048, children: x } } }"))
        XCTAssertTrue(text.contains("'shared_memory_mb' must be at least 4, got 2"), text)
        XCTAssertTrue(text.contains("'private_memory_mb' must be at most 1024, got 2048"), text)
        XCTAssertTrue(text.contains("expected a whole number for 'children'"), text)
        XCTAssertTrue(text.contains("sip.yaml:4:"), text)
    }

    func testAnUnreadableConfigIsNamedWhereItIsWritten() {
        let text = messages(load("{ sip: { kamailio: { config: /nonexistent/kamailio.cfg } } }"))
        XCTAssertTrue(text.contains("sip.yaml:4:"), text)
        XCTAssertTrue(text.contains("cannot read the Kamailio configuration '/nonexistent/kamailio.cfg'"), text)
    }
}
