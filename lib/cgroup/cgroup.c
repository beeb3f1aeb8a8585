/*
 * cgroup.c - deny rules for composed GPUs and NVMe in Slurm's cgroup v1
 * job cgroups (cgroup.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <linux/bpf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/log.h"
#include "core/util.h"
#include "cgroup/cgroup.h"

#define TOPOLOGY_MAX_BYTES (1024 * 1024)

/* minor_of_dev - the NVIDIA minor of a "dev" path: the device's own when it
 * is a character device of major 195, else the N of "nvidiaN"; -1 = none. */
static int minor_of_dev(const char *dev)
{
	const char *base = strrchr(dev, '/');
	struct stat st;
	long n;

	if (stat(dev, &st) == 0 && S_ISCHR(st.st_mode) &&
	    major(st.st_rdev) == FALCON_CG_NVIDIA_MAJOR && minor(st.st_rdev) < FALCON_CG_GPU_MINORS)
		return (int)minor(st.st_rdev);
	base = base ? base + 1 : dev;
	if (strncmp(base, "nvidia", 6) != 0)
		return -1;
	if (falcon_strtol_n(base + 6, strlen(base + 6), 10, 0, FALCON_CG_GPU_MINORS - 1,
			    &n) != FALCON_OK) {
		falcon_err_clear(); /* not a GPU's device file */
		return -1;
	}
	return (int)n;
}

/* cuda_index - the idx-th entry of the ','-list cuda (-1 = none). */
static int cuda_index(const char *cuda, size_t idx)
{
	const char *p = cuda;
	long n;

	while (p != NULL && idx > 0) {
		p = strchr(p, ',');
		if (p != NULL)
			p++;
		idx--;
	}
	if (p == NULL)
		return -1;
	if (falcon_strtol_n(p, strcspn(p, ","), 10, 0, FALCON_CG_GPU_MINORS - 1, &n) != FALCON_OK) {
		falcon_err_clear(); /* a UUID, or no index of a minor */
		return -1;
	}
	return (int)n;
}

/* gpu_minor - the minor of one "gpus" entry (see falcon_cg_gpu_minors). */
static int gpu_minor(json_object *gpu, const char *cuda, size_t idx, bool *guessed)
{
	json_object *v;
	int m;

	if (json_object_object_get_ex(gpu, "minor", &v) && json_object_is_type(v, json_type_int)) {
		int64_t n = json_object_get_int64(v);

		return n >= 0 && n < FALCON_CG_GPU_MINORS ? (int)n : -1;
	}
	if (json_object_object_get_ex(gpu, "dev", &v) && json_object_is_type(v, json_type_string) &&
	    (m = minor_of_dev(json_object_get_string(v))) >= 0)
		return m;
	if (cuda == NULL || guessed == NULL)
		return -1;
	m = cuda_index(cuda, idx);
	if (m >= 0)
		*guessed = true;
	return m;
}

falcon_err_t falcon_cg_gpu_minors(json_object *topology, const char *where, bool falcon_only,
			       bool minors[FALCON_CG_GPU_MINORS], bool *guessed)
{
	json_object *gpus, *g, *v;
	const char *cuda = NULL;
	size_t i;
	int m;

	if (json_object_object_get_ex(topology, "cuda_visible_devices", &v) &&
	    json_object_is_type(v, json_type_string))
		cuda = json_object_get_string(v);
	if (!json_object_object_get_ex(topology, "gpus", &gpus) || gpus == NULL)
		return FALCON_OK;
	if (!json_object_is_type(gpus, json_type_array))
		return falcon_err_set(FALCON_ERR_PARSE, "%s: \"gpus\": expected an array", where);
	for (i = 0; i < json_object_array_length(gpus); i++) {
		g = json_object_array_get_idx(gpus, i);
		if (!json_object_is_type(g, json_type_object))
			return falcon_err_set(FALCON_ERR_PARSE, "%s: \"gpus\"[%zu]: expected an "
					      "object", where, i);
		if (falcon_only && (!json_object_object_get_ex(g, "location", &v) ||
				    !json_object_is_type(v, json_type_string) ||
				    strcmp(json_object_get_string(v), "falcon") != 0))
			continue;
		m = gpu_minor(g, cuda, i, guessed);
		if (m < 0 && guessed == NULL)
			continue;
		if (m < 0)
			return falcon_err_set(FALCON_ERR_PARSE, "%s: \"gpus\"[%zu]: no device "
					      "minor: expected \"minor\" (0-%d), a \"dev\" "
					      "/dev/nvidiaN or an index in \"cuda_visible_devices\"",
					      where, i, FALCON_CG_GPU_MINORS - 1);
		minors[m] = true;
	}
	return FALCON_OK;
}

static falcon_err_t add_rule(struct falcon_cg_rules *rules, char type, unsigned maj, unsigned min)
{
	size_t i;

	for (i = 0; i < rules->n; i++)
		if (rules->r[i].type == type && rules->r[i].major == maj && rules->r[i].minor == min)
			return FALCON_OK;
	if (rules->n >= FALCON_CG_MAX_RULES)
		return falcon_err_set(FALCON_ERR_NORESOURCE, "more than %d device rules",
				      FALCON_CG_MAX_RULES);
	rules->r[rules->n].type = type;
	rules->r[rules->n].major = maj;
	rules->r[rules->n].minor = min;
	rules->n++;
	return FALCON_OK;
}

falcon_err_t falcon_cg_nvme_rules(json_object *topology, const char *where,
			       struct falcon_cg_rules *rules)
{
	json_object *a, *v;
	struct stat st;
	falcon_err_t rv;
	size_t i;

	if (!json_object_object_get_ex(topology, "nvme_devices", &a) || a == NULL)
		return FALCON_OK;
	if (!json_object_is_type(a, json_type_array))
		return falcon_err_set(FALCON_ERR_PARSE, "%s: \"nvme_devices\": expected an array "
				      "of /dev paths", where);
	for (i = 0; i < json_object_array_length(a); i++) {
		v = json_object_array_get_idx(a, i);
		if (!json_object_is_type(v, json_type_string))
			return falcon_err_set(FALCON_ERR_PARSE, "%s: \"nvme_devices\"[%zu]: "
					      "expected a string", where, i);
		if (stat(json_object_get_string(v), &st) != 0 || !S_ISBLK(st.st_mode))
			continue;
		rv = add_rule(rules, 'b', major(st.st_rdev), minor(st.st_rdev));
		if (rv != FALCON_OK)
			return rv;
	}
	return FALCON_OK;
}

falcon_err_t falcon_cg_gpu_rules(const bool deny[FALCON_CG_GPU_MINORS], struct falcon_cg_rules *rules)
{
	falcon_err_t rv;
	unsigned m;

	for (m = 0; m < FALCON_CG_GPU_MINORS; m++)
		if (deny[m] && (rv = add_rule(rules, 'c', FALCON_CG_NVIDIA_MAJOR, m)) != FALCON_OK)
			return rv;
	return FALCON_OK;
}

/* load_topology - parse path (NOTFOUND when absent). */
static falcon_err_t load_topology(const char *path, json_object **out)
{
	json_tokener *tok;
	json_object *o;
	falcon_err_t rv;
	char *text = NULL;
	size_t len;

	*out = NULL;
	if ((rv = falcon_read_file(path, TOPOLOGY_MAX_BYTES, &text, &len)) != FALCON_OK)
		return rv;
	if ((tok = json_tokener_new()) == NULL) {
		free(text);
		return falcon_err_set(FALCON_ERR_NOMEM, "%s: out of memory", path);
	}
	o = json_tokener_parse_ex(tok, text, (int)len);
	if (o == NULL || json_tokener_get_error(tok) != json_tokener_success ||
	    !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		json_tokener_free(tok);
		free(text);
		return falcon_err_set(FALCON_ERR_PARSE, "%s: expected a JSON object", path);
	}
	json_tokener_free(tok);
	free(text);
	*out = o;
	return FALCON_OK;
}

/* other_jobs - fold the topology.json of every job in rundir but jobid into
 * deny (their falcon GPUs, when gpus_too) and rules (their NVMe). */
static falcon_err_t other_jobs(const char *rundir, uint32_t jobid, bool gpus_too,
			       bool deny[FALCON_CG_GPU_MINORS], struct falcon_cg_rules *rules)
{
	struct dirent *de;
	json_object *o;
	char path[4096];
	falcon_err_t rv = FALCON_OK;
	long id;
	DIR *d;

	if ((d = opendir(rundir)) == NULL) {
		if (errno == ENOENT)
			return FALCON_OK;
		return falcon_err_set(FALCON_ERR_IO, "%s: %s", rundir, strerror(errno));
	}
	while (rv == FALCON_OK && (de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (falcon_strtol(de->d_name, 10, 0, UINT32_MAX, &id) != FALCON_OK) {
			falcon_err_clear(); /* not a job's directory */
			continue;
		}
		if ((uint32_t)id == jobid)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s/topology.json", rundir,
				     de->d_name) >= sizeof(path))
			continue;
		if (load_topology(path, &o) != FALCON_OK) {
			if (access(path, F_OK) == 0)
				falcon_warn("job %u: another job's %s", (unsigned)jobid,
					    falcon_errmsg());
			continue;
		}
		if (gpus_too && falcon_cg_gpu_minors(o, path, true, deny, NULL) != FALCON_OK)
			falcon_warn("job %u: another job's %s", (unsigned)jobid, falcon_errmsg());
		if (falcon_cg_nvme_rules(o, path, rules) == FALCON_ERR_NORESOURCE)
			rv = FALCON_ERR_NORESOURCE;
		json_object_put(o);
	}
	closedir(d);
	return rv;
}

falcon_err_t falcon_cg_job_rules(const char *rundir, uint32_t jobid, struct falcon_cg_rules *rules,
			      bool *guessed)
{
	bool own[FALCON_CG_GPU_MINORS] = { false }, deny[FALCON_CG_GPU_MINORS] = { false };
	json_object *o = NULL;
	char path[4096];
	falcon_err_t rv;
	bool have;
	int n, m;

	n = snprintf(path, sizeof(path), "%s/%u/topology.json", rundir, (unsigned)jobid);
	if (n < 0 || (size_t)n >= sizeof(path))
		return falcon_err_set(FALCON_ERR_INVAL, "%s: run directory path too long", rundir);
	rv = load_topology(path, &o);
	have = rv == FALCON_OK;
	if (have) {
		rv = falcon_cg_gpu_minors(o, path, false, own, guessed);
		json_object_put(o);
		if (rv != FALCON_OK)
			return rv;
		for (m = 0; m < FALCON_CG_GPU_MINORS; m++)
			deny[m] = !own[m];
	} else if (rv != FALCON_ERR_NOTFOUND) {
		return rv;
	}
	/* Without a topology.json of its own: the others' falcon GPUs. */
	if ((rv = other_jobs(rundir, jobid, !have, deny, rules)) != FALCON_OK)
		return rv;
	return falcon_cg_gpu_rules(deny, rules);
}

/*
 * mountinfo_line - one line of /proc/self/mountinfo (proc(5): "36 31 0:33 /
 * /sys/fs/cgroup/devices rw,relatime - cgroup cgroup rw,devices"), split in
 * place: its mount point (the 5th field) and, after the " - " separator,
 * its file system type and super options (*super NULL when absent).
 * false when the line lacks the mount point or the type.
 */
static bool mountinfo_line(char *line, char **mnt, char **fstype, char **super)
{
	char *dash = strstr(line, " - "), *save = NULL, *f;
	int i;

	if (dash == NULL)
		return false;
	*dash = '\0';
	f = strtok_r(line, " \t\n", &save);
	for (i = 0; f != NULL && i < 4; i++)
		f = strtok_r(NULL, " \t\n", &save);
	*mnt = f;
	save = NULL;
	*fstype = strtok_r(dash + 3, " \t\n", &save);
	*super = *fstype != NULL && strtok_r(NULL, " \t\n", &save) != NULL /* the source */
		 ? strtok_r(NULL, " \t\n", &save) : NULL;
	return *mnt != NULL && *fstype != NULL;
}

falcon_err_t falcon_cg_devices_root(char *buf, size_t len)
{
	const char *env = getenv("FALCON_CGROUP_DEVICES");
	char line[4096], mnt[4096];
	bool found = false;
	FILE *f;

	if (env != NULL && *env != '\0') {
		snprintf(buf, len, "%s", env);
		return FALCON_OK;
	}
	if ((f = fopen("/proc/self/mountinfo", "r")) == NULL)
		return falcon_err_set(FALCON_ERR_IO, "/proc/self/mountinfo: %s", strerror(errno));
	/* "36 31 0:33 / /sys/fs/cgroup/devices rw,relatime - cgroup cgroup rw,devices"
	 * (proc(5): mount point is field 5, fstype and super options after "-") */
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		char *m, *fstype, *super, *opt, *save = NULL;

		if (!mountinfo_line(line, &m, &fstype, &super) || strcmp(fstype, "cgroup") != 0 ||
		    super == NULL)
			continue;
		for (opt = strtok_r(super, ",", &save); opt; opt = strtok_r(NULL, ",", &save))
			if (strcmp(opt, "devices") == 0)
				found = true;
		if (found)
			falcon_strlcpy(mnt, m, sizeof(mnt));
	}
	fclose(f);
	if (!found)
		return falcon_err_set(FALCON_ERR_NOTFOUND, "no cgroup v1 devices controller "
				      "mounted (/proc/self/mountinfo)");
	snprintf(buf, len, "%s", mnt);
	return FALCON_OK;
}

/* deny_dir - write each rule into DIR/devices.deny (one rule a write, as
 * the kernel's devices controller parses them: Linux
 * Documentation/admin-guide/cgroup-v1/devices.rst). */
static falcon_err_t deny_dir(const char *dir, const struct falcon_cg_rules *rules)
{
	char path[4096], rule[64];
	size_t i;
	int fd, n;

	if ((size_t)snprintf(path, sizeof(path), "%s/devices.deny", dir) >= sizeof(path))
		return falcon_err_set(FALCON_ERR_INVAL, "%s: cgroup path too long", dir);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return falcon_err_set(errno == ENOENT ? FALCON_ERR_NOTFOUND : FALCON_ERR_IO,
				      "%s: %s", path, strerror(errno));
	for (i = 0; i < rules->n; i++) {
		n = snprintf(rule, sizeof(rule), "%c %u:%u rwm", rules->r[i].type,
			     rules->r[i].major, rules->r[i].minor);
		if (write(fd, rule, (size_t)n) != n) {
			int e = errno;

			close(fd);
			return falcon_err_set(e == ENODEV ? FALCON_ERR_NOTFOUND : FALCON_ERR_IO,
					      "%s: writing \"%s\": %s", path, rule, strerror(e));
		}
	}
	close(fd);
	return FALCON_OK;
}

/* job_of - the job id of a ".../job_<id>" cgroup path (0 = not one). */
static uint32_t job_of(const char *path)
{
	const char *p = strrchr(path, '/');
	long id;

	p = p ? p + 1 : path;
	if (strncmp(p, "job_", 4) != 0 ||
	    falcon_strtol_n(p + 4, strlen(p + 4), 10, 0, UINT32_MAX, &id) != FALCON_OK) {
		falcon_err_clear(); /* not a job's cgroup */
		return 0;
	}
	return (uint32_t)id;
}

/* deny_glob - deny_dir on each directory matching pattern whose job is
 * jobid (only) or is not except (0 = all). */
static falcon_err_t deny_glob(const char *pattern, uint32_t only, uint32_t except,
			      const struct falcon_cg_rules *rules, unsigned *ndirs)
{
	falcon_err_t rv = FALCON_OK, r;
	glob_t gl;
	size_t i;
	uint32_t id;

	if (ndirs)
		*ndirs = 0;
	if (glob(pattern, GLOB_ONLYDIR | GLOB_NOSORT, NULL, &gl) != 0)
		return FALCON_OK;
	for (i = 0; i < gl.gl_pathc; i++) {
		id = job_of(gl.gl_pathv[i]);
		if (id == 0 || (only != 0 && id != only) || (except != 0 && id == except))
			continue;
		r = deny_dir(gl.gl_pathv[i], rules);
		if (r == FALCON_OK && ndirs)
			(*ndirs)++;
		else if (r == FALCON_ERR_IO && rv == FALCON_OK)
			rv = r; /* NOTFOUND: the job ended meanwhile */
		if (r == FALCON_ERR_IO)
			falcon_warn("%s", falcon_errmsg());
	}
	globfree(&gl);
	return rv == FALCON_OK ? FALCON_OK
			       : falcon_err_set(rv, "some job cgroups under %s not written", pattern);
}

falcon_err_t falcon_cg_deny_job(const char *root, uint32_t jobid, const struct falcon_cg_rules *rules,
			     unsigned *ndirs)
{
	char pattern[4096];
	unsigned n = 0;
	falcon_err_t rv;

	if ((size_t)snprintf(pattern, sizeof(pattern), "%s/slurm*/uid_*/job_%u", root,
			     (unsigned)jobid) >= sizeof(pattern))
		return falcon_err_set(FALCON_ERR_INVAL, "%s: cgroup path too long", root);
	rv = deny_glob(pattern, jobid, 0, rules, &n);
	if (ndirs)
		*ndirs = n;
	if (rv == FALCON_OK && n == 0)
		return falcon_err_set(FALCON_ERR_NOTFOUND, "job %u has no cgroup under %s/slurm*: "
				      "no task/cgroup with ConstrainDevices=yes", (unsigned)jobid, root);
	return rv;
}

falcon_err_t falcon_cg_deny_others(const char *root, uint32_t except_jobid,
				const struct falcon_cg_rules *rules, unsigned *njobs)
{
	char pattern[4096];

	if ((size_t)snprintf(pattern, sizeof(pattern), "%s/slurm*/uid_*/job_*", root) >=
	    sizeof(pattern))
		return falcon_err_set(FALCON_ERR_INVAL, "%s: cgroup path too long", root);
	return deny_glob(pattern, 0, except_jobid, rules, njobs);
}

falcon_err_t falcon_cg_propagate(json_object *topology, uint32_t jobid, unsigned *njobs)
{
	bool deny[FALCON_CG_GPU_MINORS] = { false };
	struct falcon_cg_rules *rules;
	char root[4096];
	falcon_err_t rv;

	if (njobs)
		*njobs = 0;
	if (falcon_cg_devices_root(root, sizeof(root)) != FALCON_OK)
		return FALCON_OK;
	if ((rules = calloc(1, sizeof(*rules))) == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
	if ((rv = falcon_cg_gpu_minors(topology, "topology", true, deny, NULL)) == FALCON_OK &&
	    (rv = falcon_cg_gpu_rules(deny, rules)) == FALCON_OK &&
	    (rv = falcon_cg_nvme_rules(topology, "topology", rules)) == FALCON_OK && rules->n > 0)
		rv = falcon_cg_deny_others(root, jobid, rules, njobs);
	free(rules);
	return rv;
}

falcon_err_t falcon_cg_propagate_file(const char *rundir, uint32_t jobid, unsigned *njobs)
{
	json_object *o;
	char path[4096];
	falcon_err_t rv;

	if (njobs)
		*njobs = 0;
	if ((size_t)snprintf(path, sizeof(path), "%s/%u/topology.json", rundir,
			     (unsigned)jobid) >= sizeof(path))
		return falcon_err_set(FALCON_ERR_INVAL, "%s: run directory path too long", rundir);
	if ((rv = load_topology(path, &o)) != FALCON_OK)
		return rv == FALCON_ERR_NOTFOUND ? FALCON_OK : rv;
	rv = falcon_cg_propagate(o, jobid, njobs);
	json_object_put(o);
	return rv;
}

void falcon_cg_prolog(json_object *topology, uint32_t jobid)
{
	unsigned n = 0;

	if (falcon_cg_propagate(topology, jobid, &n) != FALCON_OK)
		falcon_warn("job %u: its composed devices not denied to the other jobs: %s",
			    (unsigned)jobid, falcon_errmsg());
	else if (n > 0)
		falcon_verbose("job %u: composed devices denied in %u other job cgroup(s)",
			       (unsigned)jobid, n);
}

/* ------------------------------------------------------------------ */
/* cgroup v2: a BPF_PROG_TYPE_CGROUP_DEVICE deny-list program */

#define INSN(c, d, s_, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), \
			      .src_reg = (s_), .off = (o), .imm = (i) })

/* build_prog - the deny list as eBPF: load type (access_type & 0xffff),
 * major and minor of struct bpf_cgroup_dev_ctx (linux/bpf.h), then per
 * rule "type, major and minor equal: return 0"; else return 1.  Returns
 * the instruction count (prog holds 6 + 4 * n + 4). */
static size_t build_prog(const struct falcon_cg_rules *rules, struct bpf_insn *prog)
{
	size_t n = 0, i, left;

	prog[n++] = INSN(BPF_LDX | BPF_W | BPF_MEM, 2, 1,
			 offsetof(struct bpf_cgroup_dev_ctx, access_type), 0);
	prog[n++] = INSN(BPF_ALU64 | BPF_AND | BPF_K, 2, 0, 0, 0xffff);
	prog[n++] = INSN(BPF_LDX | BPF_W | BPF_MEM, 3, 1,
			 offsetof(struct bpf_cgroup_dev_ctx, major), 0);
	prog[n++] = INSN(BPF_LDX | BPF_W | BPF_MEM, 4, 1,
			 offsetof(struct bpf_cgroup_dev_ctx, minor), 0);
	for (i = 0; i < rules->n; i++) {
		left = rules->n - i - 1; /* rules after this one, 4 insns each */
		prog[n++] = INSN(BPF_JMP | BPF_JNE | BPF_K, 2, 0, 3,
				 rules->r[i].type == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR);
		prog[n++] = INSN(BPF_JMP | BPF_JNE | BPF_K, 3, 0, 2, (int32_t)rules->r[i].major);
		prog[n++] = INSN(BPF_JMP | BPF_JNE | BPF_K, 4, 0, 1, (int32_t)rules->r[i].minor);
		/* to "return 0", past the others and "return 1" */
		prog[n++] = INSN(BPF_JMP | BPF_JA, 0, 0, (int16_t)(4 * left + 2), 0);
	}
	prog[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 1);
	prog[n++] = INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	prog[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
	prog[n++] = INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return n;
}

falcon_err_t falcon_cg_bpf_deny(const char *cgdir, const struct falcon_cg_rules *rules)
{
	struct bpf_insn *prog;
	union bpf_attr attr;
	size_t n;
	int pfd, cfd, e;

	if (rules->n == 0)
		return FALCON_OK;
	if ((prog = calloc(8 + 4 * rules->n, sizeof(*prog))) == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
	n = build_prog(rules, prog);
	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
	attr.insns = (uint64_t)(uintptr_t)prog;
	attr.insn_cnt = (uint32_t)n;
	attr.license = (uint64_t)(uintptr_t)"GPL";
	pfd = (int)syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	e = errno;
	free(prog);
	if (pfd < 0)
		return falcon_err_set(FALCON_ERR_UNSUPPORTED, "bpf(BPF_PROG_LOAD) of the device "
				      "deny program (%zu instructions): %s", n, strerror(e));
	if ((cfd = open(cgdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		e = errno;
		close(pfd);
		return falcon_err_set(e == ENOENT ? FALCON_ERR_NOTFOUND : FALCON_ERR_IO,
				      "%s: %s", cgdir, strerror(e));
	}
	memset(&attr, 0, sizeof(attr));
	attr.target_fd = (uint32_t)cfd;
	attr.attach_bpf_fd = (uint32_t)pfd;
	attr.attach_type = BPF_CGROUP_DEVICE;
	attr.attach_flags = BPF_F_ALLOW_MULTI;
	e = syscall(SYS_bpf, BPF_PROG_ATTACH, &attr, sizeof(attr)) < 0 ? errno : 0;
	/* the cgroup holds the attached program; our descriptors may go */
	close(cfd);
	close(pfd);
	if (e != 0)
		return falcon_err_set(FALCON_ERR_IO, "%s: bpf(BPF_PROG_ATTACH, BPF_CGROUP_DEVICE, "
				      "BPF_F_ALLOW_MULTI): %s", cgdir, strerror(e));
	return FALCON_OK;
}

falcon_err_t falcon_cg_v2_own(uint32_t jobid, char *buf, size_t len)
{
	char line[4096], mnt[4096] = "";
	char path[4096] = "", key[32];
	bool job = false;
	FILE *f;

	if ((f = fopen("/proc/self/mountinfo", "r")) == NULL)
		return falcon_err_set(FALCON_ERR_IO, "/proc/self/mountinfo: %s", strerror(errno));
	while (mnt[0] == '\0' && fgets(line, sizeof(line), f) != NULL) {
		char *m, *fstype, *super;

		if (mountinfo_line(line, &m, &fstype, &super) && strcmp(fstype, "cgroup2") == 0)
			falcon_strlcpy(mnt, m, sizeof(mnt));
	}
	fclose(f);
	if ((f = fopen("/proc/self/cgroup", "r")) == NULL)
		return falcon_err_set(FALCON_ERR_IO, "/proc/self/cgroup: %s", strerror(errno));
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "0::", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(path, sizeof(path), "%s", line + 3);
		}
	fclose(f);
	/* cgroup/v2 of Slurm 22.05: .../slurmstepd.scope/job_J/step_S/user/task_T */
	snprintf(key, sizeof(key), "/job_%u/", (unsigned)jobid);
	job = strstr(path, key) != NULL;
	if (mnt[0] == '\0' || !job)
		return falcon_err_set(FALCON_ERR_NOTFOUND, "no cgroup v2 of job %u (this "
				      "process is in \"%s\"%s)", (unsigned)jobid, path,
				      mnt[0] ? "" : ", no cgroup2 mounted");
	if ((size_t)snprintf(buf, len, "%s%s", mnt, path) >= len)
		return falcon_err_set(FALCON_ERR_INVAL, "%s%s: cgroup path too long", mnt, path);
	return FALCON_OK;
}
