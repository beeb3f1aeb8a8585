/*
 * spank_falcon.c - the SPANK plugin of falcon-slurm (spank_falcon(8)).
 *
 * Allocator (sbatch, salloc) and local (srun) context: the user options
 * --falcon-place, --falcon-check and --falcon-topology (FALCON_PLACE,
 * FALCON_CHECK, FALCON_TOPOLOGY_REQUEST as fallback, plugstack
 * place=/check= as defaults) are validated and handed to the node prolog
 * and job_submit_falcon through the job control environment
 * (SPANK_FALCON_PLACE, SPANK_FALCON_CHECK, SPANK_FALCON_TOPOLOGY).
 * Remote context (slurmstepd): every task gets
 * CUDA_DEVICE_ORDER=PCI_BUS_ID and, when the prolog wrote
 * RunDir/<jobid>/topology.json, CUDA_VISIBLE_DEVICES, FALCON_TOPOLOGY,
 * FALCON_TOPOLOGY_FILE and FALCON_NVME from it (without one, those three
 * inherited from a submitting falcon job are removed).  Before that, as root
 * (task_init_privileged), the job's cgroup v1 devices controller gets deny
 * rules for the GPUs and NVMe that are not the job's (lib/cgroup/cgroup.c),
 * and the job's composed devices are denied to the other running jobs.
 *
 * Options are registered with spank_option_register() in slurm_spank_init:
 * in allocator context Slurm ignores a static spank_options table.  The
 * work itself is in spank_core.c; this file is the glue.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "core/conf.h"
#include "core/falcon_err.h"
#include "core/log.h"
#include "cgroup/cgroup.h"
#include "spank_core.h"

SPANK_PLUGIN(spank_falcon, 1);

/* The state of this process's instance; zeroed in slurm_spank_exit. */
static struct {
	struct fsp_config cfg;
	char value[FSP_NOPTS][FSP_WORD_LEN]; /* indexed by enum fsp_opt; "" = not given */
	bool given[FSP_NOPTS];
	bool initialized;
} ctx = {
	.initialized = false,
};

static void log_sink_slurm(falcon_log_level_t level, const char *line, void *arg)
{
	switch (level) {
	case FALCON_LOG_ERROR:
		slurm_error("%s", line);
		break;
	case FALCON_LOG_WARN:
	case FALCON_LOG_INFO:
		slurm_info("%s", line);
		break;
	case FALCON_LOG_VERBOSE:
		slurm_verbose("%s", line);
		break;
	default:
		slurm_debug("%s", line);
		break;
	}
}

/* The user gave --falcon-place/--falcon-check (remote: Slurm replays it). */
static int option_cb(int val, const char *optarg, int remote)
{
	enum fsp_opt opt = val == FSP_OPT_CHECK ? FSP_OPT_CHECK
			   : val == FSP_OPT_TOPOLOGY ? FSP_OPT_TOPOLOGY : FSP_OPT_PLACE;
	char source[32];

	snprintf(source, sizeof(source), "--%s", fsp_option_name(opt));
	/* optarg does not outlive the callback: fsp_option_check copies it. */
	if (fsp_option_check(opt, source, optarg, ctx.value[opt]) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		return -1;
	}
	ctx.given[opt] = true;
	return 0;
}

static struct spank_option options[] = {
	{
		.name = "falcon-place",
		.arginfo = "pack|spread|any",
		.usage = "[falcon] where the job's chassis devices come from: pack "
			 "(same drawer and switch first), spread, any (default: the "
			 "partition's Place= in falcon.conf; env FALCON_PLACE)",
		.has_arg = 1,
		.val = FSP_OPT_PLACE,
		.cb = option_cb,
	},
	{
		.name = "falcon-check",
		.arginfo = "quick|full|off",
		.usage = "[falcon] how the prolog checks the composed devices: quick "
			 "(bus and links), full (and an NCCL benchmark), off (default: "
			 "the partition's Check= in falcon.conf; env FALCON_CHECK)",
		.has_arg = 1,
		.val = FSP_OPT_CHECK,
		.cb = option_cb,
	},
	{
		.name = "falcon-topology",
		.arginfo = "auto",
		.usage = "[falcon] auto: take the job's N GPUs as local GPUs or chassis "
			 "GPUs, whichever the site's history and what is free now say "
			 "ends sooner, within the partition's AllowTopologies "
			 "(job_submit_falcon decides; env FALCON_TOPOLOGY_REQUEST)",
		.has_arg = 1,
		.val = FSP_OPT_TOPOLOGY,
		.cb = option_cb,
	},
};

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t context = spank_context();
	spank_err_t err;
	size_t i;
	int rv = -1;

	falcon_log_init("spank_falcon");
	falcon_log_add_sink(log_sink_slurm, FALCON_LOG_DEBUG, NULL);
	if (fsp_config_parse(ac, av, &ctx.cfg) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		goto fail;
	}
	ctx.initialized = true;
	if (context == S_CTX_LOCAL || context == S_CTX_ALLOCATOR ||
	    context == S_CTX_REMOTE) {
		for (i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
			err = spank_option_register(sp, &options[i]);
			if (err != ESPANK_SUCCESS) {
				falcon_error("cannot register --%s: %s", options[i].name,
					     spank_strerror(err));
				goto fail;
			}
		}
	}
	rv = 0;
fail:
	return rv;
}

/* Slurm's partitions as slurmctld answered (NULL = not asked or no answer). */
static partition_info_msg_t *parts;

/* part_known - does Slurm have partition name?  (true when unknown) */
static bool part_known(const char *name)
{
	uint32_t i;

	if (parts == NULL)
		return true;
	for (i = 0; i < parts->record_count; i++)
		if (parts->partition_array[i].name != NULL &&
		    strcmp(parts->partition_array[i].name, name) == 0)
			return true;
	return false;
}

/*
 * load_parts - ask slurmctld for its partitions (one RPC, only for a job
 * that asks for GRES): which ones exist, for the message's suggestion, and
 * the Default=YES one for a job without -p.  slurm_load_partitions() is
 * libslurm's public API, taken from the command's own libslurmfull (a SPANK
 * plugin does not link libslurm).  Returns the default partition's name
 * (points into parts) or NULL.
 */
static const char *load_parts(void)
{
	typedef int (*load_fn)(time_t, partition_info_msg_t **, uint16_t);
	load_fn load = (load_fn)dlsym(RTLD_DEFAULT, "slurm_load_partitions");
	uint32_t i;

	if (parts == NULL && (load == NULL || load((time_t)0, &parts, SHOW_ALL) != 0)) {
		falcon_verbose("slurm_load_partitions %s: partitions not known",
			       load ? "failed" : "not in this process");
		parts = NULL;
		return NULL;
	}
	for (i = 0; i < parts->record_count; i++)
		if (parts->partition_array[i].flags & PART_FLAG_DEFAULT)
			return parts->partition_array[i].name;
	return NULL;
}

static void free_parts(void)
{
	typedef void (*free_fn)(partition_info_msg_t *);
	free_fn fr = (free_fn)dlsym(RTLD_DEFAULT, "slurm_free_partition_info_msg");

	if (parts != NULL && fr != NULL)
		fr(parts);
	parts = NULL;
}

/*
 * submit_check - the partition policy judged early, in sbatch/salloc (and
 * srun outside an allocation), with job_submit_falcon's message.  SPANK
 * gives no item for the job's --gres or --partition in allocator context;
 * sbatch, salloc and srun export their option struct "opt" and libslurmfull
 * exports slurm_option_get(), which returns what the command will send
 * (command line, #SBATCH lines, SBATCH_GRES/SBATCH_PARTITION) as strings:
 * gres, gpus-per-node and partition.
 * Both found by name at run time; when either is missing (another Slurm
 * version) the check is skipped, as it is without a readable falcon.conf.
 * A job asking for GRES costs one slurm_load_partitions() RPC (load_parts):
 * the default partition for a job without -p, and the partitions that may
 * be suggested.  job_submit_falcon stays the authoritative check.
 */
static int submit_check(spank_context_t context)
{
	typedef char *(*get_fn)(void *opt, const char *name);
	typedef void (*xfree_fn)(void **p);
	get_fn get = (get_fn)dlsym(RTLD_DEFAULT, "slurm_option_get");
	xfree_fn xfree_p = (xfree_fn)dlsym(RTLD_DEFAULT, "slurm_xfree");
	void *opt = dlsym(RTLD_DEFAULT, "opt");
	char *gres = NULL, *part = NULL, *gpn = NULL, tres[1024];
	const char *conf = ctx.cfg.conf ? ctx.cfg.conf : falcon_conf_path(NULL);
	falcon_err_t ferr;
	int rv = 0;

	if (context == S_CTX_LOCAL && getenv("SLURM_JOB_ID") != NULL)
		return 0; /* srun inside an allocation: the job was judged */
	if (get == NULL || xfree_p == NULL || opt == NULL) {
		falcon_debug("no slurm_option_get/opt in this process: no early policy check");
		return 0;
	}
	gres = get(opt, "gres");
	gpn = get(opt, "gpus-per-node");
	part = get(opt, "partition");
	/* --gpus-per-node=N joins tres_per_node as gres:gpu:N, as Slurm does */
	if (gpn != NULL && gpn[0] != '\0')
		snprintf(tres, sizeof(tres), "gres:gpu:%s%s%s", gpn, gres ? "," : "",
			 gres ? gres : "");
	else
		snprintf(tres, sizeof(tres), "%s", gres ? gres : "");
	if (tres[0] != '\0' && access(conf, R_OK) == 0) {
		const char *dflt = load_parts();

		/* no -p: Slurm's default partition, when slurmctld said */
		ferr = fsp_submit_check(conf, part && part[0] ? part : dflt, tres, part_known);
	} else {
		ferr = FALCON_OK; /* nothing asked, or no falcon.conf here */
	}
	free_parts();
	if (ferr == FALCON_ERR_CONFIG) {
		falcon_verbose("%s: no early policy check", falcon_errmsg());
	} else if (ferr != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		rv = -1;
	}
	if (gres != NULL)
		xfree_p((void **)&gres);
	if (part != NULL)
		xfree_p((void **)&part);
	if (gpn != NULL)
		xfree_p((void **)&gpn);
	return rv;
}

/*
 * Allocator/local: settle each option (option, else environment, else
 * plugstack default) and hand it to the prolog as SPANK_FALCON_*.
 */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	spank_context_t context = spank_context();
	const char *defaults[FSP_NOPTS] = { ctx.cfg.place, ctx.cfg.check, "" };
	const char *env;
	spank_err_t err;
	int opt, rv = -1;

	if (context != S_CTX_ALLOCATOR && context != S_CTX_LOCAL)
		return 0;
	/* with --falcon-topology=auto job_submit_falcon rewrites the GRES
	 * first: the policy is judged on its choice, not on what was typed */
	env = getenv(fsp_option_env(FSP_OPT_TOPOLOGY));
	if (ctx.value[FSP_OPT_TOPOLOGY][0] == '\0' && (env == NULL || *env == '\0') &&
	    submit_check(context) < 0)
		goto fail;
	for (opt = FSP_OPT_PLACE; opt < FSP_NOPTS; opt++) {
		if (!ctx.given[opt]) {
			env = getenv(fsp_option_env(opt));
			if (env != NULL && *env != '\0') {
				if (fsp_option_check(opt, fsp_option_env(opt), env,
						     ctx.value[opt]) != FALCON_OK) {
					falcon_error("%s", falcon_errmsg());
					goto fail;
				}
			} else if (defaults[opt][0] != '\0') {
				memcpy(ctx.value[opt], defaults[opt], FSP_WORD_LEN);
			}
		}
		if (ctx.value[opt][0] == '\0')
			continue;
		/* Becomes SPANK_FALCON_PLACE in the prolog's environment.  In
		 * srun inside an allocation there is no job to create: Slurm
		 * says ESPANK_NOT_AVAIL, which is fine. */
		err = spank_job_control_setenv(sp, fsp_option_ctl(opt), ctx.value[opt], 1);
		if (err != ESPANK_SUCCESS && err != ESPANK_NOT_AVAIL) {
			falcon_error("cannot pass %s to the prolog: %s",
				     fsp_option_ctl(opt), spank_strerror(err));
			goto fail;
		}
	}
	rv = 0;
fail:
	return rv;
}

static int task_setenv(spank_t sp, const char *name, const char *value)
{
	spank_err_t err = spank_setenv(sp, name, value, 1);

	if (err != ESPANK_SUCCESS) {
		falcon_error("cannot set %s: %s", name, spank_strerror(err));
		return -1;
	}
	return 0;
}

static int task_unsetenv(spank_t sp, const char *name)
{
	spank_err_t err = spank_unsetenv(sp, name);

	if (err != ESPANK_SUCCESS) {
		falcon_error("cannot unset %s: %s", name, spank_strerror(err));
		return -1;
	}
	return 0;
}

/* Remote: the environment of each task, from RunDir/<jobid>/topology.json. */
int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	struct fsp_task_env env = { .topology_file = NULL };
	uint32_t jobid = 0;
	spank_err_t err;
	falcon_err_t ferr;
	int rv = -1;

	if (!spank_remote(sp))
		return 0;
	if (task_setenv(sp, "CUDA_DEVICE_ORDER", "PCI_BUS_ID") < 0)
		goto fail;
	err = spank_get_item(sp, S_JOB_ID, &jobid);
	if (err != ESPANK_SUCCESS) {
		falcon_error("cannot get the job id: %s", spank_strerror(err));
		goto fail;
	}
	if (fsp_config_rundir(&ctx.cfg) != FALCON_OK) {
		falcon_error("job %u: %s", (unsigned)jobid, falcon_errmsg());
		goto fail;
	}
	ferr = fsp_task_env_load(ctx.cfg.rundir, jobid, &env);
	if (ferr == FALCON_ERR_NOTFOUND) {
		/* No topology.json: the job has no falcon devices.  What a
		 * falcon job that submitted this one passed on (sbatch
		 * exports its environment) names the other job's devices. */
		rv = task_unsetenv(sp, "FALCON_TOPOLOGY") < 0 ||
		     task_unsetenv(sp, "FALCON_TOPOLOGY_FILE") < 0 ||
		     task_unsetenv(sp, "FALCON_NVME") < 0 ? -1 : 0;
		goto fail;
	}
	if (ferr != FALCON_OK) {
		falcon_error("job %u: %s", (unsigned)jobid, falcon_errmsg());
		goto fail;
	}
	/* a label or NVMe list this job has not comes from a job that
	 * submitted it: removed, as without topology.json */
	if (task_setenv(sp, "FALCON_TOPOLOGY_FILE", env.topology_file) < 0 ||
	    (env.cuda_visible_devices != NULL &&
	     task_setenv(sp, "CUDA_VISIBLE_DEVICES", env.cuda_visible_devices) < 0) ||
	    (env.topology != NULL ? task_setenv(sp, "FALCON_TOPOLOGY", env.topology)
				  : task_unsetenv(sp, "FALCON_TOPOLOGY")) < 0 ||
	    (env.nvme != NULL ? task_setenv(sp, "FALCON_NVME", env.nvme)
			      : task_unsetenv(sp, "FALCON_NVME")) < 0)
		goto fail;
	rv = 0;
fail:
	fsp_task_env_free(&env);
	return rv;
}

/*
 * Remote, root, the step's cgroup made (Slurm 22.05 slurmstepd mgr.c:
 * task/cgroup's task_g_pre_setuid, then spank_task_privileged): deny the
 * devices that are not this job's in its job cgroup (falcon_cg_job_rules), and
 * its composed devices in the other jobs' cgroups (falcon_cg_propagate_file;
 * falcon-prolog did so already, this covers another prolog).  Without a
 * cgroup v1 devices controller, when this task is in the job's cgroup v2:
 * a deny program attached to the task's cgroup (falcon_cg_bpf_deny), no
 * propagation.  Nothing to do without either (no task/cgroup with
 * ConstrainDevices=yes).  A rule that cannot be
 * written fails the task: it would run with other jobs' devices open.
 */
int slurm_spank_task_init_privileged(spank_t sp, int ac, char **av)
{
	struct falcon_cg_rules *rules = NULL;
	char root[4096];
	uint32_t jobid = 0;
	unsigned n = 0, nothers = 0;
	bool guessed = false, v1;
	falcon_err_t ferr;
	spank_err_t err;
	int rv = -1;

	if (!spank_remote(sp))
		return 0;
	err = spank_get_item(sp, S_JOB_ID, &jobid);
	if (err != ESPANK_SUCCESS) {
		falcon_error("cannot get the job id: %s", spank_strerror(err));
		return -1;
	}
	v1 = falcon_cg_devices_root(root, sizeof(root)) == FALCON_OK;
	if (!v1 && falcon_cg_v2_own(jobid, root, sizeof(root)) != FALCON_OK) {
		falcon_debug("%s: composed devices not constrained", falcon_errmsg());
		return 0;
	}
	if (fsp_config_rundir(&ctx.cfg) != FALCON_OK ||
	    (rules = calloc(1, sizeof(*rules))) == NULL) {
		falcon_error("job %u: %s", (unsigned)jobid,
			     rules ? falcon_errmsg() : "out of memory");
		goto fail;
	}
	ferr = falcon_cg_job_rules(ctx.cfg.rundir, jobid, rules, &guessed);
	if (ferr != FALCON_OK) {
		falcon_error("job %u: device isolation: %s", (unsigned)jobid, falcon_errmsg());
		goto fail;
	}
	if (guessed)
		falcon_warn("job %u: GPU device minors guessed from cuda_visible_devices "
			    "(topology.json has no \"minor\" or \"dev\")", (unsigned)jobid);
	if (!v1) {
		/* cgroup v2: the task's own cgroup (no propagation to others) */
		ferr = falcon_cg_bpf_deny(root, rules);
		if (ferr != FALCON_OK)
			falcon_error("job %u: device isolation: %s", (unsigned)jobid,
				     falcon_errmsg());
		rv = ferr == FALCON_OK ? 0 : -1;
		goto fail;
	}
	ferr = falcon_cg_deny_job(root, jobid, rules, &n);
	if (ferr == FALCON_ERR_NOTFOUND) {
		falcon_debug("%s", falcon_errmsg());
		rv = 0;
		goto fail;
	}
	if (ferr != FALCON_OK) {
		falcon_error("job %u: device isolation: %s", (unsigned)jobid, falcon_errmsg());
		goto fail;
	}
	if (falcon_cg_propagate_file(ctx.cfg.rundir, jobid, &nothers) != FALCON_OK)
		falcon_warn("job %u: its devices not denied to the other jobs: %s",
			    (unsigned)jobid, falcon_errmsg());
	falcon_verbose("job %u: %zu device deny rules in %u job cgroup(s), own devices "
		       "denied in %u other job cgroup(s)", (unsigned)jobid, rules->n, n, nothers);
	rv = 0;
fail:
	free(rules);
	return rv;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	if (ctx.initialized)
		fsp_config_free(&ctx.cfg);
	memset(&ctx, 0, sizeof(ctx));
	return 0;
}
