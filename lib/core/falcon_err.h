/*
 * falcon_err.h - the one error type of libfalcon.
 *
 * Every fallible libfalcon function returns a falcon_err_t (FALCON_OK is 0)
 * and, on failure, leaves a human-readable detail in a thread-local buffer
 * (falcon_errmsg()) that names the file:line, field or URL and what was
 * expected.  The detail is overwritten by the next failure in the same thread.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_ERR_H
#define FALCON_ERR_H

#include <stdarg.h>

typedef enum falcon_err {
	FALCON_OK = 0,
	FALCON_ERR_NOMEM,        /* out of memory */
	FALCON_ERR_INVAL,        /* invalid argument from the caller */
	FALCON_ERR_IO,           /* read/write/open failed (errno in the detail) */
	FALCON_ERR_CONFIG,       /* falcon.conf: unknown key, bad value, duplicate */
	FALCON_ERR_PARSE,        /* malformed input: JSON, config space, sysfs file */
	FALCON_ERR_NOTFOUND,     /* no such device, lease, job, resource (HTTP 404) */
	FALCON_ERR_CONFLICT,     /* device in another zone/lease (HTTP 409) */
	FALCON_ERR_PRECONDITION, /* stale ETag (HTTP 412) */
	FALCON_ERR_AUTH,         /* unauthenticated: bad/expired/replayed cred (401) */
	FALCON_ERR_PERM,         /* authenticated but not allowed (403) */
	FALCON_ERR_TIMEOUT,      /* a bounded wait ran out */
	FALCON_ERR_TRANSPORT,    /* connection refused/reset, TLS failure */
	FALCON_ERR_SERVER,       /* the peer answered 5xx */
	FALCON_ERR_PROTOCOL,     /* the peer answered something we cannot use */
	FALCON_ERR_CHASSIS,      /* the chassis refused the operation */
	FALCON_ERR_PCI,          /* libpci or sysfs hot-plug failure */
	FALCON_ERR_DEGRADED,     /* a PCIe link trained below its capability */
	FALCON_ERR_BUSY,         /* a device is held by a process */
	FALCON_ERR_POLICY,       /* refused by partition policy */
	FALCON_ERR_NORESOURCE,   /* not enough free devices */
	FALCON_ERR_QUARANTINED,  /* the device is quarantined */
	FALCON_ERR_UNSUPPORTED,  /* not built in / not supported by the peer */
	FALCON_ERR_SLURM,        /* a libslurm call failed */
	FALCON_ERR_MUNGE,        /* libmunge failed */
	FALCON_ERR_CHECK,        /* a health check (NCCL, link) failed */
	FALCON_ERR_MAX
} falcon_err_t;

/*
 * falcon_strerror - static text for an error code; never NULL, never freed.
 * An out-of-range code gives "unknown error".
 */
const char *falcon_strerror(falcon_err_t err);

/*
 * falcon_err_name - the code's symbolic short name ("conflict", "timeout"),
 * used as a label in metrics and JSON; static, never NULL.
 */
const char *falcon_err_name(falcon_err_t err);

/*
 * falcon_err_set - record the detail of a failure in this thread's buffer
 * (1024 bytes, truncated beyond) and return err, so callers write
 * `return falcon_err_set(FALCON_ERR_CONFIG, "%s:%d: ...", file, line)`.
 */
falcon_err_t falcon_err_set(falcon_err_t err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* falcon_err_vset - va_list form of falcon_err_set(). */
falcon_err_t falcon_err_vset(falcon_err_t err, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/*
 * falcon_err_prefix - put "<fmt ...>: " before this thread's last detail
 * (falcon_errmsg(), copied first, so the caller needs no buffer of its
 * own) and record err as the code; returns err.  The whole is truncated
 * to 1024 bytes as falcon_err_set() is.  For the caller that adds what it
 * was doing to a failure below it without keeping the detail past another
 * call; one that must keep it across further calls (a rollback's first
 * failure) still copies it.
 */
falcon_err_t falcon_err_prefix(falcon_err_t err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * falcon_errmsg - this thread's last detail, or falcon_strerror() of the last
 * code when no detail was given.  Points into thread-local storage: valid
 * until the next falcon_err_set() in the same thread; copy it to keep it.
 */
const char *falcon_errmsg(void);

/* falcon_err_clear - forget this thread's last detail. */
void falcon_err_clear(void);

#endif /* FALCON_ERR_H */
