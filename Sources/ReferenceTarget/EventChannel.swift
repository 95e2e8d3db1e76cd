import Foundation
import HTTPServer
import Locking
import struct Synchronization.Atomic
import TextEscaping
import WebSocket

/// The reference target's WebSocket event channel (`GET /v1/events?device=<id>`, docs/PROTOCOL.md): every
/// change of a conversation goes to its members' open sockets as `{"event","uuid","conversation","sentAt"}`,
/// a socket that opens gets the current view of each conversation its device is in, and actions sent over
/// the socket are answered over it with the client's id echoed.
///
/// Thread rules: `opened`/`received`/`closed` come on server loop threads; `publish` from whichever thread
/// changed a conversation. The registry is under one lock; sending goes through each peer's loop mailbox.
final class EventChannel: WebSocketSession {
    /// One change told to one device: the push notice's facts without the push.
    struct Event: Sendable {
        let device: String
        let event: String
        /// The conversation the event is about (for `merged`, the one that ended; for `split`, the one left).
        let uuid: String
        /// The conversation the event moved the device into (`merged`, `split`), if any.
        let into: String?
        /// The conversation's view JSON, as bytes (`ServerConversation.jsonBytes`); empty for none.
        let view: [UInt8]
        /// Why a user's other device was ended (`joinedElsewhere`, `declinedElsewhere`; issue 36). Other ends carry
        /// no reason on the socket, as before.
        var reason: String? = nil
    }

    private struct Registry {
        var peers: [String: [WebSocketPeer]] = [:]
        var deviceByConnection: [UInt64: String] = [:]
        /// Conversations each device is in as far as the events told it, for the snapshot on connect.
        var memberships: [String: Set<String>] = [:]
        var tally = CloseTally()
    }

    static let actions: Set<String> = ["join", "end", "pause", "resume", "merge", "unmerge"]

    /// What the channel asks of the target. Set once by `attach`, after the target is whole (the closures
    /// capture it), hence behind a lock rather than `let`s.
    struct Hooks: Sendable {
        /// Runs an action as the HTTP API would, answering through its callback.
        var perform: @Sendable (HTTPRequest, @escaping @Sendable (HTTPResponse) -> Void) -> Void
        /// A conversation's view JSON and whether it ended; nil when unknown.
        var lookUp: @Sendable (String) -> (view: [UInt8], ended: Bool)?
        /// Whether a device id is registered (sockets of unknown devices are refused with 404).
        var isRegistered: @Sendable (String) -> Bool
    }

    private let registry = Mutex(Registry())
    private let hooks = Mutex<Hooks?>(nil)
    let eventsSent = Atomic<Int>(0)
    let actionsAnswered = Atomic<Int>(0)

    func attach(_ hooks: Hooks) {
        self.hooks.withLock { $0 = hooks }
    }

    private var current: Hooks? { hooks.withLock { $0 } }

    // MARK: - Upgrade

    /// The answer to `GET /v1/events?device=<id>`: 101 for a registered device, else an error that says why.
    func upgrade(_ request: HTTPRequest) -> HTTPResponse {
        guard let device = Self.device(in: request.path) else {
            return .json(400, "{\"error\":\"the events channel needs ?device=<registered device id>\"}")
        }
        guard current?.isRegistered(device) == true else {
            return .json(404, "{\"error\":\(JSONText.quote("unknown device \(device): register it first"))}")
        }
        return WebSocketUpgrade.accept(request, session: self)
    }

    static func device(in path: String) -> String? {
        guard let query = path.split(separator: "?", maxSplits: 1).dropFirst().first else { return nil }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0] == "device" {
                let value = String(parts[1]).replacingOccurrences(of: "+", with: " ")
                return value.removingPercentEncoding ?? value
            }
        }
        return nil
    }

    // MARK: - Session

    func opened(_ peer: WebSocketPeer) {
        guard let device = Self.device(in: peer.request.path) else { return peer.close(.policyViolation) }
        let known = registry.withLock { r -> Set<String> in
            r.peers[device, default: []].append(peer)
            r.deviceByConnection[peer.id] = device
            r.tally.countOpen()
            return r.memberships[device] ?? []
        }
        // The app's first look after (re)connecting: the state of every conversation it is in.
        var gone: [String] = []
        let lookUp = current?.lookUp
        for id in known.sorted() {
            guard let (view, ended) = lookUp?(id), !ended else { gone.append(id); continue }
            peer.send(text: Self.text(Event(device: device, event: "updated", uuid: id, into: nil, view: view)))
            eventsSent.add(1, ordering: .relaxed)
        }
        if !gone.isEmpty {
            registry.withLock { r in for id in gone { r.memberships[device]?.remove(id) } }
        }
    }

    func received(_ message: Message, from peer: WebSocketPeer) {
        guard case .text(let text) = message else {
            return peer.close(.unsupportedData, reason: "actions are JSON text messages")
        }
        let device = registry.withLock { $0.deviceByConnection[peer.id] } ?? ""
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            return answer(peer, id: "null", status: 400, body: "{\"error\":\"an action is a JSON object\"}")
        }
        let id = Self.idJSON(object["id"])
        guard let op = object["op"] as? String, Self.actions.contains(op),
              let conversation = object["conversation"] as? String, !conversation.isEmpty else {
            let ops = Self.actions.sorted().joined(separator: "|")
            return answer(peer, id: id, status: 400,
                          body: "{\"error\":\(JSONText.quote("an action needs \"op\" (\(ops)) and \"conversation\""))}")
        }
        var body = object
        body["id"] = nil
        body["op"] = nil
        body["conversation"] = nil
        if body["device"] == nil { body["device"] = device }
        let bytes = (try? JSONSerialization.data(withJSONObject: body)).map { [UInt8]($0) } ?? []
        let path = "/v1/conversations/\(conversation)/\(op)"
        let request = HTTPRequest(method: "POST", path: path, headers: [], body: bytes, connectionID: peer.id)
        guard let perform = current?.perform else { return }
        perform(request) { [self] response in
            let text = String(decoding: response.body, as: UTF8.self)
            answer(peer, id: id, status: response.status, body: text.isEmpty ? "null" : text)
        }
    }

    func closed(_ peer: WebSocketPeer, _ report: CloseReport) {
        registry.withLock { $0.tally.count(report) }
    }

    /// Forgets a socket's connection (called for every connection the server closes, sockets or not).
    func connectionClosed(_ id: UInt64) {
        registry.withLock { r in
            guard let device = r.deviceByConnection.removeValue(forKey: id) else { return }
            r.peers[device]?.removeAll { $0.id == id }
            if r.peers[device]?.isEmpty == true { r.peers[device] = nil }
        }
    }

    private func answer(_ peer: WebSocketPeer, id: String, status: Int, body: String) {
        peer.send(text: "{\"id\":\(id),\"status\":\(status),\"body\":\(body)}")
        actionsAnswered.add(1, ordering: .relaxed)
    }

    /// The client's id as JSON, echoed as it came (a string or a number).
    private static func idJSON(_ value: Any?) -> String {
        switch value {
        case let text as String: return JSONText.quote(text)
        case let number as NSNumber: return number.stringValue
        default: return "null"
        }
    }

    // MARK: - Publishing

    /// Sends each event to its device's open sockets and keeps the memberships the snapshots need.
    func publish(_ events: [Event]) {
        guard !events.isEmpty else { return }
        let targets = registry.withLock { r -> [(WebSocketPeer, Event)] in
            var out: [(WebSocketPeer, Event)] = []
            for event in events {
                // Changed in place, one hash of the device: copying the set out and back made a new set each
                // time (~9,000 instructions a call; the dictionary still held the old one).
                // A device's set stays when it empties: its next call fills it again without a new set's
                // storage and two more dictionary changes (one set per device that was ever told of a call).
                if let at = r.memberships.index(forKey: event.device) {
                    Self.note(event, in: &r.memberships.values[at])
                } else {
                    var ids = Set<String>()
                    Self.note(event, in: &ids)
                    if !ids.isEmpty { r.memberships[event.device] = ids }
                }
                // An empty view only updates memberships (an actor that had no socket when it acted).
                guard !event.view.isEmpty else { continue }
                for peer in r.peers[event.device] ?? [] { out.append((peer, event)) }
            }
            return out
        }
        for (peer, event) in targets { peer.send(text: Self.text(event)) }
        eventsSent.add(targets.count, ordering: .relaxed)
    }

    /// The conversations a device is in after `event`.
    private static func note(_ event: Event, in ids: inout Set<String>) {
        switch event.event {
        case "ended": ids.remove(event.uuid)
        case "merged", "split":
            ids.remove(event.uuid)
            if let into = event.into { ids.insert(into) }
        default: ids.insert(event.uuid)
        }
    }

    /// An action's events: the other members' (as their pushes tell it) plus the actor's own, the conversation
    /// as it stands after the action.
    /// The actor's view is looked up (a second pass under the state lock) only when the actor has a socket open;
    /// otherwise only its memberships are kept, so the HTTP path of a run without sockets pays almost nothing.
    /// `others` is taken (consumed), so the actor's event is appended in its storage when it has room.
    func publishAction(_ others: consuming [Event], actor: String, conversation id: String, action: String) {
        var all = others
        let actorListens = registry.withLock { $0.peers[actor] != nil }
        if actorListens, let (view, ended) = current?.lookUp(id) {
            let event = ended ? "ended" : (action == "join" ? "joined" : "updated")
            all.append(Event(device: actor, event: event, uuid: id, into: nil, view: view))
        } else {
            let kept = action == "end" ? "ended" : "updated"
            all.append(Event(device: actor, event: kept, uuid: id, into: nil, view: []))
        }
        publish(all)
    }

    static func text(_ event: Event) -> String {
        let sentAt = Int64(Date().timeIntervalSince1970 * 1000)
        var out = "{\"event\":\"\(event.event)\",\"uuid\":\(JSONText.quote(event.uuid)),"
        if let into = event.into { out += "\"into\":\(JSONText.quote(into)),"}
        if let reason = event.reason { out += "\"reason\":\(JSONText.quote(reason)),"}
        return out + "\"conversation\":\(String(decoding: event.view, as: UTF8.self)),\"sentAt\":\(sentAt)}"
    }

    /// Ends every open socket at once (a server-side reconnect storm): a closing handshake with `code`, or with
    /// `code` nil an abrupt drop with no close frame. Returns how many sockets it ended.
    @discardableResult
    func dropAll(_ code: CloseCode?, reason: String) -> Int {
        let peers = registry.withLock { r in r.peers.values.flatMap { $0 } }
        for peer in peers {
            if let code { peer.close(code, reason: reason) } else { peer.abort() }
        }
        return peers.count
    }

    /// Sockets open now, and how the closed ones ended.
    var openSockets: Int { registry.withLock { $0.deviceByConnection.count } }
    var tally: CloseTally { registry.withLock { $0.tally } }
}
