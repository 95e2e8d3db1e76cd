import CallModel
import CLinux
import Chaos
import Determinism
import Dispatch
import Foundation
import Metrics
import PushModel
import Results
import Scenario
import Locking
import struct Synchronization.Atomic
import Transport

/// One worker: a serial DispatchQueue that owns a fixed slice of devices (`DeviceModel`), the calls running on
/// them (`FlowInterpreter`s), one timer wheel, one HTTP client and one recorder. The worker decides nothing about
/// a flow: it hands observations (answers, pushes, timers) to the call's interpreter and applies the effects it
/// returns. Ownership rule: everything below except the atomics is touched only on `queue`, which is why devices
/// need no locks.
final class Worker: @unchecked Sendable {
    let queue: DispatchQueue
    let settings: DriverSettings
    let clock: Clock
    /// The epoll thread, the HTTP client and the timerfd (set once in `init`, on the queue).
    private(set) var io: WorkerIO!
    var wheel: TimerWheel<TimerEvent>
    /// The devices and the action numbering every call of this worker shares.
    var context: FlowContext
    var calls: [Int: FlowInterpreter] = [:]
    var arrivals: ArrivalFeed
    var finished = false
    var recorder: Recorder
    let books: WorkerBooks
    /// Read by the progress line and the metrics endpoint from other threads.
    let live = LiveStats()
    var faultState: DeviceFaultState
    let api: TargetAPI
    let config: FlowConfig
    /// Device sockets (`device.socket`); nil when devices hold none. The sixteenth stored property, over the
    /// house limit of 15 on purpose: it is not I/O alone (it holds each device's socket lifecycle and the actions
    /// awaiting replies, which `WorkerIO` does not own) and exists only in runs with sockets.
    var sockets: DeviceSockets?

    /// Runs `work` on the queue, on the worker's own event thread: for hand-overs from other threads (the push
    /// gateway's), which `queue.async` would pay for with a pool thread's wake-up each.
    func post(_ work: @escaping () -> Void) { io.events.post(work) }

    var index: Int { arrivals.worker }
    var loadStart: UInt64 { arrivals.loadStart }
    var devices: DeviceModel {
        get { context.devices }
        _modify { yield &context.devices }
    }

    /// - Parameter runStartNanos: the origin of every per-second series, the same for all workers so their
    ///   recorders merge second by second.
    init(index: Int, settings: DriverSettings, clock: Clock, deviceIndexes: [Int], runStartNanos: UInt64,
         faultLog: FaultLog = FaultLog(), deviceCalls: DeviceCalls? = nil) throws {
        self.faultState = DeviceFaultState(schedule: FaultSchedule(windows: settings.faults, seed: settings.seed),
                                           log: faultLog,
                                           deviceCalls: deviceCalls ?? DeviceCalls(devices: settings.devices))
        self.books = WorkerBooks(journal: try settings.runDirectory.map {
            try WorkerJournal(configuration: .init(directory: $0, sampleEvery: settings.rowSampleEvery), worker: index)
        }, runStart: runStartNanos)
        self.api = TargetAPI(settings.api, handles: settings.handles)
        self.settings = settings
        self.config = FlowConfig(settings)
        self.clock = clock
        self.queue = DispatchQueue(label: "callstorm.worker.\(index)", qos: .userInteractive)
        self.recorder = Recorder(runStartNanos: runStartNanos)
        self.wheel = TimerWheel(startNanos: clock.nowNanos())
        self.arrivals = ArrivalFeed(worker: index, plan: settings.plan)
        self.context = FlowContext(
            devices: DeviceModel(identities: deviceIndexes.map {
                                     DeviceIdentity(index: $0, seed: settings.seed, handles: settings.handles) },
                                 configuration: settings.deviceConfiguration),
            actionIDs: ActionIDs(worker: index))
        queue.sync {
            io = WorkerIO(queue: queue, name: "callstorm.worker.\(index)",
                          maxConnections: settings.connectionsPerWorker, caFile: settings.targetCAFile) {
                [unowned self] in self.wake()
            }
            sockets = makeSockets(deviceIndexes: deviceIndexes)
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
            recorder.record("register", micros: Int64((now - started) / 1000), atNanos: now)
            if case .success(let response) = result, endpoint?.accepts(response.status) == true {
                devices.registered(local)
                recorder.count("devices.registered", atNanos: now)
                socketRegistered(local)
            } else {
                recorder.count("devices.register_failed", atNanos: now)
                count(result, endpoint: endpoint, at: now)
            }
            then()
        }
    }

    /// Starts the load at `loadStartNanos` (the plan's zero). `drained` runs on the queue once arrivals are over
    /// and no call is left.
    func start(loadStartNanos: UInt64, drained: @escaping @Sendable () -> Void) {
        queue.async { [self] in
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
                for action in call.actionsInFlight {
                    recorder.count("action.\(action.kind.rawValue).in_flight_at_stop", atNanos: now)
                }
                recorder.count("calls.in_flight_at_stop", atNanos: now)
                recorder.count("flow.\(call.flow.name).in_flight_at_stop", atNanos: now)
                let step = call.log.steps.last ?? "(none)"
                books.note("\(call.flow.name) call \(call.arrival.index) was still in flight at stop, " +
                           "waiting for \(call.waiting) after step \(step)", limit: 10)
            }
            abandonArrivals(now: now)
            if books.pendingDeliveries > 0 {
                recorder.count(Books.Counter.undelivered, by: books.pendingDeliveries, atNanos: now)
            }
            var deviceEvents: [String: Int] = [:]
            for device in devices.devices { deviceEvents.merge(device.manager.events, uniquingKeysWith: +) }
            for (name, n) in deviceEvents { recorder.count("events.\(name)", by: Int64(n), atNanos: now) }
            stopSockets()
            io.close()
            recorder.gauge("conversations.active", value: Double(calls.count), atNanos: now)
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
        io.armedWake = .max
        var fired: [TimerEvent] = []
        wheel.advance(to: now, into: &fired)
        for event in fired { handle(event, now: now) }
        rearm()
    }

    /// Points the worker's one timer (a timerfd: absolute deadline, no slack) at the wheel's next occupied tick.
    /// The wheel runs on `clock`, which tests may move by hand, so the deadline is carried over as a delay.
    func rearm() {
        guard !finished, let next = wheel.nextWakeNanos() else { return }
        if next == io.armedWake { return }
        io.armedWake = next
        let now = clock.nowNanos()
        let delta = next > now ? next - now : 0
        io.timer.arm(atMonotonicNanos: clinux_monotonic_ns() + delta)
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
        recorder.gauge("conversations.active", value: Double(calls.count), atNanos: now)
        if let p99 = recorder.histograms["push_to_report"]?.value(atPercentile: 99) {
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
                snapshot.count("action.\(action.kind.rawValue).in_flight_at_stop", atNanos: now)
            }
        }
        if !calls.isEmpty { snapshot.count("calls.in_flight_at_stop", by: Int64(calls.count), atNanos: now) }
        if books.pendingDeliveries > 0 {
            snapshot.count(Books.Counter.undelivered, by: books.pendingDeliveries, atNanos: now)
        }
        if let open = sockets?.lifecycle.openCount, open > 0 {
            snapshot.count(MetricName.socketOpenAtStop, by: Int64(open), atNanos: now)
        }
        return snapshot
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

/// What the worker's timer wheel holds: small values, no closures, so a scheduled step allocates nothing.
enum TimerEvent {
    case arrival(Arrival)
    /// A timer one call's interpreter armed.
    case flow(call: Int, FlowTimer)
    /// A push reaches its device later (a push delay fault), or is processed later (a slow app).
    case deliver(push: APNsPush, local: Int)
    case report(push: APNsPush, local: Int)
    /// A push a reorder fault held back is delivered now if no later push released it first.
    case releaseHeld(local: Int, serial: UInt64)
    case tick
    /// A device socket's linger or reconnect timer.
    case socket(SocketTimer)
    /// An action sent over a socket got no reply within `action_timeout` (its request id).
    case socketReply(String)
    /// A socket fault is due, or a stalled socket reads again (`Worker+SocketFaults`).
    case socketFault(SocketFaultTimer)
}

/// The worker's I/O: the thread that waits for its sockets and its timer and runs them on the worker's queue,
/// the HTTP client on it, and the one timerfd the wheel is driven by. Touched only on the worker's queue.
final class WorkerIO {
    let events: EventThread
    let client: HTTPClient
    let timer: EventTimer
    /// The deadline the timer is armed for (`.max`: none), so rearming for the same tick costs nothing.
    var armedWake: UInt64 = .max

    init(queue: DispatchQueue, name: String, maxConnections: Int, caFile: String?, wake: @escaping () -> Void) {
        var configuration = HTTPClient.Configuration()
        configuration.maxConnections = maxConnections
        configuration.caFile = caFile
        // Small batches: a due timer waits behind at most 8 socket events or 16 posted pushes (each up to ~30 µs
        // of work), not 32 and 256. Scenarios/scale.yaml side by side, 4 rounds each: lag max 3.3–4.8 ms against
        // 4.8–38 ms, p99 0.24–0.43 against 0.32–0.55 ms, CPU no different (issue 20).
        events = EventThread(queue: queue, name: name, batchSize: 8, postsPerBatch: 16)
        client = HTTPClient(queue: queue, configuration: configuration, events: events)
        timer = EventTimer(on: events, fired: wake)
    }

    func close() {
        timer.close()
        client.close()
        events.stop()
    }
}

/// What a worker keeps for the run's books apart from its recorder: the journal on disk, the notes for the
/// report, and pushes still owed to devices. Touched on the worker's queue, except `lateCounts`.
final class WorkerBooks {
    let journal: WorkerJournal?
    let runStart: UInt64
    /// Findings worth a line in the report (the first view mismatches).
    private(set) var notes: [String] = []
    /// Pushes waiting in the wheel for a delayed delivery (undelivered if the run stops first).
    var pendingDeliveries: Int64 = 0
    /// Book-keeping for pushes the sink handed over after `finish` sealed the recorder; the driver adds these
    /// counters to the merged recorder once the gateway has stopped.
    let lateCounts = Mutex<[String: Int64]>([:])

    init(journal: WorkerJournal?, runStart: UInt64) {
        self.journal = journal
        self.runStart = runStart
    }

    func note(_ line: String, limit: Int) {
        if notes.count < limit { notes.append(line) }
    }

    /// Adds to the counters kept for after `finish` (called on the queue).
    func countLate(_ name: String, by n: Int64 = 1) {
        lateCounts.withLock { $0[name, default: 0] += n }
    }
}

/// A worker's figures for the progress line and the metrics endpoint, read from other threads.
final class LiveStats: Sendable {
    let started = Atomic<Int>(0)
    let active = Atomic<Int>(0)
    let completed = Atomic<Int>(0)
    let p99Micros = Atomic<Int>(0)
    /// Counters and histograms for the metrics endpoint, replaced on every tick.
    let slot = LiveSlot()
}
