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
/// application (the peer-to-peer address its GetApplicationBusAddress gives). An action that
/// runs a modal loop (GTK 3's gtk_dialog_run behind a menu item or a button) runs it inside
/// the dispatch of the connection that carried the action: the application answers nothing
/// more on that connection until the dialog closes, so reads go elsewhere. Nor may anything
/// reach the application on it meanwhile, not even its closing: atk-bridge's key listener
/// runs a main loop of its own for every key, which dispatches each connection with a
/// message waiting, and a second dispatch of the held one waits for ever (the application
/// hangs at the first key). So the connection is handed to the caller in `*kept` whenever the
/// action was sent (answered or not), to be closed once the application is known to be done
/// with it (`catspi_app_shows_modal`). Returns 1 and the action's answer in `*done`; 0 with
/// the D-Bus error name (NoReply: no answer in `timeout_ms`) in `error_name`; -1 when no
/// connection of its own can be made (the application offers no address, or it cannot be
/// reached): the caller acts as before.
static inline int catspi_do_action_alone(AtspiAccessible *a, int index, int timeout_ms, int *done, char *error_name, int size, DBusConnection **kept) {
    if (size > 0) error_name[0] = 0;
    *kept = NULL;
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
    // Sent or not is known only from the answer; an unanswered call may still be delivered.
    r = dbus_connection_send_with_reply_and_block(c, m, timeout_ms, &err);
    dbus_message_unref(m);
    int ok = 0;
    int sent = r != NULL || dbus_error_has_name(&err, DBUS_ERROR_NO_REPLY) || dbus_error_has_name(&err, DBUS_ERROR_TIMEOUT);
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
    if (sent) {
        *kept = c;
    } else {
        dbus_connection_close(c);
        dbus_connection_unref(c);
    }
    return ok;
}

/// Closes a connection `catspi_do_action_alone` kept.
static inline void catspi_close_kept(DBusConnection *c) {
    dbus_connection_close(c);
    dbus_connection_unref(c);
}

/// Whether the answer to the action a kept connection carried has come (read without
/// sending anything): an unanswered action may not have begun yet.
static inline int catspi_kept_answered(DBusConnection *c) {
    if (!dbus_connection_read_write(c, 0)) return 1;  // closed by the application: it is done with it
    DBusMessage *m = dbus_connection_pop_message(c);
    if (!m) return 0;
    dbus_message_unref(m);
    return 1;
}

/// Whether the application of `a` shows a modal window (one with the modal and visible
/// states), asked live, not from libatspi's cache: 1 yes, 0 no, -1 it did not answer within
/// `timeout_ms` (or answered with an error), -2 it is gone. An answer means its main loop
/// ran after everything sent before: an action begun earlier is over or runs a loop of its
/// own, and the modal loops an action runs (GTK 3's gtk_dialog_run, LibreOffice's Execute)
/// show their modal window before they start and while they run.
static inline int catspi_app_shows_modal(AtspiAccessible *a, int timeout_ms) {
    AtspiObject *o = (AtspiObject *)a;
    if (!o || !o->app || !o->app->bus || !o->app->bus_name) return -2;
    DBusConnection *bus = o->app->bus;
    if (!dbus_connection_get_is_connected(bus)) return -2;
    const char *name = o->app->bus_name;
    DBusMessage *m = dbus_message_new_method_call(name, "/org/a11y/atspi/accessible/root", "org.a11y.atspi.Accessible", "GetChildren");
    if (!m) return -1;
    DBusError err;
    dbus_error_init(&err);
    DBusMessage *r = dbus_connection_send_with_reply_and_block(bus, m, timeout_ms, &err);
    dbus_message_unref(m);
    if (!r) {
        int gone = dbus_error_has_name(&err, DBUS_ERROR_SERVICE_UNKNOWN) || dbus_error_has_name(&err, DBUS_ERROR_NAME_HAS_NO_OWNER)
            || dbus_error_has_name(&err, DBUS_ERROR_DISCONNECTED) || !dbus_connection_get_is_connected(bus);
        if (dbus_error_is_set(&err)) dbus_error_free(&err);
        return gone ? -2 : -1;
    }
    // The windows' paths, then each one's states.
    char *paths[64];
    int n = 0;
    DBusMessageIter iter, array, entry;
    if (dbus_message_iter_init(r, &iter) && dbus_message_iter_get_arg_type(&iter) == DBUS_TYPE_ARRAY) {
        dbus_message_iter_recurse(&iter, &array);
        while (n < 64 && dbus_message_iter_get_arg_type(&array) == DBUS_TYPE_STRUCT) {
            dbus_message_iter_recurse(&array, &entry);
            dbus_message_iter_next(&entry);  // the bus name: the application's own
            if (dbus_message_iter_get_arg_type(&entry) == DBUS_TYPE_OBJECT_PATH) {
                const char *path = NULL;
                dbus_message_iter_get_basic(&entry, &path);
                if (path) paths[n++] = strdup(path);
            }
            dbus_message_iter_next(&array);
        }
    }
    dbus_message_unref(r);
    int result = 0;
    for (int i = 0; i < n; i++) {
        if (result == 0) {
            m = dbus_message_new_method_call(name, paths[i], "org.a11y.atspi.Accessible", "GetState");
            r = m ? dbus_connection_send_with_reply_and_block(bus, m, timeout_ms, &err) : NULL;
            if (m) dbus_message_unref(m);
            if (!r) {
                result = -1;
                if (dbus_error_is_set(&err)) dbus_error_free(&err);
            } else {
                dbus_uint32_t words[2] = {0, 0};
                int k = 0;
                if (dbus_message_iter_init(r, &iter) && dbus_message_iter_get_arg_type(&iter) == DBUS_TYPE_ARRAY) {
                    dbus_message_iter_recurse(&iter, &array);
                    while (k < 2 && dbus_message_iter_get_arg_type(&array) == DBUS_TYPE_UINT32) {
                        dbus_message_iter_get_basic(&array, &words[k++]);
                        dbus_message_iter_next(&array);
                    }
                }
                dbus_message_unref(r);
                int modal = (words[ATSPI_STATE_MODAL / 32] >> (ATSPI_STATE_MODAL % 32)) & 1;
                int visible = (words[ATSPI_STATE_VISIBLE / 32] >> (ATSPI_STATE_VISIBLE % 32)) & 1;
                if (modal && visible) result = 1;
            }
        }
        free(paths[i]);
    }
    return result;
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

/// The request for part `k` of object `i` of a batch (NULL if it could not be made).
typedef DBusMessage *(*CatspiMake)(AtspiObject *o, int i, int k, void *context);
/// Takes the answer to part `k` of object `i`: 1 if it was read.
typedef int (*CatspiTake)(DBusMessage *r, int i, int k, void *context);

/// Sends `parts` requests (at most CATSPI_BATCH_CHUNK) to each of `n` objects and takes the
/// answers, in chunks: every request of a chunk is sent before any answer is awaited, so an
/// application answers them back to back and a chunk costs about one round trip where
/// libatspi, asking one at a time, costs one each. The time limit is per answer, not per
/// batch: the batch waits while answers keep coming (a big window, an application that
/// answers slowly), and gives up the rest once nothing has come for `timeout_ms`
/// (`b->timed_out`). ok[i] is 1 where every part of object i was read; fills `b`
/// (`answered` counts objects read whole). These are libatspi's own requests, on its
/// connection to the application.
static inline void catspi_batch_run(AtspiAccessible *const *objs, int n, int parts, int timeout_ms, CatspiMake make,
                                    CatspiTake take, void *context, unsigned char *ok, CatspiBatch *b) {
    memset(b, 0, sizeof *b);
    for (int i = 0; i < n; i++) ok[i] = 0;
    if (parts < 1 || parts > CATSPI_BATCH_CHUNK) return;
    int objects = CATSPI_BATCH_CHUNK / parts;
    DBusPendingCall *pending[CATSPI_BATCH_CHUNK];
    for (int start = 0; start < n && !b->timed_out; start += objects) {
        int end = start + objects < n ? start + objects : n;
        for (int i = start; i < end; i++) {
            for (int k = 0; k < parts; k++) pending[parts * (i - start) + k] = NULL;
            if (!catspi_can_send(objs[i])) { b->unsent++; continue; }
            AtspiObject *o = (AtspiObject *)objs[i];
            for (int k = 0; k < parts; k++) pending[parts * (i - start) + k] = catspi_send(o, make(o, i, k, context), timeout_ms, b);
        }
        long long deadline = catspi_now_ms() + timeout_ms;
        for (int i = start; i < end; i++) {
            int read = 0;
            for (int k = 0; k < parts; k++) {
                DBusPendingCall *p = pending[parts * (i - start) + k];
                if (!p) continue;
                DBusMessage *r = catspi_take_reply(p, &deadline, timeout_ms, b);
                if (!r) continue;
                read += take(r, i, k, context) ? 1 : 0;
                dbus_message_unref(r);
            }
            if (read == parts) { ok[i] = 1; b->answered++; }
        }
    }
}

/// Adds a later batch's account to `b`, as one batch.
static inline void catspi_batch_add(CatspiBatch *b, const CatspiBatch *later) {
    b->sent += later->sent;
    b->unsent += later->unsent;
    b->timed_out |= later->timed_out;
    catspi_batch_note_error(b, later->error_name[0] ? later->error_name : NULL);
}

/// A method call on `o` with at most one INT32 argument (`with_arg`), or NULL.
static inline DBusMessage *catspi_call(AtspiObject *o, const char *iface, const char *method, int with_arg, dbus_int32_t arg) {
    DBusMessage *m = dbus_message_new_method_call(o->app->bus_name, o->path, iface, method);
    if (m && with_arg && !dbus_message_append_args(m, DBUS_TYPE_INT32, &arg, DBUS_TYPE_INVALID)) { dbus_message_unref(m); m = NULL; }
    return m;
}

/// The basic value (an INT32, a DOUBLE, a STRING) a method answered with, or a property's
/// value (a Properties.Get answer's variant), if it is of `type`: 1 then.
static inline int catspi_answer(DBusMessage *r, int type, void *value) {
    DBusMessageIter it, var;
    if (dbus_message_get_type(r) != DBUS_MESSAGE_TYPE_METHOD_RETURN || !dbus_message_iter_init(r, &it)) return 0;
    if (dbus_message_iter_get_arg_type(&it) == DBUS_TYPE_VARIANT && type != DBUS_TYPE_VARIANT) {
        dbus_message_iter_recurse(&it, &var);
        it = var;
    }
    if (dbus_message_iter_get_arg_type(&it) != type) return 0;
    dbus_message_iter_get_basic(&it, value);
    return 1;
}

typedef struct { unsigned int coord; int *out; } CatspiExtents;

static inline DBusMessage *catspi_extents_make(AtspiObject *o, int i, int k, void *c) {
    DBusMessage *m = dbus_message_new_method_call(o->app->bus_name, o->path, "org.a11y.atspi.Component", "GetExtents");
    dbus_uint32_t coord = ((CatspiExtents *)c)->coord;
    if (m && !dbus_message_append_args(m, DBUS_TYPE_UINT32, &coord, DBUS_TYPE_INVALID)) { dbus_message_unref(m); m = NULL; }
    return m;
}

static inline int catspi_extents_take(DBusMessage *r, int i, int k, void *c) {
    DBusMessageIter it, st;
    if (dbus_message_get_type(r) != DBUS_MESSAGE_TYPE_METHOD_RETURN || !dbus_message_iter_init(r, &it)
        || dbus_message_iter_get_arg_type(&it) != DBUS_TYPE_STRUCT) return 0;
    dbus_message_iter_recurse(&it, &st);
    dbus_int32_t v[4];
    int j = 0;
    while (j < 4 && dbus_message_iter_get_arg_type(&st) == DBUS_TYPE_INT32) {
        dbus_message_iter_get_basic(&st, &v[j++]);
        dbus_message_iter_next(&st);
    }
    if (j < 4) return 0;
    for (j = 0; j < 4; j++) ((CatspiExtents *)c)->out[4 * i + j] = v[j];
    return 1;
}

/// Screen or window extents (coord 0 or 1) of `n` objects (Component.GetExtents), in one
/// batch: x, y, width, height per object into `out`, and 1 into `ok[i]` where they came.
static inline void catspi_extents_batch(AtspiAccessible *const *objs, int n, unsigned int coord, int timeout_ms,
                                        int *out, unsigned char *ok, CatspiBatch *b) {
    CatspiExtents c = { coord, out };
    catspi_batch_run(objs, n, 1, timeout_ms, catspi_extents_make, catspi_extents_take, &c, ok, b);
}

/// At most this many action names are read of an object.
enum { CATSPI_MOST_ACTIONS = 32 };

typedef struct { int *counts; int *index; char **names; } CatspiActions;

static inline DBusMessage *catspi_actions_count_make(AtspiObject *o, int i, int k, void *c) {
    return catspi_property_get(o, "org.a11y.atspi.Action", "NActions");
}

static inline int catspi_actions_count_take(DBusMessage *r, int i, int k, void *c) {
    dbus_int32_t n;
    int *counts = ((CatspiActions *)c)->counts;
    if (catspi_answer(r, DBUS_TYPE_INT32, &n)) {
        counts[i] = n < 0 ? 0 : n > CATSPI_MOST_ACTIONS ? CATSPI_MOST_ACTIONS : n;
        return 1;
    }
    // An error answer: no Action interface (so the question need not be asked first).
    if (dbus_message_get_type(r) == DBUS_MESSAGE_TYPE_ERROR) { counts[i] = 0; return 1; }
    return 0;
}

static inline DBusMessage *catspi_actions_name_make(AtspiObject *o, int i, int k, void *c) {
    return catspi_call(o, "org.a11y.atspi.Action", "GetName", 1, ((CatspiActions *)c)->index[i]);
}

static inline int catspi_actions_name_take(DBusMessage *r, int i, int k, void *c) {
    const char *name = NULL;
    if (!catspi_answer(r, DBUS_TYPE_STRING, &name) || !name) return 0;
    ((CatspiActions *)c)->names[i] = strdup(name);
    return ((CatspiActions *)c)->names[i] != NULL;
}

/// The action names of `n` objects: every object's Action.NActions in one batch, then
/// every GetName in a second. For controls read for the first time (a dialog just opened),
/// where libatspi asks one name at a time. counts[i] is the number of actions (at most
/// CATSPI_MOST_ACTIONS; 0 where the object answers NActions with an error: it has no
/// Action interface), or -1 where they did not all come; names[i] (where counts[i] > 0)
/// holds them joined by newlines, malloc'd: free() it. Fills `b` (`answered` counts objects
/// read whole).
static inline void catspi_actions_batch(AtspiAccessible *const *objs, int n, int timeout_ms, int *counts, char **names,
                                        CatspiBatch *b) {
    for (int i = 0; i < n; i++) { counts[i] = -1; names[i] = NULL; }
    unsigned char *ok = (unsigned char *)malloc(n > 0 ? (size_t)n : 1);
    if (!ok) { memset(b, 0, sizeof *b); b->unsent = n; return; }
    CatspiActions c = { counts, NULL, NULL };
    catspi_batch_run(objs, n, 1, timeout_ms, catspi_actions_count_make, catspi_actions_count_take, &c, ok, b);
    int total = 0;
    for (int i = 0; i < n; i++) {
        if (!ok[i]) counts[i] = -1;
        else total += counts[i];
    }
    // One request for each name, of its object and index; their answers joined after.
    AtspiAccessible **each = (AtspiAccessible **)malloc((size_t)(total > 0 ? total : 1) * sizeof *each);
    int *index = (int *)malloc((size_t)(total > 0 ? total : 1) * sizeof *index);
    char **got = (char **)calloc((size_t)(total > 0 ? total : 1), sizeof *got);
    unsigned char *named = (unsigned char *)malloc((size_t)(total > 0 ? total : 1));
    if (!each || !index || !got || !named) {
        for (int i = 0; i < n; i++) if (counts[i] > 0) counts[i] = -1;
        b->unsent += total;
    } else if (!b->timed_out) {
        int next = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < (counts[i] > 0 ? counts[i] : 0); j++) { each[next] = objs[i]; index[next] = j; next++; }
        c.index = index;
        c.names = got;
        CatspiBatch later;
        catspi_batch_run(each, total, 1, timeout_ms, catspi_actions_name_make, catspi_actions_name_take, &c, named, &later);
        catspi_batch_add(b, &later);
        next = 0;
        for (int i = 0; i < n; i++) {
            int first = next, count = counts[i] > 0 ? counts[i] : 0;
            next += count;
            if (count == 0) continue;
            size_t length = 0;
            int whole = 1;
            for (int j = first; j < first + count; j++) {
                if (!named[j]) whole = 0; else length += strlen(got[j]) + 1;
            }
            char *joined = whole ? (char *)malloc(length) : NULL;
            if (!joined) { counts[i] = -1; continue; }
            char *at = joined;
            for (int j = first; j < first + count; j++) {
                size_t add = strlen(got[j]);
                memcpy(at, got[j], add);
                at += add;
                *at++ = j + 1 < first + count ? '\n' : 0;
            }
            names[i] = joined;
        }
    } else {
        for (int i = 0; i < n; i++) if (counts[i] > 0) counts[i] = -1;
    }
    b->answered = 0;
    for (int i = 0; i < n; i++) if (counts[i] >= 0) b->answered++;
    if (got) for (int k = 0; k < total; k++) free(got[k]);
    free(each); free(index); free(got); free(named); free(ok);
}

typedef struct { AtspiAccessible **out; } CatspiChildren;

static inline DBusMessage *catspi_child_make(AtspiObject *o, int i, int k, void *c) {
    return catspi_call(o, "org.a11y.atspi.Accessible", "GetChildAtIndex", 1, i);
}

static inline int catspi_child_take(DBusMessage *r, int i, int k, void *c) {
    DBusMessageIter it;
    if (dbus_message_get_type(r) != DBUS_MESSAGE_TYPE_METHOD_RETURN || strcmp(dbus_message_get_signature(r), "(so)") != 0
        || !dbus_message_iter_init(r, &it)) return 0;
    ((CatspiChildren *)c)->out[i] = _atspi_dbus_consume_accessible(&it);
    return ((CatspiChildren *)c)->out[i] != NULL;
}

/// The `count` children of `a` (Accessible.GetChildAtIndex of each index), in one batch,
/// where libatspi would ask for each and wait (children it has not cached: a new window's,
/// a tree view's cells): new references in out[i], NULL where none came (then `b` says why).
static inline void catspi_children_batch(AtspiAccessible *a, int count, int timeout_ms, AtspiAccessible **out, CatspiBatch *b) {
    for (int i = 0; i < count; i++) out[i] = NULL;
    AtspiAccessible **each = (AtspiAccessible **)malloc((size_t)(count > 0 ? count : 1) * sizeof *each);
    unsigned char *ok = (unsigned char *)malloc((size_t)(count > 0 ? count : 1));
    if (!each || !ok) {
        memset(b, 0, sizeof *b);
        b->unsent = count;
    } else {
        for (int i = 0; i < count; i++) each[i] = a;
        CatspiChildren c = { out };
        catspi_batch_run(each, count, 1, timeout_ms, catspi_child_make, catspi_child_take, &c, ok, b);
    }
    free(each);
    free(ok);
}

/// The Value interface's properties a batch reads, in order.
static const char *const catspi_value_parts[4] = { "MinimumValue", "MaximumValue", "CurrentValue", "MinimumIncrement" };

static inline DBusMessage *catspi_value_make(AtspiObject *o, int i, int k, void *c) {
    return catspi_property_get(o, "org.a11y.atspi.Value", catspi_value_parts[k]);
}

static inline int catspi_value_take(DBusMessage *r, int i, int k, void *c) {
    return catspi_answer(r, DBUS_TYPE_DOUBLE, (double *)c + 4 * i + k);
}

/// The Value interface of `n` objects (MinimumValue, MaximumValue, CurrentValue and
/// MinimumIncrement: out[4i..4i+3]), in one batch, where libatspi asks each in turn. ok[i]
/// is 1 where all four came.
static inline void catspi_values_batch(AtspiAccessible *const *objs, int n, int timeout_ms, double *out, unsigned char *ok,
                                       CatspiBatch *b) {
    catspi_batch_run(objs, n, 4, timeout_ms, catspi_value_make, catspi_value_take, out, ok, b);
}

typedef struct { unsigned long long *states; char **names; int *child_counts; unsigned int *roles; } CatspiBasics;

static inline DBusMessage *catspi_basics_make(AtspiObject *o, int i, int k, void *c) {
    const char *iface = "org.a11y.atspi.Accessible";
    switch (k) {
    case 0: return catspi_call(o, iface, "GetState", 0, 0);
    case 1: return catspi_property_get(o, iface, "Name");
    case 2: return catspi_property_get(o, iface, "ChildCount");
    default: return catspi_call(o, iface, "GetRole", 0, 0);
    }
}

static inline int catspi_basics_take(DBusMessage *r, int i, int k, void *context) {
    CatspiBasics *c = (CatspiBasics *)context;
    DBusMessageIter it, sub;
    switch (k) {
    case 0: {
        // au: the states, 32 to a word.
        if (dbus_message_get_type(r) != DBUS_MESSAGE_TYPE_METHOD_RETURN || !dbus_message_iter_init(r, &it)
            || dbus_message_iter_get_arg_type(&it) != DBUS_TYPE_ARRAY) return 0;
        dbus_message_iter_recurse(&it, &sub);
        int w = 0;
        while (w < 2 && dbus_message_iter_get_arg_type(&sub) == DBUS_TYPE_UINT32) {
            dbus_uint32_t v;
            dbus_message_iter_get_basic(&sub, &v);
            c->states[i] |= ((unsigned long long)v) << (32 * w++);
            dbus_message_iter_next(&sub);
        }
        return w == 2;
    }
    case 1: {
        const char *s = NULL;
        if (!catspi_answer(r, DBUS_TYPE_STRING, &s)) return 0;
        free(c->names[i]);
        c->names[i] = strdup(s ? s : "");
        return c->names[i] != NULL;
    }
    case 2: return catspi_answer(r, DBUS_TYPE_INT32, &c->child_counts[i]);
    default: return catspi_answer(r, DBUS_TYPE_UINT32, &c->roles[i]);
    }
}

/// States (a bit mask, as AtspiStateSet keeps them), name, child count and role of `n`
/// objects (Accessible.GetState, the Name and ChildCount properties, Accessible.GetRole:
/// what libatspi asks, never GetAll, which Qt 5's bridge does not survive), in one batch.
/// For objects libatspi has not cached (a new window's, GTK 3's transient tree-view cells,
/// which it never caches), where each getter is a round trip. names[i] is malloc'd (free()
/// it) where ok[i] is 1; fills `b` (`answered` counts objects read whole).
static inline void catspi_basics_batch(AtspiAccessible *const *objs, int n, int timeout_ms, unsigned long long *states,
                                       char **names, int *child_counts, unsigned int *roles, unsigned char *ok, CatspiBatch *b) {
    for (int i = 0; i < n; i++) { names[i] = NULL; states[i] = 0; child_counts[i] = 0; roles[i] = 0; }
    CatspiBasics c = { states, names, child_counts, roles };
    catspi_batch_run(objs, n, 4, timeout_ms, catspi_basics_make, catspi_basics_take, &c, ok, b);
    for (int i = 0; i < n; i++) if (!ok[i]) { free(names[i]); names[i] = NULL; }
}

typedef struct { int *counts; int limit; char **texts; } CatspiTexts;

static inline DBusMessage *catspi_text_count_make(AtspiObject *o, int i, int k, void *c) {
    return catspi_property_get(o, "org.a11y.atspi.Text", "CharacterCount");
}

static inline int catspi_text_count_take(DBusMessage *r, int i, int k, void *c) {
    return catspi_answer(r, DBUS_TYPE_INT32, &((CatspiTexts *)c)->counts[i]);
}

static inline DBusMessage *catspi_text_make(AtspiObject *o, int i, int k, void *context) {
    CatspiTexts *c = (CatspiTexts *)context;
    DBusMessage *m = dbus_message_new_method_call(o->app->bus_name, o->path, "org.a11y.atspi.Text", "GetText");
    dbus_int32_t start = 0, end = c->counts[i] < c->limit ? c->counts[i] : c->limit;
    if (m && !dbus_message_append_args(m, DBUS_TYPE_INT32, &start, DBUS_TYPE_INT32, &end, DBUS_TYPE_INVALID)) { dbus_message_unref(m); m = NULL; }
    return m;
}

static inline int catspi_text_take(DBusMessage *r, int i, int k, void *context) {
    CatspiTexts *c = (CatspiTexts *)context;
    const char *s = NULL;
    if (!catspi_answer(r, DBUS_TYPE_STRING, &s)) return 0;
    c->texts[i] = strdup(s ? s : "");
    return c->texts[i] != NULL;
}

/// The text of `n` Text objects (entries), their first `limit` characters: every
/// CharacterCount in one batch, then every GetText in a second, where libatspi asks the
/// two in turn for each. texts[i] is malloc'd (free() it), NULL where it did not come (no
/// Text interface, an error, no answer). Fills `b` (`answered` counts texts read).
static inline void catspi_texts_batch(AtspiAccessible *const *objs, int n, int limit, int timeout_ms, char **texts, CatspiBatch *b) {
    for (int i = 0; i < n; i++) texts[i] = NULL;
    int *counts = (int *)calloc((size_t)(n > 0 ? n : 1), sizeof *counts);
    unsigned char *ok = (unsigned char *)malloc((size_t)(n > 0 ? n : 1));
    AtspiAccessible **some = (AtspiAccessible **)malloc((size_t)(n > 0 ? n : 1) * sizeof *some);
    int *which = (int *)malloc((size_t)(n > 0 ? n : 1) * sizeof *which);
    char **got = (char **)calloc((size_t)(n > 0 ? n : 1), sizeof *got);
    if (!counts || !ok || !some || !which || !got) {
        memset(b, 0, sizeof *b);
        b->unsent = n;
    } else {
        CatspiTexts c = { counts, limit, got };
        catspi_batch_run(objs, n, 1, timeout_ms, catspi_text_count_make, catspi_text_count_take, &c, ok, b);
        // An empty text needs no GetText.
        int m = 0;
        for (int i = 0; i < n; i++) {
            if (!ok[i]) continue;
            if (counts[i] <= 0) { texts[i] = strdup(""); continue; }
            some[m] = objs[i];
            which[m] = i;
            counts[m] = counts[i];
            m++;
        }
        if (m > 0 && !b->timed_out) {
            CatspiBatch later;
            catspi_batch_run(some, m, 1, timeout_ms, catspi_text_make, catspi_text_take, &c, ok, &later);
            catspi_batch_add(b, &later);
            for (int j = 0; j < m; j++) texts[which[j]] = got[j];
        }
        b->answered = 0;
        for (int i = 0; i < n; i++) if (texts[i]) b->answered++;
    }
    free(counts); free(ok); free(some); free(which); free(got);
}

/// The rectangle a bounds-changed event carries; returns 0 when it carries none.
static inline int catspi_event_rect(const AtspiEvent *e, int *xywh) {
    if (!G_VALUE_HOLDS(&e->any_data, ATSPI_TYPE_RECT)) return 0;
    const AtspiRect *r = (const AtspiRect *)g_value_get_boxed(&e->any_data);
    if (!r) return 0;
    xywh[0] = r->x; xywh[1] = r->y; xywh[2] = r->width; xywh[3] = r->height;
    return 1;
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
