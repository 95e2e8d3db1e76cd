import CallModel
import Dispatch
import EventPolling
import Foundation
import HTTPServer
import Locking
import struct Synchronization.Atomic
import SystemCalls
import TextEscaping
import WebSocket

/// The embedded call server callstorm tests against by default (docs/PROTOCOL.md). Correct and atomic: every
/// change to a conversation happens under one lock and bumps its version. Pushes go to the push gateway through
/// the APNs provider API.
public final class ReferenceTarget: HTTPHandler {
    public struct Configuration: Sendable {
        /// Base URL of the APNs gateway, e.g. `http://127.0.0.1:2197`.
        public var gatewayURL: String
        public var bundleID: String
        /// Deliberate bugs, off by default, so tests can prove the history checker catches them.
        public var bugs: Set<Bug>
        /// A file the registrations are appended to and read back from at start, so a target that crashed
        /// and restarted still knows its devices (like a server with a database); conversations, kept in
        /// memory, are lost. Nil keeps everything in memory.
        public var registrationsFile: String?
        /// Seconds an ended conversation stays readable (GET, and 409 `ended` for a late action) before the
        /// target forgets it, so a long soak's memory holds recent calls, not every call ever made.
        public var endedRetention: Double
        /// Seconds after which a conversation nobody changed (its devices gone mid-call) is forgotten too.
        public var idleLimit: Double
        /// Pushes carry `apns-expiration` = now + this many seconds; 0 is "deliver now or never".
        public var pushExpirationSeconds = 0
        /// Times a push answered 429/500/503, or lost in transport, is tried again with backoff (0: never).
        public var pushRetries = 0
        /// Takes every push in place of the APNs client (`voip`, device token, payload): for a target run in the
        /// same process as the devices it serves, with no gateway between them (Driver's embedded-loop tests).
        public var pushHook: (@Sendable (_ voip: Bool, _ token: String, _ payload: String) -> Void)?
        /// Where the device that unmerges stands afterwards; the reference target's own is `.holdSplit`.
        public var unmergePolicy: ServerPolicy.Unmerge = .holdSplit
        /// A file each request's `traceparent` is appended to (TraceparentLog); nil records nothing.
        public var traceparentLog: String?
        /// How the push client's thread shares the cores; the embedded target's (EmbeddedServers) runs it below
        /// the driver's workers, with the HTTP server's loops (`HTTPServerConfiguration.threadScheduling`).
        public var pushThreadScheduling: ThreadScheduling = .normal
        public init(gatewayURL: String, bundleID: String = "com.example.callstorm", bugs: Set<Bug> = [],
                    registrationsFile: String? = nil, endedRetention: Double = 60, idleLimit: Double = 900,
                    pushExpirationSeconds: Int = 0, pushRetries: Int = 0) {
            self.pushExpirationSeconds = pushExpirationSeconds
            self.pushRetries = pushRetries
            self.gatewayURL = gatewayURL
            self.bundleID = bundleID
            self.bugs = bugs
            self.registrationsFile = registrationsFile
            self.endedRetention = endedRetention
            self.idleLimit = idleLimit
        }
    }

    /// Realistic races and slips in merge handling, each breaking one rule of docs/CHECKER.md.
    public enum Bug: String, Sendable, CaseIterable {
        /// Merge reads both conversations, works for a moment, then writes them back: a concurrent change to
        /// either (an end, a join) is lost.
        case mergeLostUpdate = "merge-lost-update"
        /// Merge does not check the ended flag, and revives an ended conversation.
        case mergeIgnoresEnded = "merge-ignores-ended"
        /// Unmerge works on a stale copy and writes it back, dropping a concurrent join or end.
        case unmergeDropsJoin = "unmerge-drops-join"
        /// Hold and resume change the conversation without bumping its version.
        case versionNotBumped = "version-not-bumped"
        /// Users with several devices: when one answers or declines, the server marks the others left but never
        /// tells the last of them, which rings on (caught by `elsewhere-stops-ringing`).
        case elsewhereKeepsRinging = "elsewhere-keeps-ringing"
        /// Users with several devices: the others are told with a VoIP push instead of a background push or a
        /// socket event (a VoIP push without a new call: PushKit's rule, `pushes.voip_without_call`).
        case elsewhereVoIPCancel = "elsewhere-voip-cancel"
        /// An end an interrupted app sends (reason `interrupted`) is answered 200, but the device stays joined: the
        /// server takes the interruption for a pause the app will come back from (issue 37).
        case interruptedStaysJoined = "interrupted-stays-joined"
    }

    struct State {
        var devices: [String: RegisteredDevice] = [:]
        /// Handle → the devices registered under it, in registration order: several when one user owns several
        /// devices (issue 36), each rung for a call to the handle.
        var devicesByHandle: [String: [String]] = [:]
        var conversations: [String: ServerConversation] = [:]
        var forgotten = 0
    }

    private let state = Mutex(State())
    private let deviceClockSamples = Mutex<[Int64]>([])
    private let endedRetentionNanos: UInt64
    private let idleLimitNanos: UInt64
    /// When the next sweep is due (monotonic nanoseconds); requests before it pay one atomic load.
    private let nextSweep = Atomic<UInt64>(0)
    private let pusher: PushSender
    private let pushHook: (@Sendable (_ voip: Bool, _ token: String, _ payload: String) -> Void)?
    let bugs: Set<Bug>
    let unmergePolicy: ServerPolicy.Unmerge
    /// Where the stale read–modify–write bugs do their slow work, off the server's loop thread.
    private let slowQueue = DispatchQueue(label: "callstorm.target.buggy", attributes: .concurrent)
    /// Members one conversation may hold after merges.
    let maxMembers = 16

    /// Append-only descriptor of `registrationsFile`, or -1.
    private let registrationsFD: Int32
    /// The WebSocket event channel (`GET /v1/events?device=`); ReferenceTarget+Events.swift.
    let events = EventChannel()
    /// `Configuration.traceparentLog`, open; nil when off.
    private let traceparents: TraceparentLog?

    public init(configuration: Configuration) {
        pusher = PushSender(gatewayURL: configuration.gatewayURL, bundleID: configuration.bundleID,
                            expirationSeconds: configuration.pushExpirationSeconds,
                            retries: configuration.pushRetries, scheduling: configuration.pushThreadScheduling)
        bugs = configuration.bugs
        pushHook = configuration.pushHook
        unmergePolicy = configuration.unmergePolicy
        endedRetentionNanos = UInt64(max(0, configuration.endedRetention) * 1e9)
        idleLimitNanos = UInt64(max(0, configuration.idleLimit) * 1e9)
        traceparents = configuration.traceparentLog.flatMap { TraceparentLog(path: $0) }
        if let path = configuration.registrationsFile {
            if let text = try? String(contentsOfFile: path, encoding: .utf8) {
                state.withLock { s in
                    for line in text.split(separator: "\n") {
                        guard let body = RegisterBody(json: Array(line.utf8)) else { continue }
                        s.register(RegisteredDevice(id: body.id, handle: body.handle, apnsToken: body.apnsToken))
                    }
                }
            }
            registrationsFD = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        } else {
            registrationsFD = -1
        }
        events.attach(EventChannel.Hooks(
            perform: { [unowned self] request, respond in handle(request, respond: respond) },
            lookUp: { [unowned self] id in
                state.withLock { s in s.conversations[id].map { ($0.jsonBytes(), $0.ended) } }
            },
            isRegistered: { [unowned self] id in state.withLock { $0.devices[id] != nil } }))
    }

    /// Stops the push client. Call once, after the HTTP server stopped.
    public func close() {
        pusher.close()
        if registrationsFD >= 0 { Glibc.close(registrationsFD) }
        traceparents?.close()
    }

    private func push(_ kind: PushSender.Kind, token: String, payload: [UInt8]) {
        if let pushHook {
            pushHook(kind == .voip, token, String(decoding: payload, as: UTF8.self))
        } else {
            pusher.send(kind, token: token, payload: payload)
        }
    }

    /// Appends one registration to `registrationsFile`: one write(2) per line with O_APPEND, so whole lines
    /// survive a SIGKILL (the kernel keeps what was written).
    private func persist(_ body: RegisterBody) {
        guard registrationsFD >= 0 else { return }
        let h = body.handle
        let text = "{\"id\":\(JSONText.quote(body.id)),\"handle\":{\"kind\":\(JSONText.quote(h.kind.rawValue)),"
            + "\"value\":\(JSONText.quote(h.value)),\"displayName\":\(JSONText.quote(h.displayName))},"
            + "\"apnsToken\":\(JSONText.quote(body.apnsToken))}\n"
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { all in SystemCall.writeAll(all) { SystemCall.write(registrationsFD, $0) } }
    }

    /// Devices the target knows.
    public var registeredDevices: Int { state.withLock { $0.devices.count } }

    public var pushesSent: Int { pusher.sent.load(ordering: .relaxed) }
    public var pushesFailed: Int { pusher.failed.load(ordering: .relaxed) }
    /// Push attempts made again after a retryable failure, and pushes accepted after such a retry.
    public var pushesRetried: Int { pusher.retried.load(ordering: .relaxed) }
    public var pushesRecovered: Int { pusher.recovered.load(ordering: .relaxed) }

    /// Conversations forgotten so far (ended past the retention, or idle past the limit).
    public var forgottenConversations: Int { state.withLock { $0.forgotten } }

    /// Conversations held in memory.
    public var heldConversations: Int { state.withLock { $0.conversations.count } }

    /// Forgets conversations ended more than `endedRetention` ago or unchanged for `idleLimit`, at most once a
    /// second. One pass over what is held (recent calls only, thanks to this), under the state lock.
    func sweep(nowNanos now: UInt64) {
        let due = nextSweep.load(ordering: .relaxed)
        guard now >= due,
              nextSweep.compareExchange(expected: due, desired: now + 1_000_000_000, ordering: .relaxed).exchanged
        else { return }
        state.withLock { s in
            var forget: [String] = []
            // By index, reading and noting each conversation in place: no copy of it and no lookup by id.
            var i = s.conversations.startIndex
            while i != s.conversations.endIndex {
                let (version, ended) = (s.conversations.values[i].version, s.conversations.values[i].ended)
                if let seen = s.conversations.values[i].swept, seen.version == version, seen.ended == ended {
                    let limit = ended ? endedRetentionNanos : idleLimitNanos
                    if now &- seen.since >= limit { forget.append(s.conversations.keys[i]) }
                } else {
                    s.conversations.values[i].swept = (version, ended, now)
                }
                s.conversations.formIndex(after: &i)
            }
            for id in forget { s.conversations[id] = nil }
            s.forgotten += forget.count
        }
    }

    public func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        sweep(nowNanos: DispatchTime.now().uptimeNanoseconds)
        traceparents?.record(request)
        if request.pathWithoutQuery == "/v1/events" {
            return respond(request.method == "GET" ? events.upgrade(request) : error(405, "the events channel is GET"))
        }
        if staleWrite(for: request.path) != nil {
            // The bug reads its copy as the request arrives, then works on it off the loop thread.
            let snapshot = state.withLock { $0 }
            slowQueue.async { respond(self.route(request, snapshot: snapshot)) }
        } else {
            respond(route(request))
        }
    }

    /// The action whose handling is a deliberately non-atomic read–modify–write, if a bug makes it one.
    private func staleWrite(for path: String) -> String? {
        if bugs.contains(.mergeLostUpdate), path.hasSuffix("/merge") { return "merge" }
        if bugs.contains(.unmergeDropsJoin), path.hasSuffix("/unmerge") { return "unmerge" }
        return nil
    }

    func route(_ request: HTTPRequest) -> HTTPResponse { route(request, snapshot: nil) }

    private func route(_ request: HTTPRequest, snapshot: State?) -> HTTPResponse {
        // Read on bytes, no array of parts: the split into Strings cost ~27,000 instructions a call (the
        // capacity flow's profile); only the conversation id and the action become Strings.
        let route = TargetRoute(request.path)
        switch (request.method, route.endpoint) {
        case ("POST", .devices): return register(request)
        case ("POST", .conversations): return start(request)
        case ("GET", .conversation(let id)): return get(id)
        case ("POST", .action(let id, let action)): return memberAction(id, request, action, snapshot: snapshot)
        case ("GET", .health): return .json(200, "{\"ok\":true}")
        case (_, nil): return error(404, "no such endpoint: \(route.pathWithoutQuery)")
        default: return error(404, "no such endpoint: \(request.method) \(route.pathWithoutQuery)")
        }
    }

    // MARK: - Endpoints

    private func register(_ request: HTTPRequest) -> HTTPResponse {
        guard let body = RegisterBody(json: request.body) else {
            return error(400, "body must be {\"id\", \"handle\": {\"kind\", \"value\", \"displayName\"}, \"apnsToken\"}")
        }
        state.withLock { s in
            s.register(RegisteredDevice(id: body.id, handle: body.handle, apnsToken: body.apnsToken))
            persist(body)
        }
        return .json(201, "{\"id\":\(JSONText.quote(body.id))}")
    }

    private func start(_ request: HTTPRequest) -> HTTPResponse {
        guard let body = StartBody(json: request.body), !body.handles.isEmpty else {
            return error(400, "body must be {\"caller\", \"handles\": [handle, ...], \"video\"}")
        }
        let id = UUID().lowercaseText
        let result: Result<(ServerConversation, [RegisteredDevice], Handle), Refusal> = state.withLock { s in
            guard let caller = s.devices[body.caller] else { return .failure(refusal(404, "unknown caller \(body.caller)")) }
            var members = [ServerMember(device: caller.id, handle: caller.handle, state: .joined)]
            var callees: [RegisteredDevice] = []
            for handle in body.handles {
                // Every device of the handle's user rings; the caller's own other devices never do.
                let devices = (s.devicesByHandle[handle.value] ?? []).compactMap { s.devices[$0] }
                    .filter { $0.id != caller.id }
                guard !devices.isEmpty else {
                    return .failure(refusal(404, "no device registered for handle \(handle.value)"))
                }
                for device in devices {
                    members.append(ServerMember(device: device.id, handle: device.handle, state: .ringing))
                    callees.append(device)
                }
            }
            var conversation = ServerConversation(id: id, members: members, video: body.video ?? false)
            conversation.capabilities = body.capabilities ?? []
            s.conversations[id] = conversation
            return .success((conversation, callees, caller.handle))
        }
        switch result {
        case .failure(let refusal): return refusal.response
        case .success(let (conversation, callees, callerHandle)):
            let sentAt = Int64(Date().timeIntervalSince1970 * 1000)
            let view = conversation.jsonBytes()  // once: the push carries the view the answer returns
            let payload = Self.voipPayload(id: id, caller: callerHandle, conversation, view: view, sentAt: sentAt)
            for callee in callees { push(.voip, token: callee.apnsToken, payload: payload) }
            events.publish(conversation.members.map {
                EventChannel.Event(device: $0.device, event: "updated", uuid: id, into: nil, view: view)
            })
            return .json(201, bytes: view)
        }
    }

    /// The VoIP push of a new call. Written into memory sized first (`ViewWriter`); the String appends and
    /// interpolations it replaced cost ~17,000 instructions a start.
    private static func voipPayload(id: String, caller: Handle, _ conversation: ServerConversation, view: [UInt8],
                                    sentAt: Int64) -> [UInt8] {
        let names = conversation.capabilities + (conversation.video ? ["video"] : [])
        var bound = 192 &+ ViewWriter.bound(id) &+ ViewWriter.bound(caller.value)
            &+ ViewWriter.bound(caller.displayName) &+ view.count
        for name in names { bound &+= ViewWriter.bound(name) &+ 1 }
        return [UInt8](unsafeUninitializedCapacity: bound) { buffer, written in
            var w = ViewWriter(buffer.baseAddress!)
            w.raw("{\"uuid\":")
            w.quoted(id)
            w.raw(",\"handle\":")
            writeHandle(caller, to: &w)
            w.raw(",\"capabilities\":[")
            for (i, name) in names.enumerated() {
                if i > 0 { w.raw(",") }
                w.quoted(name)
            }
            w.raw("],\"sentAt\":")
            w.integer(Int(sentAt))
            w.raw(",\"conversation\":")
            w.verbatim(view)
            w.raw("}")
            written = w.count
        }
    }

    private func get(_ id: String) -> HTTPResponse {
        guard let conversation = state.withLock({ $0.conversations[id] }) else {
            return error(404, "unknown conversation \(id)")
        }
        return .json(200, bytes: conversation.jsonBytes())
    }

    private func memberAction(_ id: String, _ request: HTTPRequest, _ action: String, snapshot: State? = nil)
        -> HTTPResponse {
        guard let body = MemberBody(json: request.body) else {
            return error(400, "body must be {\"device\", ...}")
        }
        let outcome: Result<([UInt8], [Notice]), Refusal>
        if staleWrite(for: request.path) != nil {
            // The bug: read a copy, work on it a while, write back what it touched — whatever changed meanwhile
            // is overwritten.
            let read = snapshot ?? state.withLock { $0 }
            var copy = read
            usleep(2_000)
            outcome = mutate(&copy, id, body, action)
            let touched = copy.conversations.keys.filter { copy.conversations[$0] != read.conversations[$0] }
            state.withLock { s in for key in touched { s.conversations[key] = copy.conversations[key] } }
        } else {
            outcome = state.withLock { mutate(&$0, id, body, action) }
        }
        switch outcome {
        case .failure(let refusal): return refusal.response
        case .success(let (json, notices)):
            // One pass, by index (a `for n in` copied each notice: eight retains and releases); room for the
            // actor's own event too: `publishAction` appends it without copying the others.
            var told: [EventChannel.Event] = []
            told.reserveCapacity(notices.count + 1)
            for i in notices.indices {
                push(notices[i].voip ? .voip : .background, token: notices[i].token, payload: notices[i].payload)
                told.append(notices[i].event)
            }
            events.publishAction(told, actor: body.device, conversation: id, action: action)
            if action == "join" { recordReportLatency(body) }
            return .json(200, bytes: json)
        }
    }

    /// Push-to-report latency as a server that trusts device timestamps measures it: the device's report time
    /// minus the target's send time. A skewed device clock (a `clock_skew` fault) moves it by the skew, even
    /// below zero; `reportLatencyByDeviceClock` keeps the samples.
    private func recordReportLatency(_ body: MemberBody) {
        guard let reported = body.reportedAt, let sent = body.pushSentAt else { return }
        deviceClockSamples.withLock { if $0.count < 100_000 { $0.append(reported - sent) } }
    }

    /// Push-to-report latencies (ms) computed from the device's clock, one per join that carried its times.
    public var reportLatencyByDeviceClock: [Int64] { deviceClockSamples.withLock { $0 } }

    /// A refusal decided under the lock, answered after it.
    struct Refusal: Error {
        let response: HTTPResponse
        init(_ response: HTTPResponse) { self.response = response }
    }

    func refusal(_ status: Int, _ message: String, code: String? = nil) -> Refusal {
        Refusal(error(status, message, code: code))
    }

    func error(_ status: Int, _ message: String, code: String? = nil) -> HTTPResponse {
        var body = "{\"error\":\(JSONText.quote(message))"
        if let code { body += ",\"code\":\(JSONText.quote(code))" }
        return .json(status, body + "}")
    }
}
