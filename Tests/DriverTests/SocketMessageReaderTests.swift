import CallModel
import Foundation
import Scenario
import TextEscaping
import WebSocket
import XCTest
@testable import Driver

/// What arrives on a device socket, sorted without a socket: replies by their echoed id (read like an HTTP
/// answer), events like background pushes, ignored names set aside; and the reference mapping's messages.
final class SocketMessageReaderTests: XCTestCase {
    private let conversation = "{\"id\":\"c1\",\"version\":3,\"state\":\"joined\",\"members\":[" +
        "{\"device\":\"dev-1\",\"state\":\"joined\",\"handle\":{\"kind\":\"generic\",\"value\":\"a\"," +
        "\"displayName\":\"A\"}},{\"device\":\"dev-2\",\"state\":\"joined\",\"handle\":{\"kind\":\"generic\"," +
        "\"value\":\"b\",\"displayName\":\"B\"}}]}"

    private var reference: SocketMessageReader {
        SocketMessageReader(TargetAPI.referenceSocket, view: TargetAPI.referenceMapping.view)
    }

    func testAReplyToAnActionInFlightCarriesItsStatusAndTheBodyTheHTTPReaderReads() throws {
        let message = "{\"id\":\"w0-7\",\"status\":200,\"body\":\(conversation)}"
        guard case .reply(let id, let response) = reference.classify(Array(message.utf8),
                                                                     awaiting: { $0 == "w0-7" }) else {
            return XCTFail("a reply")
        }
        let (status, body) = (response.status, response.body)
        XCTAssertEqual(id, "w0-7")
        XCTAssertEqual(status, 200)
        let view = try XCTUnwrap(TargetAPI(nil).reader.response(body), String(decoding: body, as: UTF8.self))
        XCTAssertEqual(view.uuid, "c1")
        XCTAssertEqual(view.version, 3)
        XCTAssertEqual(view.members.map(\.device), ["dev-1", "dev-2"])
    }

    func testAnIdNobodyWaitsForIsAnEventAndANumericIdMatchesItsText() {
        let numeric = SocketMessageReader(APIMapping.Socket(url: "/ws", reply: .init(id: "$.rid")), view: nil)
        guard case .reply(let id, let response) = numeric.classify(Array("{\"rid\":17}".utf8),
                                                                   awaiting: { $0 == "17" }) else {
            return XCTFail("a number echoed for the id")
        }
        let status = response.status
        XCTAssertEqual(id, "17")
        XCTAssertEqual(status, 200, "no status mapped: every reply is a 200")
        guard case .event = reference.classify(Array("{\"id\":\"w0-9\",\"status\":200}".utf8), awaiting: { _ in false })
        else { return XCTFail("an id no action waits for is not a reply") }
    }

    func testReferenceEventsReadLikeBackgroundPushesAndIgnoredNamesAreSetAside() throws {
        let event = "{\"event\":\"joined\",\"uuid\":\"c1\",\"into\":\"c1\",\"conversation\":\(conversation)," +
            "\"sentAt\":1764787200123}"
        guard case .event(let payload?) = reference.classify(Array(event.utf8), awaiting: { _ in true }) else {
            return XCTFail("an event")
        }
        XCTAssertEqual(payload.uuid, "c1")
        XCTAssertEqual(payload.event, "joined")
        XCTAssertEqual(payload.view?.version, 3)
        XCTAssertEqual(payload.sentAt, 1_764_787_200_123)
        var mapping = APIMapping.Socket(url: "/ws", events: APIMapping.PushFields(conversation: "$.call",
                                                                                  event: "$.type"))
        mapping.ignore = ["pong"]
        let reader = SocketMessageReader(mapping, view: nil)
        guard case .ignored = reader.classify(Array("{\"type\":\"pong\"}".utf8), awaiting: { _ in false }) else {
            return XCTFail("ignored")
        }
        guard case .unreadable = reader.classify(Array("not json".utf8), awaiting: { _ in false }) else {
            return XCTFail("unreadable")
        }
        guard case .event(let hungup?) = SocketMessageReader(
            APIMapping.Socket(url: "/ws", events: APIMapping.PushFields(conversation: "$.call", event: "$.type",
                                                                         ended: ["hungup"])), view: nil)
            .classify(Array("{\"type\":\"hungup\",\"call\":\"x\"}".utf8), awaiting: { _ in false }) else {
            return XCTFail("an event")
        }
        XCTAssertEqual(hungup.event, "ended", "the mapping's words become the device's")
    }

    func testTheReferenceActionsRenderToJSONWithTheRequestIdAndTheURLFollowsTheTargetsScheme() throws {
        var missing: [String] = []
        let vars: TemplateVars = ["request.id": "w1-2", "conversation.id": "c9", "device.id": "dev-4", "with.id": "c8",
                    "device.reported_at": "123", "push.sent_at": "null", "reason.json": "\"remoteEnded\""]
        for (op, template) in TargetAPI.referenceSocket.actions {
            let text = TargetAPI.render(template, vars, &missing)
            let json = try XCTUnwrap(JSONLite.parse(Array(text.utf8)), "\(op): \(text)")
            XCTAssertEqual(json["id"]?.stringValue, "w1-2", op)
            XCTAssertEqual(json["conversation"]?.stringValue, "c9", op)
        }
        XCTAssertEqual(DeviceSockets.socketURL("/v1/events?device=d", base: "http://127.0.0.1:8080"),
                       "ws://127.0.0.1:8080/v1/events?device=d")
        XCTAssertEqual(DeviceSockets.socketURL("/ws", base: "https://h:443"), "wss://h:443/ws")
        XCTAssertEqual(DeviceSockets.socketURL("ws://other:1/x", base: "https://h"), "ws://other:1/x")
    }

    func testJSONTextRoundTrips() throws {
        let text = "{\"a\":[1,2.5,\"x\\\"y\",true,null],\"b\":{\"c\":-3}}"
        let value = try XCTUnwrap(JSONLite.parse(Array(text.utf8)))
        XCTAssertEqual(JSONLite.parse(Array(value.text.utf8)), value)
        XCTAssertEqual(value.text, text)
    }

    /// A reply's body part goes on as the message wrote it (a string with its quotes), not re-written.
    func testAReplysBodyIsHandedOnAsTheMessageHasIt() {
        let reader = SocketMessageReader(APIMapping.Socket(url: "/ws", reply: .init(id: "$.id", body: "$.body")),
                                         view: nil)
        let bodies = ["{\"b\": 1,\"a\":\"x\\u0041\"}", "\"s\\\"t\"", "[2.50, null]", "7"]
        for body in bodies {
            let message = "{\"id\":\"r\",\"body\":\(body)}"
            guard case .reply(_, let response) = reader.classify(Array(message.utf8), awaiting: { $0 == "r" }) else {
                return XCTFail(message)
            }
            XCTAssertEqual(String(decoding: response.body, as: UTF8.self), body)
        }
        guard case .reply(_, let none) = reader.classify(Array("{\"id\":\"r\"}".utf8), awaiting: { _ in true }) else {
            return XCTFail("a reply without a body")
        }
        XCTAssertEqual(none.body, [])
    }

    /// The socket URL built from the base parsed once is what parsing the whole URL gives, or fails as it does.
    func testTheSocketURLFromTheParsedBaseIsTheParsedWholeURL() {
        let bases = ["http://127.0.0.1:8080", "https://h", "http://h:1/prefix", "http://h:1/", "http://[::1]:9/p?q=1",
                     "http://h:99999", "ftp://h"]
        for target in bases {
            let base = DeviceSockets.socketBase(APIMapping.Socket(url: "/v1/events?device=${device.id}"),
                                                target: target)
            for rendered in ["/v1/events?device=d", "/ws", "/a#b", "ws://other:1/x"] {
                let whole = try? WebSocketURL(parsing: DeviceSockets.socketURL(rendered, base: target))
                let made = try? DeviceSockets.openURL(rendered, base: base, target: target)
                XCTAssertEqual(made, whole, "\(target) \(rendered)")
            }
        }
        XCTAssertNotNil(DeviceSockets.socketBase(APIMapping.Socket(url: "/ws"), target: "http://h:1"))
        XCTAssertNil(DeviceSockets.socketBase(APIMapping.Socket(url: "ws://h/ws"), target: "http://h:1"))
    }
}
