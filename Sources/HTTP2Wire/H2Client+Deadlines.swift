import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Connect and answer deadlines on one timer: armed for the earliest, moved only earlier. Requests share one
/// timeout, so deadlines come in sending order and a steady stream of pushes re-arms nothing; when the timer
/// fires, one pass over what is in flight fails what is overdue (RST_STREAM CANCEL for a sent stream) and arms
/// the timer for the earliest left.
extension H2Client {
    func arm(_ deadline: UInt64) {
        guard deadline != 0, timerAt == 0 || deadline < timerAt else { return }
        timerAt = deadline
        timer?.arm(atMonotonicNanos: deadline)
    }

    func expire() {
        timerAt = 0
        let now = clinux_monotonic_ns()
        var next = UInt64.max
        for fd in byFD.keys.sorted() {
            guard let connection = byFD[fd] else { continue }
            if connection.phase != .ready {
                if connection.openDeadline <= now {
                    lose(connection, .connectFailed(errno: ETIMEDOUT))
                } else {
                    next = min(next, connection.openDeadline)
                }
                continue
            }
            var cancelled = false
            for (id, exchange) in connection.streams.sorted(by: { $0.key < $1.key }) {
                if exchange.deadline <= now {
                    connection.streams[id] = nil
                    if connection.receiving?.id == id { connection.receiving = nil }
                    connection.cancel(id)
                    cancelled = true
                    exchange.completion(.failure(.timeout(millis: exchange.request.timeoutMillis)))
                } else {
                    next = min(next, exchange.deadline)
                }
            }
            if cancelled { progress(connection) }
        }
        if next != .max { arm(next) }
    }
}
