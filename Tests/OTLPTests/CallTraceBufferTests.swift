import XCTest
@testable import OTLP

/// A worker's call traces in the making: what a call's trace holds when it ends (its actions, its VoIP push from
/// sent to reported, its faults), which calls are exported, and the conversations filed for the checker's
/// findings.
final class CallTraceBufferTests: XCTestCase {
    private final class Exported: @unchecked Sendable {
        var calls: [[OTLPSpan]] = []
    }

    private func buffer(share: Double, directory: TraceDirectory? = nil) -> (CallTraceBuffer, Exported) {
        let exported = Exported()
        let settings = CallTraceBuffer.Settings(seed: 7, shard: 0, worker: 0, share: share, unixOffsetNanos: 1_000)
        return (CallTraceBuffer(settings: settings, directory: directory) { exported.calls.append($0) }, exported)
    }

    func testAPushIsASpanFromSentToReportedUnderTheCallSpan() throws {
        let (buffer, exported) = buffer(share: 1)
        buffer.actionStarted(call: 3, flow: "incoming-1to1", action: 1, name: "start", attributes: [], now: 100)
        buffer.push(call: 3, type: "voip", device: "d2", accepted: 150, delivered: 170, reported: 190,
                    deadlineMissed: false)
        buffer.actionFinished(call: 3, action: 1, outcome: "fulfilled", failure: nil, conversation: "c1", now: 200)
        buffer.callEnded(call: 3, now: 300)
        let spans = try XCTUnwrap(exported.calls.first)
        let push = try XCTUnwrap(spans.first { $0.name == "push" })
        XCTAssertEqual(push.parentSpanID, spans[0].spanID)
        XCTAssertEqual(push.traceID, spans[0].traceID)
        XCTAssertEqual([push.startUnixNanos, push.endUnixNanos], [1_150, 1_190])
        XCTAssertEqual(push.events.map(\.name), ["delivered", "reported"])
        XCTAssertEqual(push.events.map(\.timeUnixNanos), [1_170, 1_190])
        XCTAssertEqual(Set(spans.map(\.spanID)).count, spans.count, "span ids are unique within the trace")
        XCTAssertEqual(push.status, .unset)
    }

    func testALateReportFailsThePushSpanAndAFaultExportsAnUnsampledCall() throws {
        let (buffer, exported) = buffer(share: 0)
        buffer.actionStarted(call: 1, flow: "f", action: 1, name: "start", attributes: [], now: 10)
        buffer.push(call: 1, type: "voip", device: "d", accepted: 20, delivered: 30, reported: nil,
                    deadlineMissed: false)
        buffer.callEnded(call: 1, now: 40)
        XCTAssertEqual(exported.calls.count, 0, "share 0, nothing failed: not exported")
        buffer.actionStarted(call: 2, flow: "f", action: 2, name: "start", attributes: [], now: 10)
        buffer.fault(call: 2, kind: "sip.drop", window: "w1", now: 15)
        buffer.push(call: 2, type: "voip", device: "d", accepted: 20, delivered: 30, reported: 5_000,
                    deadlineMissed: true)
        buffer.callEnded(call: 2, now: 6_000)
        let spans = try XCTUnwrap(exported.calls.first)
        XCTAssertEqual(spans[0].events.map(\.name), ["fault"])
        let push = try XCTUnwrap(spans.first { $0.name == "push" })
        XCTAssertEqual(push.status, .error)
    }

    func testEveryConversationOfACallIsFiledUnderItsTrace() throws {
        let directory = TraceDirectory()
        let (buffer, exported) = buffer(share: 1, directory: directory)
        buffer.actionStarted(call: 5, flow: "merge", action: 1, name: "start", attributes: [], now: 1)
        buffer.actionFinished(call: 5, action: 1, outcome: "fulfilled", failure: nil, conversation: "first", now: 2)
        buffer.actionStarted(call: 5, flow: "merge", action: 2, name: "start", attributes: [], now: 3)
        buffer.actionFinished(call: 5, action: 2, outcome: "fulfilled", failure: nil, conversation: "second", now: 4)
        buffer.callEnded(call: 5, now: 5)
        let trace = try XCTUnwrap(exported.calls.first?.first?.traceID)
        XCTAssertEqual(directory.trace(of: "first"), trace)
        XCTAssertEqual(directory.trace(of: "second"), trace)
        XCTAssertNil(directory.stub(of: trace), "an exported call needs no stub")
    }

    func testAnUnexportedCallLeavesAStubOfItsRootSpanForTheCheckersFindings() throws {
        let directory = TraceDirectory()
        let (buffer, exported) = buffer(share: 0, directory: directory)
        buffer.actionStarted(call: 9, flow: "merge", action: 1, name: "start", attributes: [], now: 10)
        buffer.actionFinished(call: 9, action: 1, outcome: "fulfilled", failure: nil, conversation: "c9", now: 20)
        buffer.callEnded(call: 9, now: 30)
        XCTAssertEqual(exported.calls.count, 0)
        let trace = try XCTUnwrap(directory.trace(of: "c9"))
        XCTAssertEqual(directory.stub(of: trace), TraceDirectory.CallStub(startUnixNanos: 1_010, endUnixNanos: 1_030,
                                                                           flow: "merge", conversation: "c9"))
    }
}
