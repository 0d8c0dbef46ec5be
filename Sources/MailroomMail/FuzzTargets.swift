/// The MIME wrapper driven by one input: for the fuzzer (`make fuzz`) and the seeded
/// random-input test. Anything but a crash or a broken promise is a pass.
public enum FuzzTargets {
    public static func run(_ bytes: [UInt8]) {
        guard let mail = MailParser.parse(bytes) else { return }
        for attachment in mail.attachments {
            precondition(attachment.size >= 0, "an attachment of \(attachment.size) bytes")
            precondition(!attachment.type.isEmpty, "an attachment without a type")
        }
        if let html = mail.html, mail.text.isEmpty == false, html.contains("<script") {
            precondition(!HTMLText.text(of: html).contains("<script"), "a script tag survived into the text")
        }
    }
}
