import CallModel
import Scenario

/// The caller's handle in a VoIP push, checked as an app needs it (the session: "include a stable conversation
/// UUID and caller handle in the push payload"; Recents redials the handle): present, of a kind the app declares
/// (`supportedHandleTypes`), the caller's registered handle, and the same in every push from that caller.
/// A value: the push's handle and what the device knows in, defects out.
struct CallerHandleCheck: Sendable {
    /// The suffix of `handles.caller_<defect>`.
    enum Defect: String, Sendable, CaseIterable {
        case missing
        case unsupportedKind = "unsupported_kind"
        /// Not the handle the caller registered with (a transient token, another format of the number).
        case notRegistered = "not_registered"
        /// Differs from what an earlier push named for the same caller.
        case unstable
    }

    let handles: HandleBook

    /// `previous`: the handle value an earlier push named for this caller, if any.
    func defects(_ pushed: Handle?, registered: Handle, previous: String?) -> [Defect] {
        guard let pushed, !pushed.value.isEmpty else { return [.missing] }
        var defects: [Defect] = []
        if !handles.supports(pushed.kind) { defects.append(.unsupportedKind) }
        if pushed.value != registered.value { defects.append(.notRegistered) }
        if let previous, previous != pushed.value { defects.append(.unstable) }
        return defects
    }
}
