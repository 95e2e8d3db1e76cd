import PushGateway
import Locking

/// A sink that keeps every push it is given, for assertions.
final class CollectingSink: PushSink {
    private let pushes = Mutex<[APNsPush]>([])
    private let refusal: APNsRejection?

    init(refusing refusal: APNsRejection? = nil) {
        self.refusal = refusal
    }

    var received: [APNsPush] { pushes.withLock { $0 } }

    func accept(_ push: APNsPush) -> APNsRejection? {
        if let refusal { return refusal }
        pushes.withLock { if $0.count < 10_000 { $0.append(push) } }
        return nil
    }
}
