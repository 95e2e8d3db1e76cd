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
