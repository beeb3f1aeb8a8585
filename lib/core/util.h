/*
 * util.h - the one bounded number parser and small string helpers.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_UTIL_H
#define FALCON_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/falcon_err.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#ifndef FALCON_BDF_LEN
#define FALCON_BDF_LEN 16        /* as conf.h: "0000:3b:00.0" + NUL, padded */
#endif

/*
 * falcon_bdf_normalise - a PCI address "[DDDD:]BB:DD.F" (hex, any case)
 * into "dddd:bb:dd.f" as sysfs spells it (out: FALCON_BDF_LEN bytes).
 * Domain up to 5 hex digits (VMD domains start at 0x10000), bus 00-ff,
 * device 00-1f, function 0-7 (PCI Local Bus r3.0 sec 3.2.2.3.1), each field
 * of 1 to that many digits.  FALCON_ERR_INVAL (detail naming in) when
 * malformed or NULL; out is untouched then.  The one BDF reader of the
 * project (falcon.conf Adapters, topo, hotplug).
 */
falcon_err_t falcon_bdf_normalise(const char *in, char out[FALCON_BDF_LEN]);

/* A PCI address as numbers (falcon_bdf_parse). */
struct falcon_bdf {
	unsigned domain, bus, dev, fn;
};

/*
 * falcon_bdf_parse - a PCI address, read as falcon_bdf_normalise() reads
 * it, into *out (domain 0 when absent).  Errors as falcon_bdf_normalise();
 * *out is untouched then.
 */
falcon_err_t falcon_bdf_parse(const char *in, struct falcon_bdf *out);

/*
 * falcon_strtol - parse the whole of s as a decimal integer (or 0x-prefixed
 * hex when base is 0 or 16) in [min, max] into *out.  Leading/trailing
 * blanks, an empty string, trailing garbage or a value out of range give
 * FALCON_ERR_INVAL with a detail such as "'12x' is not an integer in [0, 8]".
 * *out is untouched on error.
 */
falcon_err_t falcon_strtol(const char *s, int base, long min, long max, long *out);

/*
 * falcon_strtol_n - the len bytes at s (a token inside a longer string:
 * the 8 of "c1_gpu:8,c2_gpu:4", no NUL needed after it) as a number in
 * [min, max] into *out: 1 to 20 digits of base 10 or 16 (no sign, no
 * blank, no 0x).  FALCON_ERR_INVAL with a detail quoting the token, such
 * as "'8x' is not an integer in [0, 1000000]", otherwise; *out is
 * untouched then.
 */
falcon_err_t falcon_strtol_n(const char *s, size_t len, int base, long min, long max, long *out);

/*
 * falcon_strtod - parse the whole of s as a finite decimal number in
 * [min, max]; errors as falcon_strtol().
 */
falcon_err_t falcon_strtod(const char *s, double min, double max, double *out);

/*
 * falcon_strf - a new string printed as fmt (the caller free()s it); NULL
 * when out of memory.
 */
char *falcon_strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * falcon_strlcpy - copy src into dst of size n (n > 0), always terminated;
 * returns strlen(src), so a result >= n means it was truncated.
 */
size_t falcon_strlcpy(char *dst, const char *src, size_t n);

/*
 * falcon_str_set - replace the heap string *dst (freed; NULL is fine) by a
 * copy of v, which the caller then owns (free()).  FALCON_ERR_NOMEM with
 * *dst untouched when there is no memory.
 */
falcon_err_t falcon_str_set(char **dst, const char *v);

/*
 * falcon_buf_append - a request body received in pieces (libmicrohttpd's
 * upload_data): data[n] appended to the heap buffer *buf of *len bytes
 * (kept NUL-terminated; *buf NULL at first, the caller frees it), as long
 * as the whole stays within max bytes.  A piece that would exceed max sets
 * *too_big and is dropped, as is everything after it (the caller answers
 * 413).  FALCON_ERR_NOMEM with *buf untouched when there is no memory;
 * FALCON_OK otherwise, too big or not.
 */
falcon_err_t falcon_buf_append(char **buf, size_t *len, bool *too_big, const char *data,
			       size_t n, size_t max);

/*
 * falcon_read_file - read at most max bytes of path into a NUL-terminated
 * heap buffer (*buf, caller frees) and its length (*len, may be NULL).
 * A file longer than max is FALCON_ERR_PARSE; open/read failures are
 * FALCON_ERR_IO or FALCON_ERR_NOTFOUND (ENOENT), with path and strerror in
 * the detail.
 */
falcon_err_t falcon_read_file(const char *path, size_t max, char **buf, size_t *len);

/*
 * falcon_write_file_atomic - write len bytes to path crash-safely: write a
 * temporary file in the same directory with the given mode, fsync it,
 * rename it over path, fsync the directory.  FALCON_ERR_IO on failure, with
 * the temporary file removed.
 */
falcon_err_t falcon_write_file_atomic(const char *path, const void *data,
				      size_t len, unsigned mode);

/*
 * falcon_fsync_dir_of - fsync the directory that holds path (".", when
 * path names none), so that a file created or renamed there survives a
 * crash.  FALCON_ERR_IO with the directory and strerror in the detail.
 */
falcon_err_t falcon_fsync_dir_of(const char *path);

/*
 * falcon_append_file_sync - append len bytes to the regular file path
 * (created with mode, and its directory fsynced, when absent) and
 * fdatasync it: one write, one sync.  The file is opened for each call, so
 * that a file put in its place is the one written.  FALCON_ERR_IO (path,
 * strerror) when it cannot be opened, is not a regular file, or the write
 * or the sync fails; the file is then cut back to its old length where it
 * can be (a torn append is not left behind), which is not guaranteed.
 */
falcon_err_t falcon_append_file_sync(const char *path, const void *data, size_t len,
				     unsigned mode);

/* falcon_now_ms - CLOCK_MONOTONIC in milliseconds, for bounded waits. */
long long falcon_now_ms(void);

#endif /* FALCON_UTIL_H */
