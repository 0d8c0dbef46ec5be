#if canImport(Glibc)
import Glibc
#endif
private import CGMime

/// A message that was posted through the page, written as mail (RFC 5322, made by GMime) so
/// that `mailroom export` can put it in an mbox beside the mail that arrived.
public enum PostedMail {
    public static func message(subject: String, author: String, body: String, date: Int64, id: Int64) -> [UInt8] {
        guard MailParser.ready, let message = g_mime_message_new(1) else { return [] }
        defer { mailroom_unref(message) }
        let from = internet_address_mailbox_new(author, "posted@mailroom.invalid")
        internet_address_list_add(g_mime_message_get_from(message), from)
        mailroom_unref(from)
        g_mime_message_set_subject(message, subject, "utf-8")
        let when = g_date_time_new_from_unix_utc(gint64(date))
        g_mime_message_set_date(message, when)
        if let when { g_date_time_unref(when) }
        g_mime_message_set_message_id(message, "posted-\(id)@mailroom.invalid")
        guard let part = g_mime_text_part_new_with_subtype("plain") else { return [] }
        defer { mailroom_unref(part) }
        g_mime_text_part_set_text(part, body)
        g_mime_message_set_mime_part(message, mailroom_text_part_object(part))
        // Long or 8-bit lines become quoted-printable, so the message travels anywhere.
        g_mime_object_encode(mailroom_message_object(message), GMIME_ENCODING_CONSTRAINT_7BIT)
        guard let text = g_mime_object_to_string(mailroom_message_object(message), nil) else { return [] }
        defer { g_free(text) }
        return Array(UnsafeBufferPointer(start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), count: strlen(text)))
    }
}
