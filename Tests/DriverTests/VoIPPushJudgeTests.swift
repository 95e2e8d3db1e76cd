import CallModel
@testable import Driver
import Metrics
import PushModel
import Scenario
import XCTest

/// PushKit's rule for every VoIP push: a new call is reported; one without a new call is the server's defect by
/// cause, unless iOS 26.4's `mustReport` is false (in a call, foreground, long delayed) or a fault made it; the
/// app then reports and ends, or is terminated and counted toward the block.
final class VoIPPushJudgeTests: XCTestCase {
    private let judge = VoIPPushJudge(longDelayNanos: 2_000_000_000)

    private func model(_ n: Int = 2) -> DeviceModel {
        var m = DeviceModel(identities: (0..<n).map { DeviceIdentity(index: $0, seed: 1) }, configuration: .init())
        for local in (0..<n).reversed() { m.registered(local) }
        m.sortIdle()
        return m
    }

    private func payload(_ json: String) -> PushPayload? { ViewReader.reference.push(Array(json.utf8)) }

    private func judged(_ json: String, _ m: inout DeviceModel, on local: Int = 0, age: UInt64 = 1_000,
                        foreground: Bool = false, id: String = "p") -> VoIPPushJudge.Outcome {
        m.judgeVoIP(payload(json), apnsID: id, on: local, ageNanos: age, foreground: foreground, judge: judge)
    }

    private func ring(_ uuid: String, on local: Int, _ m: inout DeviceModel) throws {
        let p = try XCTUnwrap(payload("{\"uuid\":\"\(uuid)\",\"handle\":\"+15550000009\"}"))
        _ = m.reportIncoming(local, payload: p, uuid: uuid, now: 1)
    }

    func testAPushNamingAConversationTheDeviceNeverSawIsANewCall() {
        var m = model()
        XCTAssertEqual(judged("{\"uuid\":\"c1\"}", &m), .newCall(uuid: "c1"))
    }

    func testEachCauseOfAPushWithoutACallIsTold() throws {
        var m = model()
        XCTAssertEqual(m.judgeVoIP(nil, apnsID: "x", on: 0, ageNanos: 0, foreground: false, judge: judge),
                       .withoutCall(.unparseable))
        XCTAssertEqual(judged("{\"event\":\"cancelled\"}", &m), .withoutCall(.noConversation))
        try ring("c1", on: 0, &m)
        XCTAssertEqual(judged("{\"uuid\":\"c1\",\"event\":\"cancelled\"}", &m), .withoutCall(.knownConversation),
                       "a ringing conversation is not a call the person is in")
        m[0].manager.remoteEnded("c1", reason: .remoteEnded)
        XCTAssertEqual(judged("{\"uuid\":\"c1\"}", &m), .withoutCall(.endedConversation))
    }

    /// Call waiting on a SIP device: the waiting call's INVITE came before its push (taken, or refused and ended)
    /// while the first call still rings. The app has a call already, so the push need not be reported; the push of
    /// the only ringing conversation is still judged.
    func testAPushForAKnownConversationWhileAnotherRingsNeedNotBeReported() throws {
        var m = model()
        try ring("c1", on: 0, &m)
        try ring("c2", on: 0, &m)
        XCTAssertEqual(judged("{\"uuid\":\"c2\"}", &m), .notRequired(.knownConversation, because: .inCall))
        m[0].manager.remoteEnded("c2", reason: .failed)
        XCTAssertEqual(judged("{\"uuid\":\"c2\"}", &m), .notRequired(.endedConversation, because: .inCall))
        XCTAssertEqual(judged("{\"event\":\"cancelled\"}", &m), .withoutCall(.noConversation),
                       "a push naming no conversation is not excused by a ringing one")
        m[0].manager.remoteEnded("c1", reason: .remoteEnded)
        XCTAssertEqual(judged("{\"uuid\":\"c2\"}", &m), .withoutCall(.endedConversation))
    }

    func testAConversationOfAnEarlierCallIsEndedEvenAfterTheDeviceForgotIt() throws {
        var m = model()
        try ring("old", on: 0, &m)
        m.release(0)
        XCTAssertNil(m[0].manager.conversations["old"])
        XCTAssertEqual(m[0].recents.map(\.uuid), ["old"])
        XCTAssertEqual(judged("{\"uuid\":\"old\"}", &m), .withoutCall(.endedConversation))
    }

    func testRecentsKeepOnlyTheNewestConversations() throws {
        var m = model()
        for i in 0..<(DeviceModel.recentsKept + 3) {
            try ring("c\(i)", on: 0, &m)
            m.release(0)
        }
        XCTAssertEqual(m[0].recents.count, DeviceModel.recentsKept)
        XCTAssertEqual(m[0].recents.last?.uuid, "c\(DeviceModel.recentsKept + 2)")
        XCTAssertEqual(judged("{\"uuid\":\"c0\"}", &m), .newCall(uuid: "c0"), "forgotten like Recents forgets")
    }

    func testMustReportIsFalseInACallInTheForegroundOrForALongDelayedPush() throws {
        var m = model()
        XCTAssertEqual(judged("{}", &m, foreground: true), .notRequired(.noConversation, because: .foreground))
        XCTAssertEqual(judged("{}", &m, age: 2_000_000_001), .notRequired(.noConversation, because: .delayed))
        XCTAssertEqual(judged("{}", &m, age: 2_000_000_000), .withoutCall(.noConversation), "at the limit: on time")
        try ring("c1", on: 0, &m)
        m[0].manager.begin(.join, conversation: "c1")
        m[0].manager.fulfilled(.join, conversation: "c1")
        XCTAssertEqual(judged("{\"uuid\":\"c1\"}", &m), .notRequired(.knownConversation, because: .inCall))
        XCTAssertEqual(judged("{\"uuid\":\"c2\"}", &m), .newCall(uuid: "c2"), "a second call still rings")
    }

    func testEveryCopyOfAPushAFaultTouchedIsExcusedAndOnlyThose() throws {
        var m = model()
        try ring("c1", on: 0, &m)
        m.markFaulted("dup", copies: 2, on: 0)
        XCTAssertEqual(judged("{\"uuid\":\"c1\"}", &m, id: "dup"), .notRequired(.knownConversation, because: .fault))
        XCTAssertEqual(judged("{\"uuid\":\"c1\"}", &m, id: "dup"), .notRequired(.knownConversation, because: .fault))
        XCTAssertEqual(judged("{\"uuid\":\"c1\"}", &m, id: "dup"), .withoutCall(.knownConversation), "mark used up")
        XCTAssertTrue(m[0].faultedPushes.isEmpty)
    }

    func testReportAndEndFlashesTheCallAndKeepsTheAppAlive() {
        var m = model()
        let answer = m.answerWithoutCall(.withoutCall(.endedConversation), on: 0, policy: .reportAndEnd, blockAfter: 1)
        XCTAssertEqual(answer.counters.map(\.name), [MetricName.pushesVoIPWithoutCall,
                                                      "pushes.voip_without_call.ended_conversation",
                                                      MetricName.pushesVoIPReportedAndEnded])
        XCTAssertFalse(answer.terminated)
        XCTAssertEqual(m[0].deadlineMisses, 0)
    }

    func testTerminateCountsTowardTheBlockAndTellsTheBlockOnce() {
        var m = model()
        let first = m.answerWithoutCall(.withoutCall(.noConversation), on: 0, policy: .terminate, blockAfter: 2)
        XCTAssertTrue(first.terminated)
        XCTAssertFalse(first.counters.contains(.devicesVoIPBlocked))
        XCTAssertTrue(first.counters.contains(.devicesTerminatedVoIPWithoutCall))
        let second = m.answerWithoutCall(.withoutCall(.noConversation), on: 0, policy: .terminate, blockAfter: 2)
        XCTAssertTrue(second.counters.contains(.devicesVoIPBlocked))
        XCTAssertEqual(m[0].deadlineMisses, 2)
    }

    func testAPushTheAppNeedNotReportChangesNothing() {
        var m = model()
        let answer = m.answerWithoutCall(.notRequired(.knownConversation, because: .inCall), on: 0,
                                         policy: .terminate, blockAfter: 1)
        XCTAssertEqual(answer, .init(counters: [Metric(named: "pushes.voip_not_required.in_call")], terminated: false))
        XCTAssertEqual(m[0].deadlineMisses, 0)
    }

    func testTheCatalogNamesEveryCauseAndExcuse() {
        XCTAssertEqual(MetricName.voipWithoutCallCauses, VoIPPushJudge.Cause.allCases.map(\.rawValue))
        XCTAssertEqual(MetricName.voipNotRequiredReasons, VoIPPushJudge.Excuse.allCases.map(\.rawValue))
    }
}
