import CallModel
import TextEscaping

// The request bodies the target reads, each read from its bytes with JSONLite's grammar (a member action's body in
// one pass over the bytes with `JSONScan`, no tree) and JSONDecoder's strictness (a missing required
// field or a field of the wrong type refuses the body; an absent or null optional one is nil; other keys are
// ignored). JSONDecoder cost ~50,000 instructions a body on Linux, three or four bodies a call: the largest share
// of the embedded target's work per call, on the cores it shares with the devices (issue 33).

struct RegisterBody {
    let id: String
    let handle: Handle
    let apnsToken: String

    init?(json bytes: [UInt8]) {
        guard let root = JSONLite.parse(bytes), case .object = root, let id = root["id"]?.stringValue,
              let handle = root["handle"].flatMap(Handle.init(json:)),
              let token = root["apnsToken"]?.stringValue else { return nil }
        (self.id, self.handle, self.apnsToken) = (id, handle, token)
    }
}

struct StartBody {
    let caller: String
    let handles: [Handle]
    let video: Bool?
    let capabilities: [String]?

    /// Where a start body's fields lie (`JSONScan`): the tree `JSONLite.parse` built, and the lookups in it, cost
    /// ~13,000 instructions a start (issue 33, the capacity flow's profile).
    private static let fields = Fields()

    private struct Fields {
        var pattern = JSONPattern()
        let root, caller, handles, handle, kind, value, displayName, video, capabilities, capability: JSONPattern.Slot

        init() {
            root = pattern.capture([])
            caller = pattern.capture([.key("caller")])
            let list = pattern.list([.key("handles")])
            handles = list.slot
            handle = pattern.capture([], in: list.elements)
            kind = pattern.capture([.key("kind")], in: list.elements)
            value = pattern.capture([.key("value")], in: list.elements)
            displayName = pattern.capture([.key("displayName")], in: list.elements)
            video = pattern.capture([.key("video")])
            let names = pattern.list([.key("capabilities")])
            capabilities = names.slot
            capability = pattern.capture([], in: names.elements)
        }
    }

    init?(json bytes: [UInt8]) {
        let f = Self.fields
        guard let scan = JSONScan(bytes, f.pattern), scan.kind(f.root) == .object, let caller = scan.string(f.caller),
              let items = scan.elements(f.handles) else { return nil }
        var handles: [Handle] = []
        handles.reserveCapacity(items.count)
        for item in items {
            // A handle object, every field required, `kind` one of the known words (`Handle.init(json:)`'s rule).
            guard scan.kind(f.handle, item) == .object,
                  let kind = scan.string(f.kind, item).flatMap(Handle.Kind.init(rawValue:)),
                  let value = scan.string(f.value, item), let name = scan.string(f.displayName, item)
            else { return nil }
            handles.append(Handle(kind: kind, value: value, displayName: name))
        }
        let video = scan.optional(f.video) { scan.bool($0) }
        let capabilities = scan.optional(f.capabilities) { slot -> [String]? in
            guard let elements = scan.elements(slot) else { return nil }
            var names: [String] = []
            for element in elements {
                guard let name = scan.string(f.capability, element) else { return nil }
                names.append(name)
            }
            return names
        }
        if video.isMismatch || capabilities.isMismatch { return nil }
        (self.caller, self.handles, self.video, self.capabilities) = (caller, handles, video.value, capabilities.value)
    }
}

/// The body of every member action: who does it, and the action's own fields.
struct MemberBody {
    let device: String
    /// end: why (told to the others), e.g. `unanswered`.
    let reason: String?
    /// merge: the conversation merged into this one.
    let with: String?
    /// unmerge: the member moved out into a conversation of their own with `device`.
    let member: String?
    /// join: when the device reported the push, by its clock, and when the target sent it (echoed from the
    /// push), by the target's (epoch ms); nil when absent, null or not an integer (no sample then).
    let reportedAt: Int64?
    let pushSentAt: Int64?

    /// Where a member body's fields lie (`JSONScan`; ~12,000 instructions a body through the tree).
    private static let fields = Fields()

    private struct Fields {
        var pattern = JSONPattern()
        let root, device, reason, with, member, reportedAt, pushSentAt: JSONPattern.Slot

        init() {
            root = pattern.capture([])
            device = pattern.capture([.key("device")])
            reason = pattern.capture([.key("reason")])
            with = pattern.capture([.key("with")])
            member = pattern.capture([.key("member")])
            reportedAt = pattern.capture([.key("reportedAt")])
            pushSentAt = pattern.capture([.key("pushSentAt")])
        }
    }

    init?(json bytes: [UInt8]) {
        let f = Self.fields
        guard let scan = JSONScan(bytes, f.pattern), scan.kind(f.root) == .object, let device = scan.string(f.device)
        else { return nil }
        let reason = scan.optional(f.reason) { scan.string($0) }
        let with = scan.optional(f.with) { scan.string($0) }
        let member = scan.optional(f.member) { scan.string($0) }
        if reason.isMismatch || with.isMismatch || member.isMismatch { return nil }
        (self.device, self.reason, self.with, self.member) = (device, reason.value, with.value, member.value)
        let reported = scan.optional(f.reportedAt) { scan.int($0) }
        let sent = scan.optional(f.pushSentAt) { scan.int($0) }
        // Read as JSONDecoder read the join's times apart: a bad one of the two drops both.
        let bad = reported.isMismatch || sent.isMismatch
        reportedAt = bad ? nil : reported.value.map(Int64.init)
        pushSentAt = bad ? nil : sent.value.map(Int64.init)
    }
}

extension JSONScan {
    /// An optional field by JSONDecoder's rule: absent when missing or null, a mismatch when `read` finds the
    /// wrong type.
    fileprivate func optional<T>(_ slot: JSONPattern.Slot, _ read: (JSONPattern.Slot) -> T?) -> JSONField<T> {
        guard isPresent(slot) else { return .absent }
        return read(slot).map(JSONField.value) ?? .mismatch
    }
}

extension Handle {
    /// A handle object, every field required, `kind` one of the known words.
    init?(json: JSONLite.Value) {
        guard case .object = json, let kind = json["kind"]?.stringValue.flatMap(Handle.Kind.init(rawValue:)),
              let value = json["value"]?.stringValue, let name = json["displayName"]?.stringValue else { return nil }
        self.init(kind: kind, value: value, displayName: name)
    }
}
