import Faults
import Metrics

/// The phone's life events a chaos window draws (issue 37): per call part, when the call connects (an
/// interruption, a reset, a relaunch, `life_after` later) or as it rings (a filter). Each is a `faults.csv` row
/// naming its call and role and a `faults.device.<event>` counter when drawn, so a call it spoils is attributed
/// to it (`CallAttribution`); the call's flow carries it out (`FlowInterpreter+Life`).
extension DeviceFaults {
    /// A join of call `call` was fulfilled: the life events drawn for each of its devices, with when each is due.
    func lifeAtConnect(_ record: ActionRecord, call: Int, now: UInt64) -> [(Int, LifeEvent, UInt64)] {
        guard record.action.kind == .join, record.action.outcome == .fulfilled, schedule.hasLifeEvents,
              let devices = table.calls[call]?.devices() else { return [] }
        return devices.compactMap { local in
            decideLife(local, call: call, at: .connected, now: now).map { (local, $0.0, now + $0.1) }
        }
    }

    /// Device `local`'s call rings on it: a filter drawn for its part, if any (due at once).
    func lifeAtRing(_ local: Int, now: UInt64) -> (LifeEvent, UInt64)? {
        guard schedule.hasLifeEvents, let call = table.devices[local].callID else { return nil }
        return decideLife(local, call: call, at: .ringing, now: now)
    }

    private func decideLife(_ local: Int, call: Int, at moment: LifeMoment, now: UInt64) -> (LifeEvent, UInt64)? {
        guard let since = sinceLoad(), let run = table.calls[call], let key = table.faultSubject(local, call: call)
        else { return nil }
        let device = table.devices[local].identity.index
        guard let (event, after, note) = schedule.lifeEvent(at: moment, device: device, subject: key.subject,
                                                            plannedSinceLoad: run.arrival.plannedNanos,
                                                            flow: run.flow.name) else { return nil }
        books.count(.fault(note.kind), at: now)
        books.tracer?.fault(call: call, kind: note.kind, window: note.window, now: now)
        log.add(.init(sinceLoadNanos: since, window: note.window, kind: note.kind, device: device, seq: 0,
                      call: call, role: key.role))
        return (event, after)
    }
}
