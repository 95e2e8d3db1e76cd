import HTTPServer
@testable import PushGateway
import TextEscaping
import XCTest

/// The gateway's one read of a payload (`PayloadCheck`): its verdict is `JSONShape`'s on every body, and the scan
/// it hands on is the one the device would have made from the bytes.
final class PayloadCheckTests: XCTestCase {
    /// A push shaped like the reference target's (ids, an event word, a view with a member list and a handle),
    /// with every kind of JSON value in it.
    private let seed = Array(#"""
        {"conversationId":"6f1c2d3e-4a5b-4c6d-8e7f-0123456789ab","event":"joined","version":3,"sentAt":1733580000123,
         "view":{"id":"6f1c2d3e","state":"active","members":[{"device":"d-1","state":"joined","muted":false},
         {"device":"d-2","state":"ringing","muted":null}],"score":-1.5e3,"tags":[],"meta":{}},
         "caller":{"kind":"phone","value":"+15550001","displayName":"A \u00e9 \"b\"\\/"}}
        """#.utf8)

    private func pattern() -> (JSONPattern, JSONPattern.Slot, JSONPattern.Slot) {
        var pattern = JSONPattern()
        _ = pattern.capture([])
        let id = pattern.capture([.key("conversationId")])
        let event = pattern.capture([.key("event")])
        _ = pattern.capture([.key("view"), .key("members"), .index(1), .key("device")])
        _ = pattern.list([.key("view"), .key("members")])
        _ = pattern.capture([.key("caller"), .key("displayName")])
        return (pattern, id, event)
    }

    private func assertSameAsBefore(_ body: [UInt8], _ pattern: JSONPattern, _ note: @autoclosure () -> String,
                                    file: StaticString = #filePath, line: UInt = #line) {
        let read = PayloadCheck.read(body, pattern: pattern)
        XCTAssertEqual(read.isObject, JSONShape.isObject(body), note(), file: file, line: line)
        XCTAssertNotNil(read.scanned, note(), file: file, line: line)
        XCTAssertEqual(read.scanned?.scan == nil, JSONScan(body, pattern) == nil, note(), file: file, line: line)
    }

    func testTheSeedIsAnObjectAndItsScanReadsTheFields() {
        let (pattern, id, event) = pattern()
        let read = PayloadCheck.read(seed, pattern: pattern)
        XCTAssertTrue(read.isObject)
        XCTAssertEqual(read.scanned?.scan?.string(id), "6f1c2d3e-4a5b-4c6d-8e7f-0123456789ab")
        XCTAssertEqual(read.scanned?.scan?.string(event), "joined")
        XCTAssertNil(PayloadCheck.read(seed, pattern: nil).scanned, "no pattern, no scan handed on")
        XCTAssertTrue(PayloadCheck.read(seed, pattern: nil).isObject)
    }

    /// Every byte of the seed replaced by each byte that changes JSON's meaning (and some that do not), deleted,
    /// and each inserted before it: the verdict is JSONShape's and the scan's presence JSONScan's, every time.
    func testEveryMutationOfAPushIsJudgedAsJSONShapeJudgesIt() {
        let (pattern, _, _) = pattern()
        let bytes: [UInt8] = Array(#"{}[]":,\/ 0123456789-+.eEtfnrulsaxbu"#.utf8) + [0x00, 0x01, 0x09, 0x0A, 0x0D,
                                                                                    0x1F, 0x7F, 0x80, 0xC3, 0xA9,
                                                                                    0xED, 0xF0, 0xFF]
        for i in seed.indices {
            var deleted = seed
            deleted.remove(at: i)
            assertSameAsBefore(deleted, pattern, "deleted \(i)")
            for b in bytes {
                var replaced = seed
                replaced[i] = b
                assertSameAsBefore(replaced, pattern, "byte \(b) at \(i)")
                var inserted = seed
                inserted.insert(b, at: i)
                assertSameAsBefore(inserted, pattern, "byte \(b) inserted at \(i)")
            }
        }
    }

    func testOtherDocumentsAreJudgedAsJSONShapeJudgesThem() {
        let (pattern, _, _) = pattern()
        let deep = String(repeating: "{\"a\":", count: 63) + "1" + String(repeating: "}", count: 63)
        let deeper = String(repeating: "{\"a\":", count: 64) + "1" + String(repeating: "}", count: 64)
        let documents = ["", " ", "{}", " {} ", "[]", "1", "\"s\"", "null", "{} {}", "{\"a\":01}", "{\"a\":1.}",
                         "{\"a\":\"\\ud800\"}", "{\"a\":\"\\ud800\\udc00\"}", "{\"a\":\"\\u12\"}", "{\"a\":tru}",
                         "{\"a\":1,}", "{,}", "{\"a\" 1}", "{\"a\":[1,]}", "{\"a\":\"\u{e9}\"}", deep, deeper,
                         "{\"a\":1e999}", "{\"a\":-0.0e-0}", "\u{feff}{}"]
        for document in documents {
            assertSameAsBefore(Array(document.utf8), pattern, document)
        }
        var invalid = Array("{\"a\":\"xx\"}".utf8)
        invalid[6] = 0xC3
        assertSameAsBefore(invalid, pattern, "a cut UTF-8 sequence")
    }

    func testTheValidatorHandsTheScanOnOnlyWithAPattern() throws {
        let (pattern, id, _) = pattern()
        let validator = APNsValidator(configuration: .init(bundleID: "com.example.app", requireProviderToken: false))
        func validate(_ pattern: JSONPattern?) throws -> APNsPush {
            try validator.validate(method: "POST", path: "/3/device/" + String(repeating: "ab", count: 32),
                                   requestHeaders: [HTTPHeader("apns-push-type", "voip"),
                                                    HTTPHeader("apns-topic", "com.example.app.voip")],
                                   body: seed, apnsID: "", nowNanos: 1, nowEpochSeconds: 1,
                                   payloadPattern: pattern).get()
        }
        XCTAssertEqual(try validate(pattern).scanned?.scan?.string(id), "6f1c2d3e-4a5b-4c6d-8e7f-0123456789ab")
        XCTAssertNil(try validate(nil).scanned)
    }
}
