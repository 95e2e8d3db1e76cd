import Foundation
import Kamailio
import RTPEngine
import Scenario

/// `target.sip.rtpengine`: the run starts a media relay (Debian's rtpengine, userspace, free loopback ports)
/// before its Kamailio, which then routes every call's RTP through it (`-A WITH_RTPENGINE`, docs/MEDIA.md). The
/// relay keeps a deleted call queryable for `deleteDelaySeconds`, and the run's `RelayCallBook` polls it every
/// second, so each call's counts are read after its BYE; at the run's end they are compared with callstorm's
/// (`LaunchedRelay.compare`), and `teardown` stops it by PID after Kamailio on every way out.
extension RunSession {
    /// How long rtpengine keeps a deleted call (`--delete-delay`): well above the book's 1 s poll.
    static let relayDeleteDelaySeconds = 30

    /// Starts the relay when the scenario asks for one; returns the defines Kamailio needs for it (none without).
    /// Called by `startKamailio` before it starts Kamailio (whose rtpengine module pings the relay at start-up).
    func startRelay() throws(CLIError) -> [String] {
        guard let launch = scenario.sip?.rtpengine else { return [] }
        let what = "the media relay (target.sip.rtpengine)"
        var options = RTPEngineOptions(portCount: relayPortCount(), deleteDelay: Self.relayDeleteDelaySeconds,
                                       ownProcessGroup: true)
        options.avoidPorts = scenario.media?.ports
        options.logFile = bundle.rtpengineLog
        do {
            try FileManager.default.createDirectory(at: bundle.directory, withIntermediateDirectories: true)
            let server = try RTPEngineServer(options: options)
            let book: RelayCallBook
            do {
                book = try RelayCallBook(server: server)
            } catch {
                server.stop()
                throw error
            }
            book.start()
            relay = LaunchedRelay(server: server, book: book)
            say("callstorm: rtpengine pid \(server.pid), ng on 127.0.0.1:\(server.ngPort), media ports "
                + "\(server.ports.lowerBound)-\(server.ports.upperBound)"
                + (launch.variant.map { ", Kamailio variant \($0.rawValue)" } ?? "")
                + ", log \(bundle.rtpengineLog.path)")
            return server.kamailioDefines(offerOnly: launch.variant == .offerOnly,
                                          lostAnswer: launch.variant == .lostAnswer)
        } catch {
            throw .cannotStart(what: what, cause: error)
        }
    }

    /// Four ports (RTP and RTCP of two parties) for every media call the relay may hold at once: those in
    /// progress and those deleted in the last `relayDeleteDelaySeconds`, taken as the plan's peak rate over the
    /// delay plus a minute of calls, with room to spare; between 400 and 16,000.
    func relayPortCount() -> Int {
        let share = scenario.media?.share ?? 1
        let calls = ArrivalPlan(scenario: scenario).peakRate * share * Double(Self.relayDeleteDelaySeconds + 60)
        let ports = 4 * Int(calls.rounded(.up)) + 200
        return min(16_000, max(400, ports + ports % 2))
    }
}
