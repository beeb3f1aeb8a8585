/*
 * test_cgroup.c - unit tests of the device deny rules of issue 14
 * (lib/cgroup/cgroup.c): which GPU minors and NVMe a job's cgroup denies
 * for which topology.json files, and where the rules are written (a fake
 * cgroup v1 devices hierarchy of plain files under a scratch directory).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "core/util.h"
#include "cgroup/cgroup.h"
#include "testutil.h"

static void put(const char *dir, const char *rel, const char *text)
{
	char path[8192], sub[8192], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	snprintf(sub, sizeof(sub), "%s", path);
	for (p = sub + strlen(dir) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		mkdir(sub, 0755);
		*p = '/';
	}
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

static bool has_rule(const struct falcon_cg_rules *r, char type, unsigned maj, unsigned min)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->r[i].type == type && r->r[i].major == maj && r->r[i].minor == min)
			return true;
	return false;
}

static json_object *parse(const char *text)
{
	json_object *o = json_tokener_parse(text);

	ck_assert_ptr_nonnull(o);
	return o;
}

/* minor, dev by name, dev as a real char device, cuda index fallback */
START_TEST(minors_sources)
{
	bool m[FALCON_CG_GPU_MINORS] = { false }, guessed = false;
	json_object *o = parse("{\"cuda_visible_devices\":\"1,5,6\",\"gpus\":["
			       "{\"location\":\"local\",\"minor\":9},"
			       "{\"location\":\"falcon\",\"dev\":\"/nonexistent/nvidia12\"},"
			       "{\"location\":\"falcon\"}]}");
	int i, n = 0;

	ck_assert_int_eq(falcon_cg_gpu_minors(o, "t.json", false, m, &guessed), FALCON_OK);
	ck_assert(m[9] && m[12] && m[6]);
	for (i = 0; i < FALCON_CG_GPU_MINORS; i++)
		n += m[i];
	ck_assert_int_eq(n, 3);
	ck_assert(guessed);
	memset(m, 0, sizeof(m));
	guessed = false;
	ck_assert_int_eq(falcon_cg_gpu_minors(o, "t.json", true, m, &guessed), FALCON_OK);
	ck_assert(!m[9] && m[12] && m[6]);
	json_object_put(o);
}
END_TEST

START_TEST(minors_dev_node)
{
	const char *dir = make_tmpdir("cgdev");
	bool m[FALCON_CG_GPU_MINORS] = { false }, guessed = false;
	char path[4200], text[4400];
	json_object *o;

	snprintf(path, sizeof(path), "%s/gpu-a", dir);
	if (mknod(path, S_IFCHR | 0600, makedev(195, 17)) != 0) {
		printf("SKIP: mknod %s: %s\n", path, strerror(errno));
		return;
	}
	snprintf(text, sizeof(text), "{\"gpus\":[{\"dev\":\"%s\"}]}", path);
	o = parse(text);
	ck_assert_int_eq(falcon_cg_gpu_minors(o, "t.json", false, m, &guessed), FALCON_OK);
	ck_assert(m[17]);
	ck_assert(!guessed);
	json_object_put(o);
}
END_TEST

START_TEST(minors_bad)
{
	bool m[FALCON_CG_GPU_MINORS] = { false }, guessed = false;
	json_object *o = parse("{\"gpus\":[{\"bdf\":\"0000:86:00.0\"}]}");

	ck_assert_int_eq(falcon_cg_gpu_minors(o, "RUN/5/topology.json", false, m, &guessed),
			 FALCON_ERR_PARSE);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "RUN/5/topology.json: \"gpus\"[0]: no device minor"));
	json_object_put(o);
	o = parse("{\"gpus\":[{\"minor\":255}],\"cuda_visible_devices\":\"\"}");
	ck_assert_int_eq(falcon_cg_gpu_minors(o, "x", false, m, &guessed), FALCON_ERR_PARSE);
	json_object_put(o);
	o = parse("{\"gpus\":{}}");
	ck_assert_int_eq(falcon_cg_gpu_minors(o, "x", false, m, &guessed), FALCON_ERR_PARSE);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "\"gpus\": expected an array"));
	json_object_put(o);
}
END_TEST

/* A job with topology.json: every minor but its own (never 255); a job
 * without: the falcon GPUs of the others; both: the others' NVMe. */
START_TEST(job_rules)
{
	const char *dir = make_tmpdir("cgjob");
	struct falcon_cg_rules *r = calloc(1, sizeof(*r));
	char nvme[4200], text[4400];
	bool guessed = false, blk;
	unsigned m;

	snprintf(nvme, sizeof(nvme), "%s/nvme9n1", dir);
	blk = mknod(nvme, S_IFBLK | 0600, makedev(259, 7)) == 0;
	put(dir, "5/topology.json", "{\"gpus\":[{\"location\":\"local\",\"minor\":0},"
	    "{\"location\":\"falcon\",\"minor\":3}],\"nvme_devices\":[]}");
	snprintf(text, sizeof(text), "{\"gpus\":[{\"location\":\"falcon\",\"minor\":4}],"
		 "\"nvme_devices\":[\"%s\",\"/nonexistent/nvme0n1\"]}", nvme);
	put(dir, "6/topology.json", text);
	put(dir, "8/topology.json", "not json");
	put(dir, "notajob/topology.json", "{\"gpus\":[{\"location\":\"falcon\",\"minor\":7}]}");

	ck_assert_int_eq(falcon_cg_job_rules(dir, 5, r, &guessed), FALCON_OK);
	for (m = 0; m < FALCON_CG_GPU_MINORS; m++)
		ck_assert(has_rule(r, 'c', 195, m) == (m != 0 && m != 3));
	ck_assert(!has_rule(r, 'c', 195, 255));
	ck_assert(has_rule(r, 'b', 259, 7) == blk);
	ck_assert_uint_eq(r->n, 253 + (blk ? 1 : 0));

	memset(r, 0, sizeof(*r));
	ck_assert_int_eq(falcon_cg_job_rules(dir, 7, r, &guessed), FALCON_OK);
	ck_assert(has_rule(r, 'c', 195, 3) && has_rule(r, 'c', 195, 4));
	ck_assert(!has_rule(r, 'c', 195, 0) && !has_rule(r, 'c', 195, 7));
	ck_assert_uint_eq(r->n, 2 + (blk ? 1 : 0));

	/* job 6 itself: not its own NVMe */
	memset(r, 0, sizeof(*r));
	ck_assert_int_eq(falcon_cg_job_rules(dir, 6, r, &guessed), FALCON_OK);
	ck_assert(!has_rule(r, 'b', 259, 7) && !has_rule(r, 'c', 195, 4));
	ck_assert(has_rule(r, 'c', 195, 3));

	/* its own topology.json broken: an error naming it */
	memset(r, 0, sizeof(*r));
	ck_assert_int_eq(falcon_cg_job_rules(dir, 8, r, &guessed), FALCON_ERR_PARSE);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "8/topology.json"));
	free(r);
}
END_TEST

static char *slurp(const char *dir, const char *rel)
{
	char path[8192], *buf = NULL;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (falcon_read_file(path, 1 << 20, &buf, &len) != FALCON_OK)
		return NULL;
	return buf;
}

/* deny_job writes job_J of every slurm* dir; deny_others all jobs but one */
START_TEST(write_rules)
{
	const char *dir = make_tmpdir("cgroot");
	struct falcon_cg_rules r = { .n = 2, .r = { { 'c', 195, 4 }, { 'b', 259, 7 } } };
	char *s;
	unsigned n = 99;

	put(dir, "slurm_n1/uid_0/job_5/devices.deny", "");
	put(dir, "slurm_n2/uid_0/job_5/devices.deny", "");
	put(dir, "slurm_n1/uid_1000/job_6/devices.deny", "");
	put(dir, "slurm_n1/uid_1000/job_66/devices.deny", "");
	put(dir, "slurm_n1/uid_1000/other/devices.deny", "");

	ck_assert_int_eq(falcon_cg_deny_job(dir, 5, &r, &n), FALCON_OK);
	ck_assert_uint_eq(n, 2);
	s = slurp(dir, "slurm_n2/uid_0/job_5/devices.deny");
	ck_assert_str_eq(s, "c 195:4 rwmb 259:7 rwm");
	free(s);
	s = slurp(dir, "slurm_n1/uid_1000/job_6/devices.deny");
	ck_assert_str_eq(s, "");
	free(s);
	ck_assert_int_eq(falcon_cg_deny_job(dir, 9, &r, &n), FALCON_ERR_NOTFOUND);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "job 9 has no cgroup"));

	ck_assert_int_eq(falcon_cg_deny_others(dir, 5, &r, &n), FALCON_OK);
	ck_assert_uint_eq(n, 2); /* job_6 and job_66, not job_5 nor "other" */
	s = slurp(dir, "slurm_n1/uid_1000/job_66/devices.deny");
	ck_assert_str_eq(s, "c 195:4 rwmb 259:7 rwm");
	free(s);
	s = slurp(dir, "slurm_n1/uid_0/job_5/devices.deny");
	ck_assert_str_eq(s, "c 195:4 rwmb 259:7 rwm");
	free(s);
	s = slurp(dir, "slurm_n1/uid_1000/other/devices.deny");
	ck_assert_str_eq(s, "");
	free(s);
}
END_TEST

/* propagate: only the falcon GPUs of the topology whose minor is known (no
 * guess from cuda_visible_devices: 12 is not denied), into the others */
START_TEST(propagate)
{
	const char *dir = make_tmpdir("cgprop");
	json_object *o = parse("{\"cuda_visible_devices\":\"0,11,12\",\"gpus\":["
			       "{\"location\":\"local\",\"minor\":0},"
			       "{\"location\":\"falcon\",\"minor\":11},"
			       "{\"location\":\"falcon\"}]}");
	char root[4096], *s;
	unsigned n = 0;

	put(dir, "slurm/uid_0/job_5/devices.deny", "");
	put(dir, "slurm/uid_0/job_6/devices.deny", "");
	setenv("FALCON_CGROUP_DEVICES", dir, 1);
	ck_assert_int_eq(falcon_cg_devices_root(root, sizeof(root)), FALCON_OK);
	ck_assert_str_eq(root, dir);
	ck_assert_int_eq(falcon_cg_propagate(o, 6, &n), FALCON_OK);
	ck_assert_uint_eq(n, 1);
	s = slurp(dir, "slurm/uid_0/job_5/devices.deny");
	ck_assert_str_eq(s, "c 195:11 rwm");
	free(s);
	s = slurp(dir, "slurm/uid_0/job_6/devices.deny");
	ck_assert_str_eq(s, "");
	free(s);
	unsetenv("FALCON_CGROUP_DEVICES");
	json_object_put(o);
}
END_TEST

/* cgroup2_mount - where cgroup2 is mounted ("" = nowhere); static. */
static const char *cgroup2_mount(void)
{
	static char mnt[4096];
	char line[4096], fstype[64];
	FILE *f = fopen("/proc/self/mountinfo", "r");

	mnt[0] = '\0';
	while (f != NULL && mnt[0] == '\0' && fgets(line, sizeof(line), f) != NULL) {
		const char *dash = strstr(line, " - ");

		if (dash && sscanf(dash, " - %63s", fstype) == 1 && strcmp(fstype, "cgroup2") == 0 &&
		    sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1)
			mnt[0] = '\0';
	}
	if (f)
		fclose(f);
	return mnt;
}

/* open_errno - 0 when path opens read-write, else errno. */
static int open_errno(const char *path)
{
	int fd = open(path, O_RDWR);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno;
}

/* cgroup v2: a process in a cgroup (made here under the cgroup2 mount) with
 * the deny program attached gets EPERM on a listed device, ENXIO (no
 * driver) on the others; the block rule too. */
START_TEST(bpf_v2)
{
	const char *dir = make_tmpdir("cgbpf"), *mnt = cgroup2_mount();
	struct falcon_cg_rules r = { .n = 2, .r = { { 'c', 195, 77 }, { 'b', 259, 251 } } };
	char cg[4200], procs[4300], d77[4200], d78[4200], b251[4200];
	falcon_err_t rv;
	int status;
	pid_t pid;

	if (mnt[0] == '\0') {
		printf("SKIP: no cgroup2 mounted\n");
		return;
	}
	snprintf(cg, sizeof(cg), "%s/falcon-test-%d", mnt, (int)getpid());
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg);
	snprintf(d77, sizeof(d77), "%s/nvidia77", dir);
	snprintf(d78, sizeof(d78), "%s/nvidia78", dir);
	snprintf(b251, sizeof(b251), "%s/nvme251n1", dir);
	if (mkdir(cg, 0755) != 0 || mknod(d77, S_IFCHR | 0600, makedev(195, 77)) != 0 ||
	    mknod(d78, S_IFCHR | 0600, makedev(195, 78)) != 0 ||
	    mknod(b251, S_IFBLK | 0600, makedev(259, 251)) != 0) {
		printf("SKIP: cannot make %s or device nodes: %s\n", cg, strerror(errno));
		rmdir(cg);
		return;
	}
	rv = falcon_cg_bpf_deny(cg, &r);
	if (rv == FALCON_ERR_UNSUPPORTED) {
		printf("SKIP: %s\n", falcon_errmsg());
		rmdir(cg);
		return;
	}
	ck_assert_msg(rv == FALCON_OK, "%s", falcon_errmsg());
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		FILE *f = fopen(procs, "w");

		if (f == NULL || fprintf(f, "0\n") < 0 || fclose(f) != 0)
			_exit(10);
		_exit(open_errno(d77) == EPERM && open_errno(d78) == ENXIO &&
		      open_errno(b251) == EPERM ? 0 : 11);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	rmdir(cg);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "child in %s: status %d (10: cannot join, 11: wrong errno)", cg, status);
	ck_assert_int_eq(falcon_cg_bpf_deny("/nonexistent/cgroup", &r), FALCON_ERR_NOTFOUND);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fsp_cgroup");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, minors_sources);
	tcase_add_test(tc, minors_dev_node);
	tcase_add_test(tc, minors_bad);
	tcase_add_test(tc, job_rules);
	tcase_add_test(tc, write_rules);
	tcase_add_test(tc, propagate);
	tcase_add_test(tc, bpf_v2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
