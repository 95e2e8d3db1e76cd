import Faults
import Media
import MediaIO
import Metrics

/// What the media faults did to each stream: its packets so far (the draw key of the next), when a fault last
/// acted on what it reads and which, and the streams already logged per fault kind (one faults.csv row per stream
/// direction and kind, however many packets the fault hit).
struct MediaFaultBooks {
    var packets: [Int: UInt64] = [:]
    var lastHit: [Int: (nanos: UInt64, note: FaultNote)] = [:]
    var logged: Set<String> = []
}

/// RTP faults (`sip: { media_loss, media_delay, media_one_way }`, docs/MEDIA.md "Chaos") as the worker applies
/// them: decided on the packets each stream **reads**, through the media seam's `datagramFilter`, so the fault and
/// the one-way audio it causes are seen by the same worker whichever workers the call's two ends live on. A
/// one-way episode is put on a fault when one acted on the silent direction of that call during the silence (from
/// the episode's `since`); else it is the server's.
extension SIPSignaling {
    /// Installs the media filter when a window has media faults; call once the streams exist.
    func installMediaFaults() {
        guard media.streams != nil, faults.schedule.hasMediaFaults else { return }
        media.streams?.datagramFilter = { [unowned self] id, sending, _ in mediaFate(id, sending: sending) }
    }

    /// The fate of one RTP packet stream `id` sends (always passed: each direction is decided once, where it is
    /// read) or reads.
    func mediaFate(_ id: Int, sending: Bool) -> MediaDatagramFate {
        guard !sending, let leg = media.legs[id], !books.sealed, let since = faults.sinceLoad() else { return .pass }
        let local = leg.key.local
        let seq = media.faults.packets[id, default: 0] + 1
        media.faults.packets[id] = seq
        guard let (action, note) = faults.schedule.mediaPacketDecision(
            MediaPacket(towardCaller: leg.caller), device: table.devices[local].identity.index, seq: seq,
            sinceLoad: since, flow: table.flowName(local)) else { return .pass }
        let now = self.now
        media.faults.lastHit[id] = (now, note)
        books.count(.fault(note.kind + ".packets"), at: now)
        if media.faults.logged.insert("\(id) \(note.kind)").inserted {
            let part = table.faultSubject(local, call: leg.call)
            books.count(.fault(note.kind), at: now)
            books.tracer?.fault(call: leg.call, kind: note.kind, window: note.window, now: now)
            faults.log.add(.init(sinceLoadNanos: since, window: note.window, kind: note.kind,
                                 device: table.devices[local].identity.index, seq: seq, call: part?.call ?? leg.call,
                                 role: part?.role ?? -1))
        }
        switch action {
        case .drop: return .drop
        case .delay(let nanos): return .delay(nanos: nanos)
        }
    }

    /// The fault that explains a one-way episode stream `id` just opened: one acted on what the stream reads since
    /// the silence began (the answer, the resume or the last packet heard: `episode.since`, on the loop's clock).
    /// A silence no packet fell into is no fault's: nothing reached the stream to be dropped.
    func mediaFaultExplaining(_ id: Int, _ episode: OneWayAudioDetector.Episode) -> FaultNote? {
        guard let hit = media.faults.lastHit[id], hit.nanos >= episode.since else { return nil }
        return hit.note
    }
}
