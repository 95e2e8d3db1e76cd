import Foundation
import RTPEngine
import TestSupport
import XCTest

/// Kamailio's shipped configuration with `WITH_RTPENGINE` and a real rtpengine: a SIPp call (UAC with an RTP
/// stream of 50 packets, UAS echoing what it hears, a hold and a resume re-INVITE) gets the relay's address in
/// every SDP each side receives, its audio is counted by rtpengine per direction, and its BYE deletes it. The two
/// broken variants show what they break.
final class KamailioRelayTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    private static let sipp = "/usr/bin/sipp"
    /// tone.ulaw: 8,000 bytes of PCMU, played once as 50 packets of 160 bytes (172 with the RTP header).
    private static let packets = 50

    func testEverySDPEachSideReceivesNamesTheRelayAndTheRelayCountsBothDirections() throws {
        let call = try relayedCall(defines: { $0.kamailioDefines() })
        defer { call.engine.stop() }
        XCTAssertEqual(call.uasReceived.count, 3, "INVITE, hold, resume: \(call.uasReceived)")
        XCTAssertEqual(call.uacReceived.count, 3, "three 200s with SDP: \(call.uacReceived)")
        for port in call.uasReceived + call.uacReceived {
            XCTAssertTrue(call.engine.ports.contains(port), "port \(port) is not the relay's \(call.engine.ports)")
        }
        let relayed = try XCTUnwrap(call.relayed)
        let caller = try XCTUnwrap(relayed.tags.first { $0.learnedRTP.map(\.port) == [call.uacMedia] })
        let callee = try XCTUnwrap(relayed.tags.first { $0.learnedRTP.map(\.port) == [call.uasMedia] })
        XCTAssertEqual(caller.sentRTP, RTPEngineCounts(packets: Self.packets, bytes: Self.packets * 172, errors: 0))
        XCTAssertEqual(callee.sentRTP.packets, Self.packets, "the UAS echoes every packet back through the relay")
        XCTAssertEqual(caller.peers, [callee.tag])
        XCTAssertTrue(call.engine.log.contains("Received command 'delete'"), "the BYE deletes the call")
        XCTAssertFalse(call.kamailioLog.contains("ERROR"), call.kamailioLog)
    }

    func testWithTheAnswerLostTheCallerIsHeardByNobodyWhileTheRelayReceivedItsAudio() throws {
        let call = try relayedCall(defines: { $0.kamailioDefines() + ["WITH_RTPENGINE_LOST_ANSWER"] })
        defer { call.engine.stop() }
        let relayed = try XCTUnwrap(call.relayed)
        let caller = try XCTUnwrap(relayed.tags.first { $0.learnedRTP.map(\.port) == [call.uacMedia] })
        let callee = try XCTUnwrap(relayed.tags.first { $0.tag != caller.tag && !$0.tag.hasPrefix("<untagged") })
        XCTAssertEqual(caller.sentRTP.packets, Self.packets)
        XCTAssertEqual(callee.learnedRTP.map(\.address), ["192.0.2.1"])
        XCTAssertEqual(callee.sentRTP.packets, 0, "the callee heard nothing, so its echo sent nothing")
    }

    func testOfferOnlyLeavesTheCallersAudioOutsideTheRelay() throws {
        let call = try relayedCall(defines: { $0.kamailioDefines(offerOnly: true) })
        defer { call.engine.stop() }
        XCTAssertEqual(Set(call.uacReceived), [call.uasMedia], "the caller gets the callee's own address")
        XCTAssertTrue(call.uasReceived.allSatisfy { call.engine.ports.contains($0) }, "\(call.uasReceived)")
        let relayed = try XCTUnwrap(call.relayed)
        XCTAssertEqual(relayed.totalRTP.packets, 0, "caller and callee talk past the relay")
    }

    // MARK: - One call

    private struct RelayedCall {
        let engine: RTPEngineServer
        let uacMedia: Int
        let uasMedia: Int
        /// The m=audio ports of the SDPs each side received.
        let uasReceived: [Int]
        let uacReceived: [Int]
        /// rtpengine's `query` of the call after it ended (it stays queryable for `--delete-delay`).
        let relayed: RTPEngineCall?
        let kamailioLog: String
    }

    /// Starts rtpengine, then Kamailio with `defines`, registers a SIPp UAS and lets the UAC call it once.
    private func relayedCall(defines: (RTPEngineServer) -> [String]) throws -> RelayedCall {
        try XCTSkipUnless(RTPEngineServer.isInstalled, "Debian's rtpengine-daemon is not installed")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: Self.sipp), "SIPp is not installed")
        let engine = try RTPEngineServer(options: RTPEngineOptions(portCount: 40, logLevel: 6, deleteDelay: 30))
        let kamailio = try KamailioProcess(defines: defines(engine))
        defer { kamailio.stop() }
        let dir = try TemporaryDirectory.make("rtpengine-relay")
        defer { TemporaryDirectory.remove(dir) }
        try Data(repeating: 0xFF, count: Self.packets * 160).write(to: dir.appendingPathComponent("tone.ulaw"))
        let uacMedia = try XCTUnwrap(KamailioProcess.freePort()), uasMedia = try XCTUnwrap(KamailioProcess.freePort())
        let (uas, _) = try ChildProcess.startUDPListener(Self.sipp, arguments: { port in
            self.deploy("uas-hold.xml") + ["127.0.0.1:\(kamailio.port)", "-i", "127.0.0.1", "-p", "\(port)",
             "-mi", "127.0.0.1", "-mp", "\(uasMedia)", "-rtp_echo", "-m", "1", "-timeout", "30s", "-nostdin",
             "-trace_msg"]
        }, in: dir, logs: dir, name: "uas") { self.registeredPort(kamailio: kamailio, dir: dir) }
        defer { uas.stop() }
        let uacPort = try XCTUnwrap(KamailioProcess.freePort())
        let uac = try ChildProcess.run(Self.sipp, [
            "-sf", Self.root.appendingPathComponent("Tests/RTPEngineTests/Fixtures/sipp/uac-media.xml").path,
            "-s", "relay", "127.0.0.1:\(kamailio.port)", "-i", "127.0.0.1", "-p", "\(uacPort)", "-mi", "127.0.0.1",
            "-mp", "\(uacMedia)", "-m", "1", "-timeout", "30s", "-nostdin", "-trace_msg",
        ], in: dir, logs: dir, name: "uac", seconds: 60)
        XCTAssertEqual(uac.status, 0, "\(uac.out.suffix(2000))\(uac.err.suffix(2000))\(kamailio.log.suffix(2000))")
        XCTAssertEqual(uas.wait(seconds: 30), 0, uas.outputText.suffix(2000).description)
        let ng = try engine.client()
        let relayed = try ng.list().first.map { try ng.query(callID: $0) }
        return RelayedCall(engine: engine, uacMedia: uacMedia, uasMedia: uasMedia,
                           uasReceived: receivedPorts(in: dir, prefix: "uas-hold_"),
                           uacReceived: receivedPorts(in: dir, prefix: "uac-media_"), relayed: relayed,
                           kamailioLog: kamailio.log)
    }

    /// A free port the user `relay` is registered at (SIPp's register scenario, digest with the test password).
    private func registeredPort(kamailio: KamailioProcess, dir: URL) -> Int? {
        guard let port = KamailioProcess.freePort(),
              let result = try? ChildProcess.run(Self.sipp, deploy("uas-hold-register.xml") + [
                  "-s", "relay", "127.0.0.1:\(kamailio.port)", "-i", "127.0.0.1",
                  "-p", "\(port)", "-au", "relay", "-ap", "callstorm", "-m", "1", "-timeout", "10s", "-nostdin",
              ], in: dir, logs: dir, name: "register-\(port)", seconds: 20),
              result.status == 0 else { return nil }
        return port
    }

    private func deploy(_ scenario: String) -> [String] {
        ["-sf", Self.root.appendingPathComponent("deploy/sipp/\(scenario)").path]
    }

    /// The m=audio ports of the messages SIPp's `-trace_msg` log (<scenario>_<pid>_messages.log) says it received.
    private func receivedPorts(in dir: URL, prefix: String) -> [Int] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        guard let name = files.first(where: { $0.hasPrefix(prefix) && $0.hasSuffix("_messages.log") }),
              let text = try? String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8) else { return [] }
        return text.components(separatedBy: "-----------------------------------------------")
            .filter { $0.contains("message received") }
            .compactMap { message in
                message.split(whereSeparator: \.isNewline).first { $0.hasPrefix("m=audio ") }
                    .flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) }
            }
    }
}
