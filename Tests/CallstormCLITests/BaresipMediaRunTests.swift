import Foundation
import Metrics
@testable import TestSupport
import XCTest

/// Issue 34, acceptance 4: baresip (Debian's 1.0.0, a real user agent with audio: BaresipProcess) as the outside
/// party of a call with media through the Kamailio and rtpengine a run starts (`target.sip.rtpengine: true`).
/// baresip calls a sleeping device (woken by push, its parked INVITE's SDP rewritten to the relay), and a device
/// calls baresip, which answers at once; each call talks 5 s (250 packets a direction) and the device hangs up.
/// Both ends count each direction: what callstorm sent baresip received, and what baresip sent callstorm received,
/// within 2 %. baresip's counts are its own (`audio_debug`'s RTP counters read over ctrl_tcp until the call
/// closed: BaresipControl says why not rtcpsummary's line).
final class BaresipMediaRunTests: XCTestCase {
    static let common = """
        seed: 26
        devices: 2
        target: { sip: { kamailio: true, rtpengine: true } }
        push: { listen: "127.0.0.1:0", tls: false, deadline: 2s }
        behavior: { answer_after: { constant: 100ms }, talk: { constant: 5s } }
        drain: 10s
        action_timeout: 5s
        media: { share: 100%, one_way_after: 1s, ports: 20000-29999 }
        slo: { media.one_way: "== 0", media.relay.mismatch: "== 0", invariant_violations: "== 0" }

        """

    /// The outside caller (baresip) reaches a sleeping device: the flow starts at its push.
    static let calledByBaresip = common + """
        name: baresip-calls-a-device
        duration: 10s
        device: { signaling: sip, sleep: true, transport: udp }
        flows:
          answer-baresip:
            roles: [caller, callee]
            outside: [caller]
            steps:
              - { name: ring, role: callee, do: await_push }
              - { wait: answer_after }
              - { name: answer, role: callee, do: join }
              - { wait: talk }
              - { name: hangup, role: callee, do: end }
        mix: { answer-baresip: 100 }

        """

    /// A device calls baresip (registered as `baresip` once the run's Kamailio is up: the call waits 3 s for it).
    static let callingBaresip = common + """
        name: a-device-calls-baresip
        device: { signaling: sip, transport: udp }
        flows:
          call-baresip:
            roles: [caller, service]
            outside: { service: { uri: "sip:baresip@127.0.0.1" } }
            steps:
              - { wait: 3s }
              - { name: dial, role: caller, do: start, to: [service] }
              - { name: answered, role: caller, do: await_answer }
              - { wait: talk }
              - { name: hangup, role: caller, do: end }
        load: [ { hold: { rate: 1/s, for: 1s } } ]
        mix: { call-baresip: 100 }

        """

    func testBaresipCallsASleepingDeviceAndBothEndsCountTheSamePacketsEachWay() throws {
        let summary = try runWithBaresip(Self.calledByBaresip, label: "baresip-caller",
                                         deviceIs: MetricName.answerToAudioCallee) {
            XCTAssertTrue(try $0.send("dial", "sip:dev-0@127.0.0.1").ok)
        }
        XCTAssertEqual(summary.counters[MetricName.callsStartedByOutside], 1, "\(summary.counters)")
        XCTAssertEqual(summary.metrics[MetricName.pushToRegister]?["count"], 1, "the device slept until the push")
    }

    func testADeviceCallsBaresipWhichAnswersAndBothEndsCountTheSamePacketsEachWay() throws {
        _ = try runWithBaresip(Self.callingBaresip, label: "baresip-callee", deviceIs: MetricName.answerToAudioCaller) {
            _ = $0
        }
    }

    /// `audio_debug`'s text as baresip 1.0.0 printed it mid-call (one far source through the relay): the counts
    /// are read from its RTP section, and a reply without one (no call) reads as none.
    func testBaresipsAudioDebugTextGivesTheCallsSentAndReceivedPackets() {
        let text = " local: 0.0.0.0:30044, remote: 127.0.0.1:30226/127.0.0.1:30227\nRTP debug:\n"
            + " Encode: seq=21273 ssrc=0xd68b90fb\n----- RTCP Session: -----\n"
            + "  cname=sip:bob@127.0.0.1 SSRC=0xd68b90fb/3599470843 rx=8000Hz\n"
            + "  member 0x2f09fc51: lost=0 Jitter=0.0ms RTT=0.0ms\n"
            + "                 IP=127.0.0.1:30226 psent=0 rcvd=218\n  TX: packets=220, octets=35200\n"
        XCTAssertEqual(BaresipControl.counts(text), BaresipControl.Counts(sent: 220, received: 218))
        XCTAssertNil(BaresipControl.counts("command not found (audio_debug)\n"))
        XCTAssertTrue(Self.within2Percent(250, 245))
        XCTAssertFalse(Self.within2Percent(250, 244))
    }

    /// Starts callstorm on `scenario`, then (once its ready file names the Kamailio) baresip, runs `act` on
    /// baresip's control connection, reads baresip's counts until the call closed, and compares both ends.
    private func runWithBaresip(_ scenario: String, label: String, deviceIs answerToAudio: String,
                                act: (BaresipControl) throws -> Void) throws -> SummaryFile {
        try XCTSkipUnless(BaresipProcess.isInstalled, "Debian's baresip-core is not installed")
        let binary = try XCTUnwrap(ChildProcess.callstormBinary, "make test exports CALLSTORM_BIN")
        let dir = try TemporaryDirectory.make(label)
        defer { TemporaryDirectory.remove(dir) }
        let file = dir.appendingPathComponent("\(label).yaml")
        try scenario.write(to: file, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("run")
        let ready = dir.appendingPathComponent("ready")
        let run = try ChildProcess.start(binary, ["run", file.path, "--out", out.path, "--ready-file", ready.path],
                                         in: dir, logs: dir, name: "callstorm")
        defer { run.stop() }
        XCTAssertTrue(eventually(60, every: 0.05) { FileManager.default.fileExists(atPath: ready.path) },
                      run.errorText)
        let registrar = try String(contentsOf: ready, encoding: .utf8).split(separator: "\n")
            .first { $0.hasPrefix("sip=127.0.0.1:") }.flatMap { Int($0.dropFirst("sip=127.0.0.1:".count)) }
        let baresip = try BaresipProcess(user: "baresip", registrarPort: try XCTUnwrap(registrar), in: dir)
        defer { baresip.stop() }
        let control = try BaresipControl(port: baresip.controlPort)
        try act(control)
        let counts = try control.watchCall()
        XCTAssertEqual(run.wait(seconds: 60), 0, String(run.errorText.suffix(3000)) + baresip.log.suffix(3000))
        return try assertBothEndsAgree(counts, run: out, answerToAudio: answerToAudio, baresip: baresip)
    }

    private func assertBothEndsAgree(_ counts: BaresipControl.Counts, run out: URL, answerToAudio: String,
                                     baresip: BaresipProcess) throws -> SummaryFile {
        let summary = try SummaryFile(out.appendingPathComponent("summary.json"))
        let c = summary.counters
        let context = "\(counts); callstorm \(c.filter { $0.key.hasPrefix("media.") }); "
            + "rtcpsummary: \(baresip.rtcpSummary ?? "none") \(summary.notes)"
        XCTAssertEqual(c[MetricName.callsCompleted], 1, context)
        XCTAssertEqual(c["media.streams_opened"], 1, "one stream: the device's end \(context)")
        XCTAssertNil(c["media.one_way"], context)
        XCTAssertEqual(summary.metrics[answerToAudio]?["count"], 1, "\(answerToAudio) measured: \(context)")
        let sent = try XCTUnwrap(c["media.packets_sent"], context)
        let received = try XCTUnwrap(c["media.packets_received"], context)
        // 5 s of talk is 250 packets a direction; each end starts at its own moment of the answer.
        for count in [Int(sent), Int(received), counts.sent, counts.received] {
            XCTAssertGreaterThanOrEqual(count, 200, context)
        }
        XCTAssertTrue(Self.within2Percent(Int(sent), counts.received), "callstorm → baresip: \(context)")
        XCTAssertTrue(Self.within2Percent(counts.sent, Int(received)), "baresip → callstorm: \(context)")
        print("baresip-agreement: callstorm sent \(sent) received \(received); \(counts); \(answerToAudio) "
              + "\(summary.metrics[answerToAudio]?["max"] ?? -1) ms")
        let relay = try String(contentsOf: out.appendingPathComponent("media-relay.csv"), encoding: .utf8)
            .split(separator: "\n").dropFirst()
        XCTAssertEqual(relay.count, 1, "the device's direction through rtpengine: \(relay)")
        XCTAssertTrue(relay.allSatisfy { $0.hasSuffix(",yes") }, "\(relay)")
        return summary
    }

    /// Whether two counts of one direction differ by at most 2 % of the larger.
    static func within2Percent(_ a: Int, _ b: Int) -> Bool { 50 * abs(a - b) <= max(a, b) }
}
