/// The values of a request's `${…}` names. The names callstorm itself fills (`Name`: the device's, the call's, the
/// action's) are kept by their case, so building a request's values hashes no name and a compiled template finds
/// each by its index; any other name (a capture from an earlier answer) is looked up by name in `others`.
///
/// A slot that is set wins over a capture of the same name, and an unset slot lets the capture show through: what
/// the dictionary these replace gave (device values merged over the captures, the action's values set after).
struct TemplateVars: ExpressibleByDictionaryLiteral {
    enum Name: Int, CaseIterable {
        case deviceID, deviceHandle, deviceName, deviceToken, deviceHandleJSON, deviceTime, userID
        case toHandles, toIDs, toID, toHandle, video, capabilities
        case conversationID, reason, reasonJSON, deviceReportedAt, pushSentAt, withID, memberID, memberHandle
        case traceParent, requestID

        /// The name as templates write it.
        var text: String {
            switch self {
            case .deviceID: "device.id"
            case .deviceHandle: "device.handle"
            case .deviceName: "device.name"
            case .deviceToken: "device.token"
            case .deviceHandleJSON: "device.handle.json"
            case .deviceTime: "device.time"
            case .userID: "user.id"
            case .toHandles: "to.handles"
            case .toIDs: "to.ids"
            case .toID: "to.id"
            case .toHandle: "to.handle"
            case .video: "video"
            case .capabilities: "capabilities"
            case .conversationID: "conversation.id"
            case .reason: "reason"
            case .reasonJSON: "reason.json"
            case .deviceReportedAt: "device.reported_at"
            case .pushSentAt: "push.sent_at"
            case .withID: "with.id"
            case .memberID: "member.id"
            case .memberHandle: "member.handle"
            case .traceParent: "trace.parent"
            case .requestID: "request.id"
            }
        }

        static let byText = Dictionary(uniqueKeysWithValues: allCases.map { ($0.text, $0) })
    }

    /// The values set, each under its name, in the order first set: a request sets five or six of the 23 names,
    /// and an array of 23 optional slots cost an allocation of ~400 bytes and, when the request was done, a
    /// destroy of each slot in turn (~2,000 instructions a request, issue 33). Looked up by a scan: few entries.
    private var entries: [(name: Name, value: String)] = []
    /// Bit `rawValue` of each name in `entries`: a name not set (most lookups) is told without a scan.
    private var setNames: UInt32 = 0
    /// Names outside `Name`, and captures under any name (an unset slot shows them).
    private(set) var others: [String: String] = [:]
    /// The device whose values `device.*` and `user.id` are, kept as its identity: its texts are shared, not
    /// copied into slots, and `device.handle.json` is written only when a template names it. Built into an array
    /// of slots per request, with the handle's JSON and the time's text, they cost ~2,600 instructions and an
    /// allocation a request, three or four requests a call, and the reference mapping names most nowhere (issue 33).
    var device: DeviceIdentity?
    /// `device.time` (epoch ms) as a number, written as text only when a template names it.
    var deviceTimeMillis: Int64?

    init() {}

    /// The values every request of a device has: its identity's and its clock's (epoch ms).
    init(device: DeviceIdentity, timeMillis: Int64) {
        self.device = device
        deviceTimeMillis = timeMillis
    }

    init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { self[name] = value }
    }

    /// A slot set wins; then the device's own value; then a capture of the same name.
    subscript(name: Name) -> String? {
        get {
            if setNames & (1 << name.rawValue) != 0 {
                for i in entries.indices where entries[i].name == name { return entries[i].value }
            }
            if let value = deviceValue(name) { return value }
            return others.isEmpty ? nil : others[name.text]
        }
        set {
            let bit: UInt32 = 1 << name.rawValue
            let at = setNames & bit == 0 ? nil : entries.indices.first { entries[$0].name == name }
            switch (at, newValue) {
            case (let at?, let value?): entries[at].value = value
            case (let at?, nil):
                entries.remove(at: at)
                setNames &= ~bit
            case (nil, let value?):
                if entries.isEmpty { entries.reserveCapacity(8) }
                entries.append((name, value))
                setNames |= bit
            case (nil, nil): break
            }
        }
    }

    private func deviceValue(_ name: Name) -> String? {
        switch name {
        case .deviceTime: return deviceTimeMillis.map { String($0) }
        case .deviceID: return device?.id
        case .deviceHandle: return device?.handle.value
        case .deviceName: return device?.handle.displayName
        case .deviceToken: return device?.apnsToken
        case .deviceHandleJSON: return device.map { handleJSON($0.handle) }
        case .userID: return device.map { $0.user ?? $0.id }  // each device its own user without `users:`
        default: return nil
        }
    }

    /// By name as a template writes it: a slot when it is one of `Name`, else `others`.
    subscript(text: String) -> String? {
        get {
            if let name = Name.byText[text] { return self[name] }
            return others.isEmpty ? nil : others[text]
        }
        set {
            if let name = Name.byText[text] { self[name] = newValue } else { others[text] = newValue }
        }
    }

    /// These values with `captures` under them: a capture shows only where no value of this set has its name.
    func underlaid(with captures: [String: String]) -> TemplateVars {
        guard !captures.isEmpty else { return self }
        var merged = self
        if others.isEmpty {
            merged.others = captures  // shared, not copied
        } else {
            merged.others.merge(captures) { mine, _ in mine }
        }
        return merged
    }
}
