import Foundation
import HTTPServer
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
}
