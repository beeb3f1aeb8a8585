/*
 * fixture-server.c - serve a DMTF Redfish mockup directory over HTTP on
 * loopback, for the integration tests of the chassis client.
 *
 *   fixture-server --dir DIR [--listen 127.0.0.1] [--port-file FILE]
 *
 * Binds an ephemeral port on the address (default 127.0.0.1), prints the
 * port on stdout (one line, flushed) and, when asked, writes it to FILE
 * (atomically, so a reader never sees half a number).  GET /redfish/v1/X
 * answers DIR/X/index.json with an ETag (a hash of the body) and
 * Content-Type application/json; an absent resource is 404, any other
 * method 405, both with a Redfish error body.  Runs until SIGINT/SIGTERM.
 * Read-only: the mockup on disk is never changed.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <arpa/inet.h>
#include <getopt.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "core/falcon_err.h"
#include "core/log.h"
#include "chassis/redfish.h"
#include "core/util.h"

static const char *mock_dir;

/* FNV-1a 64 (Fowler/Noll/Vo, public domain) of the body: a stable ETag. */
static uint64_t fnv1a(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status,
			     const char *body, size_t len, const char *etag)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	if (r == NULL)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", "application/json");
	MHD_add_response_header(r, "OData-Version", "4.0");
	if (etag != NULL)
		MHD_add_response_header(r, "ETag", etag);
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply_error(struct MHD_Connection *conn, unsigned status,
				   const char *id, const char *msg)
{
	char body[1024];
	int n;

	n = snprintf(body, sizeof(body),
		     "{\"error\":{\"code\":\"Base.1.8.%s\",\"message\":\"%s\","
		     "\"@Message.ExtendedInfo\":[{\"MessageId\":\"Base.1.8.%s\","
		     "\"Message\":\"%s\"}]}}", id, msg, id, msg);
	if (n < 0 || (size_t)n >= sizeof(body))
		n = snprintf(body, sizeof(body), "{}");
	return reply(conn, status, body, (size_t)n, NULL);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version,
			      const char *upload, size_t *upload_size, void **state)
{
	char rel[FALCON_RF_PATH_LEN], file[4096], etag[40];
	char *buf = NULL;
	size_t len = 0, n;
	enum MHD_Result ret;
	falcon_err_t rv;

	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return reply_error(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "OperationNotAllowed",
				   "The mockup server is read-only.");
	if (!falcon_rf_path_ok(url) || strchr(url, '#') != NULL)
		return reply_error(conn, MHD_HTTP_NOT_FOUND, "ResourceMissingAtURI",
				   "The resource at the URI was not found.");
	falcon_strlcpy(rel, url + strlen(FALCON_RF_ROOT), sizeof(rel));
	n = strlen(rel);
	while (n > 0 && rel[n - 1] == '/')
		rel[--n] = '\0';
	if ((size_t)snprintf(file, sizeof(file), "%s%s/index.json", mock_dir, rel) >=
	    sizeof(file))
		return reply_error(conn, MHD_HTTP_NOT_FOUND, "ResourceMissingAtURI",
				   "The resource at the URI was not found.");
	rv = falcon_read_file(file, FALCON_RF_MAX_BODY, &buf, &len);
	if (rv == FALCON_ERR_NOTFOUND)
		return reply_error(conn, MHD_HTTP_NOT_FOUND, "ResourceMissingAtURI",
				   "The resource at the URI was not found.");
	if (rv != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		return reply_error(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "InternalError",
				   "The mockup file could not be read.");
	}
	snprintf(etag, sizeof(etag), "W/\"%016llx\"", (unsigned long long)fnv1a(buf, len));
	ret = reply(conn, MHD_HTTP_OK, buf, len, etag);
	free(buf);
	return ret;
}

static falcon_err_t write_port(const char *path, unsigned port)
{
	char line[16];
	int n = snprintf(line, sizeof(line), "%u\n", port);

	return falcon_write_file_atomic(path, line, (size_t)n, 0644);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "listen", required_argument, NULL, 'l' },
		{ "port-file", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *listen_addr = "127.0.0.1", *port_file = NULL;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	const union MHD_DaemonInfo *info;
	struct MHD_Daemon *d = NULL;
	sigset_t set;
	int c, sig, rc = 2;

	falcon_log_init("fixture-server");
	falcon_log_add_sink(falcon_log_sink_stderr, FALCON_LOG_INFO, NULL);
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': mock_dir = optarg; break;
		case 'l': listen_addr = optarg; break;
		case 'p': port_file = optarg; break;
		case 'h':
			printf("usage: fixture-server --dir DIR [--listen ADDR] [--port-file FILE]\n");
			return 0;
		default:
			return 2;
		}
	}
	if (mock_dir == NULL || optind != argc) {
		falcon_error("usage: fixture-server --dir DIR [--listen ADDR] [--port-file FILE]");
		return 2;
	}
	if (inet_pton(AF_INET, listen_addr, &sin.sin_addr) != 1) {
		falcon_error("--listen %s: expected an IPv4 address", listen_addr);
		return 2;
	}
	/* block the signals before MHD starts its thread: only sigwait sees them */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, NULL,
			     NULL, handle, NULL, MHD_OPTION_SOCK_ADDR, &sin,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30, MHD_OPTION_END);
	if (d == NULL) {
		falcon_error("cannot listen on %s", listen_addr);
		goto out;
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	if (info == NULL || info->port == 0) {
		falcon_error("cannot learn the bound port");
		goto out;
	}
	if (port_file != NULL && write_port(port_file, info->port) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		goto out;
	}
	printf("%u\n", info->port);
	fflush(stdout);
	falcon_info("serving %s on http://%s:%u", mock_dir, listen_addr, info->port);
	sigwait(&set, &sig);
	rc = 0;
out:
	if (d != NULL)
		MHD_stop_daemon(d);
	return rc;
}
