#include <wayland-client.h>

// The core interfaces' addresses: libwayland keeps the pointer it is given, so Swift must
// pass the global itself, never a copy (`withUnsafePointer(to:)` may make one).
static inline const struct wl_interface *cwl_compositor_interface(void) { return &wl_compositor_interface; }
static inline const struct wl_interface *cwl_shm_interface(void) { return &wl_shm_interface; }
static inline const struct wl_interface *cwl_seat_interface(void) { return &wl_seat_interface; }
static inline const struct wl_interface *cwl_output_interface(void) { return &wl_output_interface; }
