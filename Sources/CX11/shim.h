#pragma once
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/extensions/shape.h>
#include <X11/extensions/XTest.h>

// Xlib macros Swift cannot import, as functions.
static inline int cx11_default_screen(Display *d) { return DefaultScreen(d); }
static inline Window cx11_root_window(Display *d, int s) { return RootWindow(d, s); }
static inline int cx11_display_width(Display *d, int s) { return DisplayWidth(d, s); }
static inline int cx11_display_height(Display *d, int s) { return DisplayHeight(d, s); }
static inline Colormap cx11_default_colormap(Display *d, int s) { return DefaultColormap(d, s); }
static inline int cx11_default_depth(Display *d, int s) { return DefaultDepth(d, s); }
