import Foundation
import Kamailio
import RTPEngine
import Scenario

/// `target.sip.rtpengine`: the run starts a media relay (Debian's rtpengine, userspace, free loopback ports)
/// before its Kamailio, which then routes every call's RTP through it (`-A WITH_RTPENGINE`, docs/MEDIA.md). The
/// relay keeps a deleted call queryable for `relayDeleteDelaySeconds`, and the run's `RelayCallBook` queries each
/// call 200 ms after an end closed its stream, so each call's counts are read after its BYE; at the run's end they
/// are compared with callstorm's (`LaunchedRelay.compare`), and `teardown` stops it by PID after Kamailio on every
/// way out.
extension RunSession {
    /// How long rtpengine keeps a deleted call (`--delete-delay`): twenty times the book's 200 ms settle and
    /// 250 ms look, room for a loaded machine.
    static let relayDeleteDelaySeconds = 10

    /// Starts the relay when the scenario asks for one; returns the defines Kamailio needs for it (none without).
    /// Called by `startKamailio` before it starts Kamailio (whose rtpengine module pings the relay at start-up).
    func startRelay() throws(CLIError) -> [String] {
        guard let launch = scenario.sip?.rtpengine else { return [] }
        let what = "the media relay (target.sip.rtpengine)"
        var options = RTPEngineOptions(deleteDelay: Self.relayDeleteDelaySeconds, ownProcessGroup: true)
        options.logFile = bundle.rtpengineLog
        do {
            options.ports = try relayPorts(avoiding: scenario.media?.ports)
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
    /// delay plus 30 s of calls, + 200, at least 400.
    func relayPortCount() -> Int {
        let share = scenario.media?.share ?? 1
        let calls = ArrivalPlan(scenario: scenario).peakRate * share * Double(Self.relayDeleteDelaySeconds + 30)
        let ports = 4 * Int(calls.rounded(.up)) + 200
        return max(400, ports + ports % 2)
    }

    /// A free range of `relayPortCount()` ports, not overlapping `avoiding` (the devices' own `media.ports`),
    /// halved while none is free (the room below the ephemeral ports is ~22,000 ports, less the devices'), down to
    /// 400; a smaller one than asked is said on stderr.
    private func relayPorts(avoiding: ClosedRange<Int>?) throws -> ClosedRange<Int> {
        let wanted = relayPortCount()
        var count = wanted
        while true {
            if let range = RTPEngineServer.freePortRange(count: count, avoiding: avoiding) {
                if count < wanted {
                    say("callstorm: rtpengine gets \(count) media ports, not the \(wanted) the peak rate asks for "
                        + "(no free range that large below the ephemeral ports, outside media.ports)")
                }
                return range
            }
            guard count > 400 else { throw RTPEngineFailure.noFreePortRange(count) }
            count = max(400, count / 2 + (count / 2) % 2)
        }
    }
}
