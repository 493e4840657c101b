// glibc's malloc extensions (malloc_trim), which the Glibc module does not import.
#ifndef HEARTH_CMALLOC_SHIM_H
#define HEARTH_CMALLOC_SHIM_H
#if defined(__linux__)
#include <malloc.h>
#endif
#endif
