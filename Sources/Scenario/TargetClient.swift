/// `target.client`: which HTTP client carries the devices' requests to the target (register, start, join, end,
/// hold, …). Both send the same requests and book the same outcomes and error kinds; they differ in cost per
/// request (docs/BENCHMARKS.md) and in what else they speak.
public enum TargetClient: String, Sendable, Equatable, CaseIterable {
    /// libcurl's multi handle on the worker's event thread (Transport's `HTTPClient`): the default.
    case curl
    /// callstorm's own HTTP/1.1 client on the same event thread (HTTPWire, through Transport's `WireSender`):
    /// keep-alive, timeouts, chunked bodies, https verified against `target.ca` or the system store.
    case wire
}
