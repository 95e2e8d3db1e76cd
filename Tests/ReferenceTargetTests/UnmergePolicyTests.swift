import CallModel
import Foundation
import HTTPServer
@testable import ReferenceTarget
import XCTest

/// The reference target's unmerge in each `ServerPolicy.Unmerge` mode, and `activeMembers` as media flowing.
final class UnmergePolicyTests: XCTestCase {
    private func target(_ policy: ServerPolicy.Unmerge) -> ReferenceTarget {
        var configuration = ReferenceTarget.Configuration(gatewayURL: "http://127.0.0.1:9")
        configuration.unmergePolicy = policy
        return ReferenceTarget(configuration: configuration)
    }

    private func call(_ t: ReferenceTarget, _ method: String, _ path: String, _ body: String = "")
        -> (Int, [String: Any]) {
        let request = HTTPRequest(method: method, path: path, headers: [], body: Array(body.utf8), connectionID: 1)
        let response = t.route(request)
        let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        return (response.status, json ?? [:])
    }

    private func states(_ json: [String: Any]) -> [String: String] {
        var out: [String: String] = [:]
        for m in json["members"] as? [[String: Any]] ?? [] { out[m["device"] as! String] = m["state"] as? String }
        return out
    }

    /// Ryan, Adam, David and Andre in one group, everyone joined; Ryan unmerges Andre. Returns the answer.
    private func unmergeAndre(_ t: ReferenceTarget) -> [String: Any] {
        for name in ["ryan", "adam", "david", "andre"] {
            let body = "{\"id\":\"\(name)\",\"handle\":{\"kind\":\"generic\",\"value\":\"\(name)\",\"displayName\":"
                + "\"\(name)\"},\"apnsToken\":\"\(String(repeating: "a", count: 64))\"}"
            XCTAssertEqual(call(t, "POST", "/v1/devices", body).0, 201)
        }
        let handles = ["adam", "david", "andre"].map {
            "{\"kind\":\"generic\",\"value\":\"\($0)\",\"displayName\":\"\($0)\"}"
        }
        let id = call(t, "POST", "/v1/conversations",
                      "{\"caller\":\"ryan\",\"handles\":[\(handles.joined(separator: ","))]}").1["id"] as? String ?? ""
        for name in ["adam", "david", "andre"] {
            XCTAssertEqual(call(t, "POST", "/v1/conversations/\(id)/join", "{\"device\":\"\(name)\"}").0, 200)
        }
        let (status, json) = call(t, "POST", "/v1/conversations/\(id)/unmerge",
                                  "{\"device\":\"ryan\",\"member\":\"andre\"}")
        XCTAssertEqual(status, 200)
        return json
    }

    func testHoldSplitKeepsTheSplitterActiveInTheGroup() {
        let t = target(.holdSplit)
        defer { t.close() }
        let json = unmergeAndre(t)
        XCTAssertEqual(states(json), ["ryan": "joined", "adam": "joined", "david": "joined", "andre": "left"])
        XCTAssertEqual(states(json["split"] as? [String: Any] ?? [:]), ["ryan": "held", "andre": "joined"])
    }

    func testHoldGroupPutsTheSplitterWithTheMemberAndHoldsTheGroup() {
        let t = target(.holdGroup)
        defer { t.close() }
        let json = unmergeAndre(t)
        XCTAssertEqual(states(json), ["ryan": "held", "adam": "joined", "david": "joined", "andre": "left"])
        XCTAssertEqual(Set(json["activeMembers"] as? [String] ?? []), ["adam", "david"], "held is not active")
        XCTAssertEqual(json["state"] as? String, "joined")
        XCTAssertEqual(states(json["split"] as? [String: Any] ?? [:]), ["ryan": "joined", "andre": "joined"])
    }

    func testLeaveGroupTakesTheSplitterOutOfTheGroup() {
        let t = target(.leaveGroup)
        defer { t.close() }
        let json = unmergeAndre(t)
        XCTAssertEqual(states(json), ["ryan": "left", "adam": "joined", "david": "joined", "andre": "left"])
        XCTAssertEqual(json["ended"] as? Bool, false, "Adam and David carry on")
        XCTAssertEqual(states(json["split"] as? [String: Any] ?? [:]), ["ryan": "joined", "andre": "joined"])
    }
}
