// Most wrappers are static inline in csys.h; the few that need _GNU_SOURCE live here.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include "csys.h"

int csys_allowed_cpus(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
    return CPU_COUNT(&set);
}

#include <stdio.h>
#include <string.h>

const char *csys_errno_description(int code) {
    static __thread char text[160];
    const char *name = strerrorname_np(code);
    snprintf(text, sizeof text, "%s (%s)", strerror(code), name ? name : "unknown errno");
    return text;
}
