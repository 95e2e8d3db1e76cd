/// The connections of one origin: the idle ones ready for a request, how many are open, and the requests that
/// wait because all `maxConnectionsPerOrigin` are busy. Used on the client's queue only.
final class WireOriginPool {
    let origin: WireOrigin
    /// The address connections go to: an IP literal, resolved once.
    let address: String
    /// Most recently used last, so a reused connection is the warmest.
    var idle: [WireConnection] = []
    /// Connections open or opening, idle ones included.
    var open = 0
    private var waiting: [WireConnection.Exchange] = []
    private var waitingHead = 0

    init(origin: WireOrigin, address: String) {
        self.origin = origin
        self.address = address
    }

    var hasWaiting: Bool { waitingHead < waiting.count }

    func enqueue(_ exchange: WireConnection.Exchange) {
        waiting.append(exchange)
    }

    func dequeue() -> WireConnection.Exchange? {
        guard waitingHead < waiting.count else { return nil }
        let exchange = waiting[waitingHead]
        waitingHead += 1
        if waitingHead == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            waitingHead = 0
        } else if waitingHead >= 1024 && waitingHead * 2 >= waiting.count {
            waiting.removeFirst(waitingHead)
            waitingHead = 0
        }
        return exchange
    }

    /// Takes out every waiting request (the client is closing).
    func drainWaiting() -> [WireConnection.Exchange] {
        defer {
            waiting = []
            waitingHead = 0
        }
        return Array(waiting[waitingHead...])
    }

    func removeIdle(_ connection: WireConnection) {
        if let index = idle.firstIndex(where: { $0 === connection }) { idle.remove(at: index) }
    }
}
