#pragma once
#include <atspi/atspi.h>
#include <dbus/dbus.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/// CLOCK_MONOTONIC in milliseconds.
static inline long long catspi_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/// Waits for a pending call unless the batch's deadline has passed (libdbus counts a call's
/// timeout from when one blocks on it, so n blocks could take n timeouts): then it is
/// cancelled. Returns the reply or NULL, and releases the call.
static inline DBusMessage *catspi_take_reply(DBusPendingCall *p, long long deadline_ms) {
    if (!dbus_pending_call_get_completed(p) && catspi_now_ms() >= deadline_ms) {
        dbus_pending_call_cancel(p);
        dbus_pending_call_unref(p);
        return NULL;
    }
    dbus_pending_call_block(p);
    DBusMessage *r = dbus_pending_call_steal_reply(p);
    dbus_pending_call_unref(p);
    return r;
}

// GLib's type-check macros and boxed-type helpers, as functions Swift can call.

/// The event's string payload (a name or text change), or NULL.
static inline const char *catspi_event_string(const AtspiEvent *e) {
    return G_VALUE_HOLDS_STRING(&e->any_data) ? g_value_get_string(&e->any_data) : NULL;
}

/// A listener callback owns its copy of the event.
static inline void catspi_event_free(AtspiEvent *e) { g_boxed_free(ATSPI_TYPE_EVENT, e); }

/// The D-Bus name of the application that owns the object ("" if unknown).
static inline const char *catspi_bus_name(AtspiAccessible *a) {
    AtspiObject *o = (AtspiObject *)a;
    return (o->app && o->app->bus_name) ? o->app->bus_name : "";
}

/// The object's D-Bus path ("" if unknown).
static inline const char *catspi_path(AtspiAccessible *a) {
    AtspiObject *o = (AtspiObject *)a;
    return o->path ? o->path : "";
}

/// The states as a bit mask (bit n = AtspiStateType n), read in one go.
static inline gint64 catspi_state_bits(AtspiStateSet *set) { return set ? set->states : 0; }

/// The GError's message, or "" (GError is a plain struct; this keeps the field access in C).
static inline const char *catspi_error_message(const GError *e) { return (e && e->message) ? e->message : ""; }

/// GLib's "remove this source" answer, a macro in GLib.
static inline gboolean catspi_source_remove(void) { return G_SOURCE_REMOVE; }

/// Screen or window extents (coord 0 or 1) of `n` objects, asked for all at once: every
/// request is sent before any reply is awaited, so an application answers them back to back
/// and the read costs about one round trip instead of n. The whole batch waits about
/// `timeout_ms` at most (two at worst). libatspi has no such call; this is
/// its Component.GetExtents on the same connection. Writes x, y, width, height per object
/// into `out` and 1 into `ok[i]` where the answer came; returns how many came.
static inline int catspi_extents_batch(AtspiAccessible *const *objs, int n, unsigned int coord, int timeout_ms,
                                       int *out, unsigned char *ok) {
    DBusPendingCall **pending = (DBusPendingCall **)calloc((size_t)(n > 0 ? n : 1), sizeof *pending);
    if (!pending) return 0;
    long long deadline = catspi_now_ms() + timeout_ms;
    for (int i = 0; i < n; i++) {
        ok[i] = 0;
        AtspiObject *o = (AtspiObject *)objs[i];
        if (!o || !o->app || !o->app->bus || !o->app->bus_name || !o->path) continue;
        DBusMessage *m = dbus_message_new_method_call(o->app->bus_name, o->path, "org.a11y.atspi.Component", "GetExtents");
        if (!m) continue;
        dbus_uint32_t ct = coord;
        if (dbus_message_append_args(m, DBUS_TYPE_UINT32, &ct, DBUS_TYPE_INVALID))
            dbus_connection_send_with_reply(o->app->bus, m, &pending[i], timeout_ms);
        dbus_message_unref(m);
    }
    int got = 0;
    for (int i = 0; i < n; i++) {
        if (!pending[i]) continue;
        DBusMessage *r = catspi_take_reply(pending[i], deadline);
        if (!r) continue;
        DBusMessageIter it, st;
        if (dbus_message_get_type(r) == DBUS_MESSAGE_TYPE_METHOD_RETURN && dbus_message_iter_init(r, &it)
            && dbus_message_iter_get_arg_type(&it) == DBUS_TYPE_STRUCT) {
            dbus_message_iter_recurse(&it, &st);
            dbus_int32_t v[4];
            int k = 0;
            while (k < 4 && dbus_message_iter_get_arg_type(&st) == DBUS_TYPE_INT32) {
                dbus_message_iter_get_basic(&st, &v[k++]);
                dbus_message_iter_next(&st);
            }
            if (k == 4) {
                for (int j = 0; j < 4; j++) out[4 * i + j] = v[j];
                ok[i] = 1;
                got++;
            }
        }
        dbus_message_unref(r);
    }
    free(pending);
    return got;
}

/// The rectangle a bounds-changed event carries; returns 0 when it carries none.
static inline int catspi_event_rect(const AtspiEvent *e, int *xywh) {
    if (!G_VALUE_HOLDS(&e->any_data, ATSPI_TYPE_RECT)) return 0;
    const AtspiRect *r = (const AtspiRect *)g_value_get_boxed(&e->any_data);
    if (!r) return 0;
    xywh[0] = r->x; xywh[1] = r->y; xywh[2] = r->width; xywh[3] = r->height;
    return 1;
}

/// States (a bit mask, as AtspiStateSet keeps them), name and child count of `n` objects,
/// asked for all at once (Accessible.GetState and Properties.GetAll of the Accessible
/// interface; every request is sent before any reply is awaited). For objects libatspi does
/// not cache (GTK 3's transient tree-view cells), where each getter is a round trip.
/// names[i] is malloc'd (free() it) where ok[i] is 1; returns how many came whole.
static inline int catspi_basics_batch(AtspiAccessible *const *objs, int n, int timeout_ms,
                                      unsigned long long *states, char **names, int *child_counts, unsigned char *ok) {
    DBusPendingCall **pending = (DBusPendingCall **)calloc((size_t)(n > 0 ? 2 * n : 1), sizeof *pending);
    if (!pending) return 0;
    long long deadline = catspi_now_ms() + timeout_ms;
    for (int i = 0; i < n; i++) {
        ok[i] = 0; names[i] = NULL; states[i] = 0; child_counts[i] = 0;
        AtspiObject *o = (AtspiObject *)objs[i];
        if (!o || !o->app || !o->app->bus || !o->app->bus_name || !o->path) continue;
        DBusMessage *m = dbus_message_new_method_call(o->app->bus_name, o->path, "org.a11y.atspi.Accessible", "GetState");
        if (m) { dbus_connection_send_with_reply(o->app->bus, m, &pending[2 * i], timeout_ms); dbus_message_unref(m); }
        m = dbus_message_new_method_call(o->app->bus_name, o->path, "org.freedesktop.DBus.Properties", "GetAll");
        if (m) {
            const char *iface = "org.a11y.atspi.Accessible";
            if (dbus_message_append_args(m, DBUS_TYPE_STRING, &iface, DBUS_TYPE_INVALID))
                dbus_connection_send_with_reply(o->app->bus, m, &pending[2 * i + 1], timeout_ms);
            dbus_message_unref(m);
        }
    }
    int got = 0;
    for (int i = 0; i < n; i++) {
        int parts = 0;
        for (int k = 0; k < 2; k++) {
            DBusPendingCall *p = pending[2 * i + k];
            if (!p) continue;
            DBusMessage *r = catspi_take_reply(p, deadline);
            if (!r) continue;
            DBusMessageIter it, sub;
            if (dbus_message_get_type(r) == DBUS_MESSAGE_TYPE_METHOD_RETURN && dbus_message_iter_init(r, &it)
                && dbus_message_iter_get_arg_type(&it) == DBUS_TYPE_ARRAY) {
                dbus_message_iter_recurse(&it, &sub);
                if (k == 0) {
                    // au: the states, 32 to a word.
                    int w = 0;
                    while (w < 2 && dbus_message_iter_get_arg_type(&sub) == DBUS_TYPE_UINT32) {
                        dbus_uint32_t v;
                        dbus_message_iter_get_basic(&sub, &v);
                        states[i] |= ((unsigned long long)v) << (32 * w++);
                        dbus_message_iter_next(&sub);
                    }
                    if (w == 2) parts++;
                } else {
                    // a{sv}: Name and ChildCount among the interface's properties.
                    int found = 0;
                    while (dbus_message_iter_get_arg_type(&sub) == DBUS_TYPE_DICT_ENTRY) {
                        DBusMessageIter entry, var;
                        const char *key = NULL;
                        dbus_message_iter_recurse(&sub, &entry);
                        if (dbus_message_iter_get_arg_type(&entry) == DBUS_TYPE_STRING) {
                            dbus_message_iter_get_basic(&entry, &key);
                            dbus_message_iter_next(&entry);
                            if (dbus_message_iter_get_arg_type(&entry) == DBUS_TYPE_VARIANT) {
                                dbus_message_iter_recurse(&entry, &var);
                                int t = dbus_message_iter_get_arg_type(&var);
                                if (strcmp(key, "Name") == 0 && t == DBUS_TYPE_STRING) {
                                    const char *s = NULL;
                                    dbus_message_iter_get_basic(&var, &s);
                                    free(names[i]);
                                    names[i] = strdup(s ? s : "");
                                    found |= 1;
                                } else if (strcmp(key, "ChildCount") == 0 && t == DBUS_TYPE_INT32) {
                                    dbus_int32_t c;
                                    dbus_message_iter_get_basic(&var, &c);
                                    child_counts[i] = c;
                                    found |= 2;
                                }
                            }
                        }
                        dbus_message_iter_next(&sub);
                    }
                    if (found == 3) parts++;
                }
            }
            dbus_message_unref(r);
        }
        if (parts == 2) { ok[i] = 1; got++; } else { free(names[i]); names[i] = NULL; }
    }
    free(pending);
    return got;
}

/// A GLib source that runs a serial executor's jobs and timers on GLib's loop: `due` says
/// whether there is work now, else sets *timeout_ms (-1: none); `run` does the work. One
/// source for every job, so nothing queued is left in GLib when the loop ends.
typedef struct {
    GSource source;
    gboolean (*due)(void *context, gint *timeout_ms);
    void (*run)(void *context);
    void *context;
} CatspiJobSource;

static gboolean catspi_job_prepare(GSource *s, gint *timeout_ms) {
    CatspiJobSource *j = (CatspiJobSource *)s;
    return j->due(j->context, timeout_ms);
}

static gboolean catspi_job_check(GSource *s) {
    CatspiJobSource *j = (CatspiJobSource *)s;
    gint timeout_ms = -1;
    return j->due(j->context, &timeout_ms);
}

static gboolean catspi_job_dispatch(GSource *s, GSourceFunc callback, gpointer user_data) {
    (void)callback; (void)user_data;
    CatspiJobSource *j = (CatspiJobSource *)s;
    j->run(j->context);
    return G_SOURCE_CONTINUE;
}

static GSourceFuncs catspi_job_funcs = { catspi_job_prepare, catspi_job_check, catspi_job_dispatch, NULL, NULL, NULL };

static inline GSource *catspi_job_source_new(gboolean (*due)(void *, gint *), void (*run)(void *), void *context) {
    CatspiJobSource *j = (CatspiJobSource *)g_source_new(&catspi_job_funcs, sizeof(CatspiJobSource));
    j->due = due;
    j->run = run;
    j->context = context;
    return &j->source;
}
