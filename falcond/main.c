/*
 * main.c - the falcond process: options, falcon.conf and its SIGHUP
 * reload, the standby role until StateDir/falcond.lock is held (ha.h),
 * the active role (ledger, history, chassis table, the start-up and
 * periodic reconcile, the event listeners), the HTTP front (falcond.h)
 * and the orderly stop on SIGTERM/SIGINT.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "falcond.h"
#include "confgen.h"
#include "events.h"
#include "ha.h"
#include "history.h"
#include "reconcile.h"
#include "statuspage.h"
#include "core/log.h"
#include "core/util.h"

static struct falcond_state g_st;

/* ready - tell systemd (Type=notify, sd_notify(3)) that falcond serves, in
 * ROLE (a no-op outside systemd and without libsystemd). */
static void ready(const char *role)
{
#ifdef HAVE_LIBSYSTEMD
	sd_notifyf(0, "READY=1\nSTATUS=%s", role);
#else
	(void)role;
#endif
}

/* listen_addr - the host:port ([v6]:port too) of falcon.conf key into *ss. */
static falcon_err_t listen_addr(const char *key, const char *spec, struct sockaddr_storage *ss,
				socklen_t *sl)
{
	char host[256];
	const char *colon = strrchr(spec, ':');
	struct addrinfo hints = { .ai_flags = AI_NUMERICSERV | AI_PASSIVE,
				  .ai_socktype = SOCK_STREAM }, *ai = NULL;
	long port;
	size_t hl;
	int e;

	if (colon == NULL || falcon_strtol(colon + 1, 10, 1, 65535, &port) != FALCON_OK)
		return falcon_err_set(FALCON_ERR_CONFIG, "%s=%s: expected HOST:PORT", key, spec);
	hl = (size_t)(colon - spec);
	if (hl >= 2 && spec[0] == '[' && spec[hl - 1] == ']') {
		spec++;
		hl -= 2;
	}
	if (hl == 0 || hl >= sizeof(host))
		return falcon_err_set(FALCON_ERR_CONFIG, "%s=%s: expected HOST:PORT", key, spec);
	memcpy(host, spec, hl);
	host[hl] = '\0';
	e = getaddrinfo(host, colon + 1, &hints, &ai);
	if (e != 0 || ai == NULL)
		return falcon_err_set(FALCON_ERR_CONFIG, "%s=%s: %s", key, spec, gai_strerror(e));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*sl = ai->ai_addrlen;
	freeaddrinfo(ai);
	return FALCON_OK;
}

static bool str_differs(const char *a, const char *b)
{
	return (a == NULL) != (b == NULL) || (a != NULL && strcmp(a, b) != 0);
}

/*
 * restart_only_change - the first setting that falcond reads only at start
 * and that n changes from o (NULL when none): StateDir, ListenAddress, StatusListen,
 * SlurmUser, the event receiver's keys, and the ChassisName and HostName lines (the chassis table,
 * the event listeners and the ledger's ports are built from them).
 */
static const char *restart_only_change(const struct falcon_conf *o, const struct falcon_conf *n)
{
	size_t i;
	int p;

	if (str_differs(o->state_dir, n->state_dir))
		return "StateDir";
	if (str_differs(o->listen_address, n->listen_address))
		return "ListenAddress";
	if (str_differs(o->status_listen, n->status_listen))
		return "StatusListen";
	if (str_differs(o->slurm_user, n->slurm_user))
		return "SlurmUser";
	if (str_differs(o->event_listen, n->event_listen) || str_differs(o->event_url, n->event_url) ||
	    str_differs(o->event_cert_file, n->event_cert_file) ||
	    str_differs(o->event_key_file, n->event_key_file))
		return "EventListen, EventUrl, EventCertFile or EventKeyFile";
	if (o->nchassis != n->nchassis)
		return "ChassisName (the number of chassis)";
	for (i = 0; i < o->nchassis; i++) {
		const struct falcon_chassis_conf *a = &o->chassis[i], *b = &n->chassis[i];

		if (strcmp(a->name, b->name) != 0 || str_differs(a->url, b->url) ||
		    a->backend != b->backend || a->mode != b->mode || a->insecure != b->insecure ||
		    a->timeout_s != b->timeout_s ||
		    a->change_timeout_s != b->change_timeout_s || a->parallel_ports != b->parallel_ports ||
		    a->events != b->events ||
		    str_differs(a->ca_file, b->ca_file) ||
		    str_differs(a->credentials_file, b->credentials_file))
			return "ChassisName";
	}
	if (o->nhosts != n->nhosts)
		return "HostName (the number of hosts)";
	for (i = 0; i < o->nhosts; i++) {
		const struct falcon_host_conf *a = &o->hosts[i], *b = &n->hosts[i];

		if (strcmp(a->name, b->name) != 0 || strcmp(a->chassis, b->chassis) != 0 ||
		    a->nports != b->nports || a->nadapters != b->nadapters)
			return "HostName";
		for (p = 0; p < a->nports; p++)
			if (strcmp(a->ports[p], b->ports[p]) != 0)
				return "HostName (Port=)";
		for (p = 0; p < a->nadapters; p++)
			if (strcmp(a->adapters[p], b->adapters[p]) != 0)
				return "HostName (Adapter=)";
	}
	return NULL;
}

/*
 * reload_conf - SIGHUP: load falcon.conf again.  A file with an error keeps
 * the running configuration (the loader's "FILE:LINE: KEY: ..." logged); a
 * file that changes a restart-only setting (restart_only_change) is not
 * applied at all (logged, naming it); otherwise the new file replaces the
 * running one and its PartitionName lines (policy, Place=) and MungeSocket
 * take effect for the next request.
 */
static void reload_conf(const char *path)
{
	struct falcon_conf *n = NULL;
	const char *what;

	if (falcon_conf_load(path, &n) != FALCON_OK) {
		falcon_error("SIGHUP: %s; keeping the configuration loaded before", falcon_errmsg());
		return;
	}
	what = restart_only_change(g_st.conf, n);
	if (what != NULL) {
		falcon_warn("SIGHUP: %s: %s changed, which needs a restart of falcond; "
			    "nothing reloaded", n->path, what);
		falcon_conf_free(n);
		return;
	}
	/* the old one is freed when the last request that may read it ends */
	if (!falcond_conf_publish(&g_st.conf, n)) {
		falcon_error("SIGHUP: %s: out of memory; nothing reloaded", n->path);
		falcon_conf_free(n);
		return;
	}
	falcon_info("SIGHUP: reloaded %s: PartitionName lines and MungeSocket take effect now; "
		    "StateDir, ListenAddress, SlurmUser, ChassisName and HostName need a restart",
		    n->path);
}

/* start_reconcile - the start-up reconcile (when asked), then changes are
 * served (falcond_http_reconciled). */
static void start_reconcile(bool reconcile)
{
	if (reconcile) {
		falcon_info("start-up reconcile: compose and decompose answer 503 until it ends");
		if (falcond_reconcile(&g_st, NULL) != FALCON_OK)
			falcon_warn("start-up %s", falcon_errmsg());
		falcon_info("start-up reconcile done");
	}
	falcond_http_reconciled();
}

/*
 * self_url - the URL this falcond serves at, for the holder record: the
 * ListenAddress as http://HOST:PORT, the host name in place of a wildcard
 * address (0.0.0.0, ::).
 */
static void self_url(const char *listen, char *buf, size_t n)
{
	const char *colon = strrchr(listen, ':');
	char host[256];

	if (colon != NULL && (strncmp(listen, "0.0.0.0:", 8) == 0 || strncmp(listen, "[::]:", 5) == 0 ||
			      colon == listen)) {
		if (gethostname(host, sizeof(host) - 1) != 0)
			falcon_strlcpy(host, "localhost", sizeof(host));
		host[sizeof(host) - 1] = '\0';
		snprintf(buf, n, "http://%s%s", host, colon);
	} else {
		snprintf(buf, n, "http://%s", listen);
	}
}

/*
 * stand_by - until this falcond holds StateDir/falcond.lock: try it every
 * FALCOND_HA_POLL_MS, answering 503 standby meanwhile (falcond.c), SIGHUP
 * reloading falcon.conf.  Returns 0 once held, the signal (SIGTERM,
 * SIGINT) that stopped it otherwise.
 */
static int stand_by(const sigset_t *set, const char *cfg)
{
	struct timespec poll = { FALCOND_HA_POLL_MS / 1000, (FALCOND_HA_POLL_MS % 1000) * 1000000L };
	char url[512];
	int sig;

	if (falcond_ha_try())
		return 0;
	falcon_info("standby: %s/" FALCOND_HA_LOCK_FILE " is held (active is %s); "
		    "taking over when it is free", g_st.conf->state_dir,
		    falcond_ha_active_url(url, sizeof(url)));
	ready("standby: answering 503 until the active falcond goes");
	for (;;) {
		sig = sigtimedwait(set, NULL, &poll);
		if (sig == SIGHUP)
			reload_conf(cfg);
		else if (sig > 0)
			return sig;
		if (falcond_ha_try())
			return 0;
	}
}

/*
 * become_active - with the lock held: the ledger and history of StateDir,
 * the chassis table; then requests are served (falcond_http_active).  false (logged)
 * when one of them cannot be loaded.
 */
static bool become_active(bool reconcile)
{
	struct passwd *pw;

	if (falcond_ledger_load(g_st.conf->state_dir, &g_st.ledger) != FALCON_OK ||
	    falcond_history_start(g_st.conf->state_dir, g_st.ledger) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		return false;
	}
	/* the ledger sits below the history writer: it hands closed entries
	 * to the sink registered here */
	g_st.ledger->on_release = falcond_history_append;
	pw = getpwnam(g_st.conf->slurm_user);
	g_st.slurm_uid = pw ? pw->pw_uid : (uid_t)-1;
	if (pw == NULL)
		falcon_warn("SlurmUser=%s: no such user; only root may compose",
			    g_st.conf->slurm_user);
	if (falcond_state_init(&g_st) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		return false;
	}
	/* until the start-up reconcile ends, health and status answer
	 * ("reconciling") and changes are 503 (falcond.c) */
	falcond_http_active(reconcile);
	falcond_statuspage_active();
	falcon_info("active: holding %s/" FALCOND_HA_LOCK_FILE " (state %s, %zu chassis, "
		    "%zu lease(s))", g_st.conf->state_dir, g_st.ledger->path, g_st.nchassis,
		    g_st.ledger->nleases);
	return true;
}

/*
 * dump_ledger - print the ledger of state_dir as falcond would load it
 * (ledger.json and the records of ledger.log replayed) on stdout, one line
 * of JSON in ledger.json's form.  Reads only; safe beside a running
 * falcond (it appends whole lines, compacts by rename).  Returns the exit
 * status: 0, or 1 (logged) when the ledger cannot be loaded.
 */
static int dump_ledger(const char *state_dir)
{
	struct falcond_ledger *lg = NULL;
	json_object *o;
	int rc = 1;

	if (falcond_ledger_load(state_dir, &lg) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		return 1;
	}
	o = falcond_ledger_json(lg);
	if (o != NULL && puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN)) >= 0 &&
	    fflush(stdout) == 0)
		rc = 0;
	else
		falcon_error("--dump-ledger: %s", o ? "cannot write to stdout" : "out of memory");
	json_object_put(o);
	falcond_ledger_free(lg);
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: falcond [-f FILE] [--no-slurm] [--no-reconcile] [-v]...\n"
		   "       falcond --dump-ledger STATE_DIR\n"
		   "  -f, --config FILE   falcon.conf (default: $FALCON_CONF or %s)\n"
		   "      --no-slurm      do not ask Slurm which jobs run (reconcile)\n"
		   "      --no-reconcile  do not reconcile at start\n"
		   "      --dump-ledger STATE_DIR  print the ledger (snapshot and log\n"
		   "                      replayed) as JSON and exit\n"
		   "  -v, --verbose       more log (repeat)\n"
		   "  -h, --help\n", falcon_conf_path(NULL));
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'f' },
		{ "no-slurm", no_argument, NULL, 'S' },
		{ "no-reconcile", no_argument, NULL, 'R' },
		{ "dump-ledger", required_argument, NULL, 'D' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cfg = NULL, *dump = NULL;
	struct MHD_Daemon *d = NULL, *page = NULL;
	struct sockaddr_storage ss, ss_page;
	socklen_t sl = 0;
	pthread_t reconciler;
	bool reconciling = false;
	sigset_t set;
	char url[512];
	int opt, sig, rc = 1, verbose = 0;
	bool reconcile = true;

	falcon_log_init("falcond");
	g_st.use_slurm = true;
	while ((opt = getopt_long(argc, argv, "f:vh", opts, NULL)) != -1) {
		switch (opt) {
		case 'f': cfg = optarg; break;
		case 'S': g_st.use_slurm = false; break;
		case 'R': reconcile = false; break;
		case 'D': dump = optarg; break;
		case 'v': verbose++; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	falcon_log_add_sink(falcon_log_sink_stderr,
			    verbose >= 2 ? FALCON_LOG_DEBUG : verbose ? FALCON_LOG_VERBOSE
								    : FALCON_LOG_INFO, NULL);
	if (dump != NULL)
		return dump_ledger(dump);
	cfg = falcon_conf_path(cfg);
	if (falcon_conf_load(cfg, &g_st.conf) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		return 2;
	}
	if (!falcond_conf_pin(&g_st.conf, g_st.conf)) {
		falcon_error("out of memory");
		goto out;
	}
	if (listen_addr("ListenAddress", g_st.conf->listen_address, &ss, &sl) != FALCON_OK ||
	    (g_st.conf->status_listen &&
	     listen_addr("StatusListen", g_st.conf->status_listen, &ss_page, &sl) != FALCON_OK)) {
		falcon_error("%s", falcon_errmsg());
		goto out;
	}
	self_url(g_st.conf->listen_address, url, sizeof(url));
	if (falcond_ha_open(g_st.conf->state_dir, url) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		goto out;
	}
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	/* listen first: a standby answers 503 standby, an active one that
	 * reconciles answers health and status */
	d = falcond_http_start(&g_st, &ss);
	if (d == NULL) {
		falcon_error("cannot listen on %s: %s", g_st.conf->listen_address, strerror(errno));
		goto out;
	}
	falcon_info("listening on %s (%s)", g_st.conf->listen_address, url);
	/* the read-only status page (StatusListen=): a standby's says so */
	if (g_st.conf->status_listen) {
		page = falcond_statuspage_start(&g_st, &ss_page);
		if (page == NULL) {
			falcon_error("cannot listen on StatusListen=%s: %s", g_st.conf->status_listen,
				     strerror(errno));
			goto out;
		}
		falcon_info("status page on http://%s/", g_st.conf->status_listen);
	}
	sig = stand_by(&set, cfg);
	if (sig != 0)
		goto stop;
	if (!become_active(reconcile))
		goto out;
	start_reconcile(reconcile);
	ready("active: start-up reconcile done, serving");
	/* periodic reconcile, settle deadlines, chassis back after an outage */
	reconciling = pthread_create(&reconciler, NULL, falcond_reconciler, &g_st) == 0;
	if (!reconciling) {
		falcon_error("cannot start the reconcile thread");
		goto out;
	}
	if (falcond_events_start(&g_st) != FALCON_OK)
		falcon_warn("%s: chassis events are not followed", falcon_errmsg());
	for (;;) {
		struct timespec check = { FALCOND_HA_CHECK_S, 0 };

		sig = sigtimedwait(&set, NULL, &check);
		if (sig < 0) {
			/* still the holder? else another falcond serves: stop */
			if (!falcond_ha_check()) {
				falcon_error("%s; stopping", falcon_errmsg());
				goto out;
			}
			continue;
		}
		if (sig != SIGHUP)
			break;
		reload_conf(cfg);
		falcon_info("SIGHUP: reconcile");
		/* its keeps judged under the new KeepWarm= (keep.h) */
		falcond_reconcile(&g_st, NULL);
	}
stop:
	/* before the line: a compose that arrives after it is refused (503) */
	falcond_http_stopping();
	falcon_info("signal %d: stopping (new composes are answered 503)", sig);
	rc = 0;
out:
	falcond_http_stopping();
	falcond_events_stop();
	if (reconciling) {
		falcond_reconciler_stop(&g_st);
		pthread_join(reconciler, NULL);
	}
	falcond_statuspage_stop(page);
	falcond_http_stop(d);
	if (g_st.ch)
		falcond_state_fini(&g_st);
	falcond_history_stop();
	falcond_ledger_free(g_st.ledger);
	falcond_ha_close();
	falcond_conf_free_all();
	return rc;
}
