import CallModel
import Determinism
import Foundation
import Metrics
import Results
import Scenario
import Transport

/// Sends a worker's requests to the target: each action a call asks for (`perform`), polls and final-view
/// fetches, and registrations; renders them from the API mapping, reads the answers as the flow needs them, and
/// hands them to the call. Requests go over HTTP (`RequestSender`, injected with the loop) or over another
/// `ActionRoute` the caller names (a device socket: `DeviceSockets`, which asks for operations its mapping carries).
/// The HTTP and socket signaling kinds (`HTTPSignaling`, `DeviceSockets`) both send through it.
///
/// Ownership rule: touched only on the worker's loop; completions run there too.
final class ActionSender {
    let api: TargetAPI
    private let settings: DriverSettings
    private let loop: DriverLoop
    private let table: CallTable
    private let books: RunBooks
    private let faults: DeviceFaults
    private unowned let host: EffectHost
    /// Each capability set's JSON list (`capabilitiesJSON`), by its raw value.
    private var capabilitiesTexts: [UInt8: String] = [:]

    typealias Completion = (Result<ClientResponse, TransportError>, APIMapping.Endpoint?) -> Void

    /// A header only an `ActionRoute` sets on the answer it hands back: the refusal said the conversation had
    /// already ended, which `readAnswer` takes as a status in `target.api.already_ended`.
    static let routeAlreadyEndedHeader = "x-callstorm-socket-already-ended"

    init(api: TargetAPI, settings: DriverSettings, loop: DriverLoop, table: CallTable, books: RunBooks,
         faults: DeviceFaults, host: EffectHost) {
        self.api = api
        self.settings = settings
        self.loop = loop
        self.table = table
        self.books = books
        self.faults = faults
        self.host = host
    }

    private var clock: Clock { loop.clock }

    /// Registers device `local` with the target; `then` runs once the answer is in, told whether it registered.
    func register(_ local: Int, then: @escaping (Bool) -> Void) {
        let started = clock.nowNanos()
        send("register", deviceVars(local)) { [self] result, endpoint in
            let now = clock.nowNanos()
            books.record(.register, micros: Int64((now - started) / 1000), at: now)
            if case .success(let response) = result, endpoint?.accepts(response.status) == true {
                table.devices.registered(local)
                books.count(.devicesRegistered, at: now)
                then(true)
            } else {
                books.count(.devicesRegisterFailed, at: now)
                count(result, endpoint: endpoint, at: now)
                then(false)
            }
        }
    }

    /// A relaunched app registers again (issue 37): the device stays in its call (the idle pool is not touched),
    /// and the answer is counted apart from the run's registrations.
    func reregister(_ local: Int) {
        send("register", deviceVars(local)) { [self] result, endpoint in
            let now = clock.nowNanos()
            let ok: Bool
            if case .success(let response) = result, endpoint?.accepts(response.status) == true { ok = true } else {
                ok = false
            }
            books.count(ok ? .lifeRelaunchRegistered : .lifeRelaunchRegisterFailed, at: now)
        }
    }

    /// Sends one action to the target and hands its answer to the call (or, when a slow media setup fault holds
    /// a join back, to the wheel first). `route`: where operations go before HTTP (a device socket).
    func perform(_ request: ActionRequest, route: ActionRoute? = nil) {
        let id = request.call
        guard let captures = table.withCall(id, { $0.known.captures }) else { return }
        let vars = request.op == .start ? startVars(request, captures) : memberVars(request, captures)
        send(request.op.rawValue, vars, device: request.device, call: id, route: route) { [self] result, endpoint in
            let now = clock.nowNanos()
            var answer = readAnswer(request, result, endpoint)
            if table.withCall(id, { $0.endedAlready(request, answer, table.devices) }) == true {
                answer.alreadyEnded = true  // not an error: the conversation had ended
            } else {
                count(result, endpoint: endpoint, badBody: answer.outcome == .failed(reason: "bad_response"), at: now)
            }
            // In place and only when there is something to keep: `calls[id]?.captured` went through the
            // dictionary's optional `_modify` (moving the interpreter out and back) on every answer.
            if !answer.captures.isEmpty { table.withCall(id) { $0.captured(answer.captures) } }
            if request.kind == .join, answer.outcome == .fulfilled,
               let fault = faults.mediaFault(request.device, now: now) {
                switch fault {
                case .failure:
                    answer.outcome = .failed(reason: "media_setup_failed")
                    // The target took the join; the device never learns of it (its view stays behind for good).
                    if let version = answer.view?.version {
                        table.devices.lost(request.conversation, version: version, on: request.device)
                    }
                case .delay(let nanos):
                    // Slow media setup: the join is fulfilled later (its fulfillment time grows).
                    host.schedule(.flow(call: id, .lateAnswer(request, answer)), at: now + nanos)
                    return
                }
            }
            host.apply(.answer(request, answer, now: now))  // the one door every kind's answers take
        }
    }

    private func startVars(_ request: ActionRequest, _ captures: [String: String]) -> TemplateVars {
        let local = request.device
        var vars = deviceVars(local).underlaid(with: captures)
        let to = request.to.map { table.devices[$0].identity }
        vars[.toHandles] = Self.jsonList(to) { handleJSON($0.handle) }
        vars[.toIDs] = Self.jsonList(to) { "\"" + $0.id + "\"" }
        if let first = to.first {
            vars[.toID] = first.id
            vars[.toHandle] = first.handle.value
        }
        vars[.video] = request.video ? "true" : "false"
        vars[.capabilities] = capabilitiesJSON(table.devices[local].manager.configuration.supportedCapabilities)
        return vars
    }

    /// `[a,b,…]` of each element's text, written into one String of its final size (the `+` and `joined` of the
    /// texts were a String each, issue 33).
    private static func jsonList(_ items: [DeviceIdentity], _ text: (DeviceIdentity) -> String) -> String {
        let texts = items.map(text)
        var out = ""
        out.reserveCapacity(2 + texts.reduce(max(texts.count - 1, 0)) { $0 + $1.utf8.count })
        out.append("[")
        for (i, item) in texts.enumerated() {
            if i > 0 { out.append(",") }
            out.append(item)
        }
        out.append("]")
        return out
    }

    /// A configuration's capabilities as the templates' JSON list, made once per set (a device's never change).
    private func capabilitiesJSON(_ set: Capabilities) -> String {
        if let made = capabilitiesTexts[set.rawValue] { return made }
        let made = "[" + set.names.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        capabilitiesTexts[set.rawValue] = made
        return made
    }

    private func memberVars(_ request: ActionRequest, _ captures: [String: String]) -> TemplateVars {
        let (local, uuid, reason) = (request.device, request.conversation, request.reason)
        var vars = deviceVars(local).underlaid(with: captures)
        vars[.conversationID] = uuid
        vars[.reason] = reason ?? ""
        vars[.reasonJSON] = reason.map { "\"" + $0 + "\"" } ?? "null"
        vars[.deviceReportedAt] = faults.reportedAtMillis(local, uuid).map(String.init) ?? "null"
        vars[.pushSentAt] = table.devices[local].pushSentAt[uuid].map(String.init) ?? "null"
        if let other = request.with { vars[.withID] = other }
        if let m = request.member {
            let member = table.devices[m].identity
            vars[.memberID] = member.id
            vars[.memberHandle] = member.handle.value
        }
        return vars
    }

    /// A device polls the target's view of a conversation its flow waits on (the mapped `get`, counted like any
    /// request; `observe.polls` and, for first-contact diagnostics, `observe.polls_not_found`).
    func poll(_ uuid: String, for local: Int, call id: Int) {
        var vars = deviceVars(local)
        vars[.conversationID] = uuid
        send("get", vars, device: local, call: id) { [self] result, endpoint in
            let now = clock.nowNanos()
            count(result, endpoint: endpoint, badBody: false, at: now)
            books.count(.observePolls, at: now)
            var view: ConversationView?
            if case .success(let response) = result {
                if response.status == 404 { books.count(.observePollsNotFound, at: now) }
                if endpoint?.accepts(response.status) == true { view = api.reader.response(response.body) }
            }
            host.tell(id, now: now) { $0.observed(view, on: local, now: now, &$1) }
        }
    }

    /// The target's view of each conversation (its mapped `get`), for the call's end-of-flow comparison.
    func fetchViews(_ uuids: [String], call id: Int) {
        for uuid in uuids {
            send("get", ["conversation.id": uuid], call: id, verification: true) { [self] result, endpoint in
                let now = clock.nowNanos()
                count(result, endpoint: endpoint, badBody: false, at: now)
                guard table.has(id) else { return }
                var view: ConversationView?
                if case .success(let response) = result, endpoint?.accepts(response.status) == true {
                    view = api.reader.response(response.body)
                }
                host.tell(id, now: now) { $0.viewFetched(uuid, view, now: now, &$1) }
            }
        }
    }

    /// Counts transport errors by kind, answers the endpoint does not expect by status (a 200 where the API
    /// promises 201 too), and expected answers whose body could not be read (`badBody`) as bad responses, so
    /// failures are never silent.
    func count(_ result: Result<ClientResponse, TransportError>, endpoint: APIMapping.Endpoint? = nil,
               badBody: Bool = false, at now: UInt64) {
        switch result {
        case .success(let response) where response.status == 0: books.count(.badResponse, at: now)
        case .success(let response) where endpoint?.accepts(response.status) ?? (200..<300).contains(response.status):
            if badBody { books.count(.badResponse, at: now) }
        case .success(let response): books.count(.httpStatus(response.status), at: now)
        case .failure(let error): books.count(.error(error.kind), at: now)
        }
    }

    func countCapture(_ name: String, matched: Bool) {
        books.count(.apiCapture(name, matched: matched), at: clock.nowNanos())
    }

    // MARK: - Requests

    /// The template variables every request of a device has (its identity's values and its clock's).
    func deviceVars(_ local: Int) -> TemplateVars {
        TemplateVars(device: table.devices[local].identity, timeMillis: faults.deviceTimeMillis(local))
    }

    /// Sends operation `op` of the target's API; `completion` gets the endpoint used (nil when the mapping lacks it).
    /// A `verification` request is the harness's own (the final-view fetch), not a device's: it keeps pooled
    /// connections even inside a network fault window. `route` is asked first (a device socket).
    func send(_ op: String, _ vars: TemplateVars, device local: Int? = nil, call: Int? = nil,
              verification: Bool = false, route: ActionRoute? = nil, completion: @escaping Completion) {
        nonisolated(unsafe) var completion = completion  // runs on this worker's loop, like everything here
        var vars = vars
        // OpenTelemetry (--otlp): a sampled call's trace context, for the header and `${trace.parent}`.
        let traceparent = call.flatMap { books.tracer?.traceparent(call: $0) }
        if let traceparent { vars[.traceParent] = traceparent }
        if let local, faults.isOffline(local) {
            // An offline phone reaches nobody (a device fault): the request fails like a dead network.
            books.count(.fault("device.offline_request"), at: clock.nowNanos())
            loop.execute { completion(.failure(.connect("device offline (fault window)")), nil) }
            return
        }
        if let local, !verification, let route,
           route.send(op, vars, device: local, call: call, completion: completion) {
            return
        }
        let timeout = Int(settings.actionTimeoutNanos / 1_000_000)
        let baseURL = local.flatMap { faults.networkRoute($0, routes: settings.networkRoutes) } ?? settings.targetURL
        guard let (parts, missing) = api.request(op, vars: vars, baseURL: baseURL, timeoutMillis: timeout)
        else {
            completion(.failure(.other(code: -1, message: "target.api has no '\(op)' endpoint")), nil)
            return
        }
        if !missing.isEmpty { books.count(.apiMissingVariable, at: clock.nowNanos()) }
        var request = ClientRequest(method: parts.method, url: parts.url, headers: parts.headers,
                                    body: Array(parts.body.utf8), timeoutMillis: timeout)
        if let traceparent, let header = books.tracer?.settings.traceparentHeader, !verification {
            request.headers.append("\(header): \(traceparent)")
        }
        request.collectsHeaders = false  // flows read status and body only
        request.freshConnection = !verification && faults.needsFreshConnection()
        completion = traced(completion, call: call, device: local, op: op, method: parts.method, url: parts.url,
                            body: parts.body)
        let endpoint = parts.endpoint  // the closure keeps this, not the request's texts
        loop.client.send(request) { [self] result in
            if books.sealed { return }
            completion(result, endpoint)
        }
    }

    /// `completion`, writing the exchange to trace.jsonl first when `--trace` covers `call` (HTTP requests and
    /// socket actions alike: a socket action's method is `WS`).
    func traced(_ completion: @escaping Completion, call: Int?, device local: Int?, op: String, method: String,
                url: String, body: String) -> Completion {
        guard let trace = settings.trace, let call, trace.traces(call) else { return completion }
        let device = local.map { table.devices[$0].identity.id } ?? ""
        return { [self] result, endpoint in
            var (status, response, error): (Int, [UInt8], String?) = (0, [], nil)
            switch result {
            case .success(let answer): (status, response) = (answer.status, answer.body)
            case .failure(let failure): error = failure.kind
            }
            trace.exchange(call: call, device: device, op: op, method: method, url: url, body: body, status: status,
                           response: response, error: error, t: clock.nowNanos() &- books.runStart)
            completion(result, endpoint)
        }
    }
}

/// A way other than HTTP to carry some of a device's operations (its socket): asked before HTTP, it takes the
/// operations it carries and answers them through `completion` as an HTTP answer would. An answer that says the
/// conversation had already ended, in words HTTP has no status for, carries `ActionSender.routeAlreadyEndedHeader`.
protocol ActionRoute: AnyObject {
    /// False when `op` goes over HTTP.
    func send(_ op: String, _ vars: TemplateVars, device local: Int, call: Int?,
              completion: @escaping ActionSender.Completion) -> Bool
}

/// A handle as the templates' JSON object (its texts as they are, unescaped, as ever), written into one String of
/// the right size: the interpolation's seven `String.append`s cost ~2,000 instructions a handle, three to five
/// handles a call (issue 33).
func handleJSON(_ h: Handle) -> String {
    let kind = h.kind.rawValue
    let count = 39 + kind.utf8.count + h.value.utf8.count + h.displayName.utf8.count
    return String(unsafeUninitializedCapacity: count) { buffer in
        var at = 0
        func put(_ text: StaticString) {
            _ = UnsafeMutableBufferPointer(rebasing: buffer[at..<(at + text.utf8CodeUnitCount)])
                .update(fromContentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
            at += text.utf8CodeUnitCount
        }
        func put(_ text: String) {
            // Native strings (all of these) lend their bytes: one copy. UTF8View's iterator cost ~20 a byte.
            let copied = text.utf8.withContiguousStorageIfAvailable { bytes in
                _ = UnsafeMutableBufferPointer(rebasing: buffer[at..<(at + bytes.count)]).update(fromContentsOf: bytes)
                return bytes.count
            }
            if let copied {
                at += copied
                return
            }
            for byte in text.utf8 {
                buffer[at] = byte
                at += 1
            }
        }
        put("{\"kind\":\"")
        put(kind)
        put("\",\"value\":\"")
        put(h.value)
        put("\",\"displayName\":\"")
        put(h.displayName)
        put("\"}")
        return at
    }
}
