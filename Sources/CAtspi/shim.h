#pragma once
#include <atspi/atspi.h>
#include <dbus/dbus.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/// Exported by libatspi but not in its public headers: whether it holds the object's
/// `flag` part in its cache (never for a `transient` object). The walk asks it to read
/// together what libatspi would ask one getter at a time; `switchscan-bench desktop`, to
/// start its cached reads once libatspi has taken in an application's cache.
gboolean _atspi_accessible_test_cache(AtspiAccessible *accessible, AtspiCache flag);

/// Exported by libatspi but not in its public headers: the object an (so) reference names
/// (a new reference), moving the iterator past it.
AtspiAccessible *_atspi_dbus_consume_accessible(DBusMessageIter *iter);

/// Exported by libatspi, left out of its headers: whether the object offers one interface,
/// a single check (`atspi_accessible_get_interfaces` checks every interface it knows, each a
/// GetInterfaces call for an object libatspi does not cache).
gboolean atspi_accessible_is_action(AtspiAccessible *obj);
gboolean atspi_accessible_is_value(AtspiAccessible *obj);
gboolean atspi_accessible_is_hyperlink(AtspiAccessible *obj);
gboolean atspi_accessible_is_editable_text(AtspiAccessible *obj);

/// CLOCK_MONOTONIC in milliseconds.
static inline long long catspi_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/// How a batch of requests ended.
typedef struct {
    /// Requests sent, and answered whole.
    int sent, answered;
    /// 1: the application stopped answering partway (nothing came for the timeout): the
    /// requests still waiting were given up.
    int timed_out;
    /// Requests that could not be sent (no connection to the application, no memory).
    int unsent;
    /// The D-Bus error name of the first error answer or failed call, "" if none
    /// (org.freedesktop.DBus.Error.ServiceUnknown: the application is gone).
    char error_name[96];
} CatspiBatch;

/// Requests are sent this many at a time, so that a big window never has more waiting.
enum { CATSPI_BATCH_CHUNK = 256 };

static inline void catspi_batch_note_error(CatspiBatch *b, const char *name) {
    if (!b->error_name[0] && name) {
        strncpy(b->error_name, name, sizeof b->error_name - 1);
        b->error_name[sizeof b->error_name - 1] = 0;
    }
}

/// Waits for a pending call unless nothing has come for the timeout (`*deadline_ms` passed):
/// then it is cancelled. libdbus counts a call's timeout from when one blocks on it, so a
/// batch that blocked on each would wait one timeout per request of an application that
/// stopped answering; an answer moves the deadline on, so one that answers slowly but
/// steadily is waited for. Returns the reply or NULL, and releases the call. A NoReply made
/// by libdbus itself (the call's own timeout) counts as no answer, and sets `timed_out`.
static inline DBusMessage *catspi_take_reply(DBusPendingCall *p, long long *deadline_ms, int timeout_ms, CatspiBatch *b) {
    if (!dbus_pending_call_get_completed(p) && catspi_now_ms() >= *deadline_ms) {
        dbus_pending_call_cancel(p);
        dbus_pending_call_unref(p);
        b->timed_out = 1;
        return NULL;
    }
    dbus_pending_call_block(p);
    DBusMessage *r = dbus_pending_call_steal_reply(p);
    dbus_pending_call_unref(p);
    if (r && dbus_message_get_type(r) == DBUS_MESSAGE_TYPE_ERROR) {
        const char *name = dbus_message_get_error_name(r);
        if (name && (strcmp(name, DBUS_ERROR_NO_REPLY) == 0 || strcmp(name, DBUS_ERROR_TIMEOUT) == 0
                     || strcmp(name, DBUS_ERROR_TIMED_OUT) == 0)) {
            b->timed_out = 1;
            dbus_message_unref(r);
            return NULL;
        }
        catspi_batch_note_error(b, name);
    }
    if (r) *deadline_ms = catspi_now_ms() + timeout_ms;
    return r;
}

/// Sends one request to `o` (taking the message); the pending call, or NULL.
static inline DBusPendingCall *catspi_send(AtspiObject *o, DBusMessage *m, int timeout_ms, CatspiBatch *b) {
    DBusPendingCall *p = NULL;
    if (!m) { b->unsent++; return NULL; }
    if (!dbus_connection_send_with_reply(o->app->bus, m, &p, timeout_ms) || !p) {
        b->unsent++;
        catspi_batch_note_error(b, DBUS_ERROR_DISCONNECTED);
        p = NULL;
    } else {
        b->sent++;
    }
    dbus_message_unref(m);
    return p;
}

/// A Properties.Get request for `iface`'s `property` of `o`, or NULL.
static inline DBusMessage *catspi_property_get(AtspiObject *o, const char *iface, const char *property) {
    DBusMessage *m = dbus_message_new_method_call(o->app->bus_name, o->path, "org.freedesktop.DBus.Properties", "Get");
    if (m && !dbus_message_append_args(m, DBUS_TYPE_STRING, &iface, DBUS_TYPE_STRING, &property, DBUS_TYPE_INVALID)) { dbus_message_unref(m); m = NULL; }
    return m;
}

/// The variant of a Properties.Get answer, entered: 1 if `r` is one, with `var` on its value.
static inline int catspi_property_value(DBusMessage *r, DBusMessageIter *var) {
    DBusMessageIter it;
    if (dbus_message_get_type(r) != DBUS_MESSAGE_TYPE_METHOD_RETURN || !dbus_message_iter_init(r, &it)
        || dbus_message_iter_get_arg_type(&it) != DBUS_TYPE_VARIANT) return 0;
    dbus_message_iter_recurse(&it, var);
    return 1;
}

/// Whether libatspi gave the object what a raw request needs: its application's
/// connection, bus name and path.
static inline int catspi_can_send(AtspiAccessible *a) {
    AtspiObject *o = (AtspiObject *)a;
    return o && o->app && o->app->bus && o->app->bus_name && o->path && dbus_connection_get_is_connected(o->app->bus);
}

/// Peer.Ping to the application of `a`, waiting at most `timeout_ms`: 1 if it answered;
/// otherwise 0 and the D-Bus error name (NoReply: it does not answer; ServiceUnknown: it
/// is gone) in `error_name` (`size` bytes). libatspi keeps only a D-Bus error's message,
/// so this is how a failed call learns which it was.
static inline int catspi_ping(AtspiAccessible *a, int timeout_ms, char *error_name, int size) {
    if (size > 0) error_name[0] = 0;
    AtspiObject *o = (AtspiObject *)a;
    if (!o || !o->app || !o->app->bus || !o->app->bus_name) {
        if (size > 0) { strncpy(error_name, DBUS_ERROR_SERVICE_UNKNOWN, (size_t)size - 1); error_name[size - 1] = 0; }
        return 0;
    }
    if (!dbus_connection_get_is_connected(o->app->bus)) {
        if (size > 0) { strncpy(error_name, DBUS_ERROR_DISCONNECTED, (size_t)size - 1); error_name[size - 1] = 0; }
        return 0;
    }
    DBusMessage *m = dbus_message_new_method_call(o->app->bus_name, "/", "org.freedesktop.DBus.Peer", "Ping");
    if (!m) return 0;
    DBusError err;
    dbus_error_init(&err);
    DBusMessage *r = dbus_connection_send_with_reply_and_block(o->app->bus, m, timeout_ms, &err);
    dbus_message_unref(m);
    int ok = r != NULL;
    if (r) dbus_message_unref(r);
    if (dbus_error_is_set(&err)) {
        if (size > 0 && err.name) { strncpy(error_name, err.name, (size_t)size - 1); error_name[size - 1] = 0; }
        dbus_error_free(&err);
    }
    return ok;
}

/// Copies a D-Bus error name into `error_name` (`size` bytes).
static inline void catspi_note_name(char *error_name, int size, const char *name) {
    if (size > 0 && name) { strncpy(error_name, name, (size_t)size - 1); error_name[size - 1] = 0; }
}

/// Action.DoAction(`index`) on `a`, sent over a connection of its own straight to the
/// application (the peer-to-peer address its GetApplicationBusAddress gives), closed after
/// the answer. An action that runs a modal loop (GTK 3's gtk_dialog_run behind a menu item
/// or a button) runs it inside the dispatch of the connection that carried the action: the
/// application then answers nothing more on that connection until the dialog closes, and
/// a connection used for reading would see the application hang. Returns 1 and the
/// action's answer in `*done`; 0 with the D-Bus error name (NoReply: no answer in
/// `timeout_ms`) in `error_name`; -1 when no connection of its own can be made (the
/// application offers no address, or it cannot be reached): the caller acts as before.
static inline int catspi_do_action_alone(AtspiAccessible *a, int index, int timeout_ms, int *done, char *error_name, int size) {
    if (size > 0) error_name[0] = 0;
    AtspiObject *o = (AtspiObject *)a;
    DBusConnection *bus = atspi_get_a11y_bus();
    if (!o || !o->app || !o->app->bus_name || !o->path || !bus || !dbus_connection_get_is_connected(bus)) return -1;
    DBusMessage *m = dbus_message_new_method_call(o->app->bus_name, "/org/a11y/atspi/accessible/root",
                                                  "org.a11y.atspi.Application", "GetApplicationBusAddress");
    if (!m) return -1;
    DBusError err;
    dbus_error_init(&err);
    DBusMessage *r = dbus_connection_send_with_reply_and_block(bus, m, timeout_ms, &err);
    dbus_message_unref(m);
    const char *address = NULL;
    char copy[512];
    copy[0] = 0;
    if (r && dbus_message_get_args(r, NULL, DBUS_TYPE_STRING, &address, DBUS_TYPE_INVALID) && address) {
        strncpy(copy, address, sizeof copy - 1);
        copy[sizeof copy - 1] = 0;
    }
    if (r) dbus_message_unref(r);
    if (dbus_error_is_set(&err)) dbus_error_free(&err);
    if (!copy[0]) return -1;
    DBusConnection *c = dbus_connection_open_private(copy, &err);
    if (!c) {
        if (dbus_error_is_set(&err)) dbus_error_free(&err);
        return -1;
    }
    dbus_connection_set_exit_on_disconnect(c, FALSE);
    m = dbus_message_new_method_call(o->app->bus_name, o->path, "org.a11y.atspi.Action", "DoAction");
    dbus_int32_t i = index;
    if (!m || !dbus_message_append_args(m, DBUS_TYPE_INT32, &i, DBUS_TYPE_INVALID)) {
        if (m) dbus_message_unref(m);
        dbus_connection_close(c);
        dbus_connection_unref(c);
        return -1;
    }
    r = dbus_connection_send_with_reply_and_block(c, m, timeout_ms, &err);
    dbus_message_unref(m);
    int ok = 0;
    if (r) {
        dbus_bool_t answer = FALSE;
        if (dbus_message_get_args(r, NULL, DBUS_TYPE_BOOLEAN, &answer, DBUS_TYPE_INVALID)) {
            *done = answer ? 1 : 0;
            ok = 1;
        } else {
            catspi_note_name(error_name, size, DBUS_ERROR_INVALID_ARGS);
        }
        dbus_message_unref(r);
    } else if (dbus_error_is_set(&err)) {
        catspi_note_name(error_name, size, err.name);
    }
    if (dbus_error_is_set(&err)) dbus_error_free(&err);
    dbus_connection_close(c);
    dbus_connection_unref(c);
    return ok;
}

/// The CPU time process `pid` has used, in clock ticks (utime + stime of /proc/PID/stat),
/// or -1; `*stopped` is set to 1 when it is stopped (state T or t).
static inline long long catspi_process_cpu_ticks(int pid, int *stopped) {
    char path[64], buf[1024];
    *stopped = 0;
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    if (!p) return -1;
    char state = 0;
    unsigned long long utime = 0, stime = 0;
    // After the name: state, then fields 4 to 13, then utime and stime.
    if (sscanf(p + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &state, &utime, &stime) != 3) return -1;
    *stopped = state == 'T' || state == 't';
    return (long long)(utime + stime);
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

/// libatspi's GError domain and codes (its headers do not export them: atspi-misc-private.h).
/// Every D-Bus error of a call becomes ATSPI_ERROR_IPC with the D-Bus error's message only.
enum { CATSPI_ERROR_APPLICATION_GONE = 0, CATSPI_ERROR_IPC = 1, CATSPI_ERROR_SYNC_NOT_ALLOWED = 2 };
static inline GQuark catspi_error_domain(void) { return g_quark_from_static_string("atspi_error"); }

/// GLib's "remove this source" answer, a macro in GLib.
static inline gboolean catspi_source_remove(void) { return G_SOURCE_REMOVE; }

/// Screen or window extents (coord 0 or 1) of `n` objects, asked for in chunks: every
/// request of a chunk is sent before any reply is awaited, so an application answers them
/// back to back and a chunk costs about one round trip instead of one each. The time limit
/// is per answer, not per batch: the batch waits while answers keep coming (a big window,
/// an application that answers slowly), and gives up the rest once nothing has come for
/// `timeout_ms` (`b->timed_out`). libatspi has no such call; this is its
/// Component.GetExtents on the same connection. Writes x, y, width, height per object into
/// `out` and 1 into `ok[i]` where the answer came; fills `b`.
static inline void catspi_extents_batch(AtspiAccessible *const *objs, int n, unsigned int coord, int timeout_ms,
                                        int *out, unsigned char *ok, CatspiBatch *b) {
    memset(b, 0, sizeof *b);
    for (int i = 0; i < n; i++) ok[i] = 0;
    DBusPendingCall *pending[CATSPI_BATCH_CHUNK];
    for (int start = 0; start < n && !b->timed_out; start += CATSPI_BATCH_CHUNK) {
        int end = start + CATSPI_BATCH_CHUNK < n ? start + CATSPI_BATCH_CHUNK : n;
        for (int i = start; i < end; i++) {
            pending[i - start] = NULL;
            if (!catspi_can_send(objs[i])) { b->unsent++; continue; }
            AtspiObject *o = (AtspiObject *)objs[i];
            DBusMessage *m = dbus_message_new_method_call(o->app->bus_name, o->path, "org.a11y.atspi.Component", "GetExtents");
            dbus_uint32_t ct = coord;
            if (m && !dbus_message_append_args(m, DBUS_TYPE_UINT32, &ct, DBUS_TYPE_INVALID)) { dbus_message_unref(m); m = NULL; }
            pending[i - start] = catspi_send(o, m, timeout_ms, b);
        }
        long long deadline = catspi_now_ms() + timeout_ms;
        for (int i = start; i < end; i++) {
            DBusPendingCall *p = pending[i - start];
            if (!p) continue;
            DBusMessage *r = catspi_take_reply(p, &deadline, timeout_ms, b);
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
                    b->answered++;
                }
            }
            dbus_message_unref(r);
        }
    }
}

/// The action names of `n` objects (their Action interface's NActions, then GetName of
/// each index), asked for in chunks as `catspi_extents_batch` asks: every count of a chunk
/// is asked for before any answer is awaited, then every name. For controls read for the
/// first time (a dialog just opened), where libatspi asks one name at a time. counts[i] is
/// the number of actions (at most 32 are read; 0 where the object answers NActions with an
/// error: it has no Action interface), or -1 where they did not all come;
/// names[i] (where counts[i] > 0) holds them joined by newlines, malloc'd: free() it. Fills
/// `b` (`answered` counts objects read whole).
static inline void catspi_actions_batch(AtspiAccessible *const *objs, int n, int timeout_ms, int *counts, char **names,
                                        CatspiBatch *b) {
    enum { MOST = 32, OBJECTS = CATSPI_BATCH_CHUNK / 4 };
    memset(b, 0, sizeof *b);
    for (int i = 0; i < n; i++) { counts[i] = -1; names[i] = NULL; }
    DBusPendingCall *pending[OBJECTS * MOST];
    for (int start = 0; start < n && !b->timed_out; start += OBJECTS) {
        int end = start + OBJECTS < n ? start + OBJECTS : n;
        const char *iface = "org.a11y.atspi.Action", *property = "NActions";
        for (int i = start; i < end; i++) {
            pending[i - start] = NULL;
            if (!catspi_can_send(objs[i])) { b->unsent++; continue; }
            AtspiObject *o = (AtspiObject *)objs[i];
            pending[i - start] = catspi_send(o, catspi_property_get(o, iface, property), timeout_ms, b);
        }
        long long deadline = catspi_now_ms() + timeout_ms;
        for (int i = start; i < end; i++) {
            DBusPendingCall *p = pending[i - start];
            if (!p) continue;
            DBusMessage *r = catspi_take_reply(p, &deadline, timeout_ms, b);
            if (!r) continue;
            DBusMessageIter var;
            if (catspi_property_value(r, &var)) {
                if (dbus_message_iter_get_arg_type(&var) == DBUS_TYPE_INT32) {
                    dbus_int32_t c;
                    dbus_message_iter_get_basic(&var, &c);
                    counts[i] = c < 0 ? 0 : c > MOST ? MOST : c;
                }
            } else if (dbus_message_get_type(r) == DBUS_MESSAGE_TYPE_ERROR) {
                // No Action interface (so the question need not be asked first).
                counts[i] = 0;
            }
            dbus_message_unref(r);
        }
        if (b->timed_out) break;
        // Every name of the chunk, then the answers in the same order.
        int next = 0;
        for (int i = start; i < end; i++) {
            AtspiObject *o = (AtspiObject *)objs[i];
            for (dbus_int32_t j = 0; j < counts[i]; j++) {
                DBusMessage *m = dbus_message_new_method_call(o->app->bus_name, o->path, iface, "GetName");
                if (m && !dbus_message_append_args(m, DBUS_TYPE_INT32, &j, DBUS_TYPE_INVALID)) { dbus_message_unref(m); m = NULL; }
                pending[next++] = catspi_send(o, m, timeout_ms, b);
            }
        }
        deadline = catspi_now_ms() + timeout_ms;
        next = 0;
        for (int i = start; i < end; i++) {
            if (counts[i] < 0) continue;
            size_t length = 0, room = 64;
            char *joined = counts[i] > 0 ? (char *)malloc(room) : NULL;
            int whole = counts[i] == 0 || joined != NULL;
            if (joined) joined[0] = 0;
            for (int j = 0; j < counts[i]; j++) {
                DBusPendingCall *p = pending[next++];
                DBusMessage *r = p ? catspi_take_reply(p, &deadline, timeout_ms, b) : NULL;
                const char *name = NULL;
                if (!r || dbus_message_get_type(r) != DBUS_MESSAGE_TYPE_METHOD_RETURN
                    || !dbus_message_get_args(r, NULL, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID) || !name) {
                    whole = 0;
                } else if (whole) {
                    size_t add = strlen(name);
                    if (length + add + 2 > room) {
                        while (length + add + 2 > room) room *= 2;
                        char *grown = (char *)realloc(joined, room);
                        if (grown) joined = grown; else whole = 0;
                    }
                    if (whole) {
                        if (j > 0) joined[length++] = '\n';
                        memcpy(joined + length, name, add);
                        length += add;
                        joined[length] = 0;
                    }
                }
                if (r) dbus_message_unref(r);
            }
            if (whole) { names[i] = joined; b->answered++; } else { free(joined); counts[i] = -1; }
        }
    }
}

/// The `count` children of `a`, asked for as `catspi_extents_batch` asks (each
/// Accessible.GetChildAtIndex of a chunk sent before any answer is awaited, the time limit
/// per answer), where libatspi would ask for each and wait (children it has not cached: a
/// new window's, a tree view's cells): new references in out[i], NULL where none came (then
/// `b` says why).
static inline void catspi_children_batch(AtspiAccessible *a, int count, int timeout_ms, AtspiAccessible **out, CatspiBatch *b) {
    memset(b, 0, sizeof *b);
    for (int i = 0; i < count; i++) out[i] = NULL;
    if (!catspi_can_send(a)) { b->unsent = count; return; }
    AtspiObject *o = (AtspiObject *)a;
    DBusPendingCall *pending[CATSPI_BATCH_CHUNK];
    for (int start = 0; start < count && !b->timed_out; start += CATSPI_BATCH_CHUNK) {
        int end = start + CATSPI_BATCH_CHUNK < count ? start + CATSPI_BATCH_CHUNK : count;
        for (dbus_int32_t i = start; i < end; i++) {
            DBusMessage *m = dbus_message_new_method_call(o->app->bus_name, o->path, "org.a11y.atspi.Accessible", "GetChildAtIndex");
            if (m && !dbus_message_append_args(m, DBUS_TYPE_INT32, &i, DBUS_TYPE_INVALID)) { dbus_message_unref(m); m = NULL; }
            pending[i - start] = catspi_send(o, m, timeout_ms, b);
        }
        long long deadline = catspi_now_ms() + timeout_ms;
        for (int i = start; i < end; i++) {
            DBusPendingCall *p = pending[i - start];
            if (!p) continue;
            DBusMessage *r = catspi_take_reply(p, &deadline, timeout_ms, b);
            if (!r) continue;
            DBusMessageIter it;
            if (dbus_message_get_type(r) == DBUS_MESSAGE_TYPE_METHOD_RETURN && strcmp(dbus_message_get_signature(r), "(so)") == 0
                && dbus_message_iter_init(r, &it)) {
                out[i] = _atspi_dbus_consume_accessible(&it);
                if (out[i]) b->answered++;
            } else if (dbus_message_get_type(r) == DBUS_MESSAGE_TYPE_ERROR) {
                catspi_batch_note_error(b, dbus_message_get_error_name(r));
            }
            dbus_message_unref(r);
        }
    }
}

/// The Value interface of `n` objects (MinimumValue, MaximumValue, CurrentValue and
/// MinimumIncrement: out[4i..4i+3]), asked for in chunks as `catspi_extents_batch` asks,
/// where libatspi asks each in turn. ok[i] is 1 where all four came.
static inline void catspi_values_batch(AtspiAccessible *const *objs, int n, int timeout_ms, double *out, unsigned char *ok,
                                       CatspiBatch *b) {
    enum { PARTS = 4, OBJECTS = CATSPI_BATCH_CHUNK / PARTS };
    static const char *const properties[PARTS] = { "MinimumValue", "MaximumValue", "CurrentValue", "MinimumIncrement" };
    const char *iface = "org.a11y.atspi.Value";
    memset(b, 0, sizeof *b);
    for (int i = 0; i < n; i++) ok[i] = 0;
    DBusPendingCall *pending[PARTS * OBJECTS];
    for (int start = 0; start < n && !b->timed_out; start += OBJECTS) {
        int end = start + OBJECTS < n ? start + OBJECTS : n;
        for (int i = start; i < end; i++) {
            for (int k = 0; k < PARTS; k++) pending[PARTS * (i - start) + k] = NULL;
            if (!catspi_can_send(objs[i])) { b->unsent++; continue; }
            AtspiObject *o = (AtspiObject *)objs[i];
            for (int k = 0; k < PARTS; k++) pending[PARTS * (i - start) + k] = catspi_send(o, catspi_property_get(o, iface, properties[k]), timeout_ms, b);
        }
        long long deadline = catspi_now_ms() + timeout_ms;
        for (int i = start; i < end; i++) {
            int parts = 0;
            for (int k = 0; k < PARTS; k++) {
                DBusPendingCall *p = pending[PARTS * (i - start) + k];
                if (!p) continue;
                DBusMessage *r = catspi_take_reply(p, &deadline, timeout_ms, b);
                if (!r) continue;
                DBusMessageIter var;
                if (catspi_property_value(r, &var)) {
                    if (dbus_message_iter_get_arg_type(&var) == DBUS_TYPE_DOUBLE) {
                        double v;
                        dbus_message_iter_get_basic(&var, &v);
                        out[PARTS * i + k] = v;
                        parts++;
                    }
                }
                dbus_message_unref(r);
            }
            if (parts == PARTS) { ok[i] = 1; b->answered++; }
        }
    }
}

/// The rectangle a bounds-changed event carries; returns 0 when it carries none.
static inline int catspi_event_rect(const AtspiEvent *e, int *xywh) {
    if (!G_VALUE_HOLDS(&e->any_data, ATSPI_TYPE_RECT)) return 0;
    const AtspiRect *r = (const AtspiRect *)g_value_get_boxed(&e->any_data);
    if (!r) return 0;
    xywh[0] = r->x; xywh[1] = r->y; xywh[2] = r->width; xywh[3] = r->height;
    return 1;
}

/// States (a bit mask, as AtspiStateSet keeps them), name, child count and role of `n`
/// objects, asked for in chunks as `catspi_extents_batch` asks (Accessible.GetState, the
/// Name and ChildCount properties, Accessible.GetRole: what libatspi asks, never GetAll,
/// which Qt 5's bridge does not survive), with the same time limit per answer. For objects
/// libatspi has not cached (a new window's, GTK 3's transient tree-view cells, which it
/// never caches), where each getter is a round trip. names[i] is malloc'd (free() it) where
/// ok[i] is 1; fills `b` (`answered` counts objects read whole).
static inline void catspi_basics_batch(AtspiAccessible *const *objs, int n, int timeout_ms, unsigned long long *states,
                                       char **names, int *child_counts, unsigned int *roles, unsigned char *ok, CatspiBatch *b) {
    memset(b, 0, sizeof *b);
    for (int i = 0; i < n; i++) { ok[i] = 0; names[i] = NULL; states[i] = 0; child_counts[i] = 0; roles[i] = 0; }
    enum { PARTS = 4, OBJECTS = CATSPI_BATCH_CHUNK / PARTS };
    DBusPendingCall *pending[PARTS * OBJECTS];
    const char *iface = "org.a11y.atspi.Accessible";
    for (int start = 0; start < n && !b->timed_out; start += OBJECTS) {
        int end = start + OBJECTS < n ? start + OBJECTS : n;
        for (int i = start; i < end; i++) {
            for (int k = 0; k < PARTS; k++) pending[PARTS * (i - start) + k] = NULL;
            if (!catspi_can_send(objs[i])) { b->unsent++; continue; }
            AtspiObject *o = (AtspiObject *)objs[i];
            pending[PARTS * (i - start)] = catspi_send(o, dbus_message_new_method_call(o->app->bus_name, o->path, iface, "GetState"), timeout_ms, b);
            pending[PARTS * (i - start) + 1] = catspi_send(o, catspi_property_get(o, iface, "Name"), timeout_ms, b);
            pending[PARTS * (i - start) + 2] = catspi_send(o, catspi_property_get(o, iface, "ChildCount"), timeout_ms, b);
            pending[PARTS * (i - start) + 3] = catspi_send(o, dbus_message_new_method_call(o->app->bus_name, o->path, iface, "GetRole"), timeout_ms, b);
        }
        long long deadline = catspi_now_ms() + timeout_ms;
        for (int i = start; i < end; i++) {
            int parts = 0;
            for (int k = 0; k < PARTS; k++) {
                DBusPendingCall *p = pending[PARTS * (i - start) + k];
                if (!p) continue;
                DBusMessage *r = catspi_take_reply(p, &deadline, timeout_ms, b);
                if (!r) continue;
                DBusMessageIter it, sub;
                if (dbus_message_get_type(r) != DBUS_MESSAGE_TYPE_METHOD_RETURN || !dbus_message_iter_init(r, &it)) {
                    if (dbus_message_get_type(r) == DBUS_MESSAGE_TYPE_ERROR) catspi_batch_note_error(b, dbus_message_get_error_name(r));
                    dbus_message_unref(r);
                    continue;
                }
                int t = dbus_message_iter_get_arg_type(&it);
                if (k == 0 && t == DBUS_TYPE_ARRAY) {
                    // au: the states, 32 to a word.
                    dbus_message_iter_recurse(&it, &sub);
                    int w = 0;
                    while (w < 2 && dbus_message_iter_get_arg_type(&sub) == DBUS_TYPE_UINT32) {
                        dbus_uint32_t v;
                        dbus_message_iter_get_basic(&sub, &v);
                        states[i] |= ((unsigned long long)v) << (32 * w++);
                        dbus_message_iter_next(&sub);
                    }
                    if (w == 2) parts++;
                } else if ((k == 1 || k == 2) && t == DBUS_TYPE_VARIANT) {
                    // v: the property's value.
                    dbus_message_iter_recurse(&it, &sub);
                    int vt = dbus_message_iter_get_arg_type(&sub);
                    if (k == 1 && vt == DBUS_TYPE_STRING) {
                        const char *s = NULL;
                        dbus_message_iter_get_basic(&sub, &s);
                        free(names[i]);
                        names[i] = strdup(s ? s : "");
                        if (names[i]) parts++;
                    } else if (k == 2 && vt == DBUS_TYPE_INT32) {
                        dbus_int32_t c;
                        dbus_message_iter_get_basic(&sub, &c);
                        child_counts[i] = c;
                        parts++;
                    }
                } else if (k == 3 && t == DBUS_TYPE_UINT32) {
                    // u: the role.
                    dbus_uint32_t v;
                    dbus_message_iter_get_basic(&it, &v);
                    roles[i] = v;
                    parts++;
                }
                dbus_message_unref(r);
            }
            if (parts == PARTS) { ok[i] = 1; b->answered++; } else { free(names[i]); names[i] = NULL; }
        }
    }
}

/// A GLib source that runs a serial executor's jobs and timers on GLib's loop: `due` says
/// whether there is work now, else sets *timeout_ms (-1: none); `run` does the work;
/// `release` is called with the context once, when the source is finalised (the source owns
/// a reference to it). One source for every job, so nothing queued is left in GLib when the
/// loop ends.
typedef struct {
    GSource source;
    gboolean (*due)(void *context, gint *timeout_ms);
    void (*run)(void *context);
    void (*release)(void *context);
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

static void catspi_job_finalize(GSource *s) {
    CatspiJobSource *j = (CatspiJobSource *)s;
    if (j->release) j->release(j->context);
    j->context = NULL;
}

static GSourceFuncs catspi_job_funcs = { catspi_job_prepare, catspi_job_check, catspi_job_dispatch, catspi_job_finalize, NULL, NULL };

static inline GSource *catspi_job_source_new(gboolean (*due)(void *, gint *), void (*run)(void *), void (*release)(void *),
                                             void *context) {
    CatspiJobSource *j = (CatspiJobSource *)g_source_new(&catspi_job_funcs, sizeof(CatspiJobSource));
    j->due = due;
    j->run = run;
    j->release = release;
    j->context = context;
    return &j->source;
}
