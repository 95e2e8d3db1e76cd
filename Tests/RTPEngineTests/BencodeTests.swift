import RTPEngine
import XCTest

/// Bencode as the ng protocol writes it: every kind round-trips, keys are written sorted, and each malformed input
/// is refused with the offset and the problem.
final class BencodeTests: XCTestCase {
    func testEveryKindRoundTripsThroughItsBytes() throws {
        let value: Bencode = [
            "command": "offer", "flags": ["trust-address", "symmetric"], "n": -42, "zero": 0,
            "nested": ["list": [1, ["k": "v"], []], "empty": .dictionary([:])],
            "binary": .bytes([0, 255, 32, 58]), "max": .integer(Int.max), "min": .integer(Int.min),
        ]
        XCTAssertEqual(try BencodeDecoder(requiresSortedKeys: true).decode(value.encoded), value)
    }

    func testDictionaryKeysAreWrittenInByteOrderAndValuesByTheirKind() {
        let value: Bencode = ["zeta": 1, "Alpha": "x", "beta": [2, "ab"]]
        XCTAssertEqual(String(decoding: value.encoded, as: UTF8.self), "d5:Alpha1:x4:betali2e2:abe4:zetai1ee")
        XCTAssertEqual(String(decoding: Bencode.string("").encoded, as: UTF8.self), "0:")
    }

    func testMalformedInputIsRefusedWithItsOffsetAndProblem() {
        let cases: [(String, Int, BencodeError.Problem)] = [
            ("", 0, .truncated),
            ("x", 0, .unexpectedByte(UInt8(ascii: "x"))),
            ("i12", 3, .truncated),
            ("ie", 1, .badInteger),
            ("i01e", 1, .badInteger),
            ("i-0e", 1, .badInteger),
            ("i1x2e", 2, .badInteger),
            ("i99999999999999999999e", 20, .tooLarge),
            ("5:abc", 2, .truncated),
            ("03:abc", 0, .badLength),
            ("3x:abc", 1, .badLength),
            ("l1:a", 4, .truncated),
            ("i1ee", 3, .trailingBytes),
            ("di1ei2ee", 1, .badKey),
            ("d1:ai1e1:ai2ee", 7, .duplicateKey("a")),
            ("d2:\u{FF}ai1ee", 1, .badKey),
        ]
        for (text, offset, problem) in cases {
            let bytes = text == "d2:\u{FF}ai1ee" ? [UInt8(ascii: "d"), 0x32, 0x3A, 0xFF, 0x61] + Array("i1ee".utf8)
                : Array(text.utf8)
            XCTAssertThrowsError(try BencodeDecoder().decode(bytes), text) { error in
                XCTAssertEqual(error as? BencodeError, BencodeError(offset: offset, problem: problem), text)
            }
        }
    }

    func testKeyOrderIsCheckedOnlyWhenAskedAndNestingIsBounded() throws {
        let unsorted = Array("d1:bi1e1:ai2ee".utf8)
        XCTAssertEqual(try BencodeDecoder().decode(unsorted), ["a": 2, "b": 1])
        XCTAssertThrowsError(try BencodeDecoder(requiresSortedKeys: true).decode(unsorted)) { error in
            XCTAssertEqual(error as? BencodeError, BencodeError(offset: 7, problem: .unsortedKey("a")))
        }
        let deep = Array(String(repeating: "l", count: 10).utf8) + Array(String(repeating: "e", count: 10).utf8)
        XCTAssertNoThrow(try BencodeDecoder(maxDepth: 10).decode(deep))
        XCTAssertThrowsError(try BencodeDecoder(maxDepth: 9).decode(deep)) { error in
            XCTAssertEqual(error as? BencodeError, BencodeError(offset: 9, problem: .tooDeep(9)))
        }
        XCTAssertTrue("\(BencodeError(offset: 7, problem: .duplicateKey("a")))".contains("offset 7"))
    }

    func testAnNGDatagramIsACookieASpaceAndOneDictionary() throws {
        let message = NGMessage(cookie: "5323_1", body: ["command": "ping"])
        XCTAssertEqual(String(decoding: message.encoded, as: UTF8.self), "5323_1 d7:command4:pinge")
        XCTAssertEqual(try NGMessage.decode(message.encoded), message)
        XCTAssertThrowsError(try NGMessage.decode(Array("nospace".utf8))) { error in
            XCTAssertEqual(error as? BencodeError, BencodeError(offset: 7, problem: .truncated))
        }
        XCTAssertThrowsError(try NGMessage.decode(Array("c1 li1ee".utf8))) { error in
            XCTAssertEqual(error as? BencodeError, BencodeError(offset: 3, problem: .unexpectedByte(UInt8(ascii: "l"))))
        }
        XCTAssertThrowsError(try NGMessage.decode(Array("c1 d4:spami1e".utf8))) { error in
            XCTAssertEqual(error as? BencodeError, BencodeError(offset: 13, problem: .truncated))
        }
    }
}
