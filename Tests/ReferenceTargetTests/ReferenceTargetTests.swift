import Foundation
import HTTPServer
import Scenario
@testable import ReferenceTarget
import XCTest

final class ReferenceTargetTests: XCTestCase {
    /// No gateway listens on port 9 (discard); pushes fail quietly and are counted, which these tests ignore.
    private var target: ReferenceTarget!

    override func setUp() { target = ReferenceTarget(configuration: .init(gatewayURL: "http://127.0.0.1:9")) }
    override func tearDown() { target.close() }

    private func call(_ method: String, _ path: String, _ body: String = "") -> (Int, [String: Any]) {
        let request = HTTPRequest(method: method, path: path, headers: [], body: Array(body.utf8), connectionID: 1)
        let response = target.route(request)
        let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
        return (response.status, json)
    }

    private func register(_ id: String, _ number: String) {
        let body = "{\"id\":\"\(id)\",\"handle\":{\"kind\":\"phoneNumber\",\"value\":\"\(number)\"," +
            "\"displayName\":\"\(id)\"},\"apnsToken\":\"\(String(repeating: "a", count: 64))\"}"
        XCTAssertEqual(call("POST", "/v1/devices", body).0, 201)
    }

    private func start() -> String {
        register("a", "+1")
        register("b", "+2")
        let (status, json) = call("POST", "/v1/conversations",
                                  "{\"caller\":\"a\",\"handles\":[{\"kind\":\"phoneNumber\",\"value\":\"+2\",\"displayName\":\"b\"}]}")
        XCTAssertEqual(status, 201)
        return json["id"] as? String ?? ""
    }

    func testOneToOneLifecycleBumpsVersionAndEnds() {
        let id = start()
        var (status, json) = call("POST", "/v1/conversations/\(id)/join", "{\"device\":\"b\"}")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["state"] as? String, "joined")
        XCTAssertEqual(json["version"] as? Int, 2)
        (status, json) = call("POST", "/v1/conversations/\(id)/end", "{\"device\":\"a\"}")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["state"] as? String, "left")
        XCTAssertEqual(json["version"] as? Int, 3)
        XCTAssertEqual(call("GET", "/v1/conversations/\(id)").1["state"] as? String, "left")
    }

    func testJoinAfterEndIsConflict() {
        let id = start()
        XCTAssertEqual(call("POST", "/v1/conversations/\(id)/end", "{\"device\":\"a\"}").0, 200)
        let (status, json) = call("POST", "/v1/conversations/\(id)/join", "{\"device\":\"b\"}")
        XCTAssertEqual(status, 409)
        XCTAssertEqual(json["code"] as? String, "ended")
    }

    func testJoinTwiceIsStateConflict() {
        let id = start()
        XCTAssertEqual(call("POST", "/v1/conversations/\(id)/join", "{\"device\":\"b\"}").0, 200)
        XCTAssertEqual(call("POST", "/v1/conversations/\(id)/join", "{\"device\":\"b\"}").1["code"] as? String, "state")
    }

    func testBadInputNamesTheProblem() {
        XCTAssertEqual(call("POST", "/v1/devices", "{not json").0, 400)
        XCTAssertEqual(call("GET", "/v1/conversations/nope").0, 404)
        XCTAssertEqual(call("POST", "/v1/conversations",
                            "{\"caller\":\"ghost\",\"handles\":[{\"kind\":\"generic\",\"value\":\"x\",\"displayName\":\"x\"}]}").0, 404)
        let id = start()
        XCTAssertEqual(call("POST", "/v1/conversations/\(id)/join", "{\"device\":\"stranger\"}").0, 403)
        XCTAssertEqual(call("DELETE", "/v1/devices").0, 404)
    }

    private func startCall(_ caller: String, _ callees: [String]) -> String {
        let handles = callees.map { "{\"kind\":\"phoneNumber\",\"value\":\"+\($0)\",\"displayName\":\"\($0)\"}" }
        let (status, json) = call("POST", "/v1/conversations",
                                  "{\"caller\":\"\(caller)\",\"handles\":[\(handles.joined(separator: ","))]}")
        XCTAssertEqual(status, 201)
        return json["id"] as? String ?? ""
    }

    private func states(_ json: [String: Any]) -> [String: String] {
        var out: [String: String] = [:]
        for m in json["members"] as? [[String: Any]] ?? [] { out[m["device"] as! String] = m["state"] as? String }
        return out
    }

    /// The seed story: Ryan is in a group with Adam and David and on the side with Andre; he merges them, then
    /// unmerges Andre, who gets a conversation of his own with Ryan (held on Ryan's side).
    func testMergeThenUnmergeFollowsTheSeedStory() {
        for name in ["ryan", "adam", "david", "andre"] { register(name, "+\(name)") }
        let group = startCall("ryan", ["adam", "david"])
        XCTAssertEqual(call("POST", "/v1/conversations/\(group)/join", "{\"device\":\"adam\"}").0, 200)
        XCTAssertEqual(call("POST", "/v1/conversations/\(group)/join", "{\"device\":\"david\"}").0, 200)
        XCTAssertEqual(call("POST", "/v1/conversations/\(group)/pause", "{\"device\":\"ryan\"}").0, 200)
        let side = startCall("ryan", ["andre"])
        XCTAssertEqual(call("POST", "/v1/conversations/\(side)/join", "{\"device\":\"andre\"}").0, 200)
        var (status, json) = call("POST", "/v1/conversations/\(group)/merge", "{\"device\":\"ryan\",\"with\":\"\(side)\"}")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(states(json), ["ryan": "joined", "adam": "joined", "david": "joined", "andre": "joined"])
        XCTAssertEqual(call("GET", "/v1/conversations/\(side)").1["endedReason"] as? String, "merged")
        (status, json) = call("POST", "/v1/conversations/\(group)/unmerge", "{\"device\":\"ryan\",\"member\":\"andre\"}")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(states(json)["andre"], "left")
        let split = json["split"] as? [String: Any] ?? [:]
        XCTAssertEqual(states(split), ["ryan": "held", "andre": "joined"])
        XCTAssertEqual(call("POST", "/v1/conversations/\(side)/merge", "{\"device\":\"ryan\",\"with\":\"\(group)\"}").0, 409)
    }

    func testPauseAndResumeNeedTheRightMemberState() {
        let id = start()
        XCTAssertEqual(call("POST", "/v1/conversations/\(id)/resume", "{\"device\":\"a\"}").1["code"] as? String, "state")
        XCTAssertEqual(call("POST", "/v1/conversations/\(id)/pause", "{\"device\":\"a\"}").0, 200)
        XCTAssertEqual(call("POST", "/v1/conversations/\(id)/pause", "{\"device\":\"a\"}").0, 409)
        XCTAssertEqual(call("POST", "/v1/conversations/\(id)/resume", "{\"device\":\"a\"}").0, 200)
    }

    func testEndReasonIsKept() {
        let id = start()
        let json = call("POST", "/v1/conversations/\(id)/end", "{\"device\":\"a\",\"reason\":\"unanswered\"}").1
        XCTAssertEqual(json["endedReason"] as? String, "unanswered")
    }
}

final class ReferenceTargetBugTests: XCTestCase {
    func testScenarioKnowsEveryBugTheTargetHas() {
        // Scenario cannot import the target; this keeps its list of names true.
        XCTAssertEqual(Set(ReferenceTarget.Bug.allCases.map(\.rawValue)), Set(Scenario.knownTargetBugs))
    }
}

/// A soak makes hundreds of thousands of calls: the target must keep recent ones, not all of them.
final class ReferenceTargetRetentionTests: XCTestCase {
    private func call(_ target: ReferenceTarget, _ method: String, _ path: String, _ body: String = "") -> Int {
        target.route(HTTPRequest(method: method, path: path, headers: [], body: Array(body.utf8), connectionID: 1))
            .status
    }

    private func startCall(_ target: ReferenceTarget) -> String {
        let response = target.route(HTTPRequest(
            method: "POST", path: "/v1/conversations", headers: [],
            body: Array("{\"caller\":\"a\",\"handles\":[{\"kind\":\"phoneNumber\",\"value\":\"+2\",\"displayName\":\"b\"}]}".utf8),
            connectionID: 1))
        XCTAssertEqual(response.status, 201)
        let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        return json?["id"] as? String ?? ""
    }

    func testEndedConversationsAreForgottenAfterTheRetentionAndLiveOnesStay() {
        let target = ReferenceTarget(configuration: .init(gatewayURL: "http://127.0.0.1:9", endedRetention: 5,
                                                          idleLimit: 100))
        defer { target.close() }
        for (id, number) in [("a", "+1"), ("b", "+2")] {
            let body = "{\"id\":\"\(id)\",\"handle\":{\"kind\":\"phoneNumber\",\"value\":\"\(number)\"," +
                "\"displayName\":\"\(id)\"},\"apnsToken\":\"\(String(repeating: "a", count: 64))\"}"
            XCTAssertEqual(call(target, "POST", "/v1/devices", body), 201)
        }
        let second: UInt64 = 1_000_000_000
        let ended = startCall(target)
        let live = startCall(target)
        XCTAssertEqual(call(target, "POST", "/v1/conversations/\(ended)/end", "{\"device\":\"a\"}"), 200)
        XCTAssertEqual(call(target, "POST", "/v1/conversations/\(live)/join", "{\"device\":\"b\"}"), 200)
        target.sweep(nowNanos: 10 * second)
        target.sweep(nowNanos: 14 * second)
        XCTAssertEqual(call(target, "GET", "/v1/conversations/\(ended)"), 200, "kept within the retention")
        XCTAssertEqual(call(target, "POST", "/v1/conversations/\(ended)/join", "{\"device\":\"b\"}"), 409)
        target.sweep(nowNanos: 16 * second)
        XCTAssertEqual(call(target, "GET", "/v1/conversations/\(ended)"), 404, "forgotten after 5 s ended")
        XCTAssertEqual(call(target, "GET", "/v1/conversations/\(live)"), 200)
        XCTAssertEqual(target.forgottenConversations, 1)
        // The live call changes at 50 s (a hold), so its idle clock restarts there.
        XCTAssertEqual(call(target, "POST", "/v1/conversations/\(live)/pause", "{\"device\":\"b\"}"), 200)
        target.sweep(nowNanos: 50 * second)
        target.sweep(nowNanos: 140 * second)
        XCTAssertEqual(call(target, "GET", "/v1/conversations/\(live)"), 200, "changed 90 s ago: not idle yet")
        target.sweep(nowNanos: 151 * second)
        XCTAssertEqual(call(target, "GET", "/v1/conversations/\(live)"), 404, "idle past the limit")
        XCTAssertEqual(target.heldConversations, 0)
    }
}
