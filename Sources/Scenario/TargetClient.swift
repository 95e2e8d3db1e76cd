/// `target.client`: which HTTP client carries the devices' requests to the target (register, start, join, end,
/// hold, …). Both send the same requests and book the same outcomes and error kinds; they differ in cost per
/// request (docs/BENCHMARKS.md) and in what else they speak.
///
/// `wire` is the default since issue 33: the same requests, outcomes and error kinds (WireSenderParityTests,
/// HostileTargetTests, WireClientRunTests), at fewer instructions per request.
public enum TargetClient: String, Sendable, Equatable, CaseIterable {
    /// libcurl's multi handle on the worker's event thread (Transport's `HTTPClient`). Follows libcurl's proxy
    /// environment variables (`http_proxy`, `https_proxy`), which `wire` does not.
    case curl
    /// callstorm's own HTTP/1.1 client on the same event thread (HTTPWire, through Transport's `WireSender`):
    /// keep-alive, timeouts, chunked bodies, https verified against `target.ca` or the system store. The default.
    case wire

    /// What a scenario without `target.client` uses.
    public static let standard = TargetClient.wire
}
