import CallModel
import CLinux
import Chaos
import Dispatch
import Foundation
import Metrics
import PushGateway
import Results
import Scenario
import Locking
import struct Synchronization.Atomic
import Transport

/// One worker: a serial DispatchQueue that owns a fixed slice of devices, their calls, one timer wheel, one HTTP
/// client and one recorder. Ownership rule: everything below except the atomics is touched only on `queue`,
/// which is why devices need no locks.
final class Worker: @unchecked Sendable {
    let index: Int
    let queue: DispatchQueue
    let settings: DriverSettings
    let clock: Clock
    var client: HTTPClient!
    /// The thread that waits for this worker's sockets and its timer, and runs them on `queue`.
    private var events: EventThread!
    private var timer: EventTimer!
    private var armedWake: UInt64 = .max
    var recorder: Recorder
    var wheel: TimerWheel<TimerEvent>
    private var due: [TimerEvent] = []

    var devices: [Device] = []
    var idle: [Int] = []
    private var idleHead = 0
    var calls: [Int: FlowRun] = [:]
    var callByConversation: [String: Int] = [:]
    private var arrivals: ArrivalPlan.Iterator
    var arrivalsDone = false
    /// An arrival sits in the wheel waiting for its planned time.
    private var arrivalPending = false
    var finished = false
    var nextActionID: UInt64 = 0
    private(set) var loadStart: UInt64 = 0
    var onDrained: (@Sendable () -> Void)?
    /// Findings worth a line in the report (the first view mismatches).
    var notes: [String] = []
    let journal: WorkerJournal?
    let api: TargetAPI
    let faults: FaultSchedule
    let faultLog: FaultLog
    /// Shared with the push sink: which call each device is in (set here, read there).
    let deviceCalls: DeviceCalls
    let runStart: UInt64

    // Read by the progress line from another thread.
    let liveStarted = Atomic<Int>(0)
    let liveActive = Atomic<Int>(0)
    let liveCompleted = Atomic<Int>(0)
    let liveP99Micros = Atomic<Int>(0)
    /// Counters and histograms for the metrics endpoint, replaced on every tick.
    let live = LiveSlot()
    /// Pushes waiting in the wheel for a delayed delivery (undelivered if the run stops first).
    var pendingDeliveries: Int64 = 0
    /// (window << 32 | device) of the clock skews already in the fault log.
    var skewsLogged: Set<Int> = []
    /// Whether any window skews device clocks (checked on every request).
    lazy var hasClockSkew = faults.windows.contains { ($0.device?.clockSkewNanos ?? 0) > 0 }
    /// Numbers the pushes reorder faults hold, so a release timer finds its own.
    var nextHeldSerial: UInt64 = 0
    /// Book-keeping for pushes the sink handed over after `finish` sealed the recorder; the driver adds these
    /// counters to the merged recorder once the gateway has stopped.
    let lateCounts = Mutex<[String: Int64]>([:])

    /// - Parameter runStartNanos: the origin of every per-second series, the same for all workers so their
    ///   recorders merge second by second.
    init(index: Int, settings: DriverSettings, clock: Clock, deviceIndexes: [Int], runStartNanos: UInt64,
         faultLog: FaultLog = FaultLog(), deviceCalls: DeviceCalls? = nil) throws {
        self.faults = FaultSchedule(windows: settings.faults, seed: settings.seed)
        self.faultLog = faultLog
        self.deviceCalls = deviceCalls ?? DeviceCalls(devices: settings.devices)
        self.journal = try settings.runDirectory.map {
            try WorkerJournal(configuration: .init(directory: $0, sampleEvery: settings.rowSampleEvery), worker: index)
        }
        self.runStart = runStartNanos
        self.api = TargetAPI(settings.api)
        self.index = index
        self.settings = settings
        self.clock = clock
        self.queue = DispatchQueue(label: "callstorm.worker.\(index)", qos: .userInteractive)
        self.recorder = Recorder(runStartNanos: runStartNanos)
        self.wheel = TimerWheel(startNanos: clock.nowNanos())
        self.arrivals = settings.plan.makeIterator()
        self.devices = deviceIndexes.map { i in
            let identity = DeviceIdentity(index: i, seed: settings.seed)
            return Device(identity: identity, manager: ConversationManager(
                configuration: settings.deviceConfiguration, localDevice: identity.id, localMember: identity.handle))
        }
        queue.sync {
            var configuration = HTTPClient.Configuration()
            configuration.maxConnections = settings.connectionsPerWorker
            events = EventThread(queue: queue, name: "callstorm.worker.\(index)")
            client = HTTPClient(queue: queue, configuration: configuration, events: events)
            timer = EventTimer(on: events) { [unowned self] in self.wake() }
        }
    }

    // MARK: - Phases (each called from the driver, hops onto the queue)

    /// Registers every device of this slice with the target, at most `concurrency` at a time.
    func registerAll(concurrency: Int, done: @escaping @Sendable () -> Void) {
        queue.async { [self] in
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
                            // Calls take idle devices in index order, not in the order registrations finished,
                            // so the same seed puts the same calls on the same devices.
                            self.idle.sort()
                            done()
                        }
                    }
                }
                if devices.isEmpty { done() }
            }
            pump()
        }
    }

    private func register(_ local: Int, then: @escaping () -> Void) {
        let started = clock.nowNanos()
        send("register", deviceVars(local)) { [self] result, endpoint in
            let now = clock.nowNanos()
            recorder.record("register", micros: Int64((now - started) / 1000), atNanos: now)
            if case .success(let response) = result, endpoint?.accepts(response.status) == true {
                devices[local].registered = true
                idle.append(local)
                recorder.count("devices.registered", atNanos: now)
            } else {
                recorder.count("devices.register_failed", atNanos: now)
                count(result, endpoint: endpoint, at: now)
            }
            then()
        }
    }

    /// The template variables every request of a device has.
    func deviceVars(_ local: Int) -> [String: String] {
        let identity = devices[local].identity
        return ["device.id": identity.id, "device.handle": identity.handle.value,
                "device.name": identity.handle.displayName, "device.token": identity.apnsToken,
                "device.handle.json": handleJSON(identity.handle), "device.time": String(deviceTimeMillis(local))]
    }

    /// Sends operation `op` of the target's API; `completion` gets the endpoint used (nil when the mapping lacks it).
    func send(_ op: String, _ vars: [String: String], device local: Int? = nil,
              completion: @escaping (Result<ClientResponse, TransportError>, APIMapping.Endpoint?) -> Void) {
        nonisolated(unsafe) let completion = completion  // runs on this worker's queue, like everything here
        if let local, !faults.isEmpty, loadStart > 0, let since = faultTime(local) ?? sinceLoad(),
           faults.offline(at: since, device: devices[local].identity.index) {
            // An offline phone reaches nobody (a device fault): the request fails like a dead network.
            recorder.count("faults.device.offline_request", atNanos: clock.nowNanos())
            queue.async { completion(.failure(.connect("device offline (fault window)")), nil) }
            return
        }
        let timeout = Int(settings.actionTimeoutNanos / 1_000_000)
        let baseURL = local.flatMap { networkRoute($0) } ?? settings.targetURL
        guard let (parts, missing) = api.request(op, vars: vars, baseURL: baseURL, timeoutMillis: timeout)
        else {
            completion(.failure(.other(code: -1, message: "target.api has no '\(op)' endpoint")), nil)
            return
        }
        if !missing.isEmpty { recorder.count("api.missing_variable", atNanos: clock.nowNanos()) }
        var request = ClientRequest(method: parts.method, url: parts.url, headers: parts.headers,
                                    body: Array(parts.body.utf8), timeoutMillis: timeout)
        request.collectsHeaders = false  // flows read status and body only
        if !faults.isEmpty, let since = sinceLoad() {
            // Inside a network window each request has a connection of its own, so the proxy's per-connection
            // draw is made for every request (see NetworkFaults.freshConnections).
            request.freshConnection = faults.windows.contains {
                $0.network?.freshConnections == true && $0.contains(since)
            }
        }
        client.send(request) { [self] result in
            if finished { return }
            completion(result, parts.endpoint)
        }
    }

    /// The proxy of an open network window that hits only some devices, when it hits this one (its share of
    /// devices, drawn from the seed; its flows, by the device's current call); nil sends to the target as usual.
    private func networkRoute(_ local: Int) -> String? {
        guard !settings.networkRoutes.isEmpty, let since = sinceLoad() else { return nil }
        let flow = devices[local].callID.flatMap { calls[$0]?.flow.name }
        for (i, w) in faults.active(at: since, device: devices[local].identity.index) {
            guard let url = settings.networkRoutes[i] else { continue }
            if w.flows.isEmpty || flow.map({ w.flows.contains($0) }) == true { return url }
        }
        return nil
    }

    /// Starts the load at `loadStartNanos` (the plan's zero). `drained` runs on the queue once arrivals are over
    /// and no call is left.
    func start(loadStartNanos: UInt64, drained: @escaping @Sendable () -> Void) {
        queue.async { [self] in
            loadStart = loadStartNanos
            onDrained = drained
            scheduleNextArrival()
            wheel.schedule(.tick, at: loadStart + 1_000_000_000)
            rearm()
        }
    }

    /// Stops planning new calls; calls in flight go on until they end or `finish` is called.
    func stopArrivals() {
        queue.async { [self] in
            abandonArrivals(now: clock.nowNanos())
            checkDrained()
        }
    }

    /// Ends the run for this worker: counts every action still in flight, seals the recorder, closes the client.
    func finish() -> Recorder {
        queue.sync {
            guard !finished else { return recorder }
            finished = true
            let now = clock.nowNanos()
            for call in calls.values {
                for action in call.actions where !action.isFinished {
                    recorder.count("action.\(action.kind.rawValue).in_flight_at_stop", atNanos: now)
                }
                recorder.count("calls.in_flight_at_stop", atNanos: now)
                recorder.count("flow.\(call.flow.name).in_flight_at_stop", atNanos: now)
                if notes.count < 10 {
                    let step = call.steps.last ?? "(none)"
                    notes.append("\(call.flow.name) call \(call.arrival.index) was still in flight at stop, " +
                                 "waiting for \(call.waiting) after step \(step)")
                }
            }
            abandonArrivals(now: now)
            if pendingDeliveries > 0 { recorder.count(Books.Counter.undelivered, by: pendingDeliveries, atNanos: now) }
            var deviceEvents: [String: Int] = [:]
            for device in devices { deviceEvents.merge(device.manager.events, uniquingKeysWith: +) }
            for (name, n) in deviceEvents { recorder.count("events.\(name)", by: Int64(n), atNanos: now) }
            timer.close()
            client.close()
            events.stop()
            recorder.gauge("conversations.active", value: Double(calls.count), atNanos: now)
            recorder.seal()
            journal?.history("{\"t\":\(now &- runStart),\"type\":\"stop\"}")
            if let journal { recorder = journal.close(recorder) }
            live.publish(recorder, active: calls.count, final: true)
            return recorder
        }
    }

    // MARK: - Timer wheel

    private func wake() {
        let now = clock.nowNanos()
        armedWake = .max
        wheel.advance(to: now, into: &due)
        var fired = due
        due.removeAll(keepingCapacity: true)
        for event in fired { handle(event, now: now) }
        fired.removeAll()
        rearm()
    }

    /// Points the worker's one timer (a timerfd: absolute deadline, no slack) at the wheel's next occupied tick.
    /// The wheel runs on `clock`, which tests may move by hand, so the deadline is carried over as a delay.
    func rearm() {
        guard !finished, let next = wheel.nextWakeNanos() else { return }
        if next == armedWake { return }
        armedWake = next
        let now = clock.nowNanos()
        let delta = next > now ? next - now : 0
        timer.arm(atMonotonicNanos: clinux_monotonic_ns() + delta)
    }

    func schedule(_ event: TimerEvent, at nanos: UInt64) {
        wheel.schedule(event, at: nanos)
    }

    private func handle(_ event: TimerEvent, now: UInt64) {
        switch event {
        case .arrival(let arrival): arrive(arrival, now: now)
        case .resume(let id, let token): resume(id, token: token, now: now)
        case .waitTimeout(let id, let token): waitTimedOut(id, token: token, now: now)
        case .verify(let id, let attempt): verify(id, now: now, attempt: attempt)
        case .fire(let id, let i, let token): fire(id, index: i, token: token, now: now)
        case .deliver(let push, let local):
            pendingDeliveries -= 1
            receive(push, local: local)
            releaseAllHeld(local)
        case .report(let push, let local): process(push, local: local, delivered: now)
        case .releaseHeld(let local, let serial): releaseHeld(local, serial: serial)
        case .later(let work): work()
        case .tick: tick(now: now)
        }
    }

    private func tick(now: UInt64) {
        recorder.gauge("conversations.active", value: Double(calls.count), atNanos: now)
        if let p99 = recorder.histograms["push_to_report"]?.value(atPercentile: 99) {
            liveP99Micros.store(Int(p99), ordering: .relaxed)
        }
        let second = recorder.second(atNanos: now)
        journal?.tick(&recorder, second: second) { inFlightSnapshot($0, now: now) }
        live.publish(recorder, active: calls.count)
        if !finished { schedule(.tick, at: now + 1_000_000_000) }
    }

    // MARK: - Arrivals (open model: a call starts at its planned time whatever earlier calls are doing)

    private func scheduleNextArrival() {
        guard !arrivalsDone else { return }
        while let arrival = arrivals.next() {
            guard settings.owns(arrival: arrival.index, worker: index) else { continue }
            schedule(.arrival(arrival), at: loadStart + arrival.plannedNanos)
            arrivalPending = true
            return
        }
        arrivalsDone = true
        checkDrained()
    }

    /// Counts the arrivals this worker's plan still had (the one waiting in the wheel included) as not started,
    /// so planned vs delivered stays honest after a stop.
    private func abandonArrivals(now: UInt64) {
        guard !arrivalsDone else { return }
        var abandoned: Int64 = arrivalPending ? 1 : 0
        while let arrival = arrivals.next() {
            if settings.owns(arrival: arrival.index, worker: index) { abandoned += 1 }
        }
        if abandoned > 0 { recorder.count("calls.not_started_at_stop", by: abandoned, atNanos: now) }
        arrivalPending = false
        arrivalsDone = true
    }

    private func arrive(_ arrival: Arrival, now: UInt64) {
        guard arrivalPending else { return }  // abandoned by a stop
        arrivalPending = false
        let planned = loadStart + arrival.plannedNanos
        recorder.record("scheduler_lag", micros: Int64((now &- planned) / 1000), atNanos: now)
        recorder.count("calls.planned", atNanos: planned)
        // Only after this call is in `calls`: finding the plan exhausted checks whether the worker drained.
        defer { scheduleNextArrival() }
        let flow = settings.flows[arrival.flow]
        guard idle.count - idleHead >= flow.roles.count else {
            // Not enough free devices: the plan asked for more concurrent calls than the scenario has devices.
            recorder.count("calls.dropped.no_idle_device", atNanos: now)
            return
        }
        var roles: [String: Int] = [:]
        for (r, role) in flow.roles.enumerated() {
            let local = takeIdle()
            roles[role] = local
            devices[local].callID = arrival.index
            deviceCalls.assign(devices[local].identity.index, call: arrival.index, role: r, flow: arrival.flow,
                               plannedSinceLoad: arrival.plannedNanos)
        }
        calls[arrival.index] = FlowRun(arrival: arrival, flow: flow, roles: roles, seed: settings.seed, now: now)
        liveStarted.add(1, ordering: .relaxed)
        liveActive.add(1, ordering: .relaxed)
        recorder.count("calls.started", atNanos: now)
        recorder.count("flow.\(flow.name).started", atNanos: now)
        advance(arrival.index, now: now, planned: planned)
    }

    /// The longest-idle device (a FIFO, so load spreads over every device). Call only when one is idle.
    private func takeIdle() -> Int {
        let local = idle[idleHead]
        idleHead += 1
        if idleHead > 4096, idleHead * 2 > idle.count {
            idle.removeFirst(idleHead)
            idleHead = 0
        }
        return local
    }

    // MARK: - HTTP

    /// The instant fault windows are matched against for `local`'s actions and pushes: its call's planned time
    /// (so the same calls fall in a window every run); nil when the device is in no call.
    func faultTime(_ local: Int) -> UInt64? {
        guard let id = devices[local].callID, let run = calls[id] else { return nil }
        return run.arrival.plannedNanos
    }

    /// The draw key of `local`'s part in its call (see `FaultSchedule.subject`).
    func faultSubject(_ local: Int) -> (call: Int, role: Int, subject: Int)? {
        guard let id = devices[local].callID, let run = calls[id],
              let role = run.flow.roles.firstIndex(where: { run.roles[$0] == local }) else { return nil }
        return (id, role, FaultSchedule.subject(call: id, role: role))
    }

    /// Nanoseconds since the load started, once it has.
    func sinceLoad() -> UInt64? {
        let now = clock.nowNanos()
        return loadStart > 0 && now > loadStart ? now - loadStart : nil
    }

    /// The recorder as a checkpoint should hold it: with everything in flight right now counted as in flight at
    /// stop, so a report rebuilt after a kill balances its books as of this instant.
    private func inFlightSnapshot(_ recorder: Recorder, now: UInt64) -> Recorder {
        var snapshot = recorder
        for call in calls.values {
            for action in call.actions where !action.isFinished {
                snapshot.count("action.\(action.kind.rawValue).in_flight_at_stop", atNanos: now)
            }
        }
        if !calls.isEmpty { snapshot.count("calls.in_flight_at_stop", by: Int64(calls.count), atNanos: now) }
        if pendingDeliveries > 0 { snapshot.count(Books.Counter.undelivered, by: pendingDeliveries, atNanos: now) }
        return snapshot
    }

    /// Adds to the counters kept for after `finish` (called on the queue).
    func countLate(_ name: String, by n: Int64 = 1) {
        lateCounts.withLock { $0[name, default: 0] += n }
    }

    /// A push the gateway accepted but a fault dropped before the device (offline phone, APNs drop).
    func acceptedButDropped() {
        if finished {
            countLate(Books.Counter.accepted)
            countLate(Books.Counter.droppedByFault)
            return
        }
        let now = clock.nowNanos()
        recorder.count(Books.Counter.accepted, atNanos: now)
        recorder.count(Books.Counter.droppedByFault, atNanos: now)
    }

    /// A push the gateway accepted for a device of this worker, possibly delayed or duplicated by a fault, or
    /// held back by a reorder fault (`hold` > 0: delivered right after the device's next push, or `hold` after
    /// its delay when none comes).
    func accepted(_ push: APNsPush, local: Int, delay: UInt64, copies: Int, hold: UInt64 = 0) {
        if finished {
            countLate(Books.Counter.accepted)
            if copies > 1 { countLate(Books.Counter.duplicated, by: Int64(copies - 1)) }
            countLate(Books.Counter.undelivered, by: Int64(copies))
            return
        }
        let now = clock.nowNanos()
        recorder.count(Books.Counter.accepted, atNanos: now)
        if copies > 1 { recorder.count(Books.Counter.duplicated, by: Int64(copies - 1), atNanos: now) }
        for _ in 0..<copies {
            if hold > 0 {
                pendingDeliveries += 1
                nextHeldSerial += 1
                devices[local].held.append((nextHeldSerial, push))
                schedule(.releaseHeld(local: local, serial: nextHeldSerial), at: now + delay + hold)
                rearm()
            } else if delay > 0 {
                pendingDeliveries += 1
                schedule(.deliver(push: push, local: local), at: now + delay)
                rearm()
            } else {
                receive(push, local: local)
                releaseAllHeld(local)
            }
        }
    }

    /// Counts transport errors by kind, answers the endpoint does not expect by status (a 200 where the API
    /// promises 201 too), and expected answers whose body could not be read (`badBody`) as bad responses, so
    /// failures are never silent.
    func count(_ result: Result<ClientResponse, TransportError>, endpoint: APIMapping.Endpoint? = nil,
               badBody: Bool = false, at now: UInt64) {
        switch result {
        case .success(let response) where response.status == 0: recorder.count("errors.bad_response", atNanos: now)
        case .success(let response) where endpoint?.accepts(response.status) ?? (200..<300).contains(response.status):
            if badBody { recorder.count("errors.bad_response", atNanos: now) }
        case .success(let response): recorder.count("errors.http_\(response.status)", atNanos: now)
        case .failure(let error): recorder.count("errors.\(error.kind)", atNanos: now)
        }
    }
}
