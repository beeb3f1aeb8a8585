/*
 * rf_test_srv.c - a small chassis on loopback for the unit tests of
 * lib/chassis (rf_test.h): libmicrohttpd serving one zone and one resource
 * block with ETag/If-Match, sessions and knobs that make it misbehave.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <json-c/json.h>
#include <microhttpd.h>

#include "chassis/redfish.h"
#include "core/util.h"
#include "rf_test.h"
#include "testutil.h"

struct srv S = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct upload {
	char buf[8192];
	size_t len;
};

static enum MHD_Result srv_reply(struct MHD_Connection *c, unsigned status, const char *body,
				 const char *etag, const char *token, const char *location)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), (void *)body,
								 MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	if (etag != NULL)
		MHD_add_response_header(r, "ETag", etag);
	if (token != NULL)
		MHD_add_response_header(r, "X-Auth-Token", token);
	if (location != NULL)
		MHD_add_response_header(r, "Location", location);
	MHD_add_response_header(r, "Content-Type", "application/json");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static void zone_body(char *buf, size_t n)
{
	size_t len;
	int i;

	len = (size_t)snprintf(buf, n, "{\"@odata.id\":\"" ZONES "/H1\",\"@odata.etag\":"
			       "\"\\\"%d\\\"\",\"Links\":{\"Endpoints\":[", S.etag);
	for (i = 0; i < S.neps; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s{\"@odata.id\":\"%s\"}",
					i ? "," : "", S.eps[i]);
	snprintf(buf + len, n - len, "]}}");
}

static void block_body(char *buf, size_t n)
{
	snprintf(buf, n, "{\"@odata.id\":\"" BLOCKS "/drawer1_slot2\",\"CompositionStatus\":"
		 "{\"CompositionState\":\"%s\",\"SharingCapable\":false},\"Links\":"
		 "{\"ComputerSystems\":[%s]}}", S.block_linked ? "Composed" : "Unused",
		 S.block_linked ? "{\"@odata.id\":\"/redfish/v1/Systems/H1\"}" : "");
}

static enum MHD_Result srv_handle(struct MHD_Connection *c, const char *url,
				  const char *method, struct upload *up)
{
	char body[4096], etag[32];
	const char *v;

	if (!strcmp(method, "POST") && !strcmp(url, "/redfish/v1/SessionService/Sessions")) {
		S.logins++;
		if (strstr(up->buf, "\"UserName\":\"admin\"") == NULL ||
		    strstr(up->buf, "\"Password\":\"secret\"") == NULL)
			return srv_reply(c, 401, RF_ERR("Invalid user name or password."), NULL,
					 NULL, NULL);
		return srv_reply(c, 201, "{\"@odata.id\":\"/redfish/v1/SessionService/Sessions/1\"}",
				 NULL, "tok123", "/redfish/v1/SessionService/Sessions/1");
	}
	v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Auth-Token");
	falcon_strlcpy(S.last_token, v ? v : "", sizeof(S.last_token));
	v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	falcon_strlcpy(S.last_authz, v ? v : "", sizeof(S.last_authz));
	if (S.need_auth && strcmp(S.last_token, "tok123") != 0 &&
	    strcmp(S.last_authz, "Basic YWRtaW46c2VjcmV0") != 0)
		return srv_reply(c, 401, RF_ERR("No valid session."), NULL, NULL, NULL);
	if (!strcmp(method, "DELETE") && !strcmp(url, "/redfish/v1/SessionService/Sessions/1")) {
		S.deletes_session++;
		return srv_reply(c, 204, "", NULL, NULL, NULL);
	}
	if (!strncmp(url, "/redfish/v1/status/", 19)) {
		long st = strtol(url + 19, NULL, 10);

		return srv_reply(c, (unsigned)st, RF_ERR("Status as asked."), NULL, NULL, NULL);
	}
	if (!strcmp(url, "/redfish/v1/big")) {
		size_t n = FALCON_RF_MAX_BODY + 100;
		char *big = malloc(n + 1);
		struct MHD_Response *r;
		enum MHD_Result ret;

		memset(big, ' ', n);
		big[0] = '{', big[n - 1] = '}';
		r = MHD_create_response_from_buffer(n, big, MHD_RESPMEM_MUST_FREE);
		ret = MHD_queue_response(c, 200, r);
		MHD_destroy_response(r);
		return ret;
	}
	if (!strcmp(url, "/redfish/v1/notjson"))
		return srv_reply(c, 200, "<html>hello</html>", NULL, NULL, NULL);
	snprintf(etag, sizeof(etag), "\"%d\"", S.etag);
	if (!strcmp(url, ZONES "/H1") && !strcmp(method, "GET")) {
		S.zone_gets++;
		zone_body(body, sizeof(body));
		return srv_reply(c, 200, body, etag, NULL, NULL);
	}
	if (!strcmp(url, ZONES "/H1") && !strcmp(method, "PATCH")) {
		struct json_object *req, *arr;
		size_t i;

		S.patches++;
		v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "If-Match");
		falcon_strlcpy(S.last_if_match, v ? v : "", sizeof(S.last_if_match));
		if (S.force_412 > 0) {
			S.force_412--;
			S.etag++; /* another writer got there first */
			return srv_reply(c, 412, RF_ERR("The ETag is stale."), NULL, NULL, NULL);
		}
		if (v == NULL || strcmp(v, etag) != 0)
			return srv_reply(c, 412, RF_ERR("If-Match does not match."), NULL, NULL,
					 NULL);
		if (S.conflict)
			return srv_reply(c, 409, RF_ERR("drawer1_slot1 is in zone H2."), NULL,
					 NULL, NULL);
		if (falcon_rf_parse(up->buf, up->len, "PATCH", &req) != FALCON_OK)
			return srv_reply(c, 400, RF_ERR("Malformed JSON."), NULL, NULL, NULL);
		arr = falcon_rf_arr(falcon_rf_obj(req, "Links"), "Endpoints");
		S.neps = 0;
		for (i = 0; arr != NULL && i < json_object_array_length(arr) && i < 8; i++)
			falcon_strlcpy(S.eps[S.neps++],
				       falcon_rf_str(json_object_array_get_idx(arr, i),
						     "@odata.id") ?: "?", sizeof(S.eps[0]));
		json_object_put(req);
		S.etag++;
		if (S.apply_then_500 > 0 && S.apply_then_500--)
			return srv_reply(c, 500, RF_ERR("Lost the answer."), NULL, NULL, NULL);
		if (S.patch_204)
			return srv_reply(c, 204, "", NULL, NULL, NULL);
		zone_body(body, sizeof(body));
		snprintf(etag, sizeof(etag), "\"%d\"", S.etag);
		return srv_reply(c, 200, body, etag, NULL, NULL);
	}
	if (!strcmp(url, BLOCKS "/drawer1_slot2") && !strcmp(method, "GET")) {
		block_body(body, sizeof(body));
		return srv_reply(c, 200, body, NULL, NULL, NULL);
	}
	if (!strcmp(method, "POST") &&
	    (!strcmp(url, "/redfish/v1/Systems/H1/Actions/ComputerSystem.AddResourceBlock") ||
	     !strcmp(url, "/redfish/v1/Systems/H1/Actions/ComputerSystem.RemoveResourceBlock"))) {
		S.posts++;
		if (strstr(up->buf, "{\"ResourceBlock\":{\"@odata.id\":\"" BLOCKS
			   "/drawer1_slot2\"}}") == NULL)
			return srv_reply(c, 400, RF_ERR("Bad ResourceBlock."), NULL, NULL, NULL);
		S.block_linked = strstr(url, "AddResourceBlock") != NULL;
		if (S.apply_then_500 > 0 && S.apply_then_500--)
			return srv_reply(c, 500, RF_ERR("Lost the answer."), NULL, NULL, NULL);
		return srv_reply(c, 204, "", NULL, NULL, NULL);
	}
	return srv_reply(c, 404, RF_ERR("The resource at the URI was not found."), NULL, NULL,
			 NULL);
}

static enum MHD_Result srv_cb(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *data,
			      size_t *data_size, void **state)
{
	struct upload *up = *state;
	enum MHD_Result ret;

	if (up == NULL) {
		up = calloc(1, sizeof(*up));
		*state = up;
		return up ? MHD_YES : MHD_NO;
	}
	if (*data_size > 0) {
		size_t n = *data_size < sizeof(up->buf) - 1 - up->len ? *data_size :
			   sizeof(up->buf) - 1 - up->len;

		memcpy(up->buf + up->len, data, n);
		up->len += n;
		up->buf[up->len] = '\0';
		*data_size = 0;
		return MHD_YES;
	}
	pthread_mutex_lock(&S.lock);
	ret = srv_handle(c, url, method, up);
	pthread_mutex_unlock(&S.lock);
	return ret;
}

static void srv_done(void *cls, struct MHD_Connection *c, void **state,
		     enum MHD_RequestTerminationCode code)
{
	free(*state);
	*state = NULL;
}

void srv_start(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	const union MHD_DaemonInfo *info;

	pthread_mutex_lock(&S.lock);
	S.etag = 1;
	S.neps = 1;
	snprintf(S.eps[0], sizeof(S.eps[0]), EPS "/hostport1_H1");
	S.block_linked = false;
	S.need_auth = false;
	S.force_412 = 0;
	S.conflict = false;
	S.apply_then_500 = 0;
	S.patch_204 = false;
	S.patches = S.posts = S.deletes_session = S.logins = S.zone_gets = 0;
	pthread_mutex_unlock(&S.lock);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	S.d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, srv_cb, NULL,
			       MHD_OPTION_SOCK_ADDR, &sin, MHD_OPTION_NOTIFY_COMPLETED,
			       srv_done, NULL, MHD_OPTION_END);
	ck_assert_ptr_nonnull(S.d);
	info = MHD_get_daemon_info(S.d, MHD_DAEMON_INFO_BIND_PORT);
	ck_assert_ptr_nonnull(info);
	S.port = info->port;
	signal(SIGPIPE, SIG_IGN);
}

void srv_stop(void)
{
	MHD_stop_daemon(S.d);
	S.d = NULL;
}

const char *srv_url(void)
{
	static char url[64];

	snprintf(url, sizeof(url), "http://127.0.0.1:%u", S.port);
	return url;
}

const char *cred_file(const char *text)
{
	static char path[4200];
	const char *dir = make_tmpdir("http");
	int fd;

	snprintf(path, sizeof(path), "%s/cred", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* cred_drop - remove a file made by cred_file() and its directory. */
void cred_drop(const char *path)
{
	char dir[4200];

	if (path == NULL)
		return;
	falcon_strlcpy(dir, path, sizeof(dir));
	unlink(path);
	*strrchr(dir, '/') = '\0';
	rmdir(dir);
}

struct falcon_chassis *open_chassis(falcon_backend_t b, const char *cred, bool basic)
{
	struct falcon_chassis_opts o = {
		.url = srv_url(), .backend = b, .credentials_file = cred, .basic_auth = basic,
		.fabric = "/redfish/v1/Fabrics/PCIe", .timeout_s = 10,
	};
	struct falcon_chassis *ch = NULL;
	falcon_err_t rv = falcon_chassis_open_opts(&o, &ch);

	ck_assert_msg(rv == FALCON_OK, "%s", falcon_errmsg());
	cred_drop(cred); /* read when opening */
	return ch;
}
