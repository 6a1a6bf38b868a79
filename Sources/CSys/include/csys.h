#pragma once
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

// Variadic or macro-only system calls that Swift cannot import directly, one small
// wrapper each. Every function returns 0 or an errno value unless it says otherwise.

/// An eventfd (close-on-exec); returns the fd or -errno.
static inline int csys_eventfd(int nonblock) {
    int fd = eventfd(0, EFD_CLOEXEC | (nonblock ? EFD_NONBLOCK : 0));
    return fd >= 0 ? fd : -errno;
}

/// Timer slack of the calling thread in ns (the default, 50 us, delays every wake-up).
static inline int csys_set_timerslack(unsigned long ns) {
    return prctl(PR_SET_TIMERSLACK, ns, 0, 0, 0) == 0 ? 0 : errno;
}

/// The calling thread's name as the system shows it (at most 15 bytes are kept).
static inline int csys_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0) == 0 ? 0 : errno;
}

static inline int csys_set_self_sched(int policy, int prio) {
    struct sched_param sp = { .sched_priority = prio };
    return pthread_setschedparam(pthread_self(), policy, &sp);
}

static inline int csys_self_policy(void) { return sched_getscheduler(0); }

/// Locks every page of the process, present and future, once it is first used (Linux 4.4
/// on): nothing is read in ahead, and a page used stays in memory. EINVAL where the kernel
/// is older.
static inline int csys_mlockall_onfault(void) {
    return mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) == 0 ? 0 : errno;
}

/// The user a connected Unix socket's peer ran as (SO_PEERCRED). 0 or errno.
int csys_peer_uid(int fd, uint32_t *uid);

/// Reads in and locks the calling thread's whole stack, so that the thread never waits for
/// a page of it; its size goes to `size`. 0 or errno.
int csys_lock_own_stack(size_t *size);

static inline int csys_munlockall(void) { return munlockall() == 0 ? 0 : errno; }

/// Terminal size; returns 0 or errno.
static inline int csys_winsize(int fd, unsigned short *rows, unsigned short *cols) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0) return errno;
    *rows = ws.ws_row; *cols = ws.ws_col;
    return 0;
}

/// Per-thread CPU time in ns (CLOCK_THREAD_CPUTIME_ID), or process CPU time.
static inline int64_t csys_cputime_ns(int process) {
    struct timespec ts;
    clock_gettime(process ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/// A CLOCK_MONOTONIC timerfd (close-on-exec, non-blocking); returns the fd or -errno.
static inline int csys_timerfd(void) {
    int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    return fd >= 0 ? fd : -errno;
}

/// Arms the timerfd at an absolute CLOCK_MONOTONIC time in ns (0 disarms); 0 or errno.
static inline int csys_timerfd_set_abs(int fd, int64_t ns) {
    struct itimerspec its = {0};
    if (ns > 0) {
        its.it_value.tv_sec = ns / 1000000000LL;
        its.it_value.tv_nsec = ns % 1000000000LL;
    }
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL) == 0 ? 0 : errno;
}


/// A flag one thread raises and another polls (Swift's own atomics need a newer macOS
/// than the package declares). Release on store, acquire on load.
static inline void csys_flag_store(int *flag, int value) { __atomic_store_n(flag, value, __ATOMIC_RELEASE); }
static inline int csys_flag_load(const int *flag) { return __atomic_load_n(flag, __ATOMIC_ACQUIRE); }

#include <stdio.h>
/// The standard streams, as functions: Swift 6 refuses C's mutable globals.
static inline FILE *csys_stdout(void) { return stdout; }
static inline FILE *csys_stderr(void) { return stderr; }

/// Whether the process ignores `sig` (as `nohup` leaves SIGHUP).
static inline int csys_signal_ignored(int sig) {
    struct sigaction old;
    return sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN;
}

/// "Operation not permitted (EPERM)" for an errno value; valid until the calling thread's
/// next call.
const char *csys_errno_description(int code);

/// An anonymous memory file, closed on exec (shared with a Wayland compositor).
int csys_memfd(const char *name);
