import CallModel
import Foundation
import HTTPServer
@testable import ReferenceTarget
import XCTest

/// The view and push texts are written to bytes (issue 33); these pin them to the texts the String
/// interpolations wrote before, byte for byte, escapes and all.
final class TargetPayloadTests: XCTestCase {
    private func conversation() -> ServerConversation {
        let a = Handle(kind: .phoneNumber, value: "+1", displayName: "A \"quoted\"")
        let b = Handle(kind: .emailAddress, value: "b@x", displayName: "B")
        var c = ServerConversation(id: "c-1", members: [ServerMember(device: "a", handle: a, state: .joined),
                                                        ServerMember(device: "b", handle: b, state: .held)],
                                   video: true)
        c.capabilities = ["screen"]
        c.version = 12
        return c
    }

    func testTheViewIsTheTextItWasBeforeBytes() {
        var c = conversation()
        let members = #""members":[{"device":"a","state":"joined","handle":{"kind":"phoneNumber","value":"+1","#
            + #""displayName":"A \"quoted\""}},{"device":"b","state":"held","handle":{"kind":"emailAddress","#
            + #""value":"b@x","displayName":"B"}}],"activeMembers":["a"]"#
        XCTAssertEqual(c.json(), #"{"id":"c-1","state":"joined","version":12,"video":true,"ended":false,"#
                       + #""capabilities":["screen"],"# + members + "}")
        c.finish("remoteEnded")
        let ended = c.json(extra: #","split":{}"#)
        XCTAssertTrue(ended.hasPrefix(#"{"id":"c-1","state":"left","version":12,"video":true,"ended":true,"#
                                      + #""endedReason":"remoteEnded","#), ended)
        XCTAssertTrue(c.json(extra: #","split":{}"#).hasSuffix(#""activeMembers":[],"split":{}}"#))
    }

    /// `ViewWriter` quotes as `JSONText.quote` does: an escape found in an eight-byte word or in the tail, control
    /// bytes, non-ASCII text, the empty text.
    func testTheViewWriterQuotesAsJSONTextDoes() {
        let expected = ["": #""""#, "plain": #""plain""#, "exactly8": #""exactly8""#,
                        "sixteen-bytes-ok": #""sixteen-bytes-ok""#, "tab\there": #""tab\there""#,
                        "long text with a \"quote\" late": #""long text with a \"quote\" late""#,
                        "back\\slash": #""back\\slash""#, "ctl\u{01}": #""ctl\u0001""#,
                        "\u{7f} é ünïcode ☎": "\"\u{7f} é ünïcode ☎\"", "0123456789abcdef\n": #""0123456789abcdef\n""#]
        for (text, quoted) in expected {
            let written = String(unsafeUninitializedCapacity: ViewWriter.bound(text)) { buffer in
                var w = ViewWriter(buffer.baseAddress!)
                w.quoted(text)
                return w.count
            }
            XCTAssertEqual(written, quoted, text)
        }
    }

    func testANoticeIsTheTextItWasBeforeBytes() {
        let target = ReferenceTarget(configuration: .init(gatewayURL: "http://127.0.0.1:9"))
        defer { target.close() }
        let c = conversation()
        let view = c.json()
        let n = target.notice("tok", to: "b", uuid: "c-1", event: "ended", by: "a", about: c,
                              reason: "joinedElsewhere", into: "c-2")
        XCTAssertEqual(String(decoding: n?.payload ?? [], as: UTF8.self),
                       #"{"aps":{"content-available":1},"uuid":"c-1","event":"ended","device":"a","version":12,"#
                       + #""ended":false,"reason":"joinedElsewhere","into":"c-2","conversation":"# + view + "}")
        XCTAssertEqual(n?.event.view, Array(view.utf8))
        XCTAssertEqual(n?.event.reason, "joinedElsewhere")
        let given = target.notice("tok", to: "b", uuid: "c-1", event: "updated", by: "a", about: c,
                                  view: Array("{}".utf8))
        XCTAssertEqual(String(decoding: given?.payload ?? [], as: UTF8.self),
                       #"{"aps":{"content-available":1},"uuid":"c-1","event":"updated","device":"a","version":12,"#
                       + #""ended":false,"conversation":{}}"#)
        XCTAssertNil(target.notice(nil, to: "b", uuid: "c-1", event: "updated", by: "a", about: c))
    }

    func testAStartPushIsTheTextItWasBeforeBytes() throws {
        let pushes = PushLog()
        var configuration = ReferenceTarget.Configuration(gatewayURL: "http://127.0.0.1:9")
        configuration.pushHook = { voip, _, payload in pushes.add(voip, payload) }
        let target = ReferenceTarget(configuration: configuration)
        defer { target.close() }
        for (id, number) in [("a", "+1"), ("b", "+2")] {
            let body = #"{"id":"\#(id)","handle":{"kind":"phoneNumber","value":"\#(number)","displayName":"\#(id)"},"#
                + #""apnsToken":"t-\#(id)"}"#
            let request = HTTPRequest(method: "POST", path: "/v1/devices", body: Array(body.utf8))
            XCTAssertEqual(target.route(request).status, 201)
        }
        let start = #"{"caller":"a","handles":[{"kind":"phoneNumber","value":"+2","displayName":"b"}],"#
            + #""video":true,"capabilities":["x\"y"]}"#
        let answer = target.route(HTTPRequest(method: "POST", path: "/v1/conversations", body: Array(start.utf8)))
        XCTAssertEqual(answer.status, 201)
        let view = String(decoding: answer.body, as: UTF8.self)
        let id = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])?["id"]
                               as? String)
        let sent = pushes.all
        XCTAssertEqual(sent.count, 1)
        XCTAssertEqual(sent.first?.voip, true)
        let payload = sent.first?.payload ?? ""
        XCTAssertTrue(payload.hasPrefix(#"{"uuid":"\#(id)","handle":{"kind":"phoneNumber","value":"+1","#
                                        + #""displayName":"a"},"capabilities":["x\"y","video"],"sentAt":"#), payload)
        XCTAssertTrue(payload.hasSuffix(#","conversation":"# + view + "}"), payload)
    }
}

/// The pushes a target's hook took, from any thread.
private final class PushLog: @unchecked Sendable {
    private let lock = NSLock()
    private var pushes: [(voip: Bool, payload: String)] = []
    func add(_ voip: Bool, _ payload: String) { lock.lock(); pushes.append((voip, payload)); lock.unlock() }
    var all: [(voip: Bool, payload: String)] { lock.lock(); defer { lock.unlock() }; return pushes }
}
