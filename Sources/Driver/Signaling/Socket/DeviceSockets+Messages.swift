import CallModel
import Foundation
import Metrics
import RunFormats
import Scenario
import Transport
import WebSocket
import WebSocketClient

/// What arrives on a device's socket (events into the observation seam, replies to its actions), the actions it
/// sends there, and its end. Runs on the worker's loop.
extension DeviceSockets {
    func event(_ id: UInt64, _ event: ClientConnection.Event) {
        guard !links.stopping, !books.sealed, let local = links.device[id] else { return }
        let now = now
        switch event {
        case .opened:
            lifecycle.opened(local, now: now)
        case .message(.text(let text)):
            message(Array(text.utf8), from: local, now: now)
        case .message:
            books.count(.socketMessagesBinary, at: now)
        case .pong:
            break
        case .closed(let report):
            links.device[id] = nil
            if links.socket[local] == id { links.socket[local] = nil }
            attributeEnd(id, report, local: local, now: now)
            closed(local, report, now: now)
        }
        applyEffects()
    }

    private func closed(_ local: Int, _ report: CloseReport, now: UInt64) {
        var (byServer, lost, kind): (Bool, Bool, String?) = (false, true, nil)
        switch report.cause {
        case .remote: (byServer, lost) = (true, false)
        case .local: lost = false
        case .protocolError(let error): kind = error.kind
        case .aborted, .transport, .handshakeFailed, .connectFailed, .tlsFailed: break
        }
        if lifecycle[local].phase == .connecting {
            books.count(.socketConnectFailed(report.cause.kind), at: now)
        }
        lifecycle.closed(local, byServer: byServer, lost: lost, code: Int(report.code.rawValue),
                         protocolKind: kind, live: table.isLive(local), now: now)
        // Actions sent on this socket lose their replies; queued ones wait for the next socket.
        let waiting = Set(links.queued[local] ?? [])
        let sent = links.outgoing.filter { $0.value.device == local && !waiting.contains($0.key) }
        for request in sent.keys.sorted() {
            guard let outgoing = links.outgoing.removeValue(forKey: request) else { continue }
            // Later on the loop: a close can come from inside the send that is still handing this action over.
            let (completion, endpoint, books) = (outgoing.completion, outgoing.endpoint, books)
            loop.execute {
                if !books.sealed { completion(.failure(.reset("socket closed before the reply")), endpoint) }
            }
        }
    }

    /// A server→device text message: a reply when it echoes the id of an action in flight, else an event read
    /// like a background push.
    private func message(_ bytes: [UInt8], from local: Int, now: UInt64) {
        books.count(.socketMessages, at: now)
        let device = table.devices[local].identity.id
        if let trace = settings.trace, let call = table.devices[local].callID, trace.traces(call) {
            trace.push(call: call, device: device, pushType: "socket", payload: bytes, t: now &- books.runStart)
        }
        let payload: PushPayload?
        switch messages.classify(bytes, awaiting: { links.outgoing[$0] != nil }) {
        case .unreadable:
            books.count(.observed(.socketEvents, "bad_payload"), at: now)
            return
        case .ignored:
            books.count(.socketEventsIgnored, at: now)
            return
        case .reply(let id, let response):
            guard let outgoing = links.outgoing.removeValue(forKey: id) else { return }
            outgoing.completion(.success(response), outgoing.endpoint)
            return
        case .event(let read):
            payload = read
        }
        if let sent = payload?.sentAt {
            let nowMillis = Int(Date().timeIntervalSince1970 * 1000)
            books.record(.socketEventDelivery, micros: Int64(max(0, nowMillis - sent)) * 1000, at: now)
        }
        if let journal = books.journal, let uuid = payload?.uuid {
            // Like a push: some past state of the server, which the history checker weighs as such.
            let t = now &- books.runStart
            journal.history {
                HistoryText.push(t: t, device: device, event: payload?.event ?? "unknown", conversation: uuid,
                                 into: payload?.into, view: payload?.view,
                                 user: table.devices[local].identity.user, reason: payload?.reason, into: &$0)
            }
        }
        if let uuid = payload?.uuid {
            lifecycle.heard(local, about: uuid, now: now)
            if let into = payload?.into, into != uuid { lifecycle.heard(local, about: into, now: now) }
        }
        parts.host.apply(.observe(payload, device: local, channel: .socketEvents, call: nil, now: now))
    }

    /// Sends `op` over the device's socket when the mapping puts it there: at once when the socket is open,
    /// else after it opens (the app opens it for the user's action). The reply comes back through `completion`
    /// as an HTTP answer would; no reply within `action_timeout` is a timeout. False when `op` goes over HTTP.
    func send(_ op: String, _ vars: TemplateVars, device local: Int, call: Int? = nil,
              completion: @escaping ActionSender.Completion) -> Bool {
        guard let template = templates.actions[op] else { return false }
        let now = now
        links.nextRequest += 1
        // Unique per worker, so the `w` prefix keeps workers apart.
        let id = "w\(parts.worker)-\(links.nextRequest)"
        var vars = vars
        vars[.requestID] = id
        var missing: [String] = []
        let text = template.render(vars, &missing)
        if !missing.isEmpty { books.count(.apiMissingVariable, at: now) }
        let endpoints = sender.api.mapping.endpoints
        let endpoint = endpoints[op] ?? (op == "decline" ? endpoints["end"] : nil)
            ?? APIMapping.Endpoint(method: "WS", path: "")
        let completion = sender.traced(completion, call: call, device: local, op: op, method: "WS",
                                       url: mapping.url, body: text)
        links.outgoing[id] = Outgoing(device: local, text: text, endpoint: endpoint, completion: completion)
        schedule(.reply(id), at: now + settings.actionTimeoutNanos)
        books.count(.socketActions(op), at: now)
        if lifecycle[local].phase == .open, let socket = links.socket[local] {
            pool.send(socket, text: text)
        } else {
            books.count(.socketActionsQueued, at: now)
            links.queued[local, default: []].append(id)
            userActs(local)
        }
        return true
    }

    /// No reply within `action_timeout`: the action timed out (queued or sent).
    func replyTimedOut(_ id: String) {
        guard let outgoing = links.outgoing.removeValue(forKey: id) else { return }
        links.queued[outgoing.device]?.removeAll { $0 == id }
        outgoing.completion(.failure(.timeout), outgoing.endpoint)
    }

    /// The run stops: sockets still open are counted as open at stop, then the pool is shut down (its last
    /// `.closed` events are not counted again).
    func stop() {
        lifecycle.stop()
        applyEffects()
        links.stopping = true
        pool.shutDown()
    }
}
