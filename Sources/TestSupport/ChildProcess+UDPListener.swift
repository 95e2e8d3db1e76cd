import Foundation

extension ChildProcess {
    /// Starts a program that listens on a UDP port a test picks (SIPp as a UAS), on a free port, and returns it
    /// with the port once the program holds it. A free port can be taken by another test between the pick and the
    /// program's bind (SIPp then exits: "Unable to bind main socket, errno = 98"), and `udpPortIsBound` alone cannot
    /// tell whose socket holds it; so a program that exited is started again on a new port, up to `attempts` times.
    public static func startUDPListener(_ executable: String, arguments: (Int) -> [String], in directory: URL,
                                        logs: URL, name: String, attempts: Int = 5,
                                        freePort: () -> Int?) throws -> (process: ChildProcess, port: Int) {
        var lastError = ""
        for attempt in 1...attempts {
            guard let port = freePort() else { continue }
            let child = try start(executable, arguments(port), in: directory, logs: logs,
                                  name: attempt == 1 ? name : "\(name)-\(attempt)")
            let held = eventually(20) { !child.process.isRunning || udpPortIsBound(port) }
            // Bound and still running a moment later: the program's own socket, not another test's.
            if held && child.process.isRunning && child.wait(seconds: 0.2, orLeaveRunning: true) {
                return (child, port)
            }
            lastError = child.errorText
            child.stop()
        }
        throw ListenerError.couldNotBind(name: name, attempts: attempts, lastError: lastError)
    }

    /// Waits up to `seconds` for the child to exit without stopping it: true when it is still running after.
    func wait(seconds: Double, orLeaveRunning: Bool) -> Bool {
        !Self.exits(process, within: seconds, pollMicros: 20_000)
    }

    public enum ListenerError: Error, CustomStringConvertible {
        case couldNotBind(name: String, attempts: Int, lastError: String)

        public var description: String {
            switch self {
            case .couldNotBind(let name, let attempts, let lastError):
                return "\(name) could not hold a UDP port in \(attempts) attempts; its last error: \(lastError)"
            }
        }
    }
}
