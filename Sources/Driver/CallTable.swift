import Faults
import Metrics

/// The calls a worker runs and the devices they run on: the state every part of the worker reads (push intake,
/// action sending, sockets, faults) and the one door to a call. An observation goes to a call through `tell`,
/// and the effects the call returns go back to the worker (`apply`), which owns the wheel and the loop.
///
/// Ownership rule: touched only on the worker's loop.
final class CallTable {
    /// The devices and the action numbering every call of this worker shares.
    var context: FlowContext
    var calls: [Int: FlowInterpreter] = [:]
    /// Applies a call's effects (the worker's `apply`); set once, when the worker is made.
    var apply: ([FlowEffect], _ call: Int, _ now: UInt64) -> Void = { _, _, _ in }
    /// Puts an event on the worker's wheel and rearms its timer; set once, when the worker is made.
    var schedule: (TimerEvent, _ at: UInt64) -> Void = { _, _ in }
    /// Turns a call nobody planned that reached `local` (in no call) into an outside-started call, when the
    /// scenario expects such calls (`CallLauncher.takeOutsideCall`); set once, when the worker is made. Returns whether
    /// the device is now in a call.
    var takeOutside: (_ local: Int, _ uuid: String, _ now: UInt64) -> Bool = { _, _, _ in false }
    /// The same for a call reaching `local` while it is in another (call waiting, `CallLauncher.takeWaitingCall`): the
    /// id of the call it now also runs, or nil.
    var takeWaiting: (_ local: Int, _ uuid: String, _ now: UInt64) -> Int? = { _, _, _ in nil }

    init(_ context: FlowContext) { self.context = context }

    var devices: DeviceModel {
        get { context.devices }
        _modify { yield &context.devices }
    }

    /// Hands call `id` an observation and its effects to the worker. False when the call is over.
    @discardableResult
    func tell(_ id: Int, now: UInt64,
              _ observe: (inout FlowInterpreter, inout FlowContext) -> [FlowEffect]) -> Bool {
        guard calls[id] != nil else { return false }
        let effects = observe(&calls[id]!, &context)
        apply(effects, id, now)
        return true
    }

    /// Whether `local` has a live conversation (a call it takes part in).
    func isLive(_ local: Int) -> Bool { devices[local].callID != nil }

    /// The name of the flow `local`'s call runs, when it is in one.
    func flowName(_ local: Int) -> String? { devices[local].callID.flatMap { calls[$0]?.flow.name } }

    /// The instant fault windows are matched against for `local`'s actions and pushes: its call's planned time
    /// (so the same calls fall in a window every run); nil when the device is in no call.
    func faultTime(_ local: Int) -> UInt64? {
        guard let id = devices[local].callID, let run = calls[id] else { return nil }
        return run.arrival.plannedNanos
    }

    /// The draw key of `local`'s part in its call, or in `call` when given (a waiting call it runs beside its own;
    /// see `FaultSchedule.subject`).
    func faultSubject(_ local: Int, call: Int? = nil) -> (call: Int, role: Int, subject: Int)? {
        guard let id = call ?? devices[local].callID, let run = calls[id],
              let role = run.flow.roles.firstIndex(where: { run.roles[$0] == local }) else { return nil }
        return (id, role, FaultSchedule.subject(call: id, role: role))
    }

    /// Counts every call still running and its actions in flight as in flight at stop (`perFlow`: per flow too).
    func countInFlight(into recorder: inout Recorder, now: UInt64, perFlow: Bool) {
        for call in calls.values {
            for action in call.actionsInFlight {
                recorder.count(.action(action.kind.rawValue, .inFlightAtStop), atNanos: now)
            }
            if perFlow { recorder.count(.flow(call.flow.name, "in_flight_at_stop"), atNanos: now) }
        }
        if !calls.isEmpty { recorder.count(.callsInFlightAtStop, by: Int64(calls.count), atNanos: now) }
    }
}
