// The wrappers are static inline in csys.h; this file gives SwiftPM a C target to build.
