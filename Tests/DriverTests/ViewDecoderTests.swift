import CallModel
import Foundation
import XCTest
@testable import Driver

/// ViewDecoder reads with JSONLite for speed; these pin that it accepts and refuses exactly what JSONDecoder
/// (the Decodable shapes it replaced on the hot path) accepts and refuses.
final class ViewDecoderTests: XCTestCase {
    private let member = #"{"device":"dev-1","state":"joined","handle":{"kind":"phoneNumber","value":"+1555","displayName":"A \"B\" \u00e9\ud83d\ude00"}}"#

    private func decoderConversation(_ text: String) -> ConversationView? {
        (try? JSONDecoder().decode(ViewDecoder.ConversationJSON.self, from: Data(text.utf8)))?.view
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
            XCTAssertEqual(ViewDecoder.conversation(Array(text.utf8)), decoderConversation(text), text)
        }
        XCTAssertEqual(ViewDecoder.conversation(Array(documents[0].utf8))?.members.first?.handle?.displayName,
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
            let expected = try? JSONDecoder().decode(ViewDecoder.PushJSON.self, from: Data(text.utf8))
            let actual = ViewDecoder.push(Array(text.utf8))
            XCTAssertEqual(actual == nil, expected == nil, text)
            XCTAssertEqual(actual?.uuid, expected?.uuid, text)
            XCTAssertEqual(actual?.event, expected?.event, text)
            XCTAssertEqual(actual?.version, expected?.version, text)
            XCTAssertEqual(actual?.capabilities, expected?.capabilities, text)
            XCTAssertEqual(actual?.handle?.value, expected?.handle?.value, text)
            XCTAssertEqual(actual?.conversation?.view, expected?.conversation?.view, text)
        }
    }

    func testDeepNestingIsRefusedNotACrash() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        XCTAssertNil(JSONLite.parse(Array(deep.utf8)))
    }
}
