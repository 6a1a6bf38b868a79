// Most wrappers are static inline in csys.h; the few that need _GNU_SOURCE live here.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <string.h>
#include "csys.h"

const char *csys_errno_description(int code) {
    static __thread char text[160];
    const char *name = strerrorname_np(code);
    snprintf(text, sizeof text, "%s (%s)", strerror(code), name ? name : "unknown errno");
    return text;
}
