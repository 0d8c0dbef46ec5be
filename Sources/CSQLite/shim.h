#ifndef MAILROOM_CSQLITE_SHIM_H
#define MAILROOM_CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro Swift cannot import: make SQLite copy bound text.
static inline sqlite3_destructor_type mailroom_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
