@testable import Driver
import Foundation
import HTTPServer
import Metrics
import ReferenceTarget
import Scenario
import XCTest

/// The phone's own life (issue 37) for devices that hold a signaling socket (`device.socket: always`), on the
/// embedded loop under the manual clock: the actions the events make go over the socket (the reference mapping's
/// `socket.actions`), answered by the reference target in memory, and a relaunch registers again over HTTP and
/// loses its socket with its process.
final class SocketPhoneLifeTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000

    /// Answers a socket action (`{id, op, conversation, device, reason}`) by handing it to the target as the HTTP
    /// request it stands for, and counts the actions seen by op.
    final class Bridge: @unchecked Sendable {
        var ops: [String: Int] = [:]

        func answer(_ target: ReferenceTarget) -> (String) -> String? {
            { [self] text in
                guard let json = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                      let id = json["id"] as? String, let op = json["op"] as? String,
                      let conversation = json["conversation"] as? String else { return nil }
                ops[op, default: 0] += 1
                var body = json
                for key in ["id", "op", "conversation"] { body[key] = nil }
                let bytes = (try? JSONSerialization.data(withJSONObject: body)) ?? Data()
                let answered = EmbeddedWorkerTests.Box<HTTPResponse?>(nil)
                target.handle(HTTPRequest(method: "POST", path: "/v1/conversations/\(conversation)/\(op)",
                                          headers: [HTTPHeader(name: "Content-Type", value: "application/json")],
                                          body: Array(bytes))) { answered.value = $0 }
                guard let answer = answered.value else { return nil }
                let reply = String(decoding: answer.body, as: UTF8.self)
                return "{\"id\":\"\(id)\",\"status\":\(answer.status),\"body\":\(reply.isEmpty ? "{}" : reply)}"
            }
        }
    }

    private func run(_ event: String, then: String) throws -> ([String: Int64], [String: Int]) {
        let yaml = PhoneLifeTests.scenario(event, then: then, device: "{ socket: always }")
        let scenario = try ScenarioLoader.parse(yaml, file: "phone-life-socket.yaml").get()
        let bridge = Bridge()
        let rig = try EmbeddedWorkerTests.Rig(scenario, socketBridge: bridge.answer)
        let c = rig.run(limit: 120 * second).counters
        let all = "\(c.sorted { $0.key < $1.key })"
        XCTAssertEqual(c[MetricName.callsCompleted], 3, all)
        XCTAssertNil(c[MetricName.callsFailed], all)
        return (c, bridge.ops)
    }

    func testAnInterruptionHoldsOverTheSocket() throws {
        let (c, ops) = try run("interrupted, then: hold", then: """
                  - { role: caller, do: end }
                  - { role: callee, do: await_end }
            """)
        XCTAssertEqual(c["life.interrupted_hold"], 3, "\(c)")
        XCTAssertEqual(ops["pause"], 3, "the holds went over the socket: \(ops)")
    }

    func testAResetEndsOverTheSocket() throws {
        let (c, ops) = try run("manager_reset", then: """
                  - { role: caller, do: await_end }
            """)
        XCTAssertEqual(c["life.manager_reset"], 3, "\(c)")
        XCTAssertEqual(ops["end"], 3, "\(ops)")
    }

    func testARelaunchRegistersAgainAndEndsOverTheSocket() throws {
        let (c, ops) = try run("relaunch", then: """
                  - { role: caller, do: await_end }
            """)
        XCTAssertEqual(c[MetricName.lifeRelaunchRegistered], 3, "\(c)")
        XCTAssertEqual(ops["end"], 3, "\(ops)")
        // The relaunched app's socket died with its process: ended as callstorm's, then opened again.
        XCTAssertEqual(c[MetricName.socketLostInjected], 3, "\(c)")
        XCTAssertEqual(c[MetricName.socketLost], 3, "\(c)")
        XCTAssertEqual(c[MetricName.socketReconnects], 3, "\(c)")
    }
}
