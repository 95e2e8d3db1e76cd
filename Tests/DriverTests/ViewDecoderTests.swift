import CallModel
import Foundation
import TextEscaping
import XCTest
@testable import Driver

/// The reference protocol's shapes as Decodable types: the oracle the view reader is held to.
private enum ReferenceShapes {
    struct MemberJSON: Decodable {
        let device: String
        let state: String
        let handle: Handle
    }

    struct ConversationJSON: Decodable {
        let id: String
        let version: Int
        let ended: Bool?
        let state: String?
        let members: [MemberJSON]

        var view: ConversationView {
            ConversationView(uuid: id, version: version, ended: ended ?? (state == "left"),
                             members: members.map { .init(device: $0.device, handle: $0.handle, state: $0.state) })
        }
    }

    struct PushJSON: Decodable {
        struct PushHandle: Decodable {
            let kind: String?
            let value: String?
            let displayName: String?
        }

        let uuid: String?
        let handle: PushHandle?
        let capabilities: [String]?
        let event: String?
        let version: Int?
        let reason: String?
        let into: String?
        let conversation: ConversationJSON?
    }
}

/// The view reader (JSONLite, for speed) reads the reference protocol through its built-in mapping; these pin
/// that it accepts and refuses exactly what JSONDecoder (the Decodable shapes it replaced on the hot path)
/// accepts and refuses.
final class ViewDecoderTests: XCTestCase {
    private let reader = ViewReader.reference

    private let member = #"{"device":"dev-1","state":"joined","handle":{"kind":"phoneNumber","value":"+1555","displayName":"A \"B\" \u00e9\ud83d\ude00"}}"#

    private func decoderConversation(_ text: String) -> ConversationView? {
        (try? JSONDecoder().decode(ReferenceShapes.ConversationJSON.self, from: Data(text.utf8)))?.view
    }

    func testConversationsDecodeAsJSONDecoderDoes() {
        let documents = [
            #"{"id":"c1","version":3,"ended":false,"state":"joined","members":[\#(member)],"extra":[1,2.5e3,null]}"#,
            #" { "id" : "c2" , "version" : 0 , "members" : [ ] } "#,
            #"{"id":"c3","version":7,"state":"left","ended":null,"members":[\#(member),\#(member)]}"#,
            #"{"id":"c4","version":"7","members":[]}"#,                  // version of the wrong type
            #"{"id":"c5","version":1.5,"members":[]}"#,                  // not an integer
            #"{"id":"c6","version":1,"ended":"no","members":[]}"#,       // optional present, wrong type
            #"{"id":"c7","version":1,"members":[{"device":"d","state":"s","handle":{"kind":"fax","value":"1","displayName":"x"}}]}"#,
            #"{"id":"c8","version":1}"#,                                 // members missing
            #"{"id":"c9","version":1,"members":[]"#,                     // truncated
            #"{"id":"c10","version":1,"members":[]} trailing"#,
            #"{"id":"c11","version":01,"members":[]}"#,                  // leading zero
            #"[1,2]"#,
            "",
        ]
        for text in documents {
            XCTAssertEqual(reader.response(Array(text.utf8)), decoderConversation(text), text)
        }
        XCTAssertEqual(reader.response(Array(documents[0].utf8))?.members.first?.handle?.displayName,
                       "A \"B\" é😀")
    }

    func testPushPayloadsDecodeAsJSONDecoderDoes() {
        let documents = [
            #"{"uuid":"u","handle":{"kind":"generic","value":"alice","displayName":"Alice"},"capabilities":["video"],"sentAt":1800000000000}"#,
            #"{"aps":{"content-available":1},"uuid":"u","event":"joined","device":"d","version":4,"ended":false,"conversation":{"id":"u","version":4,"members":[\#(member)]}}"#,
            #"{"uuid":"u","event":"ended","reason":"unanswered","into":null}"#,
            #"{"uuid":"u","capabilities":["video",3]}"#,                 // array of the wrong element type
            #"{"uuid":"u","conversation":{"id":"u"}}"#,                  // nested document invalid
            #"{"uuid":5}"#,
            #"not json"#,
        ]
        for text in documents {
            let expected = try? JSONDecoder().decode(ReferenceShapes.PushJSON.self, from: Data(text.utf8))
            let actual = reader.push(Array(text.utf8))
            XCTAssertEqual(actual == nil, expected == nil, text)
            XCTAssertEqual(actual?.uuid, expected?.uuid, text)
            XCTAssertEqual(actual?.event, expected?.event, text)
            XCTAssertEqual(actual?.version, expected?.version, text)
            XCTAssertEqual(actual?.capabilities, expected?.capabilities, text)
            XCTAssertEqual(actual?.caller?.value, expected?.handle?.value, text)
            XCTAssertEqual(actual?.view, expected?.conversation?.view, text)
        }
    }

    /// A member named `dev-N` is taken as the device id as it is; anything else goes through the handle shapes.
    func testOnlyDevDigitsIsADeviceID() {
        for id in ["dev-1", "dev-0042", "dev-12345678901234567890"] { XCTAssertTrue(ViewReader.isDeviceID(id), id) }
        for id in ["dev-", "dev", "dev-1a", "Dev-1", "dev_1", "xdev-1", "dev-١", "dev-1 ", ""] {
            XCTAssertFalse(ViewReader.isDeviceID(id), id)
        }
    }

    /// A handle's kind word read as `Handle.Kind(rawValue:)` reads it, the phone number's shortcut included.
    func testHandleKindWordsReadAsTheEnumReadsThem() {
        for word in Handle.Kind.allCases.map(\.rawValue) + ["phonenumber", "phoneNumber ", "phoneNumbe", "", "fax"] {
            XCTAssertEqual(ViewReader.kind(named: word), Handle.Kind(rawValue: word), word)
        }
    }

    /// The templates' handle object, byte for byte as the interpolation wrote it (texts unescaped, as ever).
    func testHandleJSONIsTheTemplatesObject() {
        XCTAssertEqual(handleJSON(Handle(kind: .phoneNumber, value: "+15550001", displayName: "Ann")),
                       #"{"kind":"phoneNumber","value":"+15550001","displayName":"Ann"}"#)
        let long = Handle(kind: .generic, value: "", displayName: "é😀 \"long enough to be a large string\"")
        XCTAssertEqual(handleJSON(long),
                       #"{"kind":"generic","value":"","displayName":"é😀 "long enough to be a large string""}"#)
    }

    func testDeepNestingIsRefusedNotACrash() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        XCTAssertNil(JSONLite.parse(Array(deep.utf8)))
    }
}
