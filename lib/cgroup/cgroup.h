/*
 * cgroup.h - device isolation of composed GPUs and NVMe (issue 14):
 * deny rules for the cgroup v1 devices controller of Slurm's job cgroups.
 *
 * Slurm's task/cgroup with ConstrainDevices=yes only constrains devices
 * named by gres.conf File= lines (Slurm 22.05
 * src/plugins/task/cgroup/task_cgroup_devices.c: the allocated ones are
 * allowed, the other gres.conf ones denied, the rest keeps "a *:* rwm").
 * falcon_gpu is a CountOnly GRES, so a hot-added /dev/nvidiaN is open to
 * every job.  spank_falcon (task_init_privileged, root, after Slurm made
 * the step cgroup) writes deny rules into the job's cgroup, and the prolog
 * writes the new devices' deny rules into every other running job's cgroup
 * (a cgroup v1 deny rule propagates to the existing children; an allow
 * rule does not, so nothing here ever allows).
 *
 * Used by spank_falcon.so and falcon-prolog; libc and json-c only.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_CGROUP_H
#define FALCON_CGROUP_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "core/falcon_err.h"

/* NVIDIA's character major and the GPU minors (Linux
 * Documentation/admin-guide/devices.txt: 195 char, 0-254 = /dev/nvidia0-254,
 * 255 = /dev/nvidiactl; nvidia-uvm has a dynamic major and is never denied). */
#define FALCON_CG_NVIDIA_MAJOR 195
#define FALCON_CG_GPU_MINORS 255

/* At most this many rules per job: every GPU minor plus NVMe namespaces. */
#define FALCON_CG_MAX_RULES 320

/* One devices.deny rule: "c 195:3 rwm" or "b 259:1 rwm". */
struct falcon_cg_rule {
	char type;          /* 'c' or 'b' */
	unsigned major;
	unsigned minor;
};

struct falcon_cg_rules {
	size_t n;
	struct falcon_cg_rule r[FALCON_CG_MAX_RULES];
};

/*
 * falcon_cg_gpu_minors - the NVIDIA minors of the GPUs in topology (a
 * topology.json object, RunDir/<job>/topology.json of falcon-prolog(8)):
 * minors[m] is set true for each GPU of its "gpus" array (only those with
 * "location":"falcon" when falcon_only).  A GPU's minor is, first found:
 * its "minor" (int 0-254), the minor of its "dev" when that is a character
 * device of major 195 (stat), the N of a "dev" named ".../nvidiaN", else its
 * index in "cuda_visible_devices" (the same position in the list; the
 * minor order of GPUs probed at boot in bus order - a guess, logged by the
 * caller as such when *guessed is set).  guessed NULL: no guess, a GPU
 * without "minor" or a usable "dev" is left out (for rules written into
 * other jobs' cgroups, where a wrong minor would close a device that is
 * theirs).  where names the file for messages.  minors (the caller's,
 * FALCON_CG_GPU_MINORS entries) is only set, never cleared; topology is
 * borrowed.  FALCON_ERR_PARSE naming where and the field when "gpus" is not
 * an array of objects or a GPU's minor cannot be told; minors is then
 * partly filled.
 */
falcon_err_t falcon_cg_gpu_minors(json_object *topology, const char *where, bool falcon_only,
			       bool minors[FALCON_CG_GPU_MINORS], bool *guessed);

/*
 * falcon_cg_nvme_rules - append a "b MAJ:MIN" rule to rules for each path of
 * topology's "nvme_devices" (composed NVMe namespaces, e.g. /dev/nvme1n1)
 * that is a block device now (stat); a path that is gone or not a block
 * device is skipped (the device left with its job).  FALCON_ERR_NORESOURCE
 * when rules is full; FALCON_ERR_PARSE naming where when "nvme_devices" is
 * not an array of strings.
 */
falcon_err_t falcon_cg_nvme_rules(json_object *topology, const char *where,
			       struct falcon_cg_rules *rules);

/*
 * falcon_cg_gpu_rules - append "c 195:M" for every GPU minor M (0-254) with
 * deny[M] set (never 195:255, nvidiactl).  FALCON_ERR_NORESOURCE when full.
 */
falcon_err_t falcon_cg_gpu_rules(const bool deny[FALCON_CG_GPU_MINORS], struct falcon_cg_rules *rules);

/*
 * falcon_cg_job_rules - the deny rules of job jobid on this node, from the
 * topology.json files in rundir:
 *  - the job has RunDir/<jobid>/topology.json: every GPU minor 0-254 that
 *    is not one of its own GPUs (falcon and local: falcon_cg_gpu_minors), so
 *    that a GPU composed for another job, even before its topology.json
 *    exists, is closed;
 *  - it has none (no falcon or gpu GRES, or no falcon-prolog): the falcon
 *    GPUs named by the other jobs' topology.json with a "minor" or "dev"
 *    (no guess; its local gpu GRES, if any, stays Slurm's business);
 *  - both: the composed NVMe ("nvme_devices") of the other jobs.
 * Another job's topology.json that cannot be read or parsed is skipped with
 * a warning (it is that job's problem).  *guessed as falcon_cg_gpu_minors for
 * the job's own file.  The rules are appended to rules (not cleared first).
 * FALCON_ERR_PARSE/IO/NOMEM for the job's own topology.json; FALCON_ERR_IO
 * when rundir cannot be listed (a missing rundir is no error: no job has
 * devices); FALCON_ERR_INVAL when RUNDIR/<jobid>/topology.json is longer
 * than 4095 bytes; FALCON_ERR_NORESOURCE when rules is full.
 */
falcon_err_t falcon_cg_job_rules(const char *rundir, uint32_t jobid, struct falcon_cg_rules *rules,
			      bool *guessed);

/*
 * falcon_cg_devices_root - the mount point of the cgroup v1 devices
 * controller, from /proc/self/mountinfo (the env FALCON_CGROUP_DEVICES
 * overrides it: tests).  Copies it into buf (len bytes, the caller's;
 * truncated to len - 1 bytes when longer).  FALCON_ERR_NOTFOUND when no
 * cgroup v1 hierarchy has the devices controller (cgroup v2 only, or
 * none); FALCON_ERR_IO when /proc/self/mountinfo cannot be read.
 */
falcon_err_t falcon_cg_devices_root(char *buf, size_t len);

/*
 * falcon_cg_deny_job - write rules into devices.deny of every cgroup
 * ROOT/slurm* /uid_* /job_<jobid> (several with several slurmd on one host:
 * slurm_<node>).  The deny propagates to the job's steps and tasks.
 * *ndirs (may be NULL) gets how many job cgroups were written.
 * FALCON_ERR_NOTFOUND when the job has no cgroup there (task/cgroup or
 * ConstrainDevices not configured); FALCON_ERR_IO naming the file on a
 * failed write; FALCON_ERR_INVAL when a cgroup path is over 4095 bytes.
 */
falcon_err_t falcon_cg_deny_job(const char *root, uint32_t jobid, const struct falcon_cg_rules *rules,
			     unsigned *ndirs);

/*
 * falcon_cg_deny_others - write rules into devices.deny of every job cgroup
 * ROOT/slurm* /uid_* /job_* except those of job except_jobid: the devices
 * just composed for except_jobid are closed to the jobs already running.
 * *njobs (may be NULL) gets how many cgroups were written.  A job cgroup
 * that vanishes meanwhile is no error; FALCON_ERR_IO on another failed
 * write (the others are still written); FALCON_ERR_INVAL when root is over
 * 4095 bytes.
 */
falcon_err_t falcon_cg_deny_others(const char *root, uint32_t except_jobid,
				const struct falcon_cg_rules *rules, unsigned *njobs);

/*
 * falcon_cg_propagate - for falcon-prolog after it wrote topology.json of job
 * jobid: the job's falcon GPUs whose minor is known (falcon_cg_gpu_minors with
 * falcon_only, no guess) and composed NVMe (falcon_cg_nvme_rules) denied in every other job cgroup of this
 * host (falcon_cg_deny_others).  FALCON_OK without doing anything when there
 * is no cgroup v1 devices controller or no falcon device.  *njobs as in
 * falcon_cg_deny_others (may be NULL); topology is borrowed.  Errors:
 * FALCON_ERR_NOMEM, and those of falcon_cg_gpu_minors,
 * falcon_cg_nvme_rules and falcon_cg_deny_others (detail set).
 */
falcon_err_t falcon_cg_propagate(json_object *topology, uint32_t jobid, unsigned *njobs);

/*
 * falcon_cg_prolog - falcon_cg_propagate for falcon-prolog's one call after it
 * wrote topology.json; a failure is logged as a warning (the job itself
 * is fine; the other jobs keep what they had).
 */
void falcon_cg_prolog(json_object *topology, uint32_t jobid);

/*
 * falcon_cg_propagate_file - falcon_cg_propagate with RUNDIR/<jobid>/topology.json
 * (spank_falcon, for a prolog that did not propagate).  FALCON_OK when the
 * file does not exist; its read and parse errors otherwise (FALCON_ERR_IO,
 * PARSE, NOMEM), FALCON_ERR_INVAL when its path is over 4095 bytes, then
 * falcon_cg_propagate's.
 */
falcon_err_t falcon_cg_propagate_file(const char *rundir, uint32_t jobid, unsigned *njobs);

/*
 * falcon_cg_bpf_deny - cgroup v2: load a BPF_PROG_TYPE_CGROUP_DEVICE program
 * that denies rules (returns 0 for a device of the list, 1 for any other)
 * and attach it to the cgroup directory cgdir with BPF_F_ALLOW_MULTI (Linux
 * Documentation/bpf: every program of the cgroup and its ancestors must
 * allow an access, so it only adds denials; Slurm's own program keeps its
 * rules).  Raw bpf(2), no libbpf.  The program stays attached until the
 * cgroup is removed; a cgroup holds at most 64 programs
 * (BPF_CGROUP_MAX_PROGS), so attach once per cgroup.  FALCON_OK with
 * nothing done for no rules; FALCON_ERR_NOMEM; FALCON_ERR_UNSUPPORTED when the kernel
 * refuses the program (no CONFIG_CGROUP_BPF, not CAP_SYS_ADMIN),
 * FALCON_ERR_NOTFOUND when cgdir does not exist, FALCON_ERR_IO when the
 * attach fails; each names the call and errno.
 */
falcon_err_t falcon_cg_bpf_deny(const char *cgdir, const struct falcon_cg_rules *rules);

/*
 * falcon_cg_v2_own - the cgroup v2 directory this process is in (cgroup2
 * mount point from /proc/self/mountinfo + the "0::" path of
 * /proc/self/cgroup), when that path is inside job jobid's cgroup
 * (".../job_<jobid>/...": Slurm's cgroup/v2 task cgroup), into buf (len
 * bytes, the caller's).  FALCON_ERR_NOTFOUND when no cgroup2 is mounted or
 * the process is not in the job's cgroup; FALCON_ERR_IO when
 * /proc/self/mountinfo or /proc/self/cgroup cannot be read;
 * FALCON_ERR_INVAL when the path does not fit in len bytes.
 */
falcon_err_t falcon_cg_v2_own(uint32_t jobid, char *buf, size_t len);

#endif /* FALCON_CGROUP_H */
