/*
 * history.c - falcond's durable device history (see
 * history.h): an append-only StateDir/history.jsonl written by one
 * writer thread, and the reader behind GET /v1/history.  Calls the ledger's
 * lookups, never the other way round.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "history.h"
#include "core/jobtag.h"
#include "core/log.h"
#include "core/util.h"

/* The writer: lines queued in buf (under lock), written by the thread. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake, done;
	pthread_t thread;
	bool open, stop;
	int fd;
	char *path, *old_path, *dir;
	char *buf;                  /* queued lines */
	size_t len, cap;
	unsigned long long queued;  /* lines queued so far */
	unsigned long long written; /* ... of which durable */
	unsigned long long failed;  /* a write covering up to this failed */
	off_t size;                 /* of the current file */
} h = { .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER, .fd = -1 };

/* line - one entry as its file line (no newline); a new json object. */
static json_object *line(const char *chassis, const char *device, const struct falcond_hist *e,
			 long uid)
{
	json_object *o = json_object_new_object();

	/* chassis, device, lease first: falcond_history_start() looks for that prefix */
	json_object_object_add(o, "chassis", json_object_new_string(chassis));
	json_object_object_add(o, "device", json_object_new_string(device));
	json_object_object_add(o, "lease", json_object_new_string(e->lease));
	json_object_object_add(o, "job_id", json_object_new_int64(e->job_id));
	json_object_object_add(o, "uid", json_object_new_int64(uid));
	json_object_object_add(o, "host", json_object_new_string(e->host));
	json_object_object_add(o, "attached_ms", json_object_new_int64(e->attached_ms));
	json_object_object_add(o, "released_ms", json_object_new_int64(e->detached_ms));
	json_object_object_add(o, "result", json_object_new_string(e->result));
	return o;
}

/* reset_locked - close the file and free what h holds (h.lock held). */
static void reset_locked(void)
{
	if (h.fd >= 0)
		close(h.fd);
	h.fd = -1;
	free(h.path);
	free(h.old_path);
	free(h.dir);
	free(h.buf);
	h.path = h.old_path = h.dir = h.buf = NULL;
	h.len = h.cap = 0;
}

/* queue_locked - append text and a newline to the queue (h.lock held). */
static bool queue_locked(const char *text)
{
	size_t l = strlen(text);

	if (h.len + l + 1 > h.cap) {
		size_t nc = (h.cap ? h.cap * 2 : 4096) + l + 1;
		char *nb = realloc(h.buf, nc);

		if (nb == NULL)
			return false;
		h.buf = nb;
		h.cap = nc;
	}
	memcpy(h.buf + h.len, text, l);
	h.buf[h.len + l] = '\n';
	h.len += l + 1;
	h.queued++;
	return true;
}

/* rotate - history.jsonl -> history.jsonl.1, a new empty one (writer only). */
static falcon_err_t rotate(void)
{
	int fd, dfd;

	if (rename(h.path, h.old_path) != 0)
		return falcon_err_set(FALCON_ERR_IO, "%s: rename: %s", h.path, strerror(errno));
	fd = open(h.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return falcon_err_set(FALCON_ERR_IO, "%s: %s", h.path, strerror(errno));
	close(h.fd);
	h.fd = fd;
	h.size = 0;
	if ((dfd = open(h.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return FALCON_OK;
}

/* write_all - data to h.fd then fdatasync (writer only, h.lock not held). */
static falcon_err_t write_all(const char *data, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t w = write(h.fd, data + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return falcon_err_set(FALCON_ERR_IO, "%s: write: %s", h.path, strerror(errno));
		off += (size_t)w;
	}
	if (fdatasync(h.fd) != 0)
		return falcon_err_set(FALCON_ERR_IO, "%s: fdatasync: %s", h.path, strerror(errno));
	h.size += (off_t)len;
	return FALCON_OK;
}

static void *writer(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&h.lock);
	for (;;) {
		char *data;
		size_t len;
		unsigned long long upto;
		falcon_err_t rv;

		while (h.len == 0 && !h.stop)
			pthread_cond_wait(&h.wake, &h.lock);
		if (h.len == 0 && h.stop)
			break;
		data = h.buf;
		len = h.len;
		upto = h.queued;
		h.buf = NULL;
		h.len = h.cap = 0;
		pthread_mutex_unlock(&h.lock);
		rv = write_all(data, len);
		if (rv == FALCON_OK && h.size >= (off_t)FALCOND_HISTORY_ROTATE && rotate() != FALCON_OK)
			falcon_error("history: %s (kept appending to the big file)", falcon_errmsg());
		if (rv != FALCON_OK)
			falcon_error("history: %s; %zu bytes of history lost from the file "
				     "(the ledger keeps the last %d per device)", falcon_errmsg(), len,
				     FALCOND_HIST_MAX);
		free(data);
		pthread_mutex_lock(&h.lock);
		if (rv == FALCON_OK)
			h.written = upto;
		else
			h.failed = upto;
		pthread_cond_broadcast(&h.done);
	}
	pthread_mutex_unlock(&h.lock);
	return NULL;
}

void falcond_history_append(const char *chassis, const char *device, const struct falcond_hist *e,
			    long uid)
{
	json_object *o;

	pthread_mutex_lock(&h.lock);
	if (!h.open) {
		pthread_mutex_unlock(&h.lock);
		return;
	}
	o = line(chassis, device, e, uid);
	if (o == NULL || !queue_locked(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN)))
		falcon_error("history: out of memory: %s/%s lease %s not written", chassis, device,
			     e->lease);
	else
		pthread_cond_signal(&h.wake);
	pthread_mutex_unlock(&h.lock);
	json_object_put(o);
}

falcon_err_t falcond_history_flush(void)
{
	falcon_err_t rv = FALCON_OK;
	unsigned long long want;

	pthread_mutex_lock(&h.lock);
	want = h.queued;
	while (h.open && h.written < want && h.failed < want)
		pthread_cond_wait(&h.done, &h.lock);
	if (h.open && h.written < want)
		rv = falcon_err_set(FALCON_ERR_IO, "history %s: write failed", h.path);
	pthread_mutex_unlock(&h.lock);
	return rv;
}

/* tail - the last max bytes of path (whole lines) into *buf; "" if absent. */
static falcon_err_t tail(const char *path, size_t max, char **buf)
{
	struct stat sb;
	falcon_err_t rv = FALCON_OK;
	char *b = NULL, *nl;
	size_t want;
	ssize_t r;
	int fd;

	*buf = NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		if (errno != ENOENT)
			return falcon_err_set(FALCON_ERR_IO, "%s: %s", path, strerror(errno));
		*buf = strdup("");
		return *buf ? FALCON_OK : falcon_err_set(FALCON_ERR_NOMEM, "history");
	}
	if (fstat(fd, &sb) != 0) {
		rv = falcon_err_set(FALCON_ERR_IO, "%s: %s", path, strerror(errno));
		goto fail;
	}
	want = (size_t)sb.st_size < max ? (size_t)sb.st_size : max;
	if ((b = malloc(want + 1)) == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "history: %zu bytes", want);
		goto fail;
	}
	r = pread(fd, b, want, sb.st_size - (off_t)want);
	if (r < 0) {
		rv = falcon_err_set(FALCON_ERR_IO, "%s: read: %s", path, strerror(errno));
		goto fail;
	}
	b[r] = '\0';
	/* drop a partial first line when reading from the middle */
	if (want < (size_t)sb.st_size && (nl = strchr(b, '\n')) != NULL)
		memmove(b, nl + 1, strlen(nl + 1) + 1);
	*buf = b;
	b = NULL;
fail:
	free(b);
	close(fd);
	return rv;
}

/*
 * recover_locked - queue the closed entries of lg's history that the
 * file's tails seen[0] and seen[1] lack (a crash between the ledger commit
 * and the line's fdatasync); *recovered = how many (h.lock held).  A lease
 * id is unique, and a line holds "lease":"ID" once per device, so the
 * line's {"chassis":C,"device":D,"lease":L prefix tells whether it is
 * there.  FALCON_ERR_NOMEM.
 */
static falcon_err_t recover_locked(const struct falcond_ledger *lg, char *const seen[2],
				   size_t *recovered)
{
	size_t i, j;

	for (i = 0; lg && i < lg->nhist; i++)
		for (j = 0; j < lg->hist[i].n; j++) {
			const struct falcond_hist *e = &lg->hist[i].h[j];
			const char *text, *end;
			json_object *o;
			char *prefix = NULL;
			bool found, queued;

			if (e->detached_ms == 0)
				continue;
			o = line(lg->hist[i].chassis, lg->hist[i].device, e, -1);
			if (o == NULL ||
			    (text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN)) == NULL ||
			    (end = strstr(text, ",\"job_id\":")) == NULL ||
			    (prefix = strndup(text, (size_t)(end - text))) == NULL) {
				json_object_put(o);
				return falcon_err_set(FALCON_ERR_NOMEM, "history: recovery");
			}
			found = strstr(seen[0], prefix) != NULL || strstr(seen[1], prefix) != NULL;
			free(prefix);
			queued = found || queue_locked(text);
			json_object_put(o);
			if (!queued)
				return falcon_err_set(FALCON_ERR_NOMEM, "history: recovery");
			if (!found)
				(*recovered)++;
		}
	return FALCON_OK;
}

falcon_err_t falcond_history_start(const char *state_dir, const struct falcond_ledger *lg)
{
	char *seen[2] = { NULL, NULL };
	size_t recovered = 0;
	falcon_err_t rv;

	pthread_mutex_lock(&h.lock);
	if (h.open) {
		pthread_mutex_unlock(&h.lock);
		return falcon_err_set(FALCON_ERR_INVAL, "history: already open");
	}
	if (asprintf(&h.path, "%s/" FALCOND_HISTORY_FILE, state_dir) < 0)
		h.path = NULL;
	if (asprintf(&h.old_path, "%s/" FALCOND_HISTORY_FILE ".1", state_dir) < 0)
		h.old_path = NULL;
	h.dir = strdup(state_dir);
	if (h.path == NULL || h.old_path == NULL || h.dir == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "history");
		goto fail;
	}
	if ((rv = tail(h.path, FALCOND_HISTORY_TAIL, &seen[0])) != FALCON_OK ||
	    (rv = tail(h.old_path, FALCOND_HISTORY_TAIL, &seen[1])) != FALCON_OK)
		goto fail;
	h.fd = open(h.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (h.fd < 0) {
		rv = falcon_err_set(FALCON_ERR_IO, "%s: %s", h.path, strerror(errno));
		goto fail;
	}
	h.size = lseek(h.fd, 0, SEEK_END);
	if ((rv = recover_locked(lg, seen, &recovered)) != FALCON_OK)
		goto fail;
	h.stop = false;
	h.written = h.failed = 0;
	h.queued = recovered;
	if (pthread_create(&h.thread, NULL, writer, NULL) != 0) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "history: writer thread");
		goto fail;
	}
	h.open = true;
	if (recovered > 0) {
		falcon_info("history: %zu entries of the ledger missing from %s appended",
			    recovered, h.path);
		pthread_cond_signal(&h.wake);
	}
	rv = FALCON_OK;
fail:
	if (rv != FALCON_OK)
		reset_locked();
	pthread_mutex_unlock(&h.lock);
	free(seen[0]);
	free(seen[1]);
	return rv;
}

void falcond_history_stop(void)
{
	pthread_mutex_lock(&h.lock);
	if (!h.open) {
		pthread_mutex_unlock(&h.lock);
		return;
	}
	h.stop = true;
	pthread_cond_signal(&h.wake);
	pthread_mutex_unlock(&h.lock);
	pthread_join(h.thread, NULL);
	pthread_mutex_lock(&h.lock);
	h.open = false;
	reset_locked();
	pthread_mutex_unlock(&h.lock);
}

/* check_of - the check verdict in a result "released; check: X[...]",
 * where X is a verdict word or falcon-epilog's AdminComment tag, whose
 * "check=" field holds it (lib/core/jobtag.h). */
static void check_of(const char *result, char *out, size_t n)
{
	const char *p = strstr(result, "check: "), *q;

	out[0] = '\0';
	if (p != NULL) {
		p += 7;
		if (strncmp(p, FALCON_TAG_PREFIX, strlen(FALCON_TAG_PREFIX)) == 0) {
			for (q = strstr(p, "check="); q != NULL; q = strstr(q + 1, "check="))
				if (q[-1] == ':' || q[-1] == ',')
					break;
			if (q == NULL)
				return; /* a tag without a verdict: no check ran */
			p = q + 6;
		}
		snprintf(out, n, "%.*s", (int)strcspn(p, " ;,:"), p);
	}
}

/* entry - the answer's form of one entry (a new object). */
static json_object *entry(const char *chassis, const char *device, long long job_id,
			  const char *host, const char *lease, long long attached_ms,
			  long long released_ms, const char *result)
{
	json_object *o = json_object_new_object();
	char check[32];

	check_of(result, check, sizeof(check));
	json_object_object_add(o, "chassis", json_object_new_string(chassis));
	json_object_object_add(o, "device", json_object_new_string(device));
	json_object_object_add(o, "job_id", json_object_new_int64(job_id));
	json_object_object_add(o, "host", json_object_new_string(host));
	json_object_object_add(o, "lease", json_object_new_string(lease));
	json_object_object_add(o, "attached", json_object_new_int64(attached_ms / 1000));
	json_object_object_add(o, "released", json_object_new_int64(released_ms / 1000));
	json_object_object_add(o, "result", json_object_new_string(result));
	json_object_object_add(o, "check", json_object_new_string(check));
	return o;
}

static bool overlaps(long long att_ms, long long rel_ms, long long start, long long end)
{
	return att_ms / 1000 <= end && (rel_ms == 0 || rel_ms / 1000 >= start);
}

static const char *jstr(json_object *o, const char *k)
{
	json_object *v;

	return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v) : NULL;
}

static bool jnum(json_object *o, const char *k, long long *out)
{
	json_object *v;

	if (!json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, json_type_int))
		return false;
	*out = json_object_get_int64(v);
	return true;
}

/* scan_file - the matching lines of path appended to a; skipped counted. */
static falcon_err_t scan_file(const char *path, long long start, long long end, uid_t uid,
			      bool all, json_object *a, size_t *skipped)
{
	FILE *f = fopen(path, "re");
	json_tokener *tok = NULL;
	char *ln = NULL;
	size_t cap = 0;
	ssize_t len;
	falcon_err_t rv = FALCON_OK;

	if (f == NULL)
		return errno == ENOENT ? FALCON_OK
				       : falcon_err_set(FALCON_ERR_IO, "%s: %s", path, strerror(errno));
	if ((tok = json_tokener_new()) == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "history: tokener");
		goto fail;
	}
	while ((len = getline(&ln, &cap, f)) > 0) {
		long long job, att, rel, u;
		const char *ch, *dev, *host, *lease, *res;
		json_object *o;

		json_tokener_reset(tok);
		o = json_tokener_parse_ex(tok, ln, (int)len);
		ch = jstr(o, "chassis");
		dev = jstr(o, "device");
		host = jstr(o, "host");
		lease = jstr(o, "lease");
		res = jstr(o, "result");
		if (o == NULL || !json_object_is_type(o, json_type_object) || !ch || !dev || !host ||
		    !lease || !res || !jnum(o, "job_id", &job) || !jnum(o, "attached_ms", &att) ||
		    !jnum(o, "released_ms", &rel) || !jnum(o, "uid", &u)) {
			(*skipped)++;
		} else if (overlaps(att, rel, start, end) && (all || (u >= 0 && (uid_t)u == uid))) {
			json_object_array_add(a, entry(ch, dev, job, host, lease, att, rel, res));
		}
		json_object_put(o);
	}
	if (ferror(f))
		rv = falcon_err_set(FALCON_ERR_IO, "%s: read: %s", path, strerror(errno));
fail:
	json_tokener_free(tok);
	free(ln);
	fclose(f);
	return rv;
}

falcon_err_t falcond_history_query(struct falcond_ledger *lg, pthread_mutex_t *lg_lock,
				   long long start, long long end, uid_t uid, bool all,
				   json_object **out)
{
	json_object *o = NULL, *a = NULL;
	char *path = NULL, *old_path = NULL;
	size_t skipped = 0, i, j;
	falcon_err_t rv;

	*out = NULL;
	pthread_mutex_lock(&h.lock);
	if (h.path != NULL) {
		path = strdup(h.path);
		old_path = strdup(h.old_path);
	}
	pthread_mutex_unlock(&h.lock);
	if ((o = json_object_new_object()) == NULL || (a = json_object_new_array()) == NULL ||
	    (h.open && (path == NULL || old_path == NULL))) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "history: query");
		goto fail;
	}
	if (path != NULL && ((rv = scan_file(old_path, start, end, uid, all, a, &skipped)) != FALCON_OK ||
			     (rv = scan_file(path, start, end, uid, all, a, &skipped)) != FALCON_OK))
		goto fail;
	/* the entries still open: in the ledger only */
	pthread_mutex_lock(lg_lock);
	for (i = 0; i < lg->nhist; i++)
		for (j = 0; j < lg->hist[i].n; j++) {
			const struct falcond_hist *e = &lg->hist[i].h[j];
			const struct falcon_lease *l;

			if (e->detached_ms != 0 || !overlaps(e->attached_ms, 0, start, end))
				continue;
			l = falcond_ledger_lease(lg, e->lease);
			if (!all && (l == NULL || l->uid < 0 || (uid_t)l->uid != uid))
				continue;
			json_object_array_add(a, entry(lg->hist[i].chassis, lg->hist[i].device,
						       e->job_id, e->host, e->lease, e->attached_ms,
						       0, ""));
		}
	pthread_mutex_unlock(lg_lock);
	json_object_object_add(o, "start", json_object_new_int64(start));
	json_object_object_add(o, "end", json_object_new_int64(end));
	json_object_object_add(o, "entries", a);
	a = NULL;
	json_object_object_add(o, "skipped", json_object_new_int64((int64_t)skipped));
	if (skipped > 0)
		falcon_warn("history: %zu lines of %s that do not parse skipped", skipped, path);
	*out = o;
	o = NULL;
	rv = FALCON_OK;
fail:
	json_object_put(a);
	json_object_put(o);
	free(path);
	free(old_path);
	return rv;
}

falcon_err_t falcond_history_request(struct falcond_ledger *lg, pthread_mutex_t *lg_lock,
				     const char *start, const char *end, uid_t uid, bool all,
				     json_object **out)
{
	long s = 0, e = (long)(falcond_now_ms() / 1000);

	*out = NULL;
	if (start != NULL && falcon_strtol(start, 10, 0, 253402300799L, &s) != FALCON_OK)
		return falcon_err_set(FALCON_ERR_PARSE, "history: start: %s", falcon_errmsg());
	if (end != NULL && falcon_strtol(end, 10, 0, 253402300799L, &e) != FALCON_OK)
		return falcon_err_set(FALCON_ERR_PARSE, "history: end: %s", falcon_errmsg());
	if (e < s)
		return falcon_err_set(FALCON_ERR_PARSE, "history: end %ld is before start %ld", e, s);
	return falcond_history_query(lg, lg_lock, s, e, uid, all, out);
}
