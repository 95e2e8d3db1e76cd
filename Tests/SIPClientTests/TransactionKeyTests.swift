@testable import SIPClient
import XCTest

/// A transaction key compares its fingerprint first (`KeyPrint`), and still decides as its two strings do.
final class TransactionKeyTests: XCTestCase {
    func testKeysAreEqualExactlyWhenBranchAndMethodAre() {
        let branches = ["", "z", "z9hG4bK", "z9hG4bKabc", "z9hG4bK1a2b3c4d5e6f", "z9hG4bK1a2b3c4d5e6g",
                        "z9hG4bK1a2b3c4d5e6f7", "z9hG4bK.0a1b2c3d4e5f6a7b8c9d.0"]
        let methods = ["INVITE", "ACK", "BYE", "CANCEL", ""]
        for b1 in branches {
            for b2 in branches {
                for m1 in methods {
                    for m2 in methods {
                        let k1 = TransactionKey(branch: b1, method: m1), k2 = TransactionKey(branch: b2, method: m2)
                        XCTAssertEqual(k1 == k2, b1 == b2 && m1 == m2, "\(b1) \(m1) / \(b2) \(m2)")
                    }
                }
            }
        }
    }

    /// A branch made of other bytes equal as a `String` (canonical equivalence: U+212A KELVIN SIGN is K) is the
    /// same key, as it was when the key was its strings alone, and hashes the same.
    func testANonASCIIBranchIsComparedAsAString() {
        let kelvin = TransactionKey(branch: "z9hG4bK\u{212A}77", method: "INVITE")
        let plain = TransactionKey(branch: "z9hG4bKK77", method: "INVITE")
        XCTAssertEqual(kelvin, plain)
        XCTAssertEqual(kelvin.hashValue, plain.hashValue)
        XCTAssertEqual(Set([kelvin, plain]).count, 1)
        XCTAssertNotEqual(kelvin, TransactionKey(branch: "z9hG4bKK78", method: "INVITE"))
        XCTAssertEqual(KeyPrint.of("z9hG4bK\u{212A}77"), 0, "not ASCII: the print decides nothing")
        XCTAssertNotEqual(KeyPrint.of("z9hG4bKK77"), 0)
    }

    func testAnAgentTableFindsEachOfManyKeys() {
        var table = AgentTable<TransactionKey, Int>()
        for i in 0..<40 {
            table[TransactionKey(branch: "z9hG4bK\(i * 7919)", method: i % 2 == 0 ? "INVITE" : "BYE")] = i
        }
        for i in 0..<40 {
            let method = i % 2 == 0 ? "INVITE" : "BYE"
            // A key made again from new strings: the same key.
            XCTAssertEqual(table[TransactionKey(branch: String("z9hG4bK\(i * 7919)"), method: method)], i)
            XCTAssertNil(table[TransactionKey(branch: "z9hG4bK\(i * 7919)", method: i % 2 == 0 ? "BYE" : "INVITE")])
        }
    }
}
