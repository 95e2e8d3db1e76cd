import CallModel
import Faults
import Metrics

/// The calls a worker runs and the devices they run on: the state every part of the worker reads (push intake,
/// action sending, signaling, faults). Plain state: an observation goes to a call through the worker
/// (`EffectHost.tell`), which applies the effects the call returns and owns the wheel and the loop.
///
/// Ownership rule: touched only on the worker's loop.
final class CallTable {
    /// The devices and the action numbering every call of this worker shares.
    var context: FlowContext
    var calls: [Int: FlowInterpreter] = [:]

    init(_ context: FlowContext) { self.context = context }

    var devices: DeviceModel {
        _read { yield context.devices }
        _modify { yield &context.devices }
    }

    /// `body` run on call `id`'s interpreter where it is (the table's `_modify`); nil when the call is over. A read
    /// such as `calls[id]?.known` or `if let run = calls[id]` copied the whole interpreter out first (every table
    /// and string of it retained, then released).
    @discardableResult
    func withCall<R>(_ id: Int, _ body: (inout FlowInterpreter) -> R) -> R? {
        guard let i = calls.index(forKey: id) else { return nil }
        return body(&calls.values[i])
    }

    /// Whether call `id` is running, found by index: `calls[id] != nil` copies the whole interpreter out first.
    func has(_ id: Int) -> Bool { calls.index(forKey: id) != nil }

    /// Whether `local` has a live conversation (a call it takes part in).
    func isLive(_ local: Int) -> Bool { devices[local].callID != nil }

    /// The name of the flow `local`'s call runs, when it is in one.
    func flowName(_ local: Int) -> String? {
        guard let id = devices[local].callID, let i = calls.index(forKey: id) else { return nil }
        return calls.values[i].flow.name
    }

    /// The instant fault windows are matched against for `local`'s actions and pushes: its call's planned time
    /// (so the same calls fall in a window every run); nil when the device is in no call.
    func faultTime(_ local: Int) -> UInt64? {
        guard let id = devices[local].callID, let i = calls.index(forKey: id) else { return nil }
        return calls.values[i].arrival.plannedNanos
    }

    /// The draw key of `local`'s part in its call, or in `call` when given (a waiting call it runs beside its own;
    /// see `FaultSchedule.subject`).
    func faultSubject(_ local: Int, call: Int? = nil) -> (call: Int, role: Int, subject: Int)? {
        guard let id = call ?? devices[local].callID, let i = calls.index(forKey: id),
              let role = calls.values[i].flow.roles.firstIndex(where: { calls.values[i].roles[$0] == local })
        else { return nil }
        return (id, role, FaultSchedule.subject(call: id, role: role))
    }

    /// `action.<kind>.in_flight_at_stop` by kind.
    private static let inFlightAtStop = Dictionary(uniqueKeysWithValues: ActionKind.allCases.map {
        ($0, Metric.action($0.rawValue, .inFlightAtStop))
    })

    /// Counts every call still running and its actions in flight as in flight at stop (`perFlow`: per flow too).
    func countInFlight(into recorder: inout Recorder, now: UInt64, perFlow: Bool) {
        // Every other second (the checkpoint's snapshot, on the worker's tick) over every call in flight: each call
        // and action read in place through one borrowed view of the table, the in-flight actions tallied per kind
        // here and counted once per kind. A count per action, through the kind's metric found in a dictionary, was
        // ~0.3 µs a call, ~1 ms of the tick at 3,000 calls in flight (issue 33, s56-tick); the totals are the same.
        var kinds: [ActionKind] = []
        var inFlight: [Int64] = []
        let running = calls.values
        for i in running.indices {
            for j in running[i].log.actions.indices where !running[i].log.actions[j].isFinished {
                let kind = running[i].log.actions[j].kind
                if let k = kinds.firstIndex(of: kind) {
                    inFlight[k] += 1
                } else {
                    kinds.append(kind)
                    inFlight.append(1)
                }
            }
            if perFlow { recorder.count(.flow(running[i].flow.name, "in_flight_at_stop"), atNanos: now) }
        }
        for (kind, n) in zip(kinds, inFlight) { recorder.count(Self.inFlightAtStop[kind]!, by: n, atNanos: now) }
        if !calls.isEmpty { recorder.count(.callsInFlightAtStop, by: Int64(calls.count), atNanos: now) }
    }
}
