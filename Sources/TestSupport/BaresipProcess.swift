import Foundation
import Kamailio
#if canImport(Glibc)
import Glibc
#endif

/// baresip (Debian's 1.0.0) as a real user agent with audio, for tests where an outside party calls a device or
/// answers one: started as a user process with its own configuration directory (`-f`), registered as `user` at a
/// Kamailio on loopback, steered over its `ctrl_tcp` interface (BaresipProcess+Control.swift), stopped by its PID.
///
/// What 1.0.0 needs, found by running it: `net_interface 127.0.0.1` (else its SDP names the host's first interface;
/// an interface *name* such as `lo` is refused), a `sip_listen` port whose next port is free too (it binds UDP and
/// TCP on the port and TLS on the next), the `menu` module for `dial`/`hangup`/`audio_debug` over `ctrl_tcp`, and an
/// 8 kHz source (`ausine` refuses any rate but 48 kHz and 1.0.0 does not resample): `aufile` playing a generated
/// 8 kHz tone; `aubridge` is the player (no sound device needed).
public final class BaresipProcess {
    public enum Failure: Error, CustomStringConvertible {
        case notStarted(String)
        case notRegistered(String)
        case control(String)

        public var description: String {
            switch self {
            case .notStarted(let log): return "baresip did not start (is Debian's baresip installed?): \(log)"
            case .notRegistered(let log): return "baresip did not register at Kamailio within 10 s: \(log)"
            case .control(let why): return "baresip's ctrl_tcp: \(why)"
            }
        }
    }

    public let child: ChildProcess
    /// The `ctrl_tcp` port commands go to.
    public let controlPort: Int
    /// The address of record, `sip:<user>@127.0.0.1`.
    public let aor: String

    /// Writes the configuration into `directory` and starts baresip registering `user` (password `password`)
    /// at the Kamailio on `127.0.0.1:registrarPort`, answering every call at once (`answermode=auto`). Returns
    /// once the registration got its 200; a port taken between choosing and binding is retried on others.
    public init(user: String, password: String = "callstorm", registrarPort: Int, in directory: URL) throws {
        let tone = directory.appendingPathComponent("tone.wav")
        try Self.toneWAV(seconds: 60).write(to: tone)
        let account = "<sip:\(user)@127.0.0.1>;auth_pass=\(password);"
            + "outbound=\"sip:127.0.0.1:\(registrarPort);transport=udp\";answermode=auto;regint=600\n"
        (child, controlPort) = try Self.launch(account: account, tone: tone, in: directory)
        aor = "sip:\(user)@127.0.0.1"
        guard eventually(10, every: 0.02, { child.outputText.contains("200 OK") }) else {
            child.stop()
            throw Failure.notRegistered(child.outputText.suffix(2000).description)
        }
    }

    /// Starts baresip on freshly chosen ports until one start gets as far as "baresip is ready." (three tries).
    static func launch(account: String, tone: URL, in directory: URL) throws -> (ChildProcess, Int) {
        var lastLog = ""
        for attempt in 0..<3 {
            guard let sipPort = KamailioServer.freePort(), let controlPort = KamailioServer.freePort(),
                  let rtpPort = KamailioServer.freePort() else { throw Failure.notStarted("no free port") }
            let config = directory.appendingPathComponent("baresip-\(attempt)")
            try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
            try configuration(sipPort: sipPort, controlPort: controlPort, rtpPort: rtpPort, tone: tone)
                .write(to: config.appendingPathComponent("config"), atomically: true, encoding: .utf8)
            try account.write(to: config.appendingPathComponent("accounts"), atomically: true, encoding: .utf8)
            try "".write(to: config.appendingPathComponent("contacts"), atomically: true, encoding: .utf8)
            let child = try ChildProcess.start("/usr/bin/baresip", ["-v", "-f", config.path], in: directory,
                                               logs: directory, name: "baresip-\(attempt)")
            let ready = eventually(10, every: 0.02) {
                !child.process.isRunning || child.outputText.contains("baresip is ready.")
            }
            if ready && child.process.isRunning { return (child, controlPort) }
            lastLog = String(child.outputText.suffix(1500)) + child.errorText.suffix(500)
            child.stop()
        }
        throw Failure.notStarted(lastLog)
    }

    deinit { stop() }

    /// Whether Debian's baresip is there (package `baresip-core`, scripts/test-deps.sh), for tests to skip without.
    public static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/baresip")
            && FileManager.default.fileExists(atPath: "/usr/lib/baresip/modules/ctrl_tcp.so")
    }

    /// Kills baresip by its PID if it still runs.
    public func stop() { child.stop() }

    /// What baresip printed (`-v`): registration, SDP, the call's end and rtcpsummary's line.
    public var log: String { child.outputText + child.errorText }

    /// rtcpsummary's line for the last call (`EX=BareSip;…`): RTCP statistics when the far end sent RTCP
    /// sender reports, else `EX=BareSip;ERROR=No RTCP stats collected;`.
    public var rtcpSummary: String? {
        log.split(separator: "\n").last { $0.hasPrefix("EX=BareSip;") }.map(String.init)
    }

    static func configuration(sipPort: Int, controlPort: Int, rtpPort: Int, tone: URL) -> String {
        """
        sip_listen\t\t127.0.0.1:\(sipPort)
        net_interface\t\t127.0.0.1
        rtp_ports\t\t\(rtpPort & ~1)-\((rtpPort & ~1) + 19)
        audio_source\t\taufile,\(tone.path)
        audio_player\t\taubridge,callstorm
        audio_alert\t\taubridge,callstorm
        module_path\t\t/usr/lib/baresip/modules
        module\t\t\tg711.so
        module\t\t\taufile.so
        module\t\t\taubridge.so
        module\t\t\trtcpsummary.so
        module\t\t\tctrl_tcp.so
        module_app\t\taccount.so
        module_app\t\tcontact.so
        module_app\t\tmenu.so
        ctrl_tcp_listen\t\t127.0.0.1:\(controlPort)

        """
    }

    /// A mono 16-bit 8 kHz WAV of a 440 Hz tone, `seconds` long (aufile reads it whole when the call starts).
    static func toneWAV(seconds: Int) -> Data {
        let samples = 8_000 * seconds
        var data = Data()
        func append32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        func append16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8))
        append32(UInt32(36 + 2 * samples))
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append32(16)
        append16(1)
        append16(1)
        append32(8_000)
        append32(16_000)
        append16(2)
        append16(16)
        data.append(contentsOf: Array("data".utf8))
        append32(UInt32(2 * samples))
        for index in 0..<samples {
            let value = Int16(8_000 * sin(2 * Double.pi * 440 * Double(index) / 8_000))
            append16(UInt16(bitPattern: value))
        }
        return data
    }
}
