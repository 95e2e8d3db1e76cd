@testable import Driver
import Scenario
import XCTest

/// `capture` paths read from an answer's body, each value as the text later templates get (the values the
/// Foundation reader gave before JSONLite read them, pinned here).
final class TargetAPICaptureTests: XCTestCase {
    private func captured(_ body: String, _ paths: [String: String]) -> [String: String] {
        let endpoint = APIMapping.Endpoint(method: "POST", path: "/", captures: paths)
        return TargetAPI.captures(endpoint, from: Array(body.utf8))
    }

    func testStringsNumbersAndBooleansBecomeTheTextTheFoundationReaderGave() {
        let body = #"{"s":"x","i":7,"n":-3,"f":1.5,"e":1e3,"w":1.0,"z":-0,"t":true,"u":false,"big":1e20}"#
        let paths = ["s": "$.s", "i": "$.i", "n": "$.n", "f": "$.f", "e": "$.e", "w": "$.w", "z": "$.z",
                     "t": "$.t", "u": "$.u", "big": "$.big"]
        XCTAssertEqual(captured(body, paths), ["s": "x", "i": "7", "n": "-3", "f": "1.5", "e": "1000", "w": "1",
                                               "z": "0", "t": "1", "u": "0", "big": "1e+20"])
    }

    /// A 64-bit id (Twitter-style ids run to 19 digits) is not exact in a Double: it goes through Foundation's
    /// reader, which kept every digit before JSONLite read captures.
    func testAnIntegerBeyondADoublesPrecisionKeepsEveryDigit() {
        let body = #"{"id":1234567890123456789,"neg":-9007199254740993,"small":42,"huge":1e300}"#
        XCTAssertEqual(captured(body, ["id": "$.id", "neg": "$.neg", "small": "$.small", "huge": "$.huge"]),
                       ["id": "1234567890123456789", "neg": "-9007199254740993", "small": "42", "huge": "1e+300"])
    }

    func testPathsIntoObjectsAndArraysAndWhatTheyDoNotFind() {
        let body = #"{"call":{"callId":"c-1","legs":[{"id":"a"},{"id":"b"}]},"call":{"callId":"c-2"},"nil":null}"#
        XCTAssertEqual(captured(body, ["id": "$.call.callId", "leg": "$.call.legs[1].id", "gone": "$.nope",
                                       "null": "$.nil", "object": "$.call", "bad": "call"]),
                       ["id": "c-2"], "the last of repeated members; null, objects and unknown paths give nothing")
        XCTAssertEqual(captured(#"[{"id":"a"},{"id":"b"}]"#, ["second": "$[1].id", "out": "$[2].id"]),
                       ["second": "b"])
    }

    func testABodyThatIsNotJSONCapturesNothing() {
        XCTAssertEqual(captured("{\"id\":", ["id": "$.id"]), [:])
        XCTAssertEqual(captured("", ["id": "$.id"]), [:])
    }
}
