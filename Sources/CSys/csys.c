// Most wrappers are static inline in csys.h; the few that need _GNU_SOURCE live here.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include "csys.h"

const char *csys_errno_description(int code) {
    static __thread char text[160];
    const char *name = strerrorname_np(code);
    snprintf(text, sizeof text, "%s (%s)", strerror(code), name ? name : "unknown errno");
    return text;
}

int csys_lock_own_stack(size_t *size) {
    pthread_attr_t attributes;
    int rc = pthread_getattr_np(pthread_self(), &attributes);
    if (rc != 0) return rc;
    void *low = NULL;
    size_t length = 0;
    rc = pthread_attr_getstack(&attributes, &low, &length);
    pthread_attr_destroy(&attributes);
    if (rc != 0) return rc;
    if (size) *size = length;
    return mlock(low, length) == 0 ? 0 : errno;
}

int csys_peer_uid(int fd, uint32_t *uid) {
    struct ucred peer;
    socklen_t length = sizeof peer;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0) return errno;
    *uid = peer.uid;
    return 0;
}

int csys_memfd(const char *name) { return memfd_create(name, MFD_CLOEXEC); }
