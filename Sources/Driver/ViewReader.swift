import CallModel
import Scenario
import TextEscaping

/// A push's payload as a device needs it: what happened, to which conversation, and the conversation's view.
struct PushPayload {
    var uuid: String?
    var caller: Handle?
    /// Nil when the push does not say: the device's own capabilities apply.
    var capabilities: [String]?
    /// `joined` and `ended` when the mapping's words say so, else the server's word.
    var event: String?
    var version: Int?
    var reason: String?
    var into: String?
    var view: ConversationView?
    /// The target's clock (epoch ms) when it sent the push, when it says (the reference target does).
    var sentAt: Int?
}

/// Reads conversation views and push payloads out of any JSON a server sends, with the `target.api` mapping's
/// paths and words. The reference protocol is read by this same code with its built-in mapping.
///
/// Reads are strict as JSONDecoder's were for the reference shapes: a mapped field present with the wrong type
/// fails the whole document (a `bad_response` or `pushes.bad_payload`), an absent optional one does not.
struct ViewReader: Sendable {
    let mapping: ViewMapping?
    let push: APIMapping.PushFields
    private let paths: Paths
    /// Each device's handle (`device.handles`); nil: every device has its phone number.
    let handles: HandleBook?

    /// The mapping's JSON paths, parsed once (the decoder already refused paths that do not parse) and kept in
    /// slots by field, so a read costs no lookup by name.
    private struct Paths: Sendable {
        var view = [JSONPath?](repeating: nil, count: ViewField.allCases.count)
        var push = [JSONPath?](repeating: nil, count: PushField.allCases.count)
    }

    /// The view mapping's fields; `name` as `ViewMapping.paths` names them, the raw value a slot.
    enum ViewField: Int, CaseIterable {
        case id, members, state, version, ended, response, split, endedReason, memberID, memberStatus, memberHandle,
             capabilities

        var name: String {
            switch self {
            case .id: "id"
            case .members: "members"
            case .state: "state"
            case .version: "version"
            case .ended: "ended"
            case .response: "response"
            case .split: "split"
            case .endedReason: "ended_reason"
            case .memberID: "member.id"
            case .memberStatus: "member.status"
            case .memberHandle: "member.handle"
            case .capabilities: "capabilities"
            }
        }
    }

    /// The push mapping's fields; `name` as `APIMapping.PushFields.paths` names them, the raw value a slot.
    enum PushField: Int, CaseIterable {
        case conversation, event, view, capabilities, handle, reason, into, version, sentAt

        var name: String { self == .sentAt ? "sent_at" : "\(self)" }
    }

    init(view mapping: ViewMapping?, push: APIMapping.PushFields, handles: HandleBook? = nil) {
        self.mapping = mapping
        self.push = push
        self.handles = handles
        var paths = Paths()
        for (field, text) in mapping?.paths ?? [] {
            guard let slot = ViewField.allCases.first(where: { $0.name == field }) else {
                preconditionFailure("ViewMapping.paths names a field the reader has no slot for: \(field)")
            }
            paths.view[slot.rawValue] = JSONPath(text)
        }
        for (field, text) in push.paths {
            guard let slot = PushField.allCases.first(where: { $0.name == field }) else {
                preconditionFailure("PushFields.paths names a field the reader has no slot for: \(field)")
            }
            paths.push[slot.rawValue] = JSONPath(text)
        }
        self.paths = paths
    }

    static let reference = ViewReader(view: .reference, push: .reference)

    func pushPath(_ field: PushField) -> JSONPath? { paths.push[field.rawValue] }

    private func has(_ field: ViewField) -> Bool { paths.view[field.rawValue] != nil }

    private func at(_ field: ViewField, _ json: JSONLite.Value) -> JSONLite.Value? {
        paths.view[field.rawValue].flatMap { $0.value(in: json) }
    }

    // MARK: - Views

    /// A whole document that is one view (what `get` returns, at the mapping's response path).
    func response(_ bytes: [UInt8]) -> ConversationView? {
        guard let root = JSONLite.parse(bytes) else { return nil }
        return at(.response, root).flatMap(view(in:))
    }

    /// An action's answer read once: the view it carries and the view of a conversation it split off (when
    /// `split` and the mapping says where answers carry one).
    func answer(_ bytes: [UInt8], split wantSplit: Bool) -> (view: ConversationView?, split: ConversationView?) {
        let wantView = mapping != nil
        let wantSplit = wantSplit && has(.split)
        guard wantView || wantSplit, let root = JSONLite.parse(bytes) else { return (nil, nil) }
        let view = wantView ? at(.response, root).flatMap(view(in:)) : nil
        guard wantSplit, case .object = root, let raw = at(.split, root) else { return (view, nil) }
        return (view, JSONField(raw, self.view(in:)).value)
    }

    /// The view held by one JSON object, or nil when it is not one.
    func view(in json: JSONLite.Value) -> ConversationView? {
        guard let mapping, case .object = json, let id = at(.id, json)?.stringValue,
              let rawMembers = at(.members, json)?.arrayValue else { return nil }
        var version = 0
        if has(.version) {
            guard let v = at(.version, json)?.intValue else { return nil }
            version = v
        }
        let ended = JSONField(at(.ended, json)) { $0.boolValue }
        let state = JSONField(at(.state, json)) { $0.stringValue }
        let reason = JSONField(at(.endedReason, json)) { $0.stringValue }
        let capabilities = JSONField(at(.capabilities, json), Self.strings)
        if ended.isMismatch || state.isMismatch || reason.isMismatch || capabilities.isMismatch { return nil }
        var members: [ConversationView.Member] = []
        members.reserveCapacity(rawMembers.count)
        for raw in rawMembers {
            guard let member = member(raw, mapping) else { return nil }
            members.append(member)
        }
        let hasEnded = ended.value ?? (state.value.map(mapping.stateWord) == "left")
        var view = ConversationView(uuid: id, version: version, ended: hasEnded, members: members)
        view.endedReason = reason.value
        view.hasVersion = has(.version)
        view.capabilities = capabilities.value.map {
            Capabilities(names: CapabilityWords.lck($0, mapping.capabilityWords))
        }
        return view
    }

    private func member(_ raw: JSONLite.Value, _ mapping: ViewMapping) -> ConversationView.Member? {
        guard let rawID = at(.memberID, raw)?.stringValue, let status = at(.memberStatus, raw)?.stringValue
        else { return nil }
        // A server may name members by device id or by phone number: either way the member is our device.
        let device = Self.isDeviceID(rawID) ? rawID : DeviceIdentity.id(forHandleValue: rawID)
        let handle: Handle
        if has(.memberHandle) {
            // The view says the handle: the one derived from the id would be thrown away.
            guard let h = at(.memberHandle, raw).flatMap(Self.handle) else { return nil }
            handle = h
        } else {
            handle = (handles.map { $0.handle(forID: device) } ?? DeviceIdentity.handle(forID: device))
                ?? Handle(kind: .generic, value: rawID, displayName: rawID)
        }
        return ConversationView.Member(device: device, handle: handle, state: mapping.memberWord(status))
    }

    /// `dev-N`: already a device id, which `DeviceIdentity.id(forHandleValue:)` would hand back unchanged after
    /// trying every handle shape on it (the reference views name every member so, several views a call).
    static func isDeviceID(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard utf8.count > 4, utf8.starts(with: "dev-".utf8) else { return false }
        return utf8.dropFirst(4).allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// A handle object (every field required) or a plain string.
    static func handle(_ json: JSONLite.Value) -> Handle? {
        if let value = json.stringValue { return Handle(kind: .generic, value: value, displayName: value) }
        guard let kind = json["kind"]?.stringValue.flatMap(Handle.Kind.init(rawValue:)),
              let value = json["value"]?.stringValue, let displayName = json["displayName"]?.stringValue else {
            return nil
        }
        return Handle(kind: kind, value: value, displayName: displayName)
    }
}
