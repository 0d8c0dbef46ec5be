#ifndef MAILROOM_CGMIME_SHIM_H
#define MAILROOM_CGMIME_SHIM_H

#include <gmime/gmime.h>

// GObject's type checks and casts are macros, which Swift cannot import: these are the ones
// MailroomMail needs, as functions.
static inline int mailroom_is_multipart(GMimeObject *object) { return GMIME_IS_MULTIPART(object); }
static inline int mailroom_is_part(GMimeObject *object) { return GMIME_IS_PART(object); }
static inline int mailroom_is_text_part(GMimeObject *object) { return GMIME_IS_TEXT_PART(object); }
static inline int mailroom_is_message_part(GMimeObject *object) { return GMIME_IS_MESSAGE_PART(object); }
static inline GMimeMultipart *mailroom_as_multipart(GMimeObject *object) { return GMIME_MULTIPART(object); }
static inline GMimePart *mailroom_as_part(GMimeObject *object) { return GMIME_PART(object); }
static inline GMimeTextPart *mailroom_as_text_part(GMimeObject *object) { return GMIME_TEXT_PART(object); }
static inline GMimeMessagePart *mailroom_as_message_part(GMimeObject *object) { return GMIME_MESSAGE_PART(object); }
static inline int mailroom_is_mailbox(InternetAddress *address) { return INTERNET_ADDRESS_IS_MAILBOX(address); }
static inline int mailroom_is_group(InternetAddress *address) { return INTERNET_ADDRESS_IS_GROUP(address); }
static inline InternetAddressMailbox *mailroom_as_mailbox(InternetAddress *address) { return INTERNET_ADDRESS_MAILBOX(address); }
static inline InternetAddressGroup *mailroom_as_group(InternetAddress *address) { return INTERNET_ADDRESS_GROUP(address); }
static inline GMimeObject *mailroom_text_part_object(GMimeTextPart *part) { return GMIME_OBJECT(part); }
static inline GMimeObject *mailroom_message_object(GMimeMessage *message) { return GMIME_OBJECT(message); }
static inline void mailroom_unref(void *object) { if (object) g_object_unref(object); }

// A stream that reads `count` bytes where they lie, through `holder`, which the caller keeps
// alive (and the bytes unchanged) until the stream and all it parsed are gone. The stream does
// not own the array: nothing is copied and nothing is freed.
static inline GMimeStream *mailroom_stream_over(const unsigned char *bytes, size_t count, GByteArray *holder) {
    holder->data = (guint8 *)bytes;
    holder->len = (guint)count;
    GMimeStream *stream = g_mime_stream_mem_new();
    g_mime_stream_mem_set_byte_array(GMIME_STREAM_MEM(stream), holder);
    return stream;
}

// What was written to a null stream (a write's return value counts what was read instead).
static inline size_t mailroom_null_written(GMimeStream *stream) {
    return GMIME_STREAM_NULL(stream)->written;
}

// Whether `stream` reads `holder`'s bytes (a memory stream over them, or a bounded view of one):
// its bounds are then offsets into them.
static inline int mailroom_stream_is_view_of(GMimeStream *stream, GByteArray *holder) {
    return GMIME_IS_STREAM_MEM(stream) && g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(stream)) == holder;
}

// Undoes `encoding` (base64, quoted-printable, uuencode) a piece at a time: what GMime applies
// when it writes a part's content out. The filter is the caller's to unref.
static inline GMimeFilter *mailroom_decoder(GMimeContentEncoding encoding) {
    return g_mime_filter_basic_new(encoding, FALSE);
}

static inline GByteArray *mailroom_stream_bytes(GMimeStream *stream) {
    return g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(stream));
}

#endif
