/*
 * log.h - logging through sinks.
 *
 * The core never writes to stderr or syslog itself: it calls falcon_log(),
 * which formats "<progname>: <message>" once and hands it to every installed
 * sink whose level admits it.  Programs install the stderr and/or syslog
 * sinks; the SPANK plugin installs one that calls slurm_info()/slurm_error().
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_LOG_H
#define FALCON_LOG_H

typedef enum falcon_log_level {
	FALCON_LOG_ERROR = 0,
	FALCON_LOG_WARN,
	FALCON_LOG_INFO,
	FALCON_LOG_VERBOSE,
	FALCON_LOG_DEBUG,
} falcon_log_level_t;

/*
 * A sink receives the level and the whole line, already prefixed with the
 * program name, without a trailing newline.  The line is valid only during
 * the call.  ctx is the pointer given to falcon_log_add_sink().
 */
typedef void (*falcon_log_sink_fn)(falcon_log_level_t level, const char *line,
				   void *ctx);

/*
 * falcon_log_init - set the program name used as the prefix (copied, at most
 * 63 bytes) and remove every sink.  Call once at start-up, before threads.
 */
void falcon_log_init(const char *progname);

/* falcon_log_progname - the prefix set by falcon_log_init(); static storage. */
const char *falcon_log_progname(void);

/*
 * falcon_log_add_sink - install a sink that receives lines at or below
 * max_level (ERROR is the lowest).  At most 4 sinks; returns 0, or -1 when
 * the table is full.  Not thread-safe against concurrent falcon_log().
 */
int falcon_log_add_sink(falcon_log_sink_fn fn, falcon_log_level_t max_level,
			void *ctx);

/* Built-in sinks: stderr (one line, newline added) and syslog(3).  The
 * stderr sink given ctx FALCON_LOG_TIME starts each line with the local
 * time to the millisecond, as Slurm's daemons log
 * ("[2026-11-29T09:50:52.123] falcond: ..."), for a log kept in a file
 * rather than by journald or syslog; any other ctx: no time. */
#define FALCON_LOG_TIME ((void *)1)
void falcon_log_sink_stderr(falcon_log_level_t level, const char *line, void *ctx);
void falcon_log_sink_syslog(falcon_log_level_t level, const char *line, void *ctx);

/*
 * falcon_log - format and dispatch one message (at most 2048 bytes, truncated
 * beyond).  Thread-safe: the line is built on the caller's stack.
 */
void falcon_log(falcon_log_level_t level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define falcon_error(...)   falcon_log(FALCON_LOG_ERROR, __VA_ARGS__)
#define falcon_warn(...)    falcon_log(FALCON_LOG_WARN, __VA_ARGS__)
#define falcon_info(...)    falcon_log(FALCON_LOG_INFO, __VA_ARGS__)
#define falcon_verbose(...) falcon_log(FALCON_LOG_VERBOSE, __VA_ARGS__)
#define falcon_debug(...)   falcon_log(FALCON_LOG_DEBUG, __VA_ARGS__)

#endif /* FALCON_LOG_H */
