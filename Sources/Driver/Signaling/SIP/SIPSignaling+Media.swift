import Media
import MediaIO
import Metrics
import Scenario
import SIP
import SIPClient

/// RTP on SIP calls (`media:`, issue 34, docs/MEDIA.md): one stream per end of each call the seeded share picks,
/// on the loop's media seam (`DriverLoop.makeMediaStreams`).
///
/// - **Open** when the agent writes the call's SDP (`SIPUserAgent.mediaPort`): the caller's offer in its INVITE,
///   the callee's answer as the INVITE arrives, so the `m=audio` port is the stream's real one.
/// - **Start** at the answer, RFC 3264's rule for each end: the offerer (caller) sends once it has the answer, the
///   2xx (§5.1: it cannot know where to send before); the answerer (callee) once it sent the answer, its 2xx
///   (§6.1: "once the answerer has sent the answer, it MUST be prepared to receive media ... and can send"). Each
///   starts with the other side's SDP address and its own negotiated direction; its detector's clock starts
///   there, so `media.answer_to_audio.<end>` is that end's answer → the first packet it hears.
/// - **Update** on each re-INVITE answered (hold: `sendonly` at the holder, `recvonly` at the held; resume:
///   `sendrecv`): an end whose direction does not receive never counts its silence as one-way audio.
/// - **Close** when the dialog ends (or at the run's end): the stream's report becomes the counters and the
///   jitter, MOS and send-lag distributions.
struct SIPMediaState {
    var streams: (any MediaStreams)?
    var spec: MediaSpec?
    var byLeg: [LegKey: Int] = [:]
    var legs: [Int: (key: LegKey, call: Int, caller: Bool)] = [:]
    /// The caller's call while its agent writes the INVITE (the port is asked for inside `invite`).
    var placing: (local: Int, call: Int)?
    /// Calls already counted in `media.one_way`.
    var oneWayCalls: Set<Int> = []
    /// What the media faults did (`SIPSignaling+MediaFaults`).
    var faults = MediaFaultBooks()
    /// Callees waiting for media both ways (`SIPSignaling+MediaJoin`).
    var joins: [LegKey: MediaJoin] = [:]
}

extension SIPSignaling {
    /// Makes the worker's media streams when the scenario has `media:`; without it nothing here runs.
    func installMedia() {
        guard let spec = settings.scenario.media else { return }
        media.spec = spec
        media.streams = parts.loop.makeMediaStreams(ports: spec.ports, onEvent: { [unowned self] id, event in
            mediaEvent(id, event)
        })
        if media.streams == nil { books.note("media: this loop has no media streams; calls carry none", limit: 1) }
        installMediaFaults()
    }

    /// Lets agent `agent` of device `local` ask for its calls' RTP ports.
    func tapMedia(_ agent: SIPUserAgent, local: Int) {
        guard media.streams != nil else { return }
        agent.mediaPort = { [unowned self] callID in openMedia(local, callID: callID) }
    }

    /// Places a call with `media.placing` set, so the INVITE's port is asked for on the caller's call.
    @discardableResult
    func placing<T>(_ local: Int, call: Int, _ body: () -> T) -> T {
        media.placing = (local, call)
        defer { media.placing = nil }
        return body()
    }

    /// The port of a new stream for `callID` at `local`, or nil when the call carries no media (not drawn, not a
    /// call of this run, or the port could not be bound).
    func openMedia(_ local: Int, callID: String) -> Int? {
        guard let streams = media.streams, let spec = media.spec else { return nil }
        let caller: Bool
        let call: Int
        if let placing = media.placing, placing.local == local {
            (caller, call) = (true, placing.call)
        } else if let id = table.devices[local].callID, callExpects(id, callID, on: local) {
            (caller, call) = (false, id)
        } else {
            return nil
        }
        guard spec.carries(call: call, seed: settings.seed) else { return nil }
        // Seeded per call and end, so a replay's SSRCs and sequences repeat.
        let seed = settings.seed ^ (UInt64(truncatingIfNeeded: call) &* 0x9E37_79B9_7F4A_7C15) ^ (caller ? 1 : 2)
        let settings = MediaStreamSettings(seed: seed, oneWayThresholdNanos: spec.oneWayAfterNanos)
        switch streams.open(settings) {
        case .success(let id):
            let key = Self.legKey(local, callID)
            media.byLeg[key] = id
            media.legs[id] = (key, call, caller)
            books.count(.mediaStreamsOpened, at: now)
            if caller { books.count(.mediaCalls, at: now) }
            return streams.localEndpoint(id)?.port
        case .failure(let error):
            books.count(.mediaOpenFailed, at: now)
            books.note("\(error)", limit: 5)
            return nil
        }
    }

    /// The answer at this end (the caller's 2xx received, the callee's sent): the stream starts, the callee's
    /// first packet after its app's audio session start-up (`answering`, `device.audio_session`). Returns that
    /// delay, or nil when the call carries no media here.
    @discardableResult
    func startMedia(_ local: Int, callID: String, answering: Bool = false) -> UInt64? {
        guard let (id, local, remote) = mediaSDPs(local, callID) else { return nil }
        let sendAfter = answering ? audioSessionDelay(call: media.legs[id]?.call ?? 0) : 0
        media.streams?.start(id, remote: MediaEndpoint(remote), direction: MediaDirection(local.direction),
                             sendAfterNanos: sendAfter)
        return sendAfter
    }

    /// A re-INVITE was answered (either end's): the stream follows the new direction and address.
    func updateMedia(_ local: Int, callID: String) {
        guard let (id, local, remote) = mediaSDPs(local, callID) else { return }
        media.streams?.update(id, remote: MediaEndpoint(remote), direction: MediaDirection(local.direction))
    }

    /// This device's resume re-INVITE went out: its stream expects the answerer's audio, which may overtake the 2xx
    /// through the proxy (RFC 3264 §5.1), so that audio is not blamed on a held member (`MediaStreams.offered`).
    func offerMedia(_ local: Int, callID: String) {
        guard let (id, local, _) = mediaSDPs(local, callID) else { return }
        media.streams?.offered(id, direction: MediaDirection(local.direction))
    }

    private func mediaSDPs(_ local: Int, _ callID: String) -> (Int, SDPSession, SDPSession)? {
        guard let id = media.byLeg[Self.legKey(local, callID)], let agent = agents.agent[local],
              let sdp = pool.agent(agent)?.sdp(callID) else { return nil }
        guard let remote = sdp.remote else {
            books.count(.mediaNoRemoteSDP, at: now)
            return nil
        }
        return (id, sdp.local, remote)
    }

    /// The dialog ended: the stream stops and its report is recorded.
    func closeMedia(_ key: LegKey) {
        guard let id = media.byLeg.removeValue(forKey: key), let streams = media.streams else { return }
        let port = streams.localEndpoint(id)?.port
        let report = streams.close(id)
        let leg = media.legs.removeValue(forKey: id)
        media.faults.packets[id] = nil
        media.faults.lastHit[id] = nil
        media.joins[key] = nil
        guard let report else { return }
        recordMedia(report)
        if let tally = settings.tracing.mediaLegs, let leg, let port {
            tally(MediaLegTally(callID: leg.key.callID, call: leg.call, caller: leg.caller, localPort: port,
                                report: report))
        }
    }

    /// Closes every stream still open (the run's end).
    func stopMedia() {
        for key in media.byLeg.keys.sorted(by: { media.byLeg[$0]! < media.byLeg[$1]! }) { closeMedia(key) }
        if let errors = media.streams?.sendErrors, errors > 0 {
            books.count(.mediaSendErrors, by: Int64(errors), at: now)
        }
    }
}
