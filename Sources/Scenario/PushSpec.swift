/// Where callstorm's push gateway listens and how long a device may take to report a VoIP push.
public struct PushSpec: Sendable, Equatable {
    /// Interface the gateway binds; loopback by default so a run never listens on the network by accident.
    public var listenHost: String
    /// Port the gateway binds; 0 lets the kernel pick a free one (tests and parallel runs need this).
    public var listenPort: Int
    /// Time from push to reported call after which the device counts a deadline miss, as iOS would kill the app.
    /// Apple publishes no figure, so this is a setting.
    public var deadlineNanos: UInt64
    /// App bundle id; APNs topics are `<bundleID>.voip` for VoIP pushes.
    public var bundleID: String
    /// After this many missed deadlines a device gets no more VoIP pushes, as iOS stops launching such an app.
    /// Apple publishes no number; 3 is the default.
    public var blockAfterMisses: Int = 3

    public init(
        listenHost: String = "127.0.0.1",
        listenPort: Int = 0,
        deadlineNanos: UInt64 = 5_000_000_000,
        bundleID: String = "com.example.callstorm"
    ) {
        self.listenHost = listenHost
        self.listenPort = listenPort
        self.deadlineNanos = deadlineNanos
        self.bundleID = bundleID
    }
}
