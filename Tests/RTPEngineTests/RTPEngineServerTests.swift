import Foundation
import RTPEngine
import TestSupport
import XCTest

/// A real rtpengine started as a user process: its command line, a ping, a call offered and answered through ng
/// whose RTP flows both ways through the relay's ports and is counted by `query` as it was sent, a delete, and a
/// stop by PID that leaves no process.
final class RTPEngineServerTests: XCTestCase {
    func testArgumentsAskForUserspaceForwardingInTheForegroundOnOneInterface() {
        let options = RTPEngineOptions(logLevel: 7, deleteDelay: 0, threads: 2)
        XCTAssertEqual(options.arguments(ngPort: 2223, ports: 30000...30099), [
            "--config-file=none", "--table=-1", "--foreground", "--log-stderr", "--interface=127.0.0.1",
            "--listen-ng=127.0.0.1:2223", "--port-min=30000", "--port-max=30099", "--log-level=7",
            "--delete-delay=0", "--num-threads=2",
        ])
    }

    func testAPickedPortRangeIsFreeEvenAlignedAndBelowTheEphemeralPorts() throws {
        let range = try XCTUnwrap(RTPEngineServer.freePortRange(count: 50))
        XCTAssertEqual(range.count, 50)
        XCTAssertEqual(range.lowerBound % 2, 0)
        XCTAssertGreaterThanOrEqual(range.lowerBound, 10_000)
        XCTAssertLessThan(range.upperBound, 32_768 + 1)
        XCTAssertFalse(range.contains { udpPortIsBound($0) })
        XCTAssertEqual(range.lowerBound % PortRangeClaims.cellSize, 0)
        XCTAssertTrue(PortRangeClaims.isHeld(range))
        PortRangeClaims.release(range)
    }

    func testAClaimedRangeIsRefusedToAnotherProcessAndRestsAfterItsRelease() throws {
        let range = try XCTUnwrap(RTPEngineServer.freePortRange(count: 150))
        XCTAssertFalse(Self.otherProcessClaims(range.lowerBound + 120), "a cell this process holds")
        PortRangeClaims.release(range)
        XCTAssertFalse(PortRangeClaims.isHeld(range))
        XCTAssertFalse(Self.otherProcessClaims(range.lowerBound), "a cell released a moment ago rests")
        XCTAssertFalse(PortRangeClaims.claim(range), "nor does this process take it again at once")
    }

    func testStopGivesBackTheRangeItsRtpengineWasGiven() throws {
        try XCTSkipUnless(RTPEngineServer.isInstalled, "Debian's rtpengine-daemon is not installed")
        let engine = try RTPEngineServer(options: RTPEngineOptions(portCount: 20))
        XCTAssertTrue(PortRangeClaims.isHeld(engine.ports))
        engine.stop()
        XCTAssertFalse(PortRangeClaims.isHeld(engine.ports))
    }

    /// Whether a separate process (python3's fcntl.flock, non-blocking) could lock the cell file holding `port`.
    private static func otherProcessClaims(_ port: Int) -> Bool {
        let cell = FileManager.default.temporaryDirectory
            .appendingPathComponent("callstorm-media-port-claims/cell-\(port / PortRangeClaims.cellSize)").path
        let script = "import fcntl,os,sys,time\nf=open(sys.argv[1],'r')\n"
            + "try:\n fcntl.flock(f,fcntl.LOCK_EX|fcntl.LOCK_NB)\nexcept OSError:\n sys.exit(3)\n"
            + "sys.exit(4 if time.time()-os.fstat(f.fileno()).st_mtime<\(PortRangeClaims.quarantine) else 0)"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, cell]
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    func testStartedRtpengineAnswersPingAndStopEndsItsProcess() throws {
        try XCTSkipUnless(RTPEngineServer.isInstalled, "Debian's rtpengine-daemon is not installed")
        let engine = try RTPEngineServer(options: RTPEngineOptions(portCount: 20))
        try engine.client().ping()
        XCTAssertTrue(running(engine.pid))
        engine.stop()
        XCTAssertFalse(running(engine.pid), "rtpengine \(engine.pid) outlived stop()")
        XCTAssertFalse(FileManager.default.fileExists(atPath: engine.directory.path))
        XCTAssertThrowsError(try NGClient(port: engine.ngPort, timeout: 0.1, attempts: 1).ping())
    }

    func testRTPOfferedAndAnsweredThroughNGFlowsBothWaysAndQueryCountsIt() throws {
        try XCTSkipUnless(RTPEngineServer.isInstalled, "Debian's rtpengine-daemon is not installed")
        let engine = try RTPEngineServer(options: RTPEngineOptions(portCount: 20))
        defer { engine.stop() }
        let ng = try engine.client()
        let caller = try UDPPeer(), callee = try UDPPeer()
        let offered = try ng.offer(callID: "call-1", fromTag: "caller", sdp: Self.sdp(port: caller.port))
        let answered = try ng.answer(callID: "call-1", fromTag: "caller", toTag: "callee",
                                     sdp: Self.sdp(port: callee.port))
        // The callee is told to send to the relay, and so is the caller: neither sees the other's own port.
        let toCaller = try XCTUnwrap(Self.mediaPort(offered)), toCallee = try XCTUnwrap(Self.mediaPort(answered))
        XCTAssertTrue(engine.ports.contains(toCaller) && engine.ports.contains(toCallee), "\(offered)\(answered)")
        XCTAssertTrue(offered.contains("c=IN IP4 127.0.0.1"))
        XCTAssertNotEqual(toCaller, caller.port)
        XCTAssertNotEqual(toCallee, callee.port)

        for sequence in 0..<7 {
            caller.send(UDPPeer.rtp(sequence: UInt16(sequence), ssrc: 0xCA11), to: toCallee)
            let got = try XCTUnwrap(callee.receive(), "packet \(sequence) caller → callee")
            XCTAssertEqual(got.from, toCaller, "the callee hears the caller from the relay's port")
            XCTAssertEqual(got.bytes, UDPPeer.rtp(sequence: UInt16(sequence), ssrc: 0xCA11))
        }
        for sequence in 0..<4 {
            callee.send(UDPPeer.rtp(sequence: UInt16(sequence), ssrc: 0xCA1E, payload: 80), to: toCaller)
            let got = try XCTUnwrap(caller.receive(), "packet \(sequence) callee → caller")
            XCTAssertEqual(got.from, toCallee)
        }

        let call = try ng.query(callID: "call-1")
        XCTAssertEqual(call.packets(from: "caller"), RTPEngineCounts(packets: 7, bytes: 7 * 172, errors: 0))
        XCTAssertEqual(call.packets(from: "callee"), RTPEngineCounts(packets: 4, bytes: 4 * 92, errors: 0))
        XCTAssertEqual(call.totalRTP.packets, 11)
        XCTAssertEqual(call.tag("caller")?.learnedRTP, [RTPEngineEndpoint(address: "127.0.0.1", port: caller.port)])
        XCTAssertEqual(call.tag("callee")?.learnedRTP, [RTPEngineEndpoint(address: "127.0.0.1", port: callee.port)])
        XCTAssertEqual(call.tag("caller")?.peers, ["callee"])
        XCTAssertEqual(try ng.list(), ["call-1"])

        let final = try XCTUnwrap(try ng.delete(callID: "call-1", fromTag: "caller"))
        XCTAssertEqual(final.packets(from: "caller")?.packets, 7)
        XCTAssertEqual(try ng.list(), [])
        XCTAssertThrowsError(try ng.query(callID: "call-1")) { error in
            guard case .refused(let command, _, _)? = error as? NGError else { return XCTFail("\(error)") }
            XCTAssertEqual(command, "query")
        }
    }

    static func sdp(port: Int) -> String {
        "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
            + "m=audio \(port) RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\na=sendrecv\r\n"
    }

    /// The port of the SDP's first m=audio line.
    static func mediaPort(_ sdp: String) -> Int? {
        sdp.split(whereSeparator: \.isNewline).first { $0.hasPrefix("m=audio ") }
            .flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) }
    }

    /// Whether `pid` exists and is not a zombie.
    func running(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
    }
}
