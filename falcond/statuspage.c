/*
 * statuspage.c - falcond's read-only status page on StatusListen=
 * (statuspage.h): GET / (HTML with inline SVG, a few lines of plain
 * JavaScript for /events and a meta refresh where scripts do not run) and
 * GET /events (Server-Sent Events).  Both are drawn from
 * falcond_status_json(), the object GET /v1/status answers (status.c),
 * with every lease's job, uid and host (all = true), and the latest device
 * history entries the ledger keeps in memory (the history files are not
 * read); nothing else of the state is read.  main.c starts it beside the API (falcond.c).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "statuspage.h"
#include "confgen.h"
#include "ha.h"
#include "status.h"
#include "core/log.h"
#include "core/util.h"
#include "httpd/httpd.h"

/* SVG geometry, pixels */
#define SLOT_W 96
#define SLOT_H 56
#define DRAWER_PAD 8
#define LABEL_W 80

/* esc - s into f with &, <, >, " and ' as character references (text and
 * quoted attribute values alike); NULL as "". */
static void esc(FILE *f, const char *s)
{
	for (; s != NULL && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* attr - ' name="v"' with v escaped (name is ours, never escaped). */
static void attr(FILE *f, const char *name, const char *v)
{
	fprintf(f, " %s=\"", name);
	esc(f, v);
	fputc('"', f);
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || v == NULL)
		return NULL;
	return json_object_get_string(v);
}

static int jint(json_object *o, const char *key, int dflt)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || v == NULL)
		return dflt;
	return json_object_get_int(v);
}

static json_object *jarr(json_object *o, const char *key)
{
	json_object *v;

	if (o == NULL || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_array))
		return NULL;
	return v;
}

/* A slot as the page shows it. */
struct slot {
	const char *chassis, *device, *kind, *model, *health, *lease;
	const char *state;     /* free, leased, kept, settling, attached, quarantined, absent */
	const char *job, *host, *reason;
	char user[64];         /* user name, else the uid; "" without a lease */
	int drawer, slot;
};

/* find - the element of array a whose key k1 is v1 (and k2 is v2 when k2). */
static json_object *find(json_object *a, const char *k1, const char *v1, const char *k2,
			 const char *v2)
{
	size_t i, n = a ? json_object_array_length(a) : 0;

	for (i = 0; v1 != NULL && i < n; i++) {
		json_object *e = json_object_array_get_idx(a, i);
		const char *x = jstr(e, k1), *y = k2 ? jstr(e, k2) : NULL;

		if (x && strcmp(x, v1) == 0 && (k2 == NULL || (y && v2 && strcmp(y, v2) == 0)))
			return e;
	}
	return NULL;
}

/* slot_of - device d of status st as a slot: an in-flight lease's devices
 * are "settling", a kept one's (KeepWarm=) "kept", the holder's uid as a
 * user name. */
static void slot_of(json_object *st, json_object *d, struct slot *s)
{
	json_object *l, *q;
	const char *ls;
	int uid;

	memset(s, 0, sizeof(*s));
	s->chassis = jstr(d, "chassis");
	s->device = jstr(d, "id");
	s->kind = jstr(d, "type");
	s->model = jstr(d, "model");
	s->health = jstr(d, "health");
	s->state = jstr(d, "state") ? jstr(d, "state") : "unknown";
	s->lease = jstr(d, "lease");
	s->drawer = jint(d, "drawer", 0);
	s->slot = jint(d, "slot", 0);
	l = find(jarr(st, "leases"), "id", s->lease, NULL, NULL);
	if (l != NULL) {
		ls = jstr(l, "state");
		if (strcmp(s->state, "leased") == 0 && ls && strcmp(ls, "kept") == 0)
			s->state = "kept"; /* KeepWarm=: on a node, no job */
		else if (strcmp(s->state, "leased") == 0 && ls && strcmp(ls, "active") != 0)
			s->state = "settling"; /* composing, settling or closing */
		s->job = jstr(l, "job_id");
		s->host = jstr(l, "host");
		uid = jint(l, "uid", -1);
		if (uid >= 0) {
			struct passwd pw, *pp = NULL;
			char buf[1024];

			if (getpwuid_r((uid_t)uid, &pw, buf, sizeof(buf), &pp) == 0 && pp)
				falcon_strlcpy(s->user, pp->pw_name, sizeof(s->user));
			else
				snprintf(s->user, sizeof(s->user), "%d", uid);
		}
	}
	q = find(jarr(st, "quarantine"), "chassis", s->chassis, "device", s->device);
	if (q != NULL)
		s->reason = jstr(q, "reason");
}

static const char *fill_of(const char *state)
{
	static const struct { const char *state, *fill; } fills[] = {
		{ "free", "#cfe8cf" }, { "leased", "#9cc3ee" }, { "settling", "#f5d98b" },
		{ "kept", "#b8dfe6" },
		{ "attached", "#d9c2ef" }, { "quarantined", "#ef9a9a" }, { "absent", "#eeeeee" },
	};
	size_t i;

	for (i = 0; state && i < ARRAY_SIZE(fills); i++)
		if (strcmp(fills[i].state, state) == 0)
			return fills[i].fill;
	return "#ffffff";
}

/* svg_slot - one slot's rectangle, its kind, slot number and state; the
 * whole record as its <title> (a tooltip). */
static void svg_slot(FILE *f, const struct slot *s, int x, int y)
{
	fputs("<g class=\"slot\"", f);
	attr(f, "data-device", s->device);
	attr(f, "data-state", s->state);
	fputs("><title>", f);
	esc(f, s->device ? s->device : "empty slot");
	fputs(": ", f);
	esc(f, s->state);
	if (s->job) {
		fputs(", job ", f);
		esc(f, s->job);
		fputs(" of ", f);
		esc(f, s->user);
		fputs(" on ", f);
		esc(f, s->host);
	}
	if (s->reason) {
		fputs(", quarantined: ", f);
		esc(f, s->reason);
	}
	fprintf(f, "</title><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\" "
		   "fill=\"%s\" stroke=\"#555\"/>", x, y, SLOT_W - 6, SLOT_H, fill_of(s->state));
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\">%d ", x + 6, y + 16, s->slot);
	esc(f, s->kind ? s->kind : "");
	fprintf(f, "</text><text x=\"%d\" y=\"%d\" font-size=\"11\">", x + 6, y + 32);
	esc(f, s->state);
	fputs("</text>", f);
	if (s->job) {
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">job ", x + 6, y + 48);
		esc(f, s->job);
		fputs("</text>", f);
	}
	fputs("</g>", f);
}

/* svg_chassis - chassis name's devices (slots[n], every chassis') as
 * drawers (rows) of slots; the slot numbers no device has up to a
 * drawer's highest one are drawn "absent". */
static void svg_chassis(FILE *f, const char *name, const struct slot *slots, size_t n)
{
	int maxd = 0, maxs = 0, d, k;
	size_t i;

	if (name == NULL)
		return;
	for (i = 0; i < n; i++)
		if (slots[i].chassis && strcmp(slots[i].chassis, name) == 0) {
			maxd = slots[i].drawer > maxd ? slots[i].drawer : maxd;
			maxs = slots[i].slot > maxs ? slots[i].slot : maxs;
		}
	if (maxd > 64 || maxs > 64) /* a chassis that numbers otherwise: the table alone */
		return;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "role=\"img\" aria-label=\"chassis ", LABEL_W + maxs * SLOT_W + DRAWER_PAD,
		maxd * (SLOT_H + 2 * DRAWER_PAD) + 4);
	esc(f, name);
	fputs("\">", f);
	for (d = 1; d <= maxd; d++) {
		int y = (d - 1) * (SLOT_H + 2 * DRAWER_PAD) + 2;

		fprintf(f, "<g class=\"drawer\" data-drawer=\"%d\"><rect x=\"0\" y=\"%d\" width=\"%d\" "
			   "height=\"%d\" fill=\"#fafafa\" stroke=\"#999\"/><text x=\"6\" y=\"%d\" "
			   "font-size=\"12\">drawer %d</text>", d, y, LABEL_W + maxs * SLOT_W,
			SLOT_H + 2 * DRAWER_PAD - 2, y + SLOT_H / 2 + DRAWER_PAD, d);
		for (k = 1; k <= maxs; k++) {
			const struct slot *s = NULL;
			struct slot absent;

			for (i = 0; s == NULL && i < n; i++)
				if (slots[i].chassis && strcmp(slots[i].chassis, name) == 0 &&
				    slots[i].drawer == d &&
				    slots[i].slot == k)
					s = &slots[i];
			if (s == NULL) {
				memset(&absent, 0, sizeof(absent));
				absent.state = "absent";
				absent.drawer = d;
				absent.slot = k;
				s = &absent;
			}
			svg_slot(f, s, LABEL_W + (k - 1) * SLOT_W, y + DRAWER_PAD - 1);
		}
		fputs("</g>", f);
	}
	fputs("</svg>", f);
}

/* td - one cell, escaped ("" for NULL). */
static void td(FILE *f, const char *s)
{
	fputs("<td>", f);
	esc(f, s);
	fputs("</td>", f);
}

static void table_slots(FILE *f, const struct slot *slots, size_t n)
{
	size_t i;

	fputs("<h2>Slots</h2><table id=\"slots\"><tr><th>chassis</th><th>drawer</th><th>slot</th>"
	      "<th>device</th><th>kind</th><th>model</th><th>health</th><th>state</th>"
	      "<th>lease</th><th>job</th><th>user</th><th>node</th><th>quarantine reason</th></tr>",
	      f);
	for (i = 0; i < n; i++) {
		const struct slot *s = &slots[i];
		char num[2][16];

		fputs("<tr class=\"dev\"", f);
		attr(f, "data-chassis", s->chassis);
		attr(f, "data-device", s->device);
		attr(f, "data-state", s->state);
		attr(f, "data-job", s->job);
		attr(f, "data-user", s->user);
		attr(f, "data-host", s->host);
		fputs(">", f);
		snprintf(num[0], sizeof(num[0]), "%d", s->drawer);
		snprintf(num[1], sizeof(num[1]), "%d", s->slot);
		td(f, s->chassis);
		td(f, num[0]);
		td(f, num[1]);
		td(f, s->device);
		td(f, s->kind);
		td(f, s->model);
		td(f, s->health);
		fputs("<td class=\"", f);
		esc(f, s->state);
		fputs("\">", f);
		esc(f, s->state);
		fputs("</td>", f);
		td(f, s->lease);
		td(f, s->job);
		td(f, s->user);
		td(f, s->host);
		td(f, s->reason);
		fputs("</tr>", f);
	}
	fputs("</table>", f);
}

/* table_history - the latest device history entries, newest first (NULL: none). */
static void table_history(FILE *f, json_object *h)
{
	size_t i;

	if (h == NULL || json_object_array_length(h) == 0)
		return;
	fputs("<h2>Recent history</h2><table id=\"history\"><tr><th>when (UTC)</th>"
	      "<th>chassis</th><th>device</th><th>job</th><th>node</th><th>lease</th>"
	      "<th>event</th></tr>", f);
	for (i = 0; i < json_object_array_length(h); i++) {
		json_object *e = json_object_array_get_idx(h, i), *w;
		char when[32] = "";
		time_t t;
		struct tm tm;

		if (json_object_object_get_ex(e, "when", &w) && w != NULL) {
			t = (time_t)(json_object_get_int64(w) / 1000);
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", gmtime_r(&t, &tm));
		}
		fputs("<tr class=\"hist\">", f);
		td(f, when);
		td(f, jstr(e, "chassis"));
		td(f, jstr(e, "device"));
		td(f, jstr(e, "job_id"));
		td(f, jstr(e, "host"));
		td(f, jstr(e, "lease"));
		td(f, jstr(e, "event"));
		fputs("</tr>", f);
	}
	fputs("</table>", f);
}

/* body - the fragment: role, each chassis (reachability, drawing), the
 * slot table, the recent history (st's "history", when there). */
static void body(FILE *f, json_object *st)
{
	json_object *chs = jarr(st, "chassis"), *devs = jarr(st, "devices");
	size_t i, n = devs ? json_object_array_length(devs) : 0;
	struct slot *slots = calloc(n + 1, sizeof(*slots));
	char when[64], url[512];
	time_t now = time(NULL);
	struct tm tm;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&now, &tm));
	if (st == NULL) {
		fprintf(f, "<h1>falcond: <span id=\"role\" data-role=\"standby\">standby</span></h1>"
			   "<p>This falcond waits for StateDir's lock; the active one is ");
		esc(f, falcond_ha_active_url(url, sizeof(url)));
		fprintf(f, ". As of %s.</p>", when);
		free(slots);
		return;
	}
	fprintf(f, "<h1>falcond: <span id=\"role\" data-role=\"active\">active</span></h1>"
		   "<p>As of %s: %zu device(s), %zu lease(s), %zu quarantined.</p>", when, n,
		jarr(st, "leases") ? json_object_array_length(jarr(st, "leases")) : 0,
		jarr(st, "quarantine") ? json_object_array_length(jarr(st, "quarantine")) : 0);
	for (i = 0; slots && i < n; i++)
		slot_of(st, json_object_array_get_idx(devs, i), &slots[i]);
	for (i = 0; chs && i < json_object_array_length(chs); i++) {
		json_object *c = json_object_array_get_idx(chs, i);
		json_object *r = json_object_object_get(c, "reachable");
		bool up = r && json_object_get_boolean(r);

		fputs("<section class=\"chassis\"", f);
		attr(f, "data-chassis", jstr(c, "name"));
		fprintf(f, " data-reachable=\"%s\"><h2>chassis ", up ? "yes" : "no");
		esc(f, jstr(c, "name"));
		fprintf(f, " <span class=\"%s\">%s</span>", up ? "up" : "down",
			up ? "reachable" : "unreachable");
		r = json_object_object_get(c, "free_held");
		if (r && json_object_get_boolean(r))
			fputs(" <span class=\"held\">its free devices held in Slurm "
			      "(UnreachableHold)</span>", f);
		fputs("</h2>", f);
		if (slots)
			svg_chassis(f, jstr(c, "name"), slots, n);
		fputs("</section>", f);
	}
	if (slots)
		table_slots(f, slots, n);
	table_history(f, jarr(st, "history"));
	fputs("<p class=\"legend\">free: in the pool; leased: a job's; kept: on a node for its "
	      "next job (KeepWarm=); settling: a lease being "
	      "composed, rolled back or released; attached: on a host with no lease; quarantined: "
	      "out of the pool; absent: no device in the slot.</p>", f);
	free(slots);
}

char *falcond_statuspage_html(json_object *status, bool with_head)
{
	char *p = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&p, &len);

	if (f == NULL)
		return NULL;
	if (with_head)
		fputs("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
		      "<title>falcond status</title>"
		      "<noscript><meta http-equiv=\"refresh\" content=\"2\"></noscript>"
		      "<style>body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}"
		      "td,th{border:1px solid #bbb;padding:2px 6px;font-size:13px}"
		      ".up{color:#2e7d32}.down{color:#c62828}.quarantined{background:#ef9a9a}"
		      ".leased{background:#9cc3ee}.settling{background:#f5d98b}.kept{background:#b8dfe6}"
		      ".attached{background:#d9c2ef}.free{background:#cfe8cf}</style></head>"
		      "<body><div id=\"live\">", f);
	body(f, status);
	if (with_head)
		fputs("</div><script>if(window.EventSource){var s=new EventSource('events');"
		      "s.addEventListener('snapshot',function(e){"
		      "document.getElementById('live').innerHTML=e.data;});}</script>"
		      "</body></html>\n", f);
	if (fclose(f) != 0) {
		free(p);
		return NULL;
	}
	return p;
}

/* when_of - an entry's last change: its release, else its attach (ms since the epoch). */
static long long when_of(const struct falcond_hist *h)
{
	return h->detached_ms ? h->detached_ms : h->attached_ms;
}

/*
 * history_json - the FALCOND_STATUSPAGE_HISTORY latest device history
 * entries the ledger keeps in memory (its last FALCOND_HIST_MAX per
 * device; the files are not read), newest first: [{chassis, device,
 * job_id, host, lease, when (ms since the epoch), event}] (a new array,
 * caller puts).  Takes st->lock.
 */
static json_object *history_json(struct falcond_state *st)
{
	const struct falcond_hist *top[FALCOND_STATUSPAGE_HISTORY];
	const struct falcond_devhist *dev[FALCOND_STATUSPAGE_HISTORY];
	json_object *a = json_object_new_array();
	size_t i, j, k, n = 0;

	pthread_mutex_lock(&st->lock);
	for (i = 0; st->ledger && i < st->ledger->nhist; i++)
		for (j = 0; j < st->ledger->hist[i].n; j++) {
			const struct falcond_hist *h = &st->ledger->hist[i].h[j];

			/* insertion into top[], newest first */
			for (k = n; k > 0 && when_of(top[k - 1]) < when_of(h); k--)
				if (k < FALCOND_STATUSPAGE_HISTORY) {
					top[k] = top[k - 1];
					dev[k] = dev[k - 1];
				}
			if (k < FALCOND_STATUSPAGE_HISTORY) {
				top[k] = h;
				dev[k] = &st->ledger->hist[i];
				n += n < FALCOND_STATUSPAGE_HISTORY;
			}
		}
	for (i = 0; a && i < n; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "chassis", json_object_new_string(dev[i]->chassis));
		json_object_object_add(e, "device", json_object_new_string(dev[i]->device));
		json_object_object_add(e, "job_id", json_object_new_int64(top[i]->job_id));
		json_object_object_add(e, "host", json_object_new_string(top[i]->host));
		json_object_object_add(e, "lease", json_object_new_string(top[i]->lease));
		json_object_object_add(e, "when", json_object_new_int64(when_of(top[i])));
		json_object_object_add(e, "event", json_object_new_string(
			top[i]->detached_ms ? top[i]->result : "attached"));
		json_object_array_add(a, e);
	}
	pthread_mutex_unlock(&st->lock);
	return a;
}

/* snapshot - the page (or its fragment) of st now (a standby's before
 * st->role.active); NULL when out of memory. */
static char *snapshot(struct falcond_state *st, bool with_head)
{
	json_object *o = NULL;
	unsigned gen = falcond_conf_hold(&st->confgen);
	char *p;

	if (__atomic_load_n(&st->role.active, __ATOMIC_ACQUIRE)) {
		o = falcond_status_json(st, 0, true);
		if (o != NULL)
			json_object_object_add(o, "history", history_json(st));
	}
	p = falcond_statuspage_html(o, with_head);
	json_object_put(o);
	falcond_conf_release(&st->confgen, gen);
	return p;
}

/* An /events stream: the event being sent. */
struct sse {
	struct falcond_state *st;
	char *buf;     /* owned */
	size_t len, off;
	bool sent;     /* one snapshot sent: wait the period before the next */
};

/* sse_event - fragment as one "snapshot" event: a data: line per line. */
static char *sse_event(const char *frag, size_t *len)
{
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);
	const char *s = frag, *nl;

	if (f == NULL)
		return NULL;
	fputs("event: snapshot\n", f);
	do {
		nl = strchr(s, '\n');
		fputs("data: ", f);
		fwrite(s, 1, nl ? (size_t)(nl - s) : strlen(s), f);
		fputc('\n', f);
		s = nl ? nl + 1 : NULL;
	} while (s && *s);
	fputc('\n', f);
	if (fclose(f) != 0) {
		free(p);
		return NULL;
	}
	*len = n;
	return p;
}

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct sse *e = cls;
	size_t k;
	int i;

	(void)pos;
	if (e->off == e->len) {
		char *frag;

		/* a thread per connection: waiting here holds no other */
		for (i = 0; e->sent && i < FALCOND_STATUSPAGE_PERIOD_S * 10; i++) {
			struct timespec t = { 0, 100 * 1000000L };

			if (__atomic_load_n(&e->st->role.stopping, __ATOMIC_ACQUIRE))
				return MHD_CONTENT_READER_END_OF_STREAM;
			nanosleep(&t, NULL);
		}
		if (__atomic_load_n(&e->st->role.stopping, __ATOMIC_ACQUIRE))
			return MHD_CONTENT_READER_END_OF_STREAM;
		free(e->buf);
		e->buf = NULL;
		e->off = e->len = 0;
		frag = snapshot(e->st, false);
		if (frag != NULL)
			e->buf = sse_event(frag, &e->len);
		free(frag);
		if (e->buf == NULL)
			return MHD_CONTENT_READER_END_WITH_ERROR;
		e->sent = true;
	}
	k = e->len - e->off < max ? e->len - e->off : max;
	memcpy(buf, e->buf + e->off, k);
	e->off += k;
	return (ssize_t)k;
}

static void sse_free(void *cls)
{
	struct sse *e = cls;

	free(e->buf);
	free(e);
}

/* answer - text (owned, consumed; NULL: 500) with status and type. */
static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, char *text,
			      const char *ctype)
{
	struct MHD_Response *r;
	enum MHD_Result rv;

	if (text == NULL) {
		status = MHD_HTTP_INTERNAL_SERVER_ERROR;
		text = strdup("out of memory\n");
		ctype = "text/plain";
		if (text == NULL)
			return MHD_NO;
	}
	if ((r = falcon_httpd_text(text, ctype)) == NULL)
		return MHD_NO;
	MHD_add_response_header(r, "Cache-Control", "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Content-Security-Policy",
				"default-src 'none'; style-src 'unsafe-inline'; "
				"script-src 'unsafe-inline'; connect-src 'self'; img-src 'self'");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, "Allow", "GET");
	rv = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rv;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
			       const char *method, struct falcon_httpd_req *rq)
{
	struct falcond_state *st = cls;
	struct MHD_Response *r;
	struct sse *e;
	enum MHD_Result rv;

	(void)rq;
	/* read-only: answered at once, a body is never read (FALCON_HTTPD_NO_BODY) */
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0)
		return answer(c, MHD_HTTP_METHOD_NOT_ALLOWED,
			      strdup("405 method not allowed: the status page answers GET only\n"),
			      "text/plain");
	if (strcmp(url, "/") == 0)
		return answer(c, MHD_HTTP_OK, snapshot(st, true), "text/html; charset=utf-8");
	if (strcmp(url, "/events") != 0)
		return answer(c, MHD_HTTP_NOT_FOUND, strdup("404 not found: GET / or /events\n"),
			      "text/plain");
	e = calloc(1, sizeof(*e));
	if (e == NULL)
		return MHD_NO;
	e->st = st;
	r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, sse_read, e, sse_free);
	if (r == NULL) {
		free(e);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", "text/event-stream");
	MHD_add_response_header(r, "Cache-Control", "no-store");
	rv = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return rv;
}

falcon_err_t falcond_statuspage_start(struct falcond_state *st, const struct sockaddr_storage *ss,
				      struct falcon_httpd **out)
{
	struct falcon_httpd_conf k = {
		.name = "status page", .addr = (const struct sockaddr *)ss,
		.threads = FALCON_HTTPD_THREAD_PER_CONNECTION, .flags = FALCON_HTTPD_NO_BODY,
		.conn_limit = FALCOND_STATUSPAGE_CONN_MAX,
		.per_ip_limit = FALCOND_STATUSPAGE_CONN_MAX / 4, .idle_s = 30,
		/* a browser that leaves ends its /events stream this way: not a warning */
		.mhd_log = FALCON_LOG_VERBOSE, .handler = handler, .cls = st,
	};

	return falcon_httpd_start(&k, out);
}
