/// Every signaling kind, in the order a device's kind is chosen: the first whose worker part exists and serves
/// the device (`DeviceSignalings`). A new kind is a folder under Signaling/ with a `DeviceSignaling` conformer and
/// one line here; HTTP serves every device, so it comes last.
enum SignalingRegistry {
    static var kinds: [any DeviceSignaling.Type] { [
        SIPSignaling.self,
        DeviceSockets.self,
        HTTPSignaling.self,
    ] }
}

extension SignalingRegistry {
    /// Whether the run compares devices' views with the target's after each call: no kind in the run says no.
    static func checksTargetViews(_ settings: DriverSettings) -> Bool {
        kinds.allSatisfy { $0.checksTargetViews(settings) }
    }

    /// The address devices are known by, from the first kind in the run that names devices by address.
    static func handleAddress(_ settings: DriverSettings) -> HandleAddress? {
        kinds.lazy.compactMap { $0.handleAddress(settings) }.first
    }
}
