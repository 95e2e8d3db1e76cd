/// Devices that signal over HTTP only: every registration and action is a request rendered from the target API's
/// mapping (`ActionSender`); what they hear comes by push (`PushIntake`). The kind every device falls back to.
///
/// Ownership rule: touched only on the worker's loop.
final class HTTPSignaling: DeviceSignaling {
    private let sender: ActionSender

    private init(sender: ActionSender) { self.sender = sender }

    static func make(_ parts: SignalingParts) -> HTTPSignaling? { HTTPSignaling(sender: parts.sender) }

    func serves(_ local: Int) -> Bool { true }

    func register(_ local: Int, then: @escaping () -> Void) {
        sender.register(local) { _ in then() }
    }

    func perform(_ request: ActionRequest) { sender.perform(request) }

    /// A relaunched app registers again (issue 37).
    func moment(_ moment: AppMoment, device local: Int) {
        if case .relaunched = moment { sender.reregister(local) }
    }
}
