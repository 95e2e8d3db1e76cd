import Media
import MediaIO
import Metrics
import RunFormats

/// What the media streams find, into the run's books: answer → audio and resume → audio as they happen, one-way
/// audio by cause (and named, call and end, in the run's notes), and each stream's figures at its close.
extension SIPSignaling {
    func mediaEvent(_ id: Int, _ event: MediaEvent) {
        guard let leg = media.legs[id] else { return }
        let now = self.now
        switch event {
        case .firstAudio(let nanos):
            books.record(leg.caller ? .answerToAudioCaller : .answerToAudioCallee, micros: Int64(nanos / 1000),
                         at: now)
            books.record(.answerToAudio, micros: Int64(nanos / 1000), at: now)
            if !leg.caller { calleeHeardAudio(leg.key) }
        case .resumedAudio(let nanos):
            books.record(.resumeToAudio, micros: Int64(nanos / 1000), at: now)
        case .oneWayBegan(let episode):
            books.count(.mediaOneWay(episode.cause.rawValue), at: now)
            if !leg.caller, episode.cause == .noAudioAfterAnswer { calleeHeardNothing(leg.key) }
            let fault = mediaFaultExplaining(id, episode)
            // Whose a call's one-way audio is, decided at its first episode.
            if media.oneWayCalls.insert(leg.call).inserted {
                books.count(.mediaOneWayCalls, at: now)
                books.count(fault == nil ? .mediaOneWayWithoutFault : .mediaOneWayAttributed, at: now)
            }
            let note = MediaOneWayNote(call: leg.call, callID: leg.key.callID, end: leg.caller ? "caller" : "callee",
                                       cause: episode.cause.rawValue, fault: fault?.kind, window: fault?.window)
            books.note(note.text, limit: 20)
            writeMedia(leg, .silent)
        case .heardWhileNotExpected:
            writeMedia(leg, .flowingWhileHeld)
        case .oneWayEnded:
            break
        }
    }

    /// A `media` line in the run's history (the checker's media rules judge it against the dialogs).
    private func writeMedia(_ leg: (key: LegKey, call: Int, caller: Bool), _ finding: HistoryMediaFinding) {
        guard let journal = books.journal else { return }
        let t = now &- books.runStart
        let device = table.devices[leg.key.local].identity.id
        journal.history {
            HistoryText.media(t: t, device: device, conversation: leg.key.callID, finding: finding, call: leg.call,
                              into: &$0)
        }
    }

    /// A closed stream's figures: packets, loss, and the distributions (jitter and MOS of what it received, once
    /// it received; its own send lag, once it sent).
    func recordMedia(_ report: MediaStreamReport) {
        let now = self.now
        books.count(.mediaStreamsClosed, at: now)
        books.count(.mediaPacketsSent, by: Int64(report.sent.packets), at: now)
        books.count(.mediaPacketsReceived, by: Int64(report.receiver.received), at: now)
        books.count(.mediaPacketsLost, by: Int64(max(0, report.receiver.lost)), at: now)
        if report.detector.packetsWhileNotExpected > 0 {
            books.count(.mediaWhileHeld, by: Int64(report.detector.packetsWhileNotExpected), at: now)
        }
        if report.receiver.expected > 0 {
            books.record(.mediaLoss, micros: Int64((report.receiver.lossPercent * 1000).rounded()), at: now)
        }
        if report.receiver.received > 0 {
            books.record(.mediaJitter, micros: Int64(report.receiver.jitter.jitterMillis * 1000), at: now)
        }
        if let mos = report.mos() { books.record(.mediaMOS, micros: Int64((mos * 1000).rounded()), at: now) }
        if report.sendLag.count > 0 {
            books.record(.mediaSendLagMax, micros: Int64(report.sendLag.maxNanos / 1000), at: now)
        }
    }
}
