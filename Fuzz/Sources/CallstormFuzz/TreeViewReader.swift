import CallModel
@testable import Driver
import Scenario
import TextEscaping

/// The view reader as it was before issue 33 read documents in one pass: a JSONLite tree per document, then each
/// mapped path looked up in it. Kept as the oracle the fuzzer holds `ViewReader` to (JSONScanFuzz.swift): the
/// same views, answers and push payloads, and the same refusals.
struct TreeViewReader {
    let reader: ViewReader
    private let view: [String: [JSONPattern.Step]]
    private let push: [String: [JSONPattern.Step]]

    init(_ reader: ViewReader) {
        self.reader = reader
        var view: [String: [JSONPattern.Step]] = [:]
        for (field, text) in reader.mapping?.paths ?? [] { view[field] = ViewSlots.steps(text) }
        var push: [String: [JSONPattern.Step]] = [:]
        for (field, text) in reader.push.paths { push[field] = ViewSlots.steps(text) }
        (self.view, self.push) = (view, push)
    }

    private func at(_ field: String, _ json: JSONLite.Value) -> JSONLite.Value? {
        view[field].flatMap { json.value(at: $0) }
    }

    func response(_ bytes: [UInt8]) -> ConversationView? {
        guard let root = JSONLite.parse(bytes) else { return nil }
        return at("response", root).flatMap(view(in:))
    }

    func answer(_ bytes: [UInt8], split wantSplit: Bool) -> (view: ConversationView?, split: ConversationView?) {
        let wantView = reader.mapping != nil
        let wantSplit = wantSplit && view["split"] != nil
        guard wantView || wantSplit, let root = JSONLite.parse(bytes) else { return (nil, nil) }
        let view = wantView ? at("response", root).flatMap(view(in:)) : nil
        guard wantSplit, case .object = root, let raw = at("split", root) else { return (view, nil) }
        return (view, JSONField(raw, self.view(in:)).value)
    }

    func view(in json: JSONLite.Value) -> ConversationView? {
        guard let mapping = reader.mapping, case .object = json, let id = at("id", json)?.stringValue,
              let rawMembers = at("members", json)?.arrayValue else { return nil }
        var version = 0
        if view["version"] != nil {
            guard let v = at("version", json)?.intValue else { return nil }
            version = v
        }
        let ended = JSONField(at("ended", json)) { $0.boolValue }
        let state = JSONField(at("state", json)) { $0.stringValue }
        let reason = JSONField(at("ended_reason", json)) { $0.stringValue }
        let capabilities = JSONField(at("capabilities", json), Self.strings)
        if ended.isMismatch || state.isMismatch || reason.isMismatch || capabilities.isMismatch { return nil }
        var members: [ConversationView.Member] = []
        for raw in rawMembers {
            guard let rawID = at("member.id", raw)?.stringValue, let status = at("member.status", raw)?.stringValue
            else { return nil }
            let device = ViewReader.isDeviceID(rawID) ? rawID : DeviceIdentity.id(forHandleValue: rawID)
            let handle: Handle
            if view["member.handle"] != nil {
                guard let h = at("member.handle", raw).flatMap(Self.handle) else { return nil }
                handle = h
            } else {
                handle = (reader.handles.map { $0.handle(forID: device) } ?? DeviceIdentity.handle(forID: device))
                    ?? Handle(kind: .generic, value: rawID, displayName: rawID)
            }
            members.append(ConversationView.Member(device: device, handle: handle, state: mapping.memberWord(status)))
        }
        let hasEnded = ended.value ?? (state.value.map(mapping.stateWord) == "left")
        var view = ConversationView(uuid: id, version: version, ended: hasEnded, members: members)
        view.endedReason = reason.value
        view.hasVersion = self.view["version"] != nil
        view.capabilities = capabilities.value.map {
            Capabilities(names: CapabilityWords.lck($0, mapping.capabilityWords))
        }
        return view
    }

    func push(_ bytes: [UInt8]) -> PushPayload? {
        guard let root = JSONLite.parse(bytes), case .object = root else { return nil }
        func field<T>(_ name: String, _ read: (JSONLite.Value) -> T?) -> JSONField<T> {
            JSONField(push[name].flatMap { root.value(at: $0) }, read)
        }
        let uuid = field("conversation") { $0.stringValue }
        let event = field("event") { $0.stringValue }
        let caller = field("handle", Self.pushHandle)
        let capabilities = field("capabilities", Self.strings)
        let version = field("version") { $0.intValue }
        let reason = field("reason") { $0.stringValue }
        let into = field("into") { $0.stringValue }
        let view = field("view") { self.view(in: $0) }
        if uuid.isMismatch || event.isMismatch || caller.isMismatch || capabilities.isMismatch
            || version.isMismatch || reason.isMismatch || into.isMismatch || view.isMismatch {
            return nil
        }
        let fields = reader.push
        var word = event.value
        if let raw = word {
            word = fields.ended.contains(raw) ? "ended" : fields.joined.contains(raw) ? "joined"
                : fields.merged.contains(raw) ? "merged" : fields.split.contains(raw) ? "split" : raw
        }
        return PushPayload(uuid: uuid.value, caller: caller.value ?? nil,
                           capabilities: capabilities.value.map { CapabilityWords.lck($0, fields.capabilityWords) },
                           event: word, version: version.value, reason: reason.value, into: into.value,
                           view: view.value, sentAt: push["sent_at"].flatMap { root.value(at: $0) }?.intValue)
    }

    private static func pushHandle(_ raw: JSONLite.Value) -> Handle?? {
        if let value = raw.stringValue { return .some(Handle(kind: .generic, value: value, displayName: value)) }
        guard case .object = raw else { return nil }
        let kind = JSONField(raw["kind"]) { $0.stringValue }
        let value = JSONField(raw["value"]) { $0.stringValue }
        let name = JSONField(raw["displayName"]) { $0.stringValue }
        if kind.isMismatch || value.isMismatch || name.isMismatch { return nil }
        guard let text = value.value else { return .some(nil) }
        return .some(Handle(kind: kind.value.flatMap(Handle.Kind.init(rawValue:)) ?? .generic, value: text,
                            displayName: name.value ?? text))
    }

    private static func handle(_ json: JSONLite.Value) -> Handle? {
        if let value = json.stringValue { return Handle(kind: .generic, value: value, displayName: value) }
        guard let kind = json["kind"]?.stringValue.flatMap(Handle.Kind.init(rawValue:)),
              let value = json["value"]?.stringValue, let displayName = json["displayName"]?.stringValue else {
            return nil
        }
        return Handle(kind: kind, value: value, displayName: displayName)
    }

    private static func strings(_ raw: JSONLite.Value) -> [String]? {
        guard let items = raw.arrayValue else { return nil }
        var strings: [String] = []
        for item in items {
            guard let s = item.stringValue else { return nil }
            strings.append(s)
        }
        return strings
    }
}
