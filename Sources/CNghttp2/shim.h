// Umbrella header for libnghttp2 (Debian: libnghttp2-dev).
#ifndef HEARTH_CNGHTTP2_SHIM_H
#define HEARTH_CNGHTTP2_SHIM_H
#include <nghttp2/nghttp2.h>
#endif
