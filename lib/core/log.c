/*
 * log.c - program-name prefix and sink dispatch for falcon_log().
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "core/log.h"

#define MAX_SINKS 4

static char log_progname[64] = "falcon";
static struct {
	falcon_log_sink_fn fn;
	falcon_log_level_t max_level;
	void *ctx;
} sinks[MAX_SINKS];
static int nsinks;

void falcon_log_init(const char *progname)
{
	const char *base;

	if (progname != NULL) {
		base = strrchr(progname, '/');
		base = base ? base + 1 : progname;
		snprintf(log_progname, sizeof(log_progname), "%s", base);
	}
	nsinks = 0;
}

const char *falcon_log_progname(void)
{
	return log_progname;
}

int falcon_log_add_sink(falcon_log_sink_fn fn, falcon_log_level_t max_level,
			void *ctx)
{
	if (nsinks >= MAX_SINKS || fn == NULL)
		return -1;
	sinks[nsinks].fn = fn;
	sinks[nsinks].max_level = max_level;
	sinks[nsinks].ctx = ctx;
	nsinks++;
	return 0;
}

void falcon_log_sink_stderr(falcon_log_level_t level, const char *line, void *ctx)
{
	static const char *const tag[] = { "error: ", "warning: ", "", "", "debug: " };
	const char *colon = strchr(line, ':');
	char when[40] = "";

	if (ctx == FALCON_LOG_TIME) {
		struct timespec ts;
		struct tm tm;

		clock_gettime(CLOCK_REALTIME, &ts);
		localtime_r(&ts.tv_sec, &tm);
		strftime(when, sizeof(when), "[%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(when + strlen(when), sizeof(when) - strlen(when), ".%03ld] ",
			 ts.tv_nsec / 1000000);
	}
	/* "prog: error: message" - the level goes after the program name. */
	if (colon != NULL && colon[1] == ' ' && level <= FALCON_LOG_DEBUG)
		fprintf(stderr, "%s%.*s %s%s\n", when, (int)(colon - line + 1), line,
			tag[level], colon + 2);
	else
		fprintf(stderr, "%s%s\n", when, line);
}

void falcon_log_sink_syslog(falcon_log_level_t level, const char *line, void *ctx)
{
	static const int prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_INFO, LOG_DEBUG };

	syslog(prio[level <= FALCON_LOG_DEBUG ? level : FALCON_LOG_DEBUG], "%s", line);
}

void falcon_log(falcon_log_level_t level, const char *fmt, ...)
{
	char line[2048];
	int n, i;
	va_list ap;

	n = snprintf(line, sizeof(line), "%s: ", log_progname);
	if (n < 0 || (size_t)n >= sizeof(line))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	for (i = 0; i < nsinks; i++)
		if (level <= sinks[i].max_level)
			sinks[i].fn(level, line, sinks[i].ctx);
}
