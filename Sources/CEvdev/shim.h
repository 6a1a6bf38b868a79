#pragma once
#include <libevdev/libevdev.h>
#include <linux/input.h>

// Function-like macros and constants Swift cannot import, as functions.
static inline unsigned int cevdev_ev_key(void) { return EV_KEY; }
static inline unsigned int cevdev_ev_abs(void) { return EV_ABS; }
static inline unsigned int cevdev_ev_syn(void) { return EV_SYN; }
static inline unsigned int cevdev_syn_dropped(void) { return SYN_DROPPED; }
static inline unsigned int cevdev_key_max(void) { return KEY_MAX; }
static inline unsigned int cevdev_abs_max(void) { return ABS_MAX; }
static inline long cevdev_event_sec(const struct input_event *e) { return (long)e->input_event_sec; }
static inline long cevdev_event_usec(const struct input_event *e) { return (long)e->input_event_usec; }
#include <libevdev/libevdev-uinput.h>

static inline unsigned int cevdev_ev_key_type(void) { return EV_KEY; }
static inline unsigned int cevdev_abs_x(void) { return ABS_X; }
static inline unsigned int cevdev_abs_y(void) { return ABS_Y; }
static inline unsigned int cevdev_btn_left(void) { return BTN_LEFT; }
static inline unsigned int cevdev_btn_right(void) { return BTN_RIGHT; }
static inline unsigned int cevdev_btn_middle(void) { return BTN_MIDDLE; }
static inline unsigned int cevdev_ev_rel(void) { return EV_REL; }
static inline unsigned int cevdev_rel_wheel(void) { return REL_WHEEL; }
static inline unsigned int cevdev_rel_hwheel(void) { return REL_HWHEEL; }
static inline unsigned int cevdev_syn_report(void) { return SYN_REPORT; }
static inline unsigned int cevdev_bus_virtual(void) { return BUS_VIRTUAL; }
static inline int cevdev_uinput_managed(void) { return LIBEVDEV_UINPUT_OPEN_MANAGED; }
