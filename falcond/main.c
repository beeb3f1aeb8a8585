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

#include <getopt.h>
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
#include "slurmjob.h"
#include "statuspage.h"
#include "core/log.h"
#include "core/util.h"
#include "httpd/httpd.h"

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
 * conf_check - what of conf falcond can see is wrong but need not refuse:
 * a partition's check whose program is not on this host, where this host
 * runs prologs too (falcon_conf_check_missing); logged as an error and
 * kept for GET /v1/status (falconctl status shows it).  when names the
 * occasion ("start", "SIGHUP").
 */
static void conf_check(struct falcond_state *st, const struct falcon_conf *conf,
		       const char *when)
{
	char host[256] = "", msg[sizeof(st->conf_error)];
	char *dot;

	if (gethostname(host, sizeof(host) - 1) != 0)
		host[0] = '\0';
	if ((dot = strchr(host, '.')) != NULL)
		*dot = '\0';
	if (falcon_conf_check_missing(conf, host, msg, sizeof(msg)))
		falcon_error("%s: %s: configuration error: %s", when, conf->path, msg);
	pthread_mutex_lock(&st->lock);
	snprintf(st->conf_error, sizeof(st->conf_error), "%s", msg);
	pthread_mutex_unlock(&st->lock);
}

/*
 * reload_conf - SIGHUP: load falcon.conf again.  A file with an error keeps
 * the running configuration (the loader's "FILE:LINE: KEY: ..." logged); a
 * file that changes a restart-only setting (restart_only_change) is not
 * applied at all (logged, naming it); otherwise the new file replaces the
 * running one and its PartitionName lines (policy, Place=) and MungeSocket
 * take effect for the next request.
 */
static void reload_conf(struct falcond_state *st, const char *path)
{
	struct falcon_conf *n = NULL;
	const char *what;

	if (falcon_conf_load(path, &n) != FALCON_OK) {
		falcon_error("SIGHUP: %s; keeping the configuration loaded before", falcon_errmsg());
		return;
	}
	what = restart_only_change(st->conf, n);
	if (what != NULL) {
		falcon_warn("SIGHUP: %s: %s changed, which needs a restart of falcond; "
			    "nothing reloaded", n->path, what);
		falcon_conf_free(n);
		return;
	}
	/* the old one is freed when the last request that may read it ends */
	if (!falcond_conf_publish(&st->confgen, &st->conf, n)) {
		falcon_error("SIGHUP: %s: out of memory; nothing reloaded", n->path);
		falcon_conf_free(n);
		return;
	}
	falcon_info("SIGHUP: reloaded %s: PartitionName lines and MungeSocket take effect now; "
		    "StateDir, ListenAddress, SlurmUser, ChassisName and HostName need a restart",
		    n->path);
	conf_check(st, n, "SIGHUP");
}

/* start_reconcile - the start-up reconcile (when asked), then changes are
 * served (falcond_role_reconciled). */
static void start_reconcile(struct falcond_state *st, bool reconcile)
{
	if (reconcile) {
		falcon_info("start-up reconcile: compose and decompose answer 503 until it ends");
		if (falcond_reconcile(st, NULL) != FALCON_OK)
			falcon_warn("start-up %s", falcon_errmsg());
		falcon_info("start-up reconcile done");
	}
	falcond_role_reconciled(st);
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
static int stand_by(struct falcond_state *st, const sigset_t *set, const char *cfg)
{
	struct timespec poll = { FALCOND_HA_POLL_MS / 1000, (FALCOND_HA_POLL_MS % 1000) * 1000000L };
	char url[512];
	int sig;

	if (falcond_ha_try())
		return 0;
	falcon_info("standby: %s/" FALCOND_HA_LOCK_FILE " is held (active is %s); "
		    "taking over when it is free", st->conf->state_dir,
		    falcond_ha_active_url(url, sizeof(url)));
	ready("standby: answering 503 until the active falcond goes");
	for (;;) {
		sig = sigtimedwait(set, NULL, &poll);
		if (sig == SIGHUP)
			reload_conf(st, cfg);
		else if (sig > 0)
			return sig;
		if (falcond_ha_try())
			return 0;
	}
}

/*
 * become_active - with the lock held: the ledger and history of StateDir,
 * the chassis table; then requests are served (falcond_role_active).  false (logged)
 * when one of them cannot be loaded.
 */
static bool become_active(struct falcond_state *st, bool reconcile)
{
	struct passwd *pw;

	if (falcond_ledger_load(st->conf->state_dir, &st->ledger) != FALCON_OK ||
	    falcond_history_start(st->conf->state_dir, st->ledger) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		return false;
	}
	/* the ledger sits below the history writer: it hands closed entries
	 * to the sink registered here */
	st->ledger->on_release = falcond_history_append;
	pw = getpwnam(st->conf->slurm_user);
	st->slurm_uid = pw ? pw->pw_uid : (uid_t)-1;
	if (pw == NULL)
		falcon_warn("SlurmUser=%s: no such user; only root may compose",
			    st->conf->slurm_user);
	if (falcond_state_init(st) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		return false;
	}
	conf_check(st, st->conf, "start");
	/* until the start-up reconcile ends, health and status answer
	 * ("reconciling") and changes are 503 (falcond.c) */
	falcond_role_active(st, reconcile);
	falcon_info("active: holding %s/" FALCOND_HA_LOCK_FILE " (state %s, %zu chassis, "
		    "%zu lease(s))", st->conf->state_dir, st->ledger->path, st->nchassis,
		    st->ledger->nleases);
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
	fprintf(f, "Usage: falcond [-f FILE] [--no-slurm] [--no-reconcile] [--log-time] [-v]...\n"
		   "       falcond --dump-ledger STATE_DIR\n"
		   "  -f, --config FILE   falcon.conf (default: $FALCON_CONF or %s)\n"
		   "      --no-slurm      do not ask Slurm which jobs run (reconcile)\n"
		   "      --no-reconcile  do not reconcile at start\n"
		   "      --dump-ledger STATE_DIR  print the ledger (snapshot and log\n"
		   "                      replayed) as JSON and exit\n"
		   "      --log-time      start each log line with the time (to the ms)\n"
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
		{ "log-time", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cfg = NULL, *dump = NULL;
	static struct falcond_state st = { .use_slurm = true }; /* outlives the detached threads */
	struct falcond_http *d = NULL;
	struct falcon_httpd *page = NULL;
	struct sockaddr_storage ss, ss_page;
	pthread_t reconciler;
	bool reconciling = false;
	sigset_t set;
	char url[512];
	int opt, sig, rc = 1, verbose = 0;
	bool reconcile = true, log_time = false;

	falcon_log_init("falcond");
	while ((opt = getopt_long(argc, argv, "f:vh", opts, NULL)) != -1) {
		switch (opt) {
		case 'f': cfg = optarg; break;
		case 'S': st.use_slurm = false; break;
		case 'R': reconcile = false; break;
		case 'D': dump = optarg; break;
		case 'v': verbose++; break;
		case 'T': log_time = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	falcon_log_add_sink(falcon_log_sink_stderr,
			    verbose >= 2 ? FALCON_LOG_DEBUG : verbose ? FALCON_LOG_VERBOSE
								    : FALCON_LOG_INFO,
			    log_time ? FALCON_LOG_TIME : NULL);
	if (dump != NULL)
		return dump_ledger(dump);
	cfg = falcon_conf_path(cfg);
	if (falcon_conf_load(cfg, &st.conf) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		return 2;
	}
	if (!falcond_conf_pin(&st.confgen, &st.conf, st.conf)) {
		falcon_error("out of memory");
		goto out;
	}
	if (falcon_httpd_addr("ListenAddress", st.conf->listen_address, &ss, NULL) != FALCON_OK ||
	    (st.conf->status_listen &&
	     falcon_httpd_addr("StatusListen", st.conf->status_listen, &ss_page, NULL) != FALCON_OK)) {
		falcon_error("%s", falcon_errmsg());
		goto out;
	}
	self_url(st.conf->listen_address, url, sizeof(url));
	if (falcond_ha_open(st.conf->state_dir, url) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		goto out;
	}
	/* libslurm set up before any thread may call it (slurmjob.h): the
	 * events, reservation and HTTP threads call it too, not only the
	 * reconcile */
	if (st.use_slurm)
		falcond_slurm_init();
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	/* listen first: a standby answers 503 standby, an active one that
	 * reconciles answers health and status */
	if (falcond_http_start(&st, &ss, &d) != FALCON_OK) {
		falcon_error("cannot listen on %s: %s", st.conf->listen_address, falcon_errmsg());
		goto out;
	}
	falcon_info("listening on %s (%s)", st.conf->listen_address, url);
	/* the read-only status page (StatusListen=): a standby's says so */
	if (st.conf->status_listen) {
		if (falcond_statuspage_start(&st, &ss_page, &page) != FALCON_OK) {
			falcon_error("cannot listen on StatusListen=%s: %s", st.conf->status_listen,
				     falcon_errmsg());
			goto out;
		}
		falcon_info("status page on http://%s/", st.conf->status_listen);
	}
	sig = stand_by(&st, &set, cfg);
	if (sig != 0)
		goto stop;
	if (!become_active(&st, reconcile))
		goto out;
	start_reconcile(&st, reconcile);
	ready("active: start-up reconcile done, serving");
	/* periodic reconcile, settle deadlines, chassis back after an outage */
	reconciling = pthread_create(&reconciler, NULL, falcond_reconciler, &st) == 0;
	if (!reconciling) {
		falcon_error("cannot start the reconcile thread");
		goto out;
	}
	if (falcond_events_start(&st) != FALCON_OK)
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
		reload_conf(&st, cfg);
		falcon_info("SIGHUP: reconcile");
		/* its keeps judged under the new KeepWarm= (keep.h) */
		falcond_reconcile(&st, NULL);
	}
stop:
	/* before the line: a compose that arrives after it is refused (503) */
	falcond_role_stopping(&st);
	falcon_info("signal %d: stopping (new composes are answered 503)", sig);
	rc = 0;
out:
	falcond_role_stopping(&st);
	falcond_events_stop();
	if (reconciling) {
		falcond_reconciler_stop(&st);
		pthread_join(reconciler, NULL);
	}
	falcon_httpd_stop(page);
	falcond_http_stop(d);
	if (st.ch)
		falcond_state_fini(&st);
	falcond_history_stop();
	falcond_ledger_free(st.ledger);
	falcond_ha_close();
	falcond_conf_free_all(&st.confgen);
	return rc;
}
