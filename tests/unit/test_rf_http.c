/*
 * test_rf_http.c - unit tests of lib/chassis/rf_http.c: the credentials
 * file rules; the HTTP client against the in-process server of
 * rf_test_srv.c: sessions, refused logins, basic auth, HTTP statuses,
 * bodies, the insecure warning, timeouts, refused connections, oversized
 * bodies.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <json-c/json.h>

#include "chassis/chassis.h"
#include "chassis/redfish.h"
#include "core/log.h"
#include "core/util.h"
#include "testutil.h"
#include "rf_test.h"

/* ------------------------------------------------------------------ */
/* credentials                                                          */
/* ------------------------------------------------------------------ */

static const struct {
	unsigned mode;
	const char *text;   /* NULL: make a directory */
	falcon_err_t err;
	const char *user, *pass, *msg;
} cred_cases[] = {
	{ 0600, "admin:secret\n", FALCON_OK, "admin", "secret", NULL },
	{ 0400, "admin:pa:ss:wd", FALCON_OK, "admin", "pa:ss:wd", NULL },
	{ 0600, "root:x\r\nignored\n", FALCON_OK, "root", "x", NULL },
	{ 0640, "admin:secret\n", FALCON_ERR_PERM, NULL, NULL, "mode 0640" },
	{ 0604, "admin:secret\n", FALCON_ERR_PERM, NULL, NULL, "mode 0604" },
	{ 0620, "admin:secret\n", FALCON_ERR_PERM, NULL, NULL, "mode 0620" },
	{ 0600, "", FALCON_ERR_CONFIG, NULL, NULL, "user:password" },
	{ 0600, "admin\n", FALCON_ERR_CONFIG, NULL, NULL, "user:password" },
	{ 0600, ":secret\n", FALCON_ERR_CONFIG, NULL, NULL, "user:password" },
	{ 0700, NULL, FALCON_ERR_PERM, NULL, NULL, "not a regular file" },
};

START_TEST(test_credentials)
{
	const char *dir = make_tmpdir("cred");
	char path[4200], user[64], pass[64];
	falcon_err_t rv;
	int fd;

	snprintf(path, sizeof(path), "%s/cred", dir);
	if (cred_cases[_i].text == NULL) {
		ck_assert_int_eq(mkdir(path, cred_cases[_i].mode), 0);
	} else {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, cred_cases[_i].text, strlen(cred_cases[_i].text)),
				 (ssize_t)strlen(cred_cases[_i].text));
		close(fd);
		ck_assert_int_eq(chmod(path, cred_cases[_i].mode), 0);
	}
	rv = falcon_rf_read_credentials(path, user, sizeof(user), pass, sizeof(pass));
	ck_assert_msg(rv == cred_cases[_i].err, "case %d: %s (%s)", _i, falcon_err_name(rv),
		      falcon_errmsg());
	if (rv == FALCON_OK) {
		ck_assert_str_eq(user, cred_cases[_i].user);
		ck_assert_str_eq(pass, cred_cases[_i].pass);
	} else {
		ck_assert_ptr_nonnull(strstr(falcon_errmsg(), path));
		ck_assert_msg(strstr(falcon_errmsg(), cred_cases[_i].msg) != NULL, "%s",
			      falcon_errmsg());
	}
	if (cred_cases[_i].text == NULL)
		rmdir(path);
	else
		unlink(path);
	snprintf(path, sizeof(path), "%s/absent", dir);
	ck_assert_int_eq(falcon_rf_read_credentials(path, user, sizeof(user), pass,
						    sizeof(pass)), FALCON_ERR_NOTFOUND);
	rmdir(dir);
}
END_TEST
START_TEST(test_http_session)
{
	struct falcon_chassis *ch;
	const char *cred = cred_file("admin:secret\n");

	srv_start();
	S.need_auth = true;
	ch = open_chassis(FALCON_BACKEND_FABRIC, cred, false);
	ck_assert_int_eq(S.logins, 1);
	ck_assert_int_eq(falcon_chassis_attach(ch, "H1", "drawer1_slot1"), FALCON_OK);
	ck_assert_str_eq(S.last_token, "tok123");
	ck_assert_str_eq(S.last_authz, "");
	falcon_chassis_close(ch);
	ck_assert_int_eq(S.deletes_session, 1);
	srv_stop();
}
END_TEST

START_TEST(test_http_session_refused)
{
	struct falcon_chassis_opts o = { .backend = FALCON_BACKEND_FABRIC };
	struct falcon_chassis *ch = NULL;

	srv_start();
	S.need_auth = true;
	o.url = srv_url();
	o.credentials_file = cred_file("admin:wrong\n");
	ck_assert_int_eq(falcon_chassis_open_opts(&o, &ch), FALCON_ERR_AUTH);
	cred_drop(o.credentials_file);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "Invalid user name or password."));
	ck_assert_ptr_null(ch);
	/* anonymous against a service that wants auth: 401 on the first request */
	o.credentials_file = NULL;
	ck_assert_int_eq(falcon_chassis_open_opts(&o, &ch), FALCON_OK);
	ck_assert_int_eq(falcon_chassis_attach(ch, "H1", "drawer1_slot1"), FALCON_ERR_AUTH);
	falcon_chassis_close(ch);
	srv_stop();
}
END_TEST

START_TEST(test_http_basic_auth)
{
	struct falcon_chassis *ch;

	srv_start();
	S.need_auth = true;
	ch = open_chassis(FALCON_BACKEND_FABRIC, cred_file("admin:secret"), true);
	ck_assert_int_eq(S.logins, 0);
	ck_assert_int_eq(falcon_chassis_verify(ch, "H1", "drawer1_slot1", false), FALCON_OK);
	ck_assert_str_eq(S.last_authz, "Basic YWRtaW46c2VjcmV0");
	ck_assert_str_eq(S.last_token, "");
	falcon_chassis_close(ch);
	ck_assert_int_eq(S.deletes_session, 0);
	srv_stop();
}
END_TEST
static const long http_statuses[] = { 400, 401, 403, 404, 405, 409, 412, 500, 503 };

START_TEST(test_http_status)
{
	struct falcon_rf_opts o = { 0 };
	struct falcon_rf *rf;
	struct falcon_rf_resp resp;
	char path[64];
	falcon_err_t rv, want;

	srv_start();
	o.url = srv_url();
	ck_assert_int_eq(falcon_rf_open(&o, &rf), FALCON_OK);
	snprintf(path, sizeof(path), "/redfish/v1/status/%ld", http_statuses[_i]);
	rv = falcon_rf_request(rf, "GET", path, NULL, NULL, &resp);
	want = falcon_rf_map_status(http_statuses[_i], NULL, 0, "GET", "x");
	ck_assert_int_eq(rv, want);
	rv = falcon_rf_request(rf, "GET", path, NULL, NULL, &resp);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "Status as asked."));
	ck_assert_ptr_null(resp.body);
	falcon_rf_close(rf);
	srv_stop();
}
END_TEST

START_TEST(test_http_bodies)
{
	struct falcon_rf_opts o = { 0 };
	struct falcon_rf *rf;
	struct json_object *obj;
	char etag[FALCON_RF_ETAG_LEN];

	srv_start();
	o.url = srv_url();
	ck_assert_int_eq(falcon_rf_open(&o, &rf), FALCON_OK);
	ck_assert_int_eq(falcon_rf_get(rf, ZONES "/H1", &obj, etag, sizeof(etag)), FALCON_OK);
	ck_assert_str_eq(etag, "\"1\"");
	json_object_put(obj);
	ck_assert_int_eq(falcon_rf_get(rf, "/redfish/v1/big", &obj, NULL, 0), FALCON_ERR_PROTOCOL);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "larger than"));
	ck_assert_int_eq(falcon_rf_get(rf, "/redfish/v1/notjson", &obj, NULL, 0), FALCON_ERR_PARSE);
	ck_assert_ptr_null(obj);
	/* the method prefixed to the parser's own detail, which is kept whole
	 * (it was once formatted into the buffer it was read from) */
	ck_assert_msg(strncmp(falcon_errmsg(), "GET http://", 11) == 0 &&
		      strstr(falcon_errmsg(), "/redfish/v1/notjson: malformed JSON") != NULL,
		      "detail: %s", falcon_errmsg());
	ck_assert_int_eq(falcon_rf_get(rf, "/etc/passwd", &obj, NULL, 0), FALCON_ERR_INVAL);
	falcon_rf_close(rf);
	srv_stop();
}
END_TEST

static int insecure_warnings;

static void capture(falcon_log_level_t level, const char *line, void *ctx)
{
	if (level == FALCON_LOG_WARN && strstr(line, "verification is OFF") != NULL)
		insecure_warnings++;
}

START_TEST(test_http_insecure_warns)
{
	struct falcon_rf_opts o = { 0 };
	struct falcon_rf *rf;
	struct json_object *obj;

	srv_start();
	o.url = srv_url();
	ck_assert_int_eq(falcon_log_add_sink(capture, FALCON_LOG_WARN, NULL), 0);
	ck_assert_int_eq(falcon_rf_open(&o, &rf), FALCON_OK);
	ck_assert_int_eq(insecure_warnings, 0);
	falcon_rf_close(rf);
	o.insecure = true;
	ck_assert_int_eq(falcon_rf_open(&o, &rf), FALCON_OK);
	ck_assert_int_eq(insecure_warnings, 1);
	ck_assert_int_eq(falcon_rf_get(rf, ZONES "/H1", &obj, NULL, 0), FALCON_OK);
	json_object_put(obj);
	falcon_rf_close(rf);
	srv_stop();
}
END_TEST

START_TEST(test_http_transport)
{
	struct falcon_rf_opts o = { .connect_timeout_ms = 2000, .timeout_ms = 300 };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t slen = sizeof(sin);
	struct falcon_rf *rf;
	struct json_object *obj;
	char url[64];
	int s;

	/* a listener that never accepts: the connection opens, no answer comes */
	s = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(s, 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(listen(s, 4), 0);
	ck_assert_int_eq(getsockname(s, (struct sockaddr *)&sin, &slen), 0);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", ntohs(sin.sin_port));
	o.url = url;
	ck_assert_int_eq(falcon_rf_open(&o, &rf), FALCON_OK);
	ck_assert_int_eq(falcon_rf_get(rf, "/redfish/v1", &obj, NULL, 0), FALCON_ERR_TIMEOUT);
	falcon_rf_close(rf);
	/* nobody listening: refused */
	close(s);
	ck_assert_int_eq(falcon_rf_open(&o, &rf), FALCON_OK);
	ck_assert_int_eq(falcon_rf_get(rf, "/redfish/v1", &obj, NULL, 0), FALCON_ERR_TRANSPORT);
	falcon_rf_close(rf);
	/* TLS verification on by default: TLS to a plain HTTP server fails */
	srv_start();
	snprintf(url, sizeof(url), "https://127.0.0.1:%u", S.port);
	o.timeout_ms = 5000;
	ck_assert_int_eq(falcon_rf_open(&o, &rf), FALCON_OK);
	ck_assert_int_eq(falcon_rf_get(rf, "/redfish/v1", &obj, NULL, 0), FALCON_ERR_TRANSPORT);
	falcon_rf_close(rf);
	srv_stop();
	/* bad URLs */
	o.url = "ftp://x";
	ck_assert_int_eq(falcon_rf_open(&o, &rf), FALCON_ERR_INVAL);
	o.url = "http://";
	ck_assert_int_eq(falcon_rf_open(&o, &rf), FALCON_ERR_INVAL);
	o.url = "http://a b";
	ck_assert_int_eq(falcon_rf_open(&o, &rf), FALCON_ERR_INVAL);
}
END_TEST

/*
 * A read is bounded by Timeout= (timeout_ms), a change by ChangeTimeout=
 * (change_timeout_ms), each named with FALCON_CHASSIS_TIMEOUT_MARK when it
 * runs out; a caller's deadline that comes first cuts the change without
 * the mark (the budget, not the key, was short).  Against a listener that
 * never accepts: the connection opens, no answer comes.
 */
START_TEST(test_http_change_timeout)
{
	struct falcon_rf_opts o = { .connect_timeout_ms = 2000, .timeout_ms = 1000,
				    .change_timeout_ms = 2000, .name = "slow1" };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t slen = sizeof(sin);
	struct falcon_rf_resp resp;
	struct falcon_rf *rf;
	struct json_object *obj, *body = json_object_new_object();
	long long t0, ms;
	char url[64];
	int s;

	s = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(s, 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(listen(s, 4), 0);
	ck_assert_int_eq(getsockname(s, (struct sockaddr *)&sin, &slen), 0);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", ntohs(sin.sin_port));
	o.url = url;
	ck_assert_int_eq(falcon_rf_open(&o, &rf), FALCON_OK);
	t0 = falcon_now_ms();
	ck_assert_int_eq(falcon_rf_get(rf, "/redfish/v1", &obj, NULL, 0), FALCON_ERR_TIMEOUT);
	ms = falcon_now_ms() - t0;
	ck_assert_msg(ms >= 900 && ms < 1900, "GET gave up after %lld ms, Timeout 1000", ms);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), FALCON_CHASSIS_TIMEOUT_MARK " chassis slow1"));
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "within Timeout=1 s"));
	t0 = falcon_now_ms();
	ck_assert_int_eq(falcon_rf_request(rf, "PATCH", "/redfish/v1/Fabrics/PCIe/Zones/H1", body,
					   NULL, &resp), FALCON_ERR_TIMEOUT);
	ms = falcon_now_ms() - t0;
	ck_assert_msg(ms >= 1900 && ms < 3000, "PATCH gave up after %lld ms, ChangeTimeout 2000",
		      ms);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "within ChangeTimeout=2 s"));
	/* the caller's budget first: cut, not the key's fault */
	falcon_rf_set_deadline(rf, falcon_now_ms() + 300);
	t0 = falcon_now_ms();
	ck_assert_int_eq(falcon_rf_request(rf, "PATCH", "/redfish/v1/Fabrics/PCIe/Zones/H1", body,
					   NULL, &resp), FALCON_ERR_TIMEOUT);
	ms = falcon_now_ms() - t0;
	ck_assert_msg(ms < 1000, "PATCH past the deadline: %lld ms", ms);
	ck_assert_ptr_null(strstr(falcon_errmsg(), FALCON_CHASSIS_TIMEOUT_MARK));
	falcon_rf_close(rf);
	json_object_put(body);
	close(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rf_http");
	TCase *tc;

	falcon_log_init("test_rf_http");
	falcon_log_add_sink(falcon_log_sink_stderr, FALCON_LOG_WARN, NULL);

	tc = tcase_create("credentials");
	tcase_add_loop_test(tc, test_credentials, 0, ARRAY_SIZE(cred_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("http");
	tcase_add_test(tc, test_http_session);
	tcase_add_test(tc, test_http_session_refused);
	tcase_add_test(tc, test_http_basic_auth);
	tcase_add_loop_test(tc, test_http_status, 0, ARRAY_SIZE(http_statuses));
	tcase_add_test(tc, test_http_bodies);
	tcase_add_test(tc, test_http_insecure_warns);
	tcase_add_test(tc, test_http_transport);
	tcase_add_test(tc, test_http_change_timeout);
	suite_add_tcase(s, tc);

	return run_suite(s);
}
