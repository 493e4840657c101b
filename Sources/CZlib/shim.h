// zlib (Debian: zlib1g-dev), for HearthWire's gzip and deflate message compression.
#ifndef HEARTH_CZLIB_SHIM_H
#define HEARTH_CZLIB_SHIM_H
#include <zlib.h>
#endif
