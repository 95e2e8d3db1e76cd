/// The gateway's public API speaks in PushModel's values (the pushes it accepts, the answers a sink gives), so
/// every user of the gateway sees them without a second import.
@_exported import PushModel
