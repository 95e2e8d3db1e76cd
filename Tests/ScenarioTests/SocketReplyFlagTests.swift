import XCTest
@testable import Scenario

/// Servers that answer socket actions with an ok flag (`{"ref", "ok": false, "error": {"code"}}`) and have no
/// HTTP route for member actions: `reply.ok`, `reply.error`, `reply.already_ended`, and operations mapped only
/// under `socket.actions`.
final class SocketReplyFlagTests: XCTestCase {
    private func load(reply: String, end: String = "") -> Result<Scenario, ScenarioErrors> {
        ScenarioLoader.parse("""
            name: ws
            devices: 10
            load: [{ hold: { rate: 5/s, for: 10s } }]
            mix: { hold-resume: 1, declined: 1 }
            device: { socket: on_push }
            target:
              url: "http://127.0.0.1:9000"
              api:
                register: { method: POST, path: /users }
                start: { method: POST, path: /calls, capture: { conversation.id: "$.call.id" } }
            \(end)
                socket:
                  url: /live
                  events: { event: "$.type", conversation: "$.call.id" }
                  actions:
                    join: '{"ref":"${request.id}","do":"answer","callId":"${conversation.id}"}'
                    end: '{"ref":"${request.id}","do":"leave","callId":"${conversation.id}"}'
                    pause: '{"ref":"${request.id}","do":"hold","callId":"${conversation.id}"}'
                    resume: '{"ref":"${request.id}","do":"unhold","callId":"${conversation.id}"}'
                  reply: \(reply)

            """, file: "ws.yaml")
    }

    func testAnOkFlagAnErrorWordAndAlreadyEndedWordsAreRead() throws {
        let scenario = try load(reply: "{ id: \"$.ref\", ok: \"$.ok\", error: \"$.error.code\", already_ended: [over] }")
            .get()
        let reply = try XCTUnwrap(scenario.api?.socket?.reply)
        XCTAssertEqual(reply.id, "$.ref")
        XCTAssertEqual(reply.ok, "$.ok")
        XCTAssertNil(reply.status)
        XCTAssertEqual(reply.error, "$.error.code")
        XCTAssertEqual(reply.alreadyEnded, ["over"])
    }

    func testOperationsMappedOnlyOverTheSocketSatisfyTheFlowsAndDeclineFallsBackOnEnd() throws {
        // No HTTP join, end, pause, resume or decline: the socket maps them all (decline through end).
        XCTAssertNoThrow(try load(reply: "{ id: \"$.ref\", ok: \"$.ok\" }").get())
    }

    func testOkAndStatusTogetherAreRefused() {
        guard case .failure(let errors) = load(reply: "{ id: \"$.ref\", ok: \"$.ok\", status: \"$.code\" }") else {
            return XCTFail("expected an error")
        }
        XCTAssertTrue("\(errors)".contains("maps both 'ok' and 'status'"), "\(errors)")
    }

    func testEndMappedNowhereIsStillRequired() {
        let withoutEnd = ScenarioLoader.parse("""
            name: ws
            devices: 10
            load: [{ hold: { rate: 5/s, for: 10s } }]
            target:
              url: "http://127.0.0.1:9000"
              api:
                register: { method: POST, path: /users }
                start: { method: POST, path: /calls }

            """, file: "ws.yaml")
        guard case .failure(let errors) = withoutEnd else { return XCTFail("expected an error") }
        XCTAssertTrue("\(errors)".contains("missing the required key 'end'"), "\(errors)")
    }
}
