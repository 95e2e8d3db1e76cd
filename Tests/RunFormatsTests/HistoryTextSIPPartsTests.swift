import RunFormats
import XCTest

/// A `sip` line made from its parts (`HistoryText.sipMiddle`, `sipEnd`, the SIP tap's path) is the line
/// `HistoryText.sip` writes whole, for any device, Call-ID and label, sent or received.
final class HistoryTextSIPPartsTests: XCTestCase {
    static let texts = ["", "dev-0", "1l5e9jnjj46@127.0.0.1", "200 INVITE", "call \"42\" \\ path\n\r\t\u{1}\u{7F}é",
                        "ümlaut 😀 \u{0}", String(repeating: "long-id-", count: 40)]

    private func fromParts(t: UInt64, device: String, conversation: String, sent: Bool, message: String) -> [UInt8] {
        var middle: [UInt8] = [], end: [UInt8] = []
        HistoryText.sipMiddle(device: device, into: &middle)
        HistoryText.sipEnd(sent: sent, message: message, into: &end)
        var out: [UInt8] = [0x41]  // appended after what is there
        middle.withUnsafeBufferPointer { m in
            end.withUnsafeBufferPointer { e in
                HistoryText.sip(t: t, middle: m, conversation: conversation, end: e, into: &out)
            }
        }
        return out
    }

    func testALineFromItsPartsIsTheLineWrittenWhole() {
        for device in Self.texts {
            for conversation in Self.texts {
                for message in Self.texts {
                    for (t, sent) in [(UInt64(0), true), (918_531_912, false), (UInt64.max, true)] {
                        var whole: [UInt8] = [0x41]
                        HistoryText.sip(t: t, device: device, conversation: conversation, sent: sent,
                                        message: message, into: &whole)
                        XCTAssertEqual(fromParts(t: t, device: device, conversation: conversation, sent: sent,
                                                 message: message), whole, "\(device) \(conversation) \(message)")
                    }
                }
            }
        }
    }
}
