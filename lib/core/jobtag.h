/*
 * jobtag.h - what falcon-prolog reads from and writes to a Slurm job,
 * without libslurm: the GRES counts of tres_per_node, the falcon options
 * of the job's SPANK environment, and the compact AdminComment tag
 * ("falcon:topo=hybridGPUs,l=4,f=4,nvme=falcon,check=pass,busbw=19.6")
 * merged into whatever else the AdminComment holds.
 *
 * Pure string functions: the Slurm calls stay in prolog/.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_JOBTAG_H
#define FALCON_JOBTAG_H

#include <stdbool.h>
#include <stddef.h>

#include "core/conf.h"
#include "core/falcon_err.h"

#define FALCON_TAG_PREFIX "falcon:"
#define FALCON_TRES_MAX 16 /* per GRES: 2 drawers x 8 slots, and local GPUs */

/* The devices one node of a job asked for. */
struct falcon_job_req {
	int falcon_gpus; /* gres/falcon_gpu:N */
	int falcon_nvme; /* gres/falcon_nvme:N */
	int gpus;        /* gres/gpu:N (the node's own GPUs) */
};

/*
 * falcon_tres_parse - the GRES counts of a job's tres_per_node (job_info
 * field; NULL or "" = nothing asked) into *out.
 *
 * Entries are separated by ',' or ';'.  Each is "gres:NAME[:TYPE]:COUNT"
 * (Slurm 22.05 spelling), "gres/NAME[:TYPE]:COUNT" (23.02 on) or
 * "gres/NAME[:TYPE]=COUNT" (TRES form); a missing count is 1 (as
 * --gres=gpu means gpu:1).  Typed entries of one GRES add up.  Other TRES
 * and other GRES are ignored.  COUNT is bounded to 0..FALCON_TRES_MAX
 * (falcon_strtol).  FALCON_ERR_PARSE naming the entry on a malformed count
 * or a sum above the bound; *out is zeroed then.
 */
falcon_err_t falcon_tres_parse(const char *tres, struct falcon_job_req *out);

/* The user's falcon options of one job. */
struct falcon_job_opts {
	bool place_set;
	falcon_place_t place;
	bool check_set;
	falcon_check_t check;
	bool topology_auto; /* --falcon-topology=auto: job_submit_falcon chose the topology */
};

/*
 * The user's variable for --falcon-topology=auto (spank_falcon's fallback
 * of the option).  Not FALCON_TOPOLOGY: spank_falcon sets that to the
 * job's Table III label in every task, and a srun or sbatch inside the job
 * inherits it (issue 42).
 */
#define FALCON_TOPOLOGY_REQUEST_ENV "FALCON_TOPOLOGY_REQUEST"

/*
 * falcon_job_opts_parse - the falcon options from a job's SPANK job control
 * environment (env: n "NAME=VALUE" strings, as job_desc/job_info's
 * spank_job_env; NULL entries are skipped): what spank_falcon set with
 * spank_job_control_setenv(), never the user's environment.  Names:
 * FALCON_PLACE, FALCON_CHECK and FALCON_TOPOLOGY (the one value "auto"),
 * as slurmctld holds them (job_submit sees them so, logged on Slurm
 * 22.05), or with the SPANK_ prefix slurmd adds for the prolog; the
 * SPANK_ name wins when both are there.  An unknown value is FALCON_ERR_INVAL naming it (*out keeps what
 * was parsed before).  *out is zeroed first.
 */
falcon_err_t falcon_job_opts_parse(char *const *env, size_t n, struct falcon_job_opts *out);

/* What the AdminComment tag says.  Zero/NULL fields are left out. */
struct falcon_tag {
	const char *topo;   /* Table III GPU label, "localGPUs"...; NULL = no GPU */
	int local_gpus;     /* l= */
	int falcon_gpus;    /* f= */
	const char *nvme;   /* "falcon" / "local"; NULL = none */
	const char *check;  /* "pass" "warn" "fail" "skipped" "error" "off"; NULL */
	double busbw;       /* GB/s; < 0 = not measured (left out) */
	double algbw;       /* GB/s; written instead of busbw with one GPU; < 0 = none */
	bool degraded;      /* link=degraded */
	bool auto_topo;     /* auto=1: --falcon-topology=auto chose topo */
};

/*
 * falcon_tag_build - the tag "falcon:topo=T,l=N,f=N,nvme=X,check=C,busbw=B"
 * (keys in that order, present ones only; bandwidth with one decimal; with
 * exactly one GPU in all algbw replaces busbw; ",link=degraded", then
 * ",auto=1" last) into
 * buf of n bytes.  Returns buf, or NULL when it does not fit.  A tag has no
 * blank and no ';' (see falcon_tag_merge()).
 */
char *falcon_tag_build(const struct falcon_tag *t, char *buf, size_t n);

/*
 * falcon_tag_merge - the AdminComment old (NULL = empty) with tag put in:
 * the first token starting with "falcon:" is replaced by tag and any later
 * one dropped; without one, tag is appended after "; " (nothing when old is
 * empty or blank).  A token starts at the beginning or after a blank or
 * ';' and ends before the next blank or ';'.  Everything else in old is
 * kept byte for byte.  *out is a new string (free()); FALCON_ERR_NOMEM, or
 * FALCON_ERR_INVAL for a tag that does not start with "falcon:" or holds a
 * blank or ';'.
 */
falcon_err_t falcon_tag_merge(const char *old, const char *tag, char **out);

/*
 * falcon_tag_find - the "falcon:" token of an AdminComment copied into buf
 * (n bytes); returns buf, or NULL when there is none or it does not fit.
 */
char *falcon_tag_find(const char *comment, char *buf, size_t n);

/*
 * falcon_tag_parse - the falcon tag of an AdminComment (the whole comment
 * or the tag alone; the first "falcon:" token counts, as in
 * falcon_tag_find()) into *out, the inverse of falcon_tag_build().  The
 * string fields of *out point to static strings (never into comment):
 * topo one of localGPUs/hybridGPUs/falconGPUs, nvme falcon/local, check
 * pass/warn/fail/skipped/error/off; an absent key leaves NULL, 0, -1 (busbw,
 * algbw) or false.  Unknown keys are skipped (a later tag version may add
 * some); a known key with a value outside its vocabulary, or a count /
 * bandwidth that falcon_strtol/_strtod refuse (counts 0..FALCON_TRES_MAX,
 * GB/s 0..1e6), is FALCON_ERR_PARSE naming it.  FALCON_ERR_NOTFOUND when
 * comment (NULL allowed) holds no tag.  *out is reset first in every case.
 */
falcon_err_t falcon_tag_parse(const char *comment, struct falcon_tag *out);

#endif /* FALCON_JOBTAG_H */
