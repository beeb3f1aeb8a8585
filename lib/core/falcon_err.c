/*
 * falcon_err.c - falcon_strerror() and the thread-local error detail.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdio.h>

#include "core/falcon_err.h"

static const struct {
	const char *name;
	const char *text;
} err_table[FALCON_ERR_MAX] = {
	[FALCON_OK]               = { "ok",           "success" },
	[FALCON_ERR_NOMEM]        = { "nomem",        "out of memory" },
	[FALCON_ERR_INVAL]        = { "inval",        "invalid argument" },
	[FALCON_ERR_IO]           = { "io",           "input/output error" },
	[FALCON_ERR_CONFIG]       = { "config",       "configuration error" },
	[FALCON_ERR_PARSE]        = { "parse",        "malformed input" },
	[FALCON_ERR_NOTFOUND]     = { "notfound",     "not found" },
	[FALCON_ERR_CONFLICT]     = { "conflict",     "conflict: resource already in use" },
	[FALCON_ERR_PRECONDITION] = { "precondition", "precondition failed: stale ETag" },
	[FALCON_ERR_AUTH]         = { "auth",         "authentication failed" },
	[FALCON_ERR_PERM]         = { "perm",         "permission denied" },
	[FALCON_ERR_TIMEOUT]      = { "timeout",      "timed out" },
	[FALCON_ERR_TRANSPORT]    = { "transport",    "connection failed" },
	[FALCON_ERR_SERVER]       = { "server",       "server error" },
	[FALCON_ERR_PROTOCOL]     = { "protocol",     "unexpected answer from peer" },
	[FALCON_ERR_CHASSIS]      = { "chassis",      "chassis refused the operation" },
	[FALCON_ERR_PCI]          = { "pci",          "PCI error" },
	[FALCON_ERR_DEGRADED]     = { "degraded",     "PCIe link degraded" },
	[FALCON_ERR_BUSY]         = { "busy",         "device busy" },
	[FALCON_ERR_POLICY]       = { "policy",       "refused by partition policy" },
	[FALCON_ERR_NORESOURCE]   = { "noresource",   "not enough free devices" },
	[FALCON_ERR_QUARANTINED]  = { "quarantined",  "device quarantined" },
	[FALCON_ERR_UNSUPPORTED]  = { "unsupported",  "not supported" },
	[FALCON_ERR_SLURM]        = { "slurm",        "Slurm error" },
	[FALCON_ERR_MUNGE]        = { "munge",        "MUNGE error" },
	[FALCON_ERR_CHECK]        = { "check",        "health check failed" },
};

static __thread char err_detail[1024];
static __thread falcon_err_t err_last;

const char *falcon_strerror(falcon_err_t err)
{
	if ((unsigned)err >= FALCON_ERR_MAX)
		return "unknown error";
	return err_table[err].text;
}

const char *falcon_err_name(falcon_err_t err)
{
	if ((unsigned)err >= FALCON_ERR_MAX)
		return "unknown";
	return err_table[err].name;
}

falcon_err_t falcon_err_vset(falcon_err_t err, const char *fmt, va_list ap)
{
	err_last = err;
	if (fmt == NULL)
		err_detail[0] = '\0';
	else
		vsnprintf(err_detail, sizeof(err_detail), fmt, ap);
	return err;
}

falcon_err_t falcon_err_set(falcon_err_t err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	falcon_err_vset(err, fmt, ap);
	va_end(ap);
	return err;
}

falcon_err_t falcon_err_prefix(falcon_err_t err, const char *fmt, ...)
{
	char detail[sizeof(err_detail)];
	const char *p;
	va_list ap;
	size_t len;
	int n;

	snprintf(detail, sizeof(detail), "%s", falcon_errmsg());
	va_start(ap, fmt);
	n = vsnprintf(err_detail, sizeof(err_detail), fmt, ap);
	va_end(ap);
	len = n < 0 ? 0 : (size_t)n < sizeof(err_detail) ? (size_t)n : sizeof(err_detail) - 1;
	for (p = ": "; *p != '\0' && len < sizeof(err_detail) - 1; p++)
		err_detail[len++] = *p;
	for (p = detail; *p != '\0' && len < sizeof(err_detail) - 1; p++)
		err_detail[len++] = *p;
	err_detail[len] = '\0';
	err_last = err;
	return err;
}

const char *falcon_errmsg(void)
{
	if (err_detail[0] != '\0')
		return err_detail;
	return falcon_strerror(err_last);
}

void falcon_err_clear(void)
{
	err_detail[0] = '\0';
	err_last = FALCON_OK;
}
