/*
 * rf_http.c - the Redfish HTTP client over libcurl: the credentials file,
 * curl's global init, one keep-alive easy handle per client with timeouts
 * and TLS verification, Redfish sessions (login, re-login on 401, DELETE on
 * close), ETag capture and If-Match.  Declared in lib/chassis/redfish.h;
 * bodies are parsed and errors mapped by rf_json.c.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "chassis/redfish.h"
#include "core/log.h"
#include "core/util.h"

/* ------------------------------------------------------------------ */
/* credentials                                                          */
/* ------------------------------------------------------------------ */

falcon_err_t falcon_rf_read_credentials(const char *path, char *user, size_t ulen,
					char *pass, size_t plen)
{
	char buf[1024];
	struct stat st;
	ssize_t r;
	size_t len = 0, line;
	char *colon;
	int fd;
	falcon_err_t rv;

	user[0] = pass[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		rv = falcon_err_set(errno == ENOENT ? FALCON_ERR_NOTFOUND :
				    errno == EACCES ? FALCON_ERR_PERM : FALCON_ERR_IO,
				    "credentials file %s: %s", path, strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) != 0) {
		rv = falcon_err_set(FALCON_ERR_IO, "credentials file %s: fstat: %s", path,
				    strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rv = falcon_err_set(FALCON_ERR_PERM,
				    "credentials file %s: not a regular file (mode %06o)",
				    path, (unsigned)st.st_mode);
		goto out;
	}
	if ((st.st_mode & 077) != 0) {
		rv = falcon_err_set(FALCON_ERR_PERM,
				    "credentials file %s: mode %04o: must not be accessible "
				    "by group or other (chmod 600)",
				    path, (unsigned)(st.st_mode & 07777));
		goto out;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		rv = falcon_err_set(FALCON_ERR_PERM,
				    "credentials file %s: owned by uid %u, expected root or "
				    "uid %u", path, (unsigned)st.st_uid, (unsigned)geteuid());
		goto out;
	}
	while (len < sizeof(buf) - 1) {
		r = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rv = falcon_err_set(FALCON_ERR_IO, "credentials file %s: read: %s",
					    path, strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	line = strcspn(buf, "\r\n");
	if (line == len && len == sizeof(buf) - 1) {
		rv = falcon_err_set(FALCON_ERR_CONFIG, "credentials file %s: line longer than %zu",
				    path, sizeof(buf) - 2);
		goto out;
	}
	buf[line] = '\0';
	colon = strchr(buf, ':');
	if (colon == NULL || colon == buf) {
		rv = falcon_err_set(FALCON_ERR_CONFIG,
				    "credentials file %s: expected one line \"user:password\"",
				    path);
		goto out;
	}
	*colon = '\0';
	if (strlen(buf) >= ulen || strlen(colon + 1) >= plen) {
		rv = falcon_err_set(FALCON_ERR_CONFIG,
				    "credentials file %s: user or password too long", path);
		goto out;
	}
	falcon_strlcpy(user, buf, ulen);
	falcon_strlcpy(pass, colon + 1, plen);
	rv = FALCON_OK;
out:
	explicit_bzero(buf, sizeof(buf));
	if (fd >= 0)
		close(fd);
	return rv;
}

/* ------------------------------------------------------------------ */
/* the HTTP client                                                      */
/* ------------------------------------------------------------------ */

#define RF_USER_LEN 256
#define RF_PASS_LEN 256
#define RF_TOKEN_LEN 512

/* A long-lived GET in progress (falcon_rf_stream): exchange() hands the body
 * to on_data once the answer is 200 text/event-stream. */
struct rf_stream {
	const struct falcon_rf_stream_opts *o;
	bool event_stream;          /* Content-Type: text/event-stream seen */
	bool open;                  /* 200 and event_stream: body goes to on_data */
	falcon_err_t err;           /* what on_data returned when it stopped us */
	bool stopped;               /* o->stop said so */
};

struct falcon_rf {
	CURL *curl;
	struct rf_stream *stream;   /* set during falcon_rf_stream(), else NULL */
	char base[512];             /* scheme://authority[/prefix], no trailing '/' */
	char user[RF_USER_LEN];
	char pass[RF_PASS_LEN];
	bool have_creds;
	bool basic;                 /* basic auth on every request */
	char token[RF_TOKEN_LEN];   /* X-Auth-Token of our session, "" = none */
	char session[FALCON_RF_PATH_LEN];
	char *ca_file;
	bool insecure;
	long connect_timeout_ms;
	long timeout_ms;            /* one GET: Timeout= */
	long change_timeout_ms;     /* one PATCH/POST/DELETE, a task: ChangeTimeout= */
	long task_timeout_ms;
	char name[128];             /* the chassis, for messages */
	long long deadline_ms;      /* CLOCK_MONOTONIC ms the caller's budget ends; 0 = none */
	unsigned long connects;     /* new connections (TLS handshakes on https) so far */
	char errbuf[CURL_ERROR_SIZE];
	/* the response being received */
	char *body;
	size_t body_len, body_cap;
	bool body_overflow;
	char hdr_etag[FALCON_RF_ETAG_LEN];
	char hdr_location[FALCON_RF_PATH_LEN];
	char hdr_token[RF_TOKEN_LEN];
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;

static void curl_init(void)
{
	curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

falcon_err_t falcon_curl_global_init(void)
{
	pthread_once(&curl_once, curl_init);
	if (curl_init_rc != CURLE_OK)
		return falcon_err_set(FALCON_ERR_TRANSPORT, "curl_global_init: %s",
				      curl_easy_strerror(curl_init_rc));
	return FALCON_OK;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *ctx)
{
	struct falcon_rf *rf = ctx;
	size_t n = size * nmemb;

	if (rf->stream != NULL && rf->stream->open) {
		rf->stream->err = rf->stream->o->on_data(rf->stream->o->ctx, data, n);
		return rf->stream->err == FALCON_OK ? n : 0;
	}
	if (n > FALCON_RF_MAX_BODY - rf->body_len) {
		rf->body_overflow = true;
		return 0; /* aborts the transfer: CURLE_WRITE_ERROR */
	}
	if (rf->body_len + n + 1 > rf->body_cap) {
		size_t cap = rf->body_cap ? rf->body_cap : 8192;
		char *p;

		while (cap < rf->body_len + n + 1)
			cap *= 2;
		p = realloc(rf->body, cap);
		if (p == NULL)
			return 0;
		rf->body = p;
		rf->body_cap = cap;
	}
	memcpy(rf->body + rf->body_len, data, n);
	rf->body_len += n;
	rf->body[rf->body_len] = '\0';
	return n;
}

/* Store a header value (already trimmed) if it is printable and fits. */
static void keep_header(char *dst, size_t n, const char *v, size_t vlen)
{
	size_t i;

	if (vlen >= n)
		return;
	for (i = 0; i < vlen; i++)
		if ((unsigned char)v[i] < 0x20 || (unsigned char)v[i] >= 0x7f)
			return;
	memcpy(dst, v, vlen);
	dst[vlen] = '\0';
}

/* The path of a Location value: a path as is, or an absolute URL on our base. */
static void keep_location(struct falcon_rf *rf, const char *v, size_t vlen)
{
	char tmp[FALCON_RF_PATH_LEN + 512];
	size_t blen = strlen(rf->base);
	const char *p = tmp;

	tmp[0] = '\0';
	keep_header(tmp, sizeof(tmp), v, vlen);
	if (tmp[0] == '\0')
		return;
	if (strncmp(tmp, rf->base, blen) == 0)
		p = tmp + blen;
	if (falcon_rf_path_ok(p))
		falcon_strlcpy(rf->hdr_location, p, sizeof(rf->hdr_location));
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *ctx)
{
	struct falcon_rf *rf = ctx;
	size_t n = size * nmemb, nlen, vlen;
	const char *colon, *v;

	if (n >= 5 && strncmp(data, "HTTP/", 5) == 0) {
		/* a new response (after 1xx): forget the previous headers */
		rf->hdr_etag[0] = rf->hdr_location[0] = rf->hdr_token[0] = '\0';
		if (rf->stream != NULL)
			rf->stream->event_stream = rf->stream->open = false;
		return n;
	}
	if (rf->stream != NULL && (n == 2 || n == 1) && (data[0] == '\r' || data[0] == '\n')) {
		long code = 0;

		/* the end of the headers: is the stream open? */
		curl_easy_getinfo(rf->curl, CURLINFO_RESPONSE_CODE, &code);
		rf->stream->open = code == 200 && rf->stream->event_stream;
		if (rf->stream->open && rf->stream->o->on_open != NULL)
			rf->stream->o->on_open(rf->stream->o->ctx);
		return n;
	}
	colon = memchr(data, ':', n);
	if (colon == NULL)
		return n;
	nlen = (size_t)(colon - data);
	v = colon + 1;
	vlen = n - nlen - 1;
	while (vlen > 0 && (*v == ' ' || *v == '\t')) {
		v++;
		vlen--;
	}
	while (vlen > 0 && (v[vlen - 1] == '\r' || v[vlen - 1] == '\n' ||
			    v[vlen - 1] == ' ' || v[vlen - 1] == '\t'))
		vlen--;
	if (nlen == 4 && strncasecmp(data, "ETag", 4) == 0)
		keep_header(rf->hdr_etag, sizeof(rf->hdr_etag), v, vlen);
	else if (nlen == 8 && strncasecmp(data, "Location", 8) == 0)
		keep_location(rf, v, vlen);
	else if (nlen == 12 && strncasecmp(data, "X-Auth-Token", 12) == 0)
		keep_header(rf->hdr_token, sizeof(rf->hdr_token), v, vlen);
	else if (rf->stream != NULL && nlen == 12 && strncasecmp(data, "Content-Type", 12) == 0)
		rf->stream->event_stream = vlen >= 17 && strncasecmp(v, "text/event-stream", 17) == 0;
	return n;
}

/* libcurl's progress callback during a stream: about once a second even
 * when nothing arrives; non-zero aborts (CURLE_ABORTED_BY_CALLBACK). */
static int on_progress(void *ctx, curl_off_t dlt, curl_off_t dln, curl_off_t ult, curl_off_t uln)
{
	struct falcon_rf *rf = ctx;

	(void)dlt, (void)dln, (void)ult, (void)uln;
	if (rf->stream->o->stop != NULL && rf->stream->o->stop(rf->stream->o->ctx))
		rf->stream->stopped = true;
	return rf->stream->stopped;
}

/*
 * cert_names - the names the server's certificate holds (its subject and
 * subjectAltName, from libcurl's CURLOPT_CERTINFO on a second, unverified
 * connect-only handle: nothing is sent) into buf; "" when they cannot be
 * read.  For the message of a certificate that does not match the host.
 */
static void cert_names(const struct falcon_rf *rf, const char *url, char *buf, size_t n)
{
	struct curl_certinfo *ci = NULL;
	struct curl_slist *sl;
	CURL *c = curl_easy_init();
	size_t len = 0;

	buf[0] = '\0';
	if (c == NULL)
		return;
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECT_ONLY, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	curl_easy_setopt(c, CURLOPT_CERTINFO, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, rf->connect_timeout_ms);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, rf->connect_timeout_ms);
	if (curl_easy_perform(c) == CURLE_OK &&
	    curl_easy_getinfo(c, CURLINFO_CERTINFO, &ci) == CURLE_OK && ci != NULL &&
	    ci->num_of_certs > 0) {
		for (sl = ci->certinfo[0]; sl != NULL && len + 1 < n; sl = sl->next) {
			const char *v = NULL;

			if (strncmp(sl->data, "Subject:", 8) == 0)
				v = sl->data + 8;
			else if (strncasecmp(sl->data, "X509v3 Subject Alternative Name:", 32) == 0)
				v = sl->data + 32;
			if (v == NULL)
				continue;
			len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? "; " : "",
						v + strspn(v, " "));
		}
		if (len >= n)
			buf[n - 1] = '\0';
	}
	curl_easy_cleanup(c);
}

/* url_host - the host of scheme://[user@]host[:port]/... into buf. */
static void url_host(const char *url, char *buf, size_t n)
{
	const char *h = strstr(url, "://"), *at;
	size_t len;

	h = h != NULL ? h + 3 : url;
	len = strcspn(h, "/");
	at = memchr(h, '@', len);
	if (at != NULL) {
		len -= (size_t)(at + 1 - h);
		h = at + 1;
	}
	if (h[0] == '[')
		len = strcspn(h, "]") + 1;
	else
		len = strcspn(h, ":/");
	snprintf(buf, n, "%.*s", (int)len, h);
}

/*
 * tls_err - a certificate that failed verification: a host name mismatch
 * names both the host asked for and the names the certificate holds; an
 * unknown issuer (a self-signed certificate, another CA) says which
 * falcon.conf keys decide; an expired one says so (libcurl's reason).
 */
static falcon_err_t tls_err(struct falcon_rf *rf, const char *method, const char *url,
			    const char *why)
{
	char host[256], names[512];

	url_host(url, host, sizeof(host));
	if (strstr(why, "host name") != NULL || strstr(why, "hostname") != NULL ||
	    strstr(why, "subject name") != NULL) {
		cert_names(rf, url, names, sizeof(names));
		return falcon_err_set(FALCON_ERR_TRANSPORT, "%s %s: TLS: the chassis' certificate "
				      "names %s, not the host '%s' of its Url= (%s)", method, url,
				      names[0] ? names : "(unreadable)", host, why);
	}
	return falcon_err_set(FALCON_ERR_TRANSPORT, "%s %s: TLS: %s (CAFile= names the CA that "
			      "signed the chassis' certificate%s%s; Insecure=yes turns verification "
			      "off)", method, url, why,
			      rf->ca_file != NULL ? ", now " : "", rf->ca_file != NULL ? rf->ca_file
			      : "");
}

static falcon_err_t curl_err(struct falcon_rf *rf, CURLcode cc, const char *method,
			     const char *url)
{
	const char *why = rf->errbuf[0] != '\0' ? rf->errbuf : curl_easy_strerror(cc);

	switch (cc) {
	case CURLE_OPERATION_TIMEDOUT:
		return falcon_err_set(FALCON_ERR_TIMEOUT, "%s %s: %s", method, url, why);
	case CURLE_WRITE_ERROR:
		if (rf->body_overflow)
			return falcon_err_set(FALCON_ERR_PROTOCOL,
					      "%s %s: response body larger than %u bytes",
					      method, url, FALCON_RF_MAX_BODY);
		return falcon_err_set(FALCON_ERR_NOMEM, "%s %s: %s", method, url, why);
	case CURLE_OUT_OF_MEMORY:
		return falcon_err_set(FALCON_ERR_NOMEM, "%s %s: %s", method, url, why);
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_URL_MALFORMAT:
		return falcon_err_set(FALCON_ERR_INVAL, "%s %s: %s", method, url, why);
	case CURLE_PEER_FAILED_VERIFICATION:
		return tls_err(rf, method, url, why);
	default:
		/* refused, reset, resolve failures, empty reply, TLS, partial body */
		return falcon_err_set(FALCON_ERR_TRANSPORT, "%s %s: %s", method, url, why);
	}
}

#if LIBCURL_VERSION_NUM >= 0x074200 /* curl_multi_poll: 7.66.0 */
#define STREAM_STOP_POLL_MS 100

/*
 * perform_stream - curl_easy_perform() for a stream, through a multi handle
 * (libcurl curl_multi_poll) so that o->stop is asked every
 * STREAM_STOP_POLL_MS: the progress callback alone comes about once a
 * second while nothing arrives, which held falcond's stop near 1 s.
 * CURLE_ABORTED_BY_CALLBACK with stream->stopped set when stop said so.
 */
static CURLcode perform_stream(struct falcon_rf *rf)
{
	CURLM *m = curl_multi_init();
	CURLcode cc = CURLE_FAILED_INIT;
	CURLMsg *msg;
	int running = 1, left;

	if (m == NULL)
		return CURLE_OUT_OF_MEMORY;
	if (curl_multi_add_handle(m, rf->curl) != CURLM_OK) {
		curl_multi_cleanup(m);
		return CURLE_FAILED_INIT;
	}
	while (running) {
		if (curl_multi_perform(m, &running) != CURLM_OK)
			break;
		while ((msg = curl_multi_info_read(m, &left)) != NULL)
			if (msg->msg == CURLMSG_DONE)
				cc = msg->data.result;
		if (!running)
			break;
		if (rf->stream->stopped ||
		    (rf->stream->o->stop != NULL && rf->stream->o->stop(rf->stream->o->ctx))) {
			rf->stream->stopped = true;
			cc = CURLE_ABORTED_BY_CALLBACK;
			break;
		}
		if (curl_multi_poll(m, NULL, 0, STREAM_STOP_POLL_MS, NULL) != CURLM_OK)
			break;
	}
	curl_multi_remove_handle(m, rf->curl);
	curl_multi_cleanup(m);
	return cc;
}
#else
static CURLcode perform_stream(struct falcon_rf *rf)
{
	return curl_easy_perform(rf->curl);
}
#endif

#define SETOPT(opt, val)							\
	do {									\
		if (curl_easy_setopt(rf->curl, opt, val) != CURLE_OK) {		\
			rv = falcon_err_set(FALCON_ERR_INVAL, "%s %s: curl option " \
					    #opt " refused", method, url);	\
			goto fail;						\
		}								\
	} while (0)

/*
 * count_connects - the new connections the last transfer made (libcurl
 * CURLINFO_NUM_CONNECTS: 0 when it reused a kept one) into rf->connects;
 * with Insecure=yes each new https connection is logged as unverified.
 */
static void count_connects(struct falcon_rf *rf, const char *url)
{
	long n = 0;

	if (curl_easy_getinfo(rf->curl, CURLINFO_NUM_CONNECTS, &n) != CURLE_OK || n <= 0)
		return;
	rf->connects += (unsigned long)n;
	if (rf->insecure && strncmp(url, "https://", 8) == 0)
		falcon_warn("%s: new TLS connection NOT verified (Insecure=yes): the chassis "
			    "cannot be authenticated", rf->base);
}

static long long mono_ms(void);

/* key_of - the falcon.conf key bounding one request of method. */
static const char *key_of(const char *method)
{
	return strcmp(method, "GET") == 0 ? "Timeout" : "ChangeTimeout";
}

/*
 * bound_ms - libcurl's total time for one request of method: the key's
 * (timeout_ms for a read, change_timeout_ms for a change), cut to what is
 * left of the caller's deadline (at least 1 ms); *by_key tells whether the
 * key's bound is the one that holds.
 */
static long bound_ms(const struct falcon_rf *rf, const char *method, bool *by_key)
{
	long ms = strcmp(method, "GET") == 0 ? rf->timeout_ms : rf->change_timeout_ms;
	long long left;

	*by_key = true;
	if (rf->deadline_ms > 0) {
		left = rf->deadline_ms - mono_ms();
		if (left < ms) {
			*by_key = false;
			ms = left > 1 ? (long)left : 1L;
		}
	}
	return ms;
}

/*
 * key_timeout - a request ran out the time its chassis key allows (not the
 * caller's budget): the chassis is slower than the key says.  Logged for
 * the admin (falcond's log) and FALCON_ERR_TIMEOUT with
 * FALCON_RF_KEY_TIMEOUT_MARK, the chassis, the key and the time observed.
 */
static falcon_err_t key_timeout(struct falcon_rf *rf, const char *method, const char *url,
				long long took_ms)
{
	const char *key = key_of(method);
	long set_ms = strcmp(key, "Timeout") == 0 ? rf->timeout_ms : rf->change_timeout_ms;

	falcon_warn("chassis %s: %s %s: no answer within %s=%ld s of its ChassisName line "
		    "(gave up after %lld ms): the chassis takes longer; raise %s= "
		    "(falcon.conf(5))", rf->name, method, url, key, set_ms / 1000, took_ms, key);
	return falcon_err_set(FALCON_ERR_TIMEOUT, FALCON_RF_KEY_TIMEOUT_MARK " chassis %s: %s %s: "
			      "no answer within %s=%ld s (gave up after %lld ms); raise %s=",
			      rf->name, method, url, key, set_ms / 1000, took_ms, key);
}

/* One exchange, no retry.  Fills resp (status, body, headers) on any HTTP
 * answer; returns the transport error otherwise. */
static falcon_err_t exchange(struct falcon_rf *rf, const char *method, const char *path,
			     const char *payload, const char *if_match,
			     bool with_auth, struct falcon_rf_resp *resp)
{
	struct curl_slist *hdrs = NULL, *h;
	char url[sizeof(rf->base) + FALCON_RF_PATH_LEN];
	char line[RF_TOKEN_LEN + 64];
	CURLcode cc;
	falcon_err_t rv;
	long long t0;
	bool by_key = false;

	memset(resp, 0, sizeof(*resp));
	snprintf(url, sizeof(url), "%s%s", rf->base, path);
	/* drop a '#fragment' (never sent over HTTP) */
	url[strcspn(url, "#")] = '\0';
	rf->body_len = 0;
	rf->body_overflow = false;
	rf->errbuf[0] = '\0';
	rf->hdr_etag[0] = rf->hdr_location[0] = rf->hdr_token[0] = '\0';

	curl_easy_reset(rf->curl); /* keeps live connections */
	SETOPT(CURLOPT_URL, url);
	SETOPT(CURLOPT_NOSIGNAL, 1L);
	SETOPT(CURLOPT_ERRORBUFFER, rf->errbuf);
#if LIBCURL_VERSION_NUM >= 0x075500
	SETOPT(CURLOPT_PROTOCOLS_STR, "http,https");
#endif
	SETOPT(CURLOPT_FOLLOWLOCATION, 0L);
	SETOPT(CURLOPT_CONNECTTIMEOUT_MS, rf->connect_timeout_ms);
	if (rf->stream != NULL) {
		/* no total time; a silent stream (no event, no keep-alive) is dead */
		SETOPT(CURLOPT_TIMEOUT_MS, 0L);
		SETOPT(CURLOPT_LOW_SPEED_LIMIT, 1L);
		SETOPT(CURLOPT_LOW_SPEED_TIME, (long)rf->stream->o->stall_s);
		SETOPT(CURLOPT_NOPROGRESS, 0L);
		SETOPT(CURLOPT_XFERINFOFUNCTION, on_progress);
		SETOPT(CURLOPT_XFERINFODATA, rf);
	} else {
		SETOPT(CURLOPT_TIMEOUT_MS, bound_ms(rf, method, &by_key));
	}
	SETOPT(CURLOPT_WRITEFUNCTION, on_body);
	SETOPT(CURLOPT_WRITEDATA, rf);
	SETOPT(CURLOPT_HEADERFUNCTION, on_header);
	SETOPT(CURLOPT_HEADERDATA, rf);
	SETOPT(CURLOPT_USERAGENT, "falcon-slurm/" PACKAGE_VERSION);
	if (rf->insecure) {
		SETOPT(CURLOPT_SSL_VERIFYPEER, 0L);
		SETOPT(CURLOPT_SSL_VERIFYHOST, 0L);
	} else {
		SETOPT(CURLOPT_SSL_VERIFYPEER, 1L);
		SETOPT(CURLOPT_SSL_VERIFYHOST, 2L);
		if (rf->ca_file != NULL)
			SETOPT(CURLOPT_CAINFO, rf->ca_file);
	}
	if (strcmp(method, "GET") == 0) {
		SETOPT(CURLOPT_HTTPGET, 1L);
	} else {
		SETOPT(CURLOPT_CUSTOMREQUEST, method);
		if (payload != NULL) {
			SETOPT(CURLOPT_POSTFIELDS, payload);
			SETOPT(CURLOPT_POSTFIELDSIZE, (long)strlen(payload));
		}
	}
	if (with_auth && rf->basic && rf->have_creds) {
		SETOPT(CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		SETOPT(CURLOPT_USERNAME, rf->user);
		SETOPT(CURLOPT_PASSWORD, rf->pass);
	}

	h = curl_slist_append(hdrs, rf->stream ? "Accept: text/event-stream"
					       : "Accept: application/json");
	if (h != NULL && rf->stream != NULL && rf->stream->o->last_id != NULL &&
	    rf->stream->o->last_id[0] != '\0') {
		hdrs = h;
		snprintf(line, sizeof(line), "Last-Event-ID: %.64s", rf->stream->o->last_id);
		h = curl_slist_append(hdrs, line);
	}
	if (h != NULL)
		hdrs = h, h = curl_slist_append(hdrs, "OData-Version: 4.0");
	if (h != NULL)
		hdrs = h, h = curl_slist_append(hdrs, "Expect:");
	if (h != NULL && payload != NULL)
		hdrs = h, h = curl_slist_append(hdrs, "Content-Type: application/json");
	if (h != NULL && if_match != NULL) {
		hdrs = h;
		snprintf(line, sizeof(line), "If-Match: %s", if_match);
		h = curl_slist_append(hdrs, line);
	}
	if (h != NULL && with_auth && rf->token[0] != '\0') {
		hdrs = h;
		snprintf(line, sizeof(line), "X-Auth-Token: %s", rf->token);
		h = curl_slist_append(hdrs, line);
	}
	if (h == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "%s %s: curl_slist_append", method, url);
		goto fail;
	}
	hdrs = h;
	SETOPT(CURLOPT_HTTPHEADER, hdrs);

	t0 = mono_ms();
	cc = rf->stream != NULL ? perform_stream(rf) : curl_easy_perform(rf->curl);
	count_connects(rf, url);
	if (cc == CURLE_OPERATION_TIMEDOUT && by_key && rf->stream == NULL) {
		rv = key_timeout(rf, method, url, mono_ms() - t0);
		goto fail;
	}
	if (cc != CURLE_OK) {
		rv = curl_err(rf, cc, method, url);
		goto fail;
	}
	curl_easy_getinfo(rf->curl, CURLINFO_RESPONSE_CODE, &resp->status);
	falcon_strlcpy(resp->etag, rf->hdr_etag, sizeof(resp->etag));
	falcon_strlcpy(resp->location, rf->hdr_location, sizeof(resp->location));
	rv = FALCON_OK;
fail:
	explicit_bzero(line, sizeof(line));
	curl_slist_free_all(hdrs);
	return rv;
}

/* Parse the received body into resp->body (2xx answers); empty is fine. */
static falcon_err_t take_body(struct falcon_rf *rf, const char *method, const char *url,
			      struct falcon_rf_resp *resp)
{
	char why[1024];
	size_t i;
	falcon_err_t rv;

	for (i = 0; i < rf->body_len; i++)
		if (!isspace((unsigned char)rf->body[i]))
			break;
	if (i == rf->body_len)
		return FALCON_OK;
	rv = falcon_rf_parse(rf->body, rf->body_len, url, &resp->body);
	if (rv != FALCON_OK) {
		/* copy first: the detail must not be formatted into itself */
		falcon_strlcpy(why, falcon_errmsg(), sizeof(why));
		falcon_err_set(rv, "%s %s", method, why);
	}
	return rv;
}

static falcon_err_t login(struct falcon_rf *rf);

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * cancel_task - the budget for an operation ended while its task runs:
 * DELETE its monitor (DSP0266 1.20 sec. 12.2.2, cancelling the
 * operation), so that the chassis does not apply a change the caller has
 * given up on.  The outcome is logged only.
 */
static void cancel_task(struct falcon_rf *rf, const char *what, const char *monitor)
{
	struct falcon_rf_resp resp;
	char why[512];
	long long deadline = rf->deadline_ms;
	falcon_err_t rv;

	falcon_strlcpy(why, falcon_errmsg(), sizeof(why)); /* keep the timeout's detail */
	/* the budget is spent: the cancel gets a read's time (Timeout=) */
	rf->deadline_ms = mono_ms() + rf->timeout_ms;
	rv = falcon_rf_request(rf, "DELETE", monitor, NULL, NULL, &resp);
	rf->deadline_ms = deadline;
	if (rv == FALCON_OK)
		falcon_info("%s: budget spent: task cancelled (DELETE %s: HTTP %ld)", what, monitor,
			    resp.status);
	else
		falcon_warn("%s: budget spent; cancelling the task failed: %s", what, falcon_errmsg());
	falcon_rf_resp_free(&resp);
	falcon_err_set(FALCON_ERR_TIMEOUT, "%s", why);
}

/*
 * follow_task - *resp is a 202 to `method path`: poll its task monitor
 * until the operation is over (see falcon_rf_request()); past the task
 * timeout or the caller's deadline the task is cancelled.  A monitor that
 * answers an error status (the task failed) is that error, its detail
 * naming the monitor.  On error resp holds nothing to free.
 */
static falcon_err_t follow_task(struct falcon_rf *rf, const char *method, const char *path,
				struct falcon_rf_resp *resp)
{
	char monitor[FALCON_RF_PATH_LEN], what[2 * FALCON_RF_PATH_LEN + 32], why[1024];
	char state[32] = "unknown";
	long long start = mono_ms(), deadline = start + rf->task_timeout_ms;
	long wait_ms = 100;
	falcon_err_t rv;
	bool done, by_key;

	/* ChangeTimeout= bounds the task unless the caller set its own */
	by_key = rf->task_timeout_ms == rf->change_timeout_ms;
	if (rf->deadline_ms > 0 && rf->deadline_ms < deadline) {
		deadline = rf->deadline_ms;
		by_key = false;
	}
	if (resp->location[0] != '\0')
		falcon_strlcpy(monitor, resp->location, sizeof(monitor));
	else if (falcon_rf_str(resp->body, "TaskMonitor") != NULL &&
		 falcon_rf_path_ok(falcon_rf_str(resp->body, "TaskMonitor")))
		falcon_strlcpy(monitor, falcon_rf_str(resp->body, "TaskMonitor"), sizeof(monitor));
	else {
		falcon_rf_resp_free(resp);
		return falcon_err_set(FALCON_ERR_PROTOCOL, "%s %s: 202 Accepted without a task "
				      "monitor (no Location, no TaskMonitor)", method, path);
	}
	snprintf(what, sizeof(what), "%s %s (task monitor %s)", method, path, monitor);
	falcon_verbose("%s: accepted, following the task", what);
	for (;;) {
		if (falcon_rf_str(resp->body, "TaskState") != NULL)
			falcon_strlcpy(state, falcon_rf_str(resp->body, "TaskState"), sizeof(state));
		falcon_rf_resp_free(resp);
		if (mono_ms() + wait_ms > deadline && by_key) {
			falcon_warn("chassis %s: %s: still running after %lld ms (TaskState %s): "
				    "no end within ChangeTimeout=%ld s of its ChassisName line; the "
				    "chassis takes longer: raise ChangeTimeout= (falcon.conf(5))",
				    rf->name, what, deadline - start, state,
				    rf->task_timeout_ms / 1000);
			falcon_err_set(FALCON_ERR_TIMEOUT, FALCON_RF_KEY_TIMEOUT_MARK " chassis %s: "
				       "%s: still running after %lld ms (TaskState %s): no end within "
				       "ChangeTimeout=%ld s; raise ChangeTimeout=", rf->name, what,
				       deadline - start, state, rf->task_timeout_ms / 1000);
			cancel_task(rf, what, monitor);
			return FALCON_ERR_TIMEOUT;
		}
		if (mono_ms() + wait_ms > deadline) {
			falcon_err_set(FALCON_ERR_TIMEOUT, "%s: still running after %lld ms "
				       "(TaskState %s)", what, deadline - start, state);
			cancel_task(rf, what, monitor);
			return FALCON_ERR_TIMEOUT;
		}
		{
			struct timespec ts = { wait_ms / 1000, (wait_ms % 1000) * 1000000L };

			while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
				;
		}
		wait_ms = wait_ms * 2 > 1000 ? 1000 : wait_ms * 2;
		rv = falcon_rf_request(rf, "GET", monitor, NULL, NULL, resp);
		if (rv != FALCON_OK) {
			/* DSP0266 sec. 12.2: a failed operation's monitor answers its error */
			falcon_strlcpy(why, falcon_errmsg(), sizeof(why));
			return falcon_err_set(rv, "%s: the task failed: %s", what, why);
		}
		if (resp->status == 202)
			continue;
		rv = falcon_rf_task_outcome(resp->body, what, &done);
		if (rv != FALCON_OK) {
			falcon_rf_resp_free(resp);
			return rv;
		}
		if (!done)
			continue;
		if (falcon_rf_str(resp->body, "TaskState") != NULL) { /* a Task: no resource */
			json_object_put(resp->body);
			resp->body = NULL;
			resp->etag[0] = '\0';
		}
		falcon_verbose("%s: done (HTTP %ld)", what, resp->status);
		return FALCON_OK;
	}
}

falcon_err_t falcon_rf_request(struct falcon_rf *rf, const char *method,
			       const char *path, struct json_object *body,
			       const char *if_match, struct falcon_rf_resp *resp)
{
	char url[sizeof(rf->base) + FALCON_RF_PATH_LEN];
	const char *payload = NULL;
	int attempt;
	falcon_err_t rv;

	memset(resp, 0, sizeof(*resp));
	if (!falcon_rf_path_ok(path)) {
		return falcon_err_set(FALCON_ERR_INVAL, "%s: '%s' is not a resource path",
				      method, path);
	}
	if (if_match != NULL && strpbrk(if_match, "\r\n") != NULL)
		return falcon_err_set(FALCON_ERR_INVAL, "%s %s: bad If-Match value", method, path);
	if (body != NULL)
		payload = json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN |
							 JSON_C_TO_STRING_NOSLASHESCAPE);
	snprintf(url, sizeof(url), "%s%s", rf->base, path);
	for (attempt = 0; ; attempt++) {
		rv = exchange(rf, method, path, payload, if_match, true, resp);
		if (rv != FALCON_OK)
			goto fail;
		if (resp->status == 401 && attempt == 0 && rf->token[0] != '\0') {
			/* the session expired or was deleted: log in once more */
			falcon_verbose("%s %s: 401 with a session: logging in again", method, url);
			rf->token[0] = rf->session[0] = '\0';
			rv = login(rf);
			if (rv != FALCON_OK)
				goto fail;
			continue;
		}
		break;
	}
	rv = falcon_rf_map_status(resp->status, rf->body, rf->body_len, method, url);
	if (rv != FALCON_OK)
		goto fail;
	rv = take_body(rf, method, url, resp);
	if (rv != FALCON_OK)
		goto fail;
	falcon_debug("%s %s: HTTP %ld", method, url, resp->status);
	if (resp->status == 202 && strcmp(method, "GET") != 0)
		return follow_task(rf, method, path, resp);
	return FALCON_OK;
fail:
	falcon_rf_resp_free(resp);
	return rv;
}

void falcon_rf_resp_free(struct falcon_rf_resp *resp)
{
	if (resp == NULL)
		return;
	json_object_put(resp->body);
	memset(resp, 0, sizeof(*resp));
}

/* POST SessionService/Sessions with the credentials (DSP0266 sec 13.3.4). */
static falcon_err_t login(struct falcon_rf *rf)
{
	static const char sessions[] = FALCON_RF_ROOT "/SessionService/Sessions";
	struct json_object *req = NULL;
	struct falcon_rf_resp resp = { 0 };
	char url[sizeof(rf->base) + FALCON_RF_PATH_LEN];
	const char *id;
	falcon_err_t rv;

	snprintf(url, sizeof(url), "%s%s", rf->base, sessions);
	req = json_object_new_object();
	if (req == NULL ||
	    json_object_object_add(req, "UserName", json_object_new_string(rf->user)) != 0 ||
	    json_object_object_add(req, "Password", json_object_new_string(rf->pass)) != 0) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "POST %s: building the request", url);
		goto fail;
	}
	rv = exchange(rf, "POST", sessions,
		      json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN |
						     JSON_C_TO_STRING_NOSLASHESCAPE),
		      NULL, false, &resp);
	if (rv != FALCON_OK)
		goto fail;
	if (resp.status == 404 || resp.status == 405 || resp.status == 501) {
		falcon_verbose("POST %s: HTTP %ld: no SessionService; using basic auth",
			       url, resp.status);
		rf->basic = true;
		rv = FALCON_OK;
		goto fail;
	}
	rv = falcon_rf_map_status(resp.status, rf->body, rf->body_len, "POST", url);
	if (rv != FALCON_OK)
		goto fail;
	if (rf->hdr_token[0] == '\0') {
		rv = falcon_err_set(FALCON_ERR_PROTOCOL,
				    "POST %s: HTTP %ld without an X-Auth-Token header",
				    url, resp.status);
		goto fail;
	}
	falcon_strlcpy(rf->token, rf->hdr_token, sizeof(rf->token));
	if (resp.location[0] != '\0') {
		falcon_strlcpy(rf->session, resp.location, sizeof(rf->session));
	} else if (take_body(rf, "POST", url, &resp) == FALCON_OK &&
		   (id = falcon_rf_str(resp.body, "@odata.id")) != NULL &&
		   falcon_rf_path_ok(id)) {
		falcon_strlcpy(rf->session, id, sizeof(rf->session));
	}
	if (rf->session[0] == '\0')
		falcon_warn("POST %s: no Location for the new session: it will not be "
			    "deleted on exit", url);
	falcon_verbose("opened Redfish session %s", rf->session);
	rv = FALCON_OK;
fail:
	falcon_rf_resp_free(&resp);
	if (req != NULL) {
		/* the password was copied into req: wipe the serialised form too */
		const char *s = json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN |
							       JSON_C_TO_STRING_NOSLASHESCAPE);

		explicit_bzero((char *)s, strlen(s));
		json_object_put(req);
	}
	return rv;
}

/* Split opts->url into rf->base: scheme://authority[/prefix] without a
 * trailing '/' or '/redfish/v1'. */
static falcon_err_t set_base(struct falcon_rf *rf, const char *url)
{
	size_t n;

	if (url == NULL || (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0))
		return falcon_err_set(FALCON_ERR_INVAL,
				      "chassis URL '%s': expected http://HOST[:PORT] or https://...",
				      url ? url : "(null)");
	if (strlen(url) >= sizeof(rf->base) || strpbrk(url, " \t\r\n\"\\?#") != NULL)
		return falcon_err_set(FALCON_ERR_INVAL, "chassis URL '%s': too long or bad "
				      "characters", url);
	falcon_strlcpy(rf->base, url, sizeof(rf->base));
	n = strlen(rf->base);
	while (n > 0 && rf->base[n - 1] == '/')
		rf->base[--n] = '\0';
	if (n >= strlen(FALCON_RF_ROOT) &&
	    strcmp(rf->base + n - strlen(FALCON_RF_ROOT), FALCON_RF_ROOT) == 0) {
		n -= strlen(FALCON_RF_ROOT);
		rf->base[n] = '\0';
	}
	if (strchr(rf->base, ':') == NULL || rf->base[strcspn(rf->base, ":") + 3] == '\0')
		return falcon_err_set(FALCON_ERR_INVAL, "chassis URL '%s': no host", url);
	return FALCON_OK;
}

falcon_err_t falcon_rf_open(const struct falcon_rf_opts *opts, struct falcon_rf **out)
{
	struct falcon_rf *rf = NULL;
	falcon_err_t rv;

	*out = NULL;
	if ((rv = falcon_curl_global_init()) != FALCON_OK)
		goto fail;
	rf = calloc(1, sizeof(*rf));
	if (rf == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "falcon_rf_open");
		goto fail;
	}
	rv = set_base(rf, opts->url);
	if (rv != FALCON_OK)
		goto fail;
	rf->connect_timeout_ms = opts->connect_timeout_ms > 0 ? opts->connect_timeout_ms :
				 FALCON_RF_CONNECT_TIMEOUT_MS;
	rf->timeout_ms = opts->timeout_ms > 0 ? opts->timeout_ms : FALCON_RF_TIMEOUT_MS;
	rf->change_timeout_ms = opts->change_timeout_ms > 0 ? opts->change_timeout_ms
				: FALCON_RF_CHANGE_TIMEOUT_MS;
	rf->task_timeout_ms = opts->task_timeout_ms > 0 ? opts->task_timeout_ms
			      : rf->change_timeout_ms;
	falcon_strlcpy(rf->name, opts->name != NULL ? opts->name : opts->url, sizeof(rf->name));
	rf->insecure = opts->insecure;
	rf->basic = opts->basic_auth;
	if (opts->ca_file != NULL && (rf->ca_file = strdup(opts->ca_file)) == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "falcon_rf_open");
		goto fail;
	}
	if (rf->insecure)
		falcon_warn("%s: TLS certificate verification is OFF (insecure): the "
			    "chassis cannot be authenticated", rf->base);
	else if (opts->credentials_file != NULL && strncmp(rf->base, "http://", 7) == 0)
		falcon_verbose("%s: credentials over plain http", rf->base);
	rf->curl = curl_easy_init();
	if (rf->curl == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "curl_easy_init");
		goto fail;
	}
	if (opts->credentials_file != NULL) {
		rv = falcon_rf_read_credentials(opts->credentials_file, rf->user,
						sizeof(rf->user), rf->pass, sizeof(rf->pass));
		if (rv != FALCON_OK)
			goto fail;
		rf->have_creds = true;
		if (!rf->basic) {
			rv = login(rf);
			if (rv != FALCON_OK)
				goto fail;
		}
	}
	*out = rf;
	rf = NULL;
	rv = FALCON_OK;
fail:
	falcon_rf_close(rf);
	return rv;
}

void falcon_rf_close(struct falcon_rf *rf)
{
	struct falcon_rf_resp resp;

	if (rf == NULL)
		return;
	if (rf->curl != NULL && rf->token[0] != '\0' && rf->session[0] != '\0') {
		/* errors are logged only: the session times out on the service */
		if (exchange(rf, "DELETE", rf->session, NULL, NULL, true, &resp) != FALCON_OK)
			falcon_verbose("closing session %s: %s", rf->session, falcon_errmsg());
		else if (resp.status < 200 || resp.status > 299)
			falcon_verbose("DELETE %s%s: HTTP %ld", rf->base, rf->session,
				       resp.status);
	}
	if (rf->curl != NULL)
		curl_easy_cleanup(rf->curl);
	explicit_bzero(rf->pass, sizeof(rf->pass));
	explicit_bzero(rf->token, sizeof(rf->token));
	explicit_bzero(rf->hdr_token, sizeof(rf->hdr_token));
	free(rf->ca_file);
	free(rf->body);
	free(rf);
}

falcon_err_t falcon_rf_get(void *ctx, const char *path, struct json_object **out,
			   char *etag, size_t etag_len)
{
	struct falcon_rf *rf = ctx;
	struct falcon_rf_resp resp;
	falcon_err_t rv;

	*out = NULL;
	if (etag != NULL && etag_len > 0)
		etag[0] = '\0';
	rv = falcon_rf_request(rf, "GET", path, NULL, NULL, &resp);
	if (rv != FALCON_OK)
		return rv;
	if (resp.body == NULL) {
		rv = falcon_err_set(FALCON_ERR_PARSE, "GET %s%s: HTTP %ld with an empty body",
				    rf->base, path, resp.status);
		falcon_rf_resp_free(&resp);
		return rv;
	}
	if (etag != NULL && etag_len > 0) {
		if (resp.etag[0] != '\0')
			falcon_strlcpy(etag, resp.etag, etag_len);
		else
			falcon_rf_body_etag(resp.body, etag, etag_len);
	}
	*out = resp.body;
	resp.body = NULL;
	return FALCON_OK;
}

falcon_err_t falcon_rf_send(void *ctx, const char *method, const char *path,
			    struct json_object *body, const char *if_match)
{
	struct falcon_rf_resp resp;
	falcon_err_t rv;

	rv = falcon_rf_request(ctx, method, path, body, if_match, &resp);
	falcon_rf_resp_free(&resp);
	return rv;
}

falcon_err_t falcon_rf_send_resp(void *ctx, const char *method, const char *path,
				 struct json_object *body, const char *if_match,
				 struct json_object **out, char *etag, size_t etag_len)
{
	struct falcon_rf_resp resp;
	falcon_err_t rv;

	*out = NULL;
	if (etag != NULL && etag_len > 0)
		etag[0] = '\0';
	rv = falcon_rf_request(ctx, method, path, body, if_match, &resp);
	if (rv != FALCON_OK)
		return rv;
	if (etag != NULL && etag_len > 0) {
		if (resp.etag[0] != '\0')
			falcon_strlcpy(etag, resp.etag, etag_len);
		else if (resp.body != NULL)
			falcon_rf_body_etag(resp.body, etag, etag_len);
	}
	*out = resp.body;
	resp.body = NULL;
	falcon_rf_resp_free(&resp);
	return FALCON_OK;
}

/* stream_once - one long-lived GET of path; *resp as exchange(). */
static falcon_err_t stream_once(struct falcon_rf *rf, const char *path, struct rf_stream *st,
				struct falcon_rf_resp *resp)
{
	falcon_err_t rv;

	rf->stream = st;
	rv = exchange(rf, "GET", path, NULL, NULL, true, resp);
	rf->stream = NULL;
	return rv;
}

falcon_err_t falcon_rf_stream(struct falcon_rf *rf, const char *path,
			      const struct falcon_rf_stream_opts *o)
{
	struct falcon_rf_resp resp;
	struct rf_stream st;
	char url[sizeof(rf->base) + FALCON_RF_PATH_LEN];
	falcon_err_t rv;
	int attempt;

	snprintf(url, sizeof(url), "%s%s", rf->base, path);
	for (attempt = 0;; attempt++) {
		memset(&st, 0, sizeof(st));
		st.o = o;
		rv = stream_once(rf, path, &st, &resp);
		if (st.stopped)
			return FALCON_OK;
		if (st.open) {
			/* it was open: why did it end? */
			if (st.err != FALCON_OK)
				return st.err; /* on_data's error, detail set */
			if (rv == FALCON_OK)
				return falcon_err_set(FALCON_ERR_TRANSPORT,
						      "GET %s: the service ended the stream", url);
			return rv;
		}
		if (rv != FALCON_OK)
			return rv;
		/* a session that expired: log in again once (as falcon_rf_request) */
		if (resp.status == 401 && attempt == 0 && rf->have_creds && !rf->basic) {
			falcon_verbose("GET %s: HTTP 401, logging in again", url);
			if ((rv = login(rf)) != FALCON_OK)
				return rv;
			continue;
		}
		if (resp.status >= 200 && resp.status <= 299)
			return falcon_err_set(FALCON_ERR_PROTOCOL,
					      "GET %s: HTTP %ld is not a text/event-stream", url,
					      resp.status);
		return falcon_rf_map_status(resp.status, rf->body, rf->body_len, "GET", url);
	}
}

unsigned long falcon_rf_connects(const struct falcon_rf *rf)
{
	return rf->connects;
}

void falcon_rf_set_deadline(struct falcon_rf *rf, long long deadline_ms)
{
	rf->deadline_ms = deadline_ms > 0 ? deadline_ms : 0;
}

const char *falcon_rf_session_path(const struct falcon_rf *rf)
{
	return rf->session;
}
