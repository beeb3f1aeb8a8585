/*
 * spank_core.h - the part of spank_falcon that needs no Slurm: plugstack
 * arguments, the words of --falcon-place/--falcon-check, and the task
 * environment derived from a job's topology.json.  The SPANK glue
 * (spank_falcon.c) and the unit test link the same objects.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_SPANK_CORE_H
#define FALCON_SPANK_CORE_H

#include <stdint.h>

#include "core/falcon_err.h"
#include "core/policy.h"

#define FSP_DEFAULT_RUNDIR "/run/falcon"
#define FSP_WORD_LEN 16

/* The plugstack.conf arguments of spank_falcon.so. */
struct fsp_config {
	char *conf;                 /* conf=PATH of falcon.conf; NULL = not given */
	char *rundir;               /* rundir=DIR; NULL = RunDir of conf, else /run/falcon */
	char place[FSP_WORD_LEN];   /* place= default of --falcon-place; "" = none */
	char check[FSP_WORD_LEN];   /* check= default of --falcon-check; "" = none */
};

/* The user options and where their words are checked. */
enum fsp_opt { FSP_OPT_PLACE = 0, FSP_OPT_CHECK, FSP_OPT_TOPOLOGY, FSP_NOPTS };

/*
 * fsp_option_name/fsp_option_env/fsp_option_words - the option's name, the
 * environment variable a user sets instead of it, and its words:
 * "falcon-place", "FALCON_PLACE", "pack|spread|any" (check alike;
 * topology: "falcon-topology", "FALCON_TOPOLOGY_REQUEST", "auto").
 * fsp_option_ctl - the name handed to the prolog and job_submit_falcon
 * with spank_job_control_setenv() (Slurm prefixes it SPANK_):
 * "FALCON_PLACE", "FALCON_CHECK", "FALCON_TOPOLOGY".  All static strings.
 * The topology's user variable is not FALCON_TOPOLOGY: that is the job's
 * label in every task (TASK ENVIRONMENT of spank_falcon(8)), which a srun
 * or sbatch inside the job inherits.
 */
const char *fsp_option_name(enum fsp_opt opt);
const char *fsp_option_env(enum fsp_opt opt);
const char *fsp_option_ctl(enum fsp_opt opt);
const char *fsp_option_words(enum fsp_opt opt);

/*
 * fsp_option_check - validate value for opt, as falcon.conf's Place=/Check=
 * words (falcon_place_from_str/falcon_check_from_str, case-insensitive) and
 * copy its canonical lower-case spelling into out (FSP_WORD_LEN bytes).
 * source names where it came from for the message ("--falcon-place",
 * "FALCON_PLACE", "plugstack place=").  FALCON_ERR_INVAL with
 * "<source>=<value>: expected pack, spread or any" in falcon_errmsg().
 */
falcon_err_t fsp_option_check(enum fsp_opt opt, const char *source,
			      const char *value, char *out);

/*
 * fsp_config_parse - parse the plugstack arguments av[0..ac-1] (strict
 * key=value: conf=, rundir=, place=, check=) into cfg, which the caller
 * zeroed.  Defaults first, then the arguments in order; a later key
 * overrides an earlier one.  FALCON_ERR_CONFIG naming the argument for an
 * unknown key, a missing '=' or an empty or bad value; cfg then holds
 * nothing to free beyond what fsp_config_free() frees.
 */
falcon_err_t fsp_config_parse(int ac, char **av, struct fsp_config *cfg);

/*
 * fsp_config_rundir - resolve cfg->rundir: rundir= when given, else RunDir=
 * of the falcon.conf named by conf= (loaded with falcon_conf_load), else
 * /run/falcon.  On success cfg->rundir is set (owned by cfg).  Errors of
 * falcon_conf_load are returned as they are.
 */
falcon_err_t fsp_config_rundir(struct fsp_config *cfg);

/*
 * fsp_submit_check - the early policy check of sbatch/salloc/srun: the job's
 * GRES request gres (as sbatch holds it: "gres:falcon_gpu:4,gres:gpu:2";
 * NULL = none) judged by falcon_policy_job() against each partition of the
 * comma list partitions, in the falcon.conf at conf_path.  The same judge
 * and message as job_submit_falcon (which stays the authoritative check).
 * known (NULL = any) says which partitions Slurm has, so that the message
 * suggests only those (see falcon_policy_check()).
 * Returns FALCON_OK when there is nothing to judge or it is allowed:
 * partitions NULL or empty (the caller passes Slurm's default partition
 * when it could learn it), no GRES, or conf_path not readable (the submit
 * host need not have falcon.conf).  FALCON_ERR_POLICY/PARSE with the
 * message in falcon_errmsg() on refusal; FALCON_ERR_CONFIG when
 * falcon.conf is there but broken (the caller only logs it).
 */
falcon_err_t fsp_submit_check(const char *conf_path, const char *partitions,
			      const char *gres, falcon_policy_known_fn known);

/* fsp_config_free - free what cfg owns and zero it. */
void fsp_config_free(struct fsp_config *cfg);

/* The environment a job's tasks get from its topology.json. */
struct fsp_task_env {
	char *topology_file;        /* RUNDIR/<jobid>/topology.json */
	char *cuda_visible_devices; /* its "cuda_visible_devices"; NULL = absent */
	char *topology;             /* its "topology" (Table III label); NULL = null */
	char *nvme;                 /* "dev" of each "nvme" entry located "falcon"
				     * that has one (none = no driver bound),
				     * ','-joined; NULL = none */
};

/*
 * fsp_task_env_load - read RUNDIR/<jobid>/topology.json (at most 1 MiB)
 * into env (zeroed by the caller; free with fsp_task_env_free()).
 * FALCON_ERR_NOTFOUND when the file does not exist (the job has no falcon
 * devices); FALCON_ERR_PARSE when it is not JSON of the shape of the
 * project's topology contract (an object; "cuda_visible_devices" a string
 * of ','-separated indices 0-1023 or empty; "topology" a Table III label or
 * null; "nvme" an array of objects whose "dev", where present, is an absolute
 * path); FALCON_ERR_IO when it cannot be read.
 */
falcon_err_t fsp_task_env_load(const char *rundir, uint32_t jobid,
			       struct fsp_task_env *env);

/* fsp_task_env_free - free what env owns and zero it. */
void fsp_task_env_free(struct fsp_task_env *env);

#endif /* FALCON_SPANK_CORE_H */
