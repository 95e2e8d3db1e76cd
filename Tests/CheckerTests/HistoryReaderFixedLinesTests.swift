import CallModel
import XCTest
@testable import Checker
import RunFormats

/// `sip` lines in `HistoryText.sip`'s exact shape are read by a fast path (`HistoryReader.fixedLine`, then
/// `sipLine`); these pin that it reads them as the general scanner does, and that every other line is left to the
/// general scanner.
final class HistoryReaderSIPLineTests: XCTestCase {
    /// One table across a test's lines, as a history's reading shares one.
    private var texts = TextTable()

    /// The general scanner's reading: a space after `{` keeps the fast path out.
    private func general(_ line: String) throws -> HistoryEvent? {
        try HistoryReader.parse(lines: ["{ " + line.dropFirst()]).first.map {
            HistoryEvent(t: $0.t, line: 1, $0.body)
        }
    }

    private func lineWritten(device: String, callID: String, sent: Bool, message: String, t: UInt64) -> String {
        var bytes: [UInt8] = []
        HistoryText.sip(t: t, device: device, conversation: callID, sent: sent, message: message, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    func testLinesTheWriterWritesReadTheSameThroughTheFastPathAsThroughTheScanner() throws {
        let cases: [(String, String, Bool, String, UInt64)] = [
            ("dev-0", "1l5e9jnjj46@127.0.0.1", true, "INVITE", 918_531_912),
            ("dev-13", "a-much-longer-call-id-than-sixteen-bytes@host", false, "200 INVITE", 0),
            ("dévice", "caf\u{E9}", true, "re-INVITE", 999_999_999_999_999_999),
        ]
        for (device, callID, sent, message, t) in cases {
            let line = lineWritten(device: device, callID: callID, sent: sent, message: message, t: t)
            let fast = try XCTUnwrap(line.utf8CString.withUnsafeBufferPointer { raw in
                raw.withMemoryRebound(to: UInt8.self) {
                    HistoryReader.fixedLine(UnsafeBufferPointer(rebasing: $0.dropLast()), number: 1,
                                            texts: &texts)
                }
            }, line)
            XCTAssertEqual(fast, HistoryEvent(t: t, line: 1, .sip(SIPLine(device: device, conversation: callID,
                                                                           sent: sent, message: message))))
            XCTAssertEqual(fast, try general(line))
            XCTAssertEqual(try HistoryReader.parse(lines: [Substring(line)]).first.map { $0 }, fast)
        }
    }

    func testLinesInAnyOtherShapeAreLeftToTheScanner() throws {
        let others = [
            #"{"t":1,"type":"sip","device":"d\"q","conversation":"c","sent":true,"message":"BYE"}"#,  // an escape
            #"{"t":1,"type":"sip","conversation":"c","device":"d","sent":true,"message":"BYE"}"#,  // key order
            #"{"t":1,"type":"sip","device":"d","conversation":"c","sent":true,"message":"BYE"} "#,  // trailing space
            #"{"t":1,"type":"sip","device":"d","conversation":"c","sent":true,"message":"BYE","x":1}"#,
            #"{"t":1234567890123456789,"type":"sip","device":"d","conversation":"c","sent":true,"message":"BYE"}"#,
            #"{"t":1.5,"type":"sip","device":"d","conversation":"c","sent":true,"message":"BYE"}"#,
            #"{"t":1,"type":"sip","device":"d","conversation":"c","sent":1,"message":"BYE"}"#,
        ]
        for line in others {
            let fast = line.utf8CString.withUnsafeBufferPointer { raw in
                raw.withMemoryRebound(to: UInt8.self) {
                    HistoryReader.fixedLine(UnsafeBufferPointer(rebasing: $0.dropLast()), number: 1,
                                            texts: &texts)
                }
            }
            XCTAssertNil(fast, line)
        }
        // Read by the scanner as before: the escape decoded, the 19-digit time whole, the bad ones named.
        let escaped = try HistoryReader.parse(lines: [Substring(others[0])])
        XCTAssertEqual(escaped.first?.body, .sip(SIPLine(device: "d\"q", conversation: "c", sent: true,
                                                         message: "BYE")))
        XCTAssertEqual(try HistoryReader.parse(lines: [Substring(others[4])]).first?.t, 1_234_567_890_123_456_789)
        XCTAssertThrowsError(try HistoryReader.parse(lines: [Substring(others[5])])) {
            XCTAssertEqual("\($0)", "history line 1, column 7: expected an integer")
        }
        XCTAssertThrowsError(try HistoryReader.parse(lines: [Substring(others[6])]))
    }
}

/// The same for `dialog` lines (`HistoryReader.fixedLine`, then `dialogLine`).
final class HistoryReaderDialogLineTests: XCTestCase {
    private var texts = TextTable()

    private func fast(_ line: String) -> HistoryEvent? {
        line.utf8CString.withUnsafeBufferPointer { raw in
            raw.withMemoryRebound(to: UInt8.self) {
                HistoryReader.fixedLine(UnsafeBufferPointer(rebasing: $0.dropLast()), number: 1, texts: &texts)
            }
        }
    }

    func testLinesTheWriterWritesReadTheSameThroughTheFastPathAsThroughTheScanner() throws {
        let lines: [DialogLine] = [
            DialogLine(device: "dev-1", conversation: "1l5e9jnjj46@127.0.0.1", state: .early, call: 0),
            DialogLine(device: "dev-0", conversation: "c", state: .terminated, reason: "bye", call: 12, user: "u-1"),
            DialogLine(device: "d", conversation: "caf\u{E9}", state: .held),
            DialogLine(device: "d", conversation: "c", state: .confirmed, user: "u"),
        ]
        for d in lines {
            var bytes: [UInt8] = []
            HistoryText.dialog(t: 77, device: d.device, conversation: d.conversation, state: d.state,
                               reason: d.reason, call: d.call, user: d.user, into: &bytes)
            let line = String(decoding: bytes, as: UTF8.self)
            let event = try XCTUnwrap(fast(line), line)
            XCTAssertEqual(event, HistoryEvent(t: 77, line: 1, .dialog(d)))
            let general = try HistoryReader.parse(lines: ["{ " + line.dropFirst()])
            XCTAssertEqual(general.first, event)
        }
    }

    func testLinesInAnyOtherShapeAreLeftToTheScanner() {
        let others = [
            #"{"t":1,"type":"dialog","device":"d","conversation":"c","state":"gone"}"#,  // the scanner names it
            #"{"t":1,"type":"dialog","device":"d","user":null,"conversation":"c","state":"early"}"#,
            #"{"t":1,"type":"dialog","device":"d","conversation":"c","state":"early","call":-1}"#,
            #"{"t":1,"type":"dialog","device":"d","conversation":"c\n","state":"early"}"#,
            #"{"t":1,"type":"dialog","device":"d","conversation":"c","state":"early","reason":null}"#,
            #"{"t":1,"type":"dialog","conversation":"c","device":"d","state":"early"}"#,
        ]
        for line in others { XCTAssertNil(fast(line), line) }
        XCTAssertThrowsError(try HistoryReader.parse(lines: [Substring(others[0])])) {
            XCTAssertEqual("\($0)", #"history line 1, column 71: unknown dialog state "gone" "#
                           + "(early, confirmed, held, terminated)")
        }
        XCTAssertEqual(try HistoryReader.parse(lines: [Substring(others[1])]).first?.body,
                       .dialog(DialogLine(device: "d", conversation: "c", state: .early)))
    }
}

/// The same for `invoke` and view-less `complete` lines (`HistoryReader.invokeLine`, `completeLine`).
final class HistoryReaderOperationLineTests: XCTestCase {
    private var texts = TextTable()

    private func fast(_ line: String) -> HistoryEvent? {
        line.utf8CString.withUnsafeBufferPointer { raw in
            raw.withMemoryRebound(to: UInt8.self) {
                HistoryReader.fixedLine(UnsafeBufferPointer(rebasing: $0.dropLast()), number: 1, texts: &texts)
            }
        }
    }

    private func check(_ line: String, file: StaticString = #filePath, lineNumber: UInt = #line) throws {
        let event = try XCTUnwrap(fast(line), line, file: file, line: lineNumber)
        let general = try HistoryReader.parse(lines: ["{ " + line.dropFirst()])
        XCTAssertEqual(general.first, event, line, file: file, line: lineNumber)
    }

    func testLinesTheWriterWritesReadTheSameThroughTheFastPathAsThroughTheScanner() throws {
        var lines: [[UInt8]] = Array(repeating: [], count: 6)
        HistoryText.invoke(t: 9, op: 1, device: "dev-0", kind: .start, conversation: nil, with: nil, member: nil,
                           call: 0, step: "dial", into: &lines[0])
        HistoryText.invoke(t: 9, op: 12, device: "d", kind: .merge, conversation: "c1", with: "c2", member: "m",
                           call: 3, step: "s", race: (name: "f/s", offset: 250), user: "u", into: &lines[1])
        HistoryText.invoke(t: 9, op: 2, device: "d", kind: .end, conversation: "c", with: nil, member: nil,
                           into: &lines[2])
        HistoryText.complete(t: 10, op: 1, outcome: "ok", reason: nil, conversation: "1l5e9jnjj46@127.0.0.1",
                             view: nil, split: nil, into: &lines[3])
        HistoryText.complete(t: 10, op: 2, outcome: "fail", reason: "sip_481", conversation: nil, view: nil,
                             split: nil, into: &lines[4])
        HistoryText.complete(t: 10, op: 3, outcome: "info", reason: "timeout", conversation: "c", view: nil,
                             split: nil, into: &lines[5])
        for bytes in lines { try check(String(decoding: bytes, as: UTF8.self)) }
    }

    func testLinesInAnyOtherShapeAreLeftToTheScanner() {
        let others = [
            #"{"t":1,"type":"invoke","op":1,"device":"d","kind":"join"}"#,  // no conversation: the scanner says so
            #"{"t":1,"type":"invoke","op":1,"device":"d","kind":"start","race":"r","offset":-4}"#,
            #"{"t":1,"type":"invoke","op":-1,"device":"d","kind":"start"}"#,
            #"{"t":1,"type":"invoke","op":1,"device":"d","kind":"leap"}"#,
            #"{"t":1,"type":"complete","op":1,"outcome":"ok","conversation":"c","view":{"id":"c","members":[]}}"#,
            #"{"t":1,"type":"complete","op":1,"outcome":"okay"}"#,
            #"{"t":1,"type":"stop"}"#,
        ]
        for line in others { XCTAssertNil(fast(line), line) }
    }
}
