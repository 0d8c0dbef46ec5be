// Linux's memfd_create, which Swift's Glibc module leaves out (glibc declares it only under
// _GNU_SOURCE). Called through syscall(2), which Swift cannot call itself (it is variadic).
// Part of libc: nothing to link.
#include <linux/memfd.h>
#include <sys/syscall.h>
#include <unistd.h>

/// A new file that lives in memory, closed on exec: its descriptor, or -1 with errno set.
static inline int mailroom_memfd_create(const char *name) {
    return (int)syscall(SYS_memfd_create, name, MFD_CLOEXEC);
}
