import Foundation

/// Users with several devices (issue 36): devices registered under one handle are one user's. A call to the
/// handle rings all of them; when one answers (or declines), the server stops the others and tells each with a
/// background push and a socket event (`ended`, reason `joinedElsewhere` / `declinedElsewhere`), never with a
/// VoIP push, which would be a VoIP push without a new call. Two bugs break this on purpose
/// (`elsewhere-keeps-ringing`, `elsewhere-voip-cancel`).
extension ReferenceTarget {
    /// The other devices of the user (same handle) of member `index` that still ring: marked left. Returns them.
    func stopOtherDevices(_ conversation: inout ServerConversation, of index: Int) -> [String] {
        let me = conversation.members[index]
        var stopped: [String] = []
        for i in conversation.members.indices where i != index {
            let member = conversation.members[i]
            guard member.handle.value == me.handle.value, member.state == .ringing else { continue }
            conversation.members[i].state = .left
            stopped.append(member.device)
        }
        return stopped
    }

    /// What each stopped device is told (`joined`: answered elsewhere, else declined elsewhere).
    func elsewhereNotices(_ s: State, _ stopped: [String], _ conversation: ServerConversation, by device: String,
                          joined: Bool, view: [UInt8]? = nil) -> [Notice] {
        var told = stopped
        // The bug: the last device is marked left but never told, so it rings on.
        if bugs.contains(.elsewhereKeepsRinging), !told.isEmpty { told.removeLast() }
        let reason = joined ? "joinedElsewhere" : "declinedElsewhere"
        return told.compactMap { recipient in
            guard var n = notice(s.devices[recipient]?.apnsToken, to: recipient, uuid: conversation.id,
                                 event: "ended", by: device, about: conversation, reason: reason,
                                 view: view) else { return nil }
            n.voip = bugs.contains(.elsewhereVoIPCancel)
            return n
        }
    }
}

extension ReferenceTarget.State {
    /// Registers (or registers again) a device under its handle, beside the handle's other devices.
    mutating func register(_ device: RegisteredDevice) {
        if let old = devices[device.id], old.handle.value != device.handle.value {
            devicesByHandle[old.handle.value]?.removeAll { $0 == device.id }
            if devicesByHandle[old.handle.value]?.isEmpty == true { devicesByHandle[old.handle.value] = nil }
        }
        devices[device.id] = device
        if !(devicesByHandle[device.handle.value]?.contains(device.id) ?? false) {
            devicesByHandle[device.handle.value, default: []].append(device.id)
        }
    }
}
