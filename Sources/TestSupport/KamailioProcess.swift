@_exported import Kamailio

/// The tests' name for the Kamailio launcher, which lives in the `Kamailio` module since `callstorm run` starts
/// one too (`target.sip.kamailio`): `KamailioProcess(defines:)`, `.port`, `.log`, `.stop()`, `.freePort()`.
public typealias KamailioProcess = KamailioServer
