import CallModel
import Chaos
import Determinism
import Dispatch
import Foundation
import Metrics
import PushModel
import Results
import RunFormats
import Scenario
import Transport

/// One worker: a loop (`DriverLoop`) that owns a fixed slice of devices (`DeviceModel`), the calls running on
/// them (`FlowInterpreter`s) and one timer wheel, and dispatches to them what arrives: answers, pushes, socket
/// events and timers. The worker decides nothing about a flow: it hands observations to the call's interpreter
/// and applies the effects it returns. Ownership rule: everything below is touched only inside work the loop
/// runs, which is why devices need no locks.
final class Worker: @unchecked Sendable {
    let loop: DriverLoop
    let settings: DriverSettings
    var wheel: TimerWheel<TimerEvent>
    /// The devices and the action numbering every call of this worker shares.
    var context: FlowContext
    var calls: [Int: FlowInterpreter] = [:]
    var arrivals: ArrivalFeed
    /// The recorder, journal, notes and pushes owed: what every part of the worker writes down.
    let books: RunBooks
    var faultState: DeviceFaultState
    let api: TargetAPI
    /// Device sockets (`device.socket`); nil when devices hold none.
    var sockets: DeviceSockets?

    var clock: Clock { loop.clock }
    var recorder: Recorder {
        get { books.recorder }
        _modify { yield &books.recorder }
    }
    var finished: Bool { books.sealed }
    var live: LiveStats { books.live }
    var index: Int { arrivals.worker }
    var loadStart: UInt64 { arrivals.loadStart }
    var devices: DeviceModel {
        get { context.devices }
        _modify { yield &context.devices }
    }

    /// Runs `work` on the loop: for hand-overs from other threads (the push gateway's).
    func post(_ work: @escaping () -> Void) { loop.post(work) }

    /// A worker on its own thread (`ThreadLoop`).
    convenience init(index: Int, settings: DriverSettings, clock: Clock, deviceIndexes: [Int], runStartNanos: UInt64,
                     faultLog: FaultLog = FaultLog(), deviceCalls: DeviceCalls? = nil) throws {
        let loop = ThreadLoop(name: "callstorm.worker.\(index)", clock: clock,
                              maxConnections: settings.connectionsPerWorker, caFile: settings.targetCAFile)
        try self.init(index: index, settings: settings, loop: loop, deviceIndexes: deviceIndexes,
                      runStartNanos: runStartNanos, faultLog: faultLog, deviceCalls: deviceCalls)
    }

    /// - Parameter runStartNanos: the origin of every per-second series, the same for all workers so their
    ///   recorders merge second by second.
    init(index: Int, settings: DriverSettings, loop: DriverLoop, deviceIndexes: [Int], runStartNanos: UInt64,
         faultLog: FaultLog = FaultLog(), deviceCalls: DeviceCalls? = nil) throws {
        self.faultState = DeviceFaultState(schedule: FaultSchedule(windows: settings.faults, seed: settings.seed),
                                           log: faultLog,
                                           deviceCalls: deviceCalls ?? DeviceCalls(devices: settings.devices))
        self.books = RunBooks(journal: try settings.runDirectory.map {
            try WorkerJournal(configuration: .init(directory: $0, sampleEvery: settings.rowSampleEvery), worker: index)
        }, runStart: runStartNanos)
        self.api = TargetAPI(settings.api, handles: settings.handles)
        self.settings = settings
        self.loop = loop
        self.wheel = TimerWheel(startNanos: loop.clock.nowNanos())
        self.arrivals = ArrivalFeed(worker: index, plan: settings.plan, config: FlowConfig(settings))
        self.context = FlowContext(
            devices: DeviceModel(identities: deviceIndexes.map {
                                     DeviceIdentity(index: $0, seed: settings.seed, handles: settings.handles) },
                                 configuration: settings.deviceConfiguration),
            actionIDs: ActionIDs(worker: index))
        loop.onWake { [unowned self] in wake() }
        loop.sync { sockets = makeSockets(deviceIndexes: deviceIndexes) }
    }

    // MARK: - Phases (each called from the driver, hops onto the queue)

    /// Registers every device of this slice with the target, at most `concurrency` at a time.
    func registerAll(concurrency: Int, done: @escaping @Sendable () -> Void) {
        loop.execute { [self] in
            var next = 0
            var outstanding = 0
            func pump() {
                while outstanding < concurrency, next < devices.count {
                    let local = next
                    next += 1
                    outstanding += 1
                    register(local) {
                        outstanding -= 1
                        if next < self.devices.count {
                            pump()
                        } else if outstanding == 0 {
                            self.devices.sortIdle()
                            done()
                        }
                    }
                }
                if devices.count == 0 { done() }
            }
            pump()
        }
    }

    private func register(_ local: Int, then: @escaping () -> Void) {
        let started = clock.nowNanos()
        send("register", deviceVars(local)) { [self] result, endpoint in
            let now = clock.nowNanos()
            recorder.record(.register, micros: Int64((now - started) / 1000), atNanos: now)
            if case .success(let response) = result, endpoint?.accepts(response.status) == true {
                devices.registered(local)
                recorder.count(.devicesRegistered, atNanos: now)
                socketRegistered(local)
            } else {
                recorder.count(.devicesRegisterFailed, atNanos: now)
                count(result, endpoint: endpoint, at: now)
            }
            then()
        }
    }

    /// Starts the load at `loadStartNanos` (the plan's zero). `drained` runs on the queue once arrivals are over
    /// and no call is left.
    func start(loadStartNanos: UInt64, drained: @escaping @Sendable () -> Void) {
        loop.execute { [self] in
            arrivals.loadStart = loadStartNanos
            arrivals.onDrained = drained
            scheduleNextArrival()
            planSocketFaults()
            wheel.schedule(.tick, at: loadStart + 1_000_000_000)
            rearm()
        }
    }

    /// Stops planning new calls; calls in flight go on until they end or `finish` is called.
    func stopArrivals() {
        loop.execute { [self] in
            abandonArrivals(now: clock.nowNanos())
            checkDrained()
        }
    }

    /// Ends the run for this worker: counts every action still in flight, seals the recorder, closes the client.
    func finish() -> Recorder {
        loop.sync {
            guard !finished else { return recorder }
            books.sealed = true
            let now = clock.nowNanos()
            for call in calls.values {
                for action in call.actionsInFlight {
                    recorder.count(.action(action.kind.rawValue, .inFlightAtStop), atNanos: now)
                }
                recorder.count(.callsInFlightAtStop, atNanos: now)
                recorder.count(.flow(call.flow.name, "in_flight_at_stop"), atNanos: now)
                let step = call.log.steps.last ?? "(none)"
                books.note("\(call.flow.name) call \(call.arrival.index) was still in flight at stop, " +
                           "waiting for \(call.waiting) after step \(step)", limit: 10)
            }
            abandonArrivals(now: now)
            if books.pendingDeliveries > 0 {
                recorder.count(.pushesUndeliveredAtStop, by: books.pendingDeliveries, atNanos: now)
            }
            var deviceEvents: [String: Int] = [:]
            for device in devices.devices { deviceEvents.merge(device.manager.events, uniquingKeysWith: +) }
            for (name, n) in deviceEvents { recorder.count(.deviceEvent(name), by: Int64(n), atNanos: now) }
            stopSockets()
            loop.close()
            recorder.gauge(MetricName.conversationsActive, value: Double(calls.count), atNanos: now)
            recorder.seal()
            let t = now &- books.runStart
            books.journal?.history { HistoryText.stop(t: t, into: &$0) }
            if let journal = books.journal { recorder = journal.close(recorder) }
            live.slot.publish(recorder, active: calls.count, final: true)
            return recorder
        }
    }

    // MARK: - Timer wheel

    private func wake() {
        let now = clock.nowNanos()
        var fired: [TimerEvent] = []
        wheel.advance(to: now, into: &fired)
        for event in fired { handle(event, now: now) }
        rearm()
    }

    /// Points the loop's one timer at the wheel's next occupied tick.
    func rearm() {
        guard !finished, let next = wheel.nextWakeNanos() else { return }
        loop.arm(wakeAt: next)
    }

    func schedule(_ event: TimerEvent, at nanos: UInt64) {
        wheel.schedule(event, at: nanos)
    }

    private func handle(_ event: TimerEvent, now: UInt64) {
        switch event {
        case .arrival(let arrival): arrive(arrival, now: now)
        case .flow(let id, let timer):
            guard calls[id] != nil else { return }
            apply(calls[id]!.timerFired(timer, now: now, &context), call: id, now: now)
        case .deliver(let push, let local):
            books.pendingDeliveries -= 1
            receive(push, local: local)
            releaseAllHeld(local)
        case .report(let push, let local): process(push, local: local, delivered: now)
        case .releaseHeld(let local, let serial): releaseHeld(local, serial: serial)
        case .tick: tick(now: now)
        case .socket(let timer): socketTimerFired(timer, now: now)
        case .socketReply(let id): socketReplyTimedOut(id)
        case .socketFault(let timer): socketFaultFired(timer, now: now)
        }
    }

    private func tick(now: UInt64) {
        recorder.gauge(MetricName.conversationsActive, value: Double(calls.count), atNanos: now)
        if let p99 = recorder.histograms[MetricName.pushToReport]?.value(atPercentile: 99) {
            live.p99Micros.store(Int(p99), ordering: .relaxed)
        }
        let second = recorder.second(atNanos: now)
        books.journal?.tick(&recorder, second: second) { inFlightSnapshot($0, now: now) }
        live.slot.publish(recorder, active: calls.count)
        if !finished { schedule(.tick, at: now + 1_000_000_000) }
    }

    /// The recorder as a checkpoint should hold it: with everything in flight right now counted as in flight at
    /// stop, so a report rebuilt after a kill balances its books as of this instant.
    private func inFlightSnapshot(_ recorder: Recorder, now: UInt64) -> Recorder {
        var snapshot = recorder
        for call in calls.values {
            for action in call.actionsInFlight {
                snapshot.count(.action(action.kind.rawValue, .inFlightAtStop), atNanos: now)
            }
        }
        if !calls.isEmpty { snapshot.count(.callsInFlightAtStop, by: Int64(calls.count), atNanos: now) }
        if books.pendingDeliveries > 0 {
            snapshot.count(.pushesUndeliveredAtStop, by: books.pendingDeliveries, atNanos: now)
        }
        if let open = sockets?.lifecycle.openCount, open > 0 {
            snapshot.count(.socketOpenAtStop, by: Int64(open), atNanos: now)
        }
        return snapshot
    }

    /// Counts transport errors by kind, answers the endpoint does not expect by status (a 200 where the API
    /// promises 201 too), and expected answers whose body could not be read (`badBody`) as bad responses, so
    /// failures are never silent.
    func count(_ result: Result<ClientResponse, TransportError>, endpoint: APIMapping.Endpoint? = nil,
               badBody: Bool = false, at now: UInt64) {
        switch result {
        case .success(let response) where response.status == 0: recorder.count(.badResponse, atNanos: now)
        case .success(let response) where endpoint?.accepts(response.status) ?? (200..<300).contains(response.status):
            if badBody { recorder.count(.badResponse, atNanos: now) }
        case .success(let response): recorder.count(.httpStatus(response.status), atNanos: now)
        case .failure(let error): recorder.count(.error(error.kind), atNanos: now)
        }
    }
}
