// libFuzzer entry point for Mailroom's input parsers. Built by `make fuzz` once for each of the
// HTTP, SMTP and MailroomMail modules, with that module's sources compiled into the same binary
// (so internal parsers are reachable); each module has its own `FuzzTargets`.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    FuzzTargets.run(bytes)
    return 0
}
