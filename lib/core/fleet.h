/*
 * fleet.h - a job's falcon devices placed on the chassis of a fleet (several
 * ChassisName= of falcon.conf(5)) as Slurm 22.05 to 25.05 can be told it:
 * a chassis feature per node (slurm.conf NodeName=... Features=falcon_<C>)
 * and the per-chassis pool licenses (<C>_gpu, <C>_nvme) of
 * job_submit_falcon(8).  A job whose candidate nodes span chassis is pinned
 * to one chassis ("falcon_c2" in its constraint, c2_gpu:N in its licenses),
 * or, when no one chassis can hold it, split over several with Slurm's
 * multiple-count constraint ("[falcon_c1*1&falcon_c2*1]", sbatch(1)
 * --constraint) and each part's licenses: each node's devices are counted on
 * its own chassis.
 *
 * Pure functions: no Slurm, no I/O.  What is free now is asked through a
 * callback (job_submit_falcon: slurmctld's license_job_test()).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_FLEET_H
#define FALCON_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/conf.h"
#include "core/device.h"
#include "core/falcon_err.h"

/* The node feature prefix: chassis C is the feature "falcon_C". */
#define FALCON_FLEET_FEATURE_PREFIX "falcon_"
/* Chassis a job may be split over (and in one pin) at most; the chassis it
 * may be placed on are not limited. */
#define FALCON_FLEET_MAX 16

/* One chassis a job could draw from: its conf index and how many of the
 * job's candidate nodes are cabled to it. */
struct falcon_fleet_cand {
	size_t chassis;   /* index into conf->chassis */
	uint32_t nhosts;  /* candidate nodes on it */
};

/* Where a job's nodes are: part[i] nodes of the job on chassis
 * conf->chassis[chassis[i]]. */
struct falcon_fleet_pick {
	size_t n;
	size_t chassis[FALCON_FLEET_MAX];
	uint32_t nodes[FALCON_FLEET_MAX];
	bool now;         /* fits what is free now (false: the job pends, Reason=Licenses) */
};

/*
 * falcon_fleet_fits_fn - can chassis conf->chassis[chassis] give gpus GPUs
 * and nvme NVMe (whole-job counts) now (ever == false: free now, reserved
 * ones counted as used) or at all (ever == true: its configured totals)?
 */
typedef bool (*falcon_fleet_fits_fn)(size_t chassis, long gpus, long nvme, bool ever, void *arg);

/*
 * falcon_fleet_backlog_fn - the backlog of chassis conf->chassis[chassis]:
 * how many GPUs the jobs already waiting for it ask beyond what it has free
 * now (pending claims minus free GPUs; negative when it has GPUs to spare).
 * A job that no chassis can take now waits where this is least: the
 * chassis likely to serve it first.
 */
typedef long (*falcon_fleet_backlog_fn)(size_t chassis, void *arg);

/*
 * falcon_fleet_place - where a job of nodes nodes, each asking gpus falcon_gpu
 * and nvme falcon_nvme, goes among the candidate chassis cand[0..ncand)
 * (conf order).  In this order, the first that works wins:
 *   1. one chassis with enough candidate nodes whose free pool holds the job
 *      (the first in conf order: a job packs onto one chassis);
 *   2. a split over several (nodes > 1): each chassis in conf order takes as
 *      many of the remaining nodes as its free pool and its nodes allow;
 *   3. and 4. the same against configured totals, the chassis taken by
 *      backlog (least first; conf order among equals, and throughout when
 *      backlog is NULL): the job pends with Reason=Licenses where the
 *      queue before it is shortest (pick->now false; falcond(8)'s re-pin
 *      may move it later).  Before the backlog, every such job was pinned
 *      to the first chassis: 109 of 126 pins in make bench-fleet's run.
 * cand may list any number of chassis (every chassis of the job's
 * partition: before 2026-11-28 job_submit passed the first 16 only, and a
 * partition over 64 chassis placed every job on those 16; issue 41).  arg
 * is passed to fits and backlog.  FALCON_ERR_POLICY when no placement can
 * ever hold the job (message names the counts), FALCON_ERR_INVAL for bad
 * arguments, FALCON_ERR_NOMEM.  *pick is the caller's.
 */
falcon_err_t falcon_fleet_place(const struct falcon_fleet_cand *cand, size_t ncand,
				uint32_t nodes, int gpus, int nvme, falcon_fleet_fits_fn fits,
				falcon_fleet_backlog_fn backlog, void *arg,
				struct falcon_fleet_pick *pick);

/*
 * falcon_fleet_pin_parse - the chassis pin in a Slurm constraint string
 * (job_desc features; NULL = none): the "falcon_<C>" or "falcon_<C>*N" terms
 * naming a ChassisName of conf, as falcon_fleet_constraint() writes them.
 * *pick gets them (nodes 0 = "all the job's nodes" for a bare single term);
 * *rest (optional; a new string, free(), NULL when empty) the constraint
 * with the pin taken out (the user's own part).  Returns FALCON_OK with
 * pick->n == 0 when there is no pin; FALCON_ERR_NOMEM.
 */
falcon_err_t falcon_fleet_pin_parse(const struct falcon_conf *conf, const char *features,
				    struct falcon_fleet_pick *pick, char **rest);

/*
 * falcon_fleet_constraint - the job's new constraint: user (its own part,
 * NULL or "" = none) with the pin of pick: "falcon_C" for one chassis,
 * "[falcon_A*a&falcon_B*b]" for a split.  A user constraint is kept with
 * '&' when it is a plain AND list; a split beside any user constraint, or a
 * pin beside one that uses '|', '[', '(' or counts, is refused
 * (FALCON_ERR_POLICY with the falcon message: Slurm's constraint grammar
 * has no way to say both).  *out a new string (free()).
 */
falcon_err_t falcon_fleet_constraint(const struct falcon_conf *conf, const char *user,
				     const struct falcon_fleet_pick *pick, char **out);

/*
 * falcon_fleet_licenses - the job's license string old (Slurm's
 * "NAME[:COUNT]" list, NULL = none) with every chassis pool of conf set to
 * what pick draws: <C>_gpu = nodes on C x gpus, <C>_nvme = nodes x nvme, and
 * the pools of the chassis not in pick removed (a re-pin moves them).  *out
 * a new string (free(); NULL when nothing is left); *changed (optional) as
 * falcon_license_merge() (policy.h).  FALCON_ERR_INVAL, FALCON_ERR_NOMEM.
 */
falcon_err_t falcon_fleet_licenses(const struct falcon_conf *conf, const char *old,
				   const struct falcon_fleet_pick *pick, int gpus, int nvme,
				   char **out, bool *changed);

/* The HRES resources (Slurm 25.11+, resources.yaml(5) MODE_3) that count a
 * fleet's devices: one per device type, a layer per chassis. */
#define FALCON_HRES_GPU "falcon_pool_gpu"
#define FALCON_HRES_NVME "falcon_pool_nvme"

/* What Slurm says of itself, for falcon_slurm_check(): the caller's
 * strings (slurm_load_ctl_conf(), slurm_load_node()). */
struct falcon_slurm_view {
	const char *licenses;        /* slurm.conf Licenses= ("c1_gpu:8,c1_nvme:1"), NULL = none */
	size_t nnodes;
	const char *const *node;     /* node names */
	const char *const *features; /* each node's features ("a,b"), NULL = none */
	const char *const *gres;     /* each node's Gres ("falcon_gpu:16,falcon_nvme:2"), NULL = none */
	bool hres;                   /* FALCON_HRES_GPU is a resource of slurmctld (25.11+) */
};

/* falcon_slurm_problem_fn - one disagreement, a sentence without newline. */
typedef void (*falcon_slurm_problem_fn)(const char *msg, void *arg);

/*
 * falcon_slurm_check - slurm.conf against falcon.conf and the chassis'
 * device counts (gpus[c], nvme[c] per conf->chassis[c]; NULL or < 0 =
 * unknown): every chassis C has licenses C_gpu and C_nvme of its counts
 * (unless v->hres), and no license of the bare name C (earlier releases'
 * single license); every HostName= is a Slurm node with a falcon_gpu GRES;
 * with several chassis, each such node has the feature falcon_<its
 * chassis> and no other chassis' feature (unless v->hres), and no node
 * carries the feature of a chassis falcon.conf does not cable it to.
 * Each disagreement goes to problem (e.g. "Licenses=c1_gpu:4 but chassis
 * c1 has 8 GPUs").  Returns their number.  Sources: job_submit_falcon(8),
 * falcon.conf(5) SLURM; Slurm 22.05+ slurm.conf(5) Licenses=, Features=.
 */
size_t falcon_slurm_check(const struct falcon_conf *conf, const struct falcon_slurm_view *v,
			  const long *gpus, const long *nvme, falcon_slurm_problem_fn problem,
			  void *arg);

/* Drawers of one chassis counted by falcon_host_share() (a Falcon 4016 has
 * 2), and the port-to-drawer links it reads. */
#define FALCON_DRAWERS_MAX 4
#define FALCON_CABLING_MAX 32

/* One chassis' devices per drawer and its cabling, as its management
 * service says (falcond's status: "devices" with "drawer", the chassis'
 * "cables"), for falcon_host_share(). */
struct falcon_drawer_counts {
	bool known;                       /* false: not read (whole chassis per host) */
	long gpus[FALCON_DRAWERS_MAX];    /* drawer d+1's GPUs */
	long nvme[FALCON_DRAWERS_MAX];    /* drawer d+1's NVMe */
	size_t ncables;
	struct {
		char port[FALCON_NAME_LEN]; /* "H3" */
		int drawer;                 /* 1-based */
	} cables[FALCON_CABLING_MAX];
};

/*
 * falcon_host_share - how many GPUs (*gpus) and NVMe (*nvme) conf->hosts[h]
 * may be given in Slurm (its NodeName= Gres=) so that no two hosts sharing a
 * drawer are ever given more than the drawer holds: for each drawer one of
 * its ports is cabled to (dc->cables), the drawer's count divided among the
 * hosts of that chassis cabled to it, the remainder to the first of them in
 * falcon.conf's order (8 GPUs over H1 and H3: 4 each; 7 over H2 and H4: 4
 * and 3); a drawer only it reaches counts whole.  Returns the number of
 * drawers it shares with another host (0: its Gres= is all it reaches),
 * or -1 when dc is NULL or !dc->known: *gpus, *nvme untouched (the caller
 * writes the chassis' whole count).  Source: the Falcon 4016's modes
 * (DESIGN.md; falcon.conf(5) Mode=): standard, one host a drawer or two
 * with 4 slots each; advanced, up to three hosts sharing a drawer's 8.
 */
int falcon_host_share(const struct falcon_conf *conf, size_t h,
		      const struct falcon_drawer_counts *dc, long *gpus, long *nvme);

/*
 * falcon_slurm_conf_write - the Slurm side of conf, for Slurm release
 * major.minor (22.05 on; named in the first line), to f: slurm.conf
 * (GresTypes, JobSubmitPlugins, Licenses= per chassis and device type,
 * each HostName='s Gres= and, with several chassis, Features=falcon_<C>),
 * gres.conf (CountOnly lines); with hres (the caller checked the release:
 * falcon_slurm_hres_release()) a resources.yaml (HRES MODE_3: resource
 * FALCON_HRES_GPU / FALCON_HRES_NVME, a root layer of every cabled node
 * with count -1 and a layer per chassis of its nodes with its count;
 * MODE_3 counts a job's request per node on each node's own chassis) in
 * place of the licenses and features.  gpus[c], nvme[c]: the chassis'
 * devices (< 0 = unknown: written as COUNT for the admin to fill).
 * dc[c] (dc may be NULL): chassis c's drawers and cabling; where known,
 * each host's Gres= and gres.conf Count= are its falcon_host_share(), a
 * comment names each shared drawer, and a chassis in Mode=standard with a
 * shared drawer is told to use Mode=advanced (standard mode's halves go
 * to whichever host attaches first, which no Gres= can express).
 * Returns the number of unknown counts written.  Sources: Slurm 25.11+
 * resources.yaml(5) (MODE_3 first in 25.11: licenses.c HRES_MODE_3),
 * slurm.conf(5), gres.conf(5).
 */
size_t falcon_slurm_conf_write(const struct falcon_conf *conf, const long *gpus,
			       const long *nvme, const struct falcon_drawer_counts *dc, int major,
			       int minor, bool hres, FILE *f);

/*
 * falcon_slurm_hres_release - whether Slurm major.minor has the HRES mode
 * the pool needs (MODE_3, Slurm 25.11+: NEWS of 25.11; 25.05's MODE_1
 * charges one layer for the whole job, not each node's own chassis).
 */
bool falcon_slurm_hres_release(int major, int minor);

/*
 * falcon_hres_layer_chassis - the chassis (an index into conf->chassis)
 * whose HRES layer has exactly the nodes hosts[0..n-1] (the caller's
 * names, a layer's host list expanded), as falcon_slurm_conf_write() writes
 * a layer per chassis: every HostName= cabled to it and no other node.
 * -1 for the root layer of every cabled node over several chassis, a
 * layer of an admin's own, a node falcon.conf does not know, or n == 0.
 * A node listed twice counts once.  falcond names a chassis' layer by it
 * in its reservations (FALCON_HRES_GPU(NODES):N: Slurm 26.05's
 * reservation licenses, src/slurmctld/licenses.c
 * _license_find_rec_by_nodes()).
 */
int falcon_hres_layer_chassis(const struct falcon_conf *conf, const char *const *hosts, size_t n);

/*
 * falcon_gres_count - the count of GRES name in a Slurm node GRES string
 * as slurm_load_node gives its gres and gres_used ("gpu:4",
 * "gpu:a100:2(S:0-1),falcon_gpu:8", "gpu:(null):1(IDX:0)"): the sum over
 * the entries of that name, whatever their type.  0 for NULL, "(null)" or
 * no such entry; an entry whose count does not parse counts 0.
 */
uint64_t falcon_gres_count(const char *gres, const char *name);

/*
 * falcon_gres_with - s (a node's Gres string, as falcon_gres_count()) with
 * every entry of GRES name given count: "gpu:8,falcon_gpu:8" with
 * falcon_gpu 0 is "gpu:8,falcon_gpu:0"; a typed entry "name:type:N" keeps
 * its type, a "(S:...)" suffix stays; other entries are copied as they
 * are.  Into out (n bytes, the caller's).  falcond holds an unreachable
 * chassis' nodes on an HRES site with it (count 0: Slurm 26.05
 * src/slurmctld/node_mgr.c _update_node_gres() -> gres.c _node_reconfig()
 * takes a new count of a GRES without File=).  Returns FALCON_OK;
 * FALCON_ERR_INVAL when s has no entry of name, an entry of name has a
 * count that does not parse, count < 0, or out is too short (out is then
 * "").
 */
falcon_err_t falcon_gres_with(const char *s, const char *name, long count, char *out, size_t n);

/*
 * falcon_hres_layer_name - chassis c's (an index into conf->chassis) HRES
 * layer of type (FALCON_DEV_GPU or FALCON_DEV_NVME) as a license with its
 * layer, "falcon_pool_gpu(HOSTS)", HOSTS its HostName= list as
 * falcon_slurm_conf_write() writes the layer (','-joined, falcon.conf
 * order), into buf (n bytes, the caller's): the name Slurm 26.05's
 * license_validate(..., hres = true, ...) finds the layer by.  FALCON_ERR_INVAL
 * for another type, a chassis without hosts, or a name longer than n - 1.
 */
falcon_err_t falcon_hres_layer_name(const struct falcon_conf *conf, size_t c,
				    falcon_dev_type_t type, char *buf, size_t n);

#endif /* FALCON_FLEET_H */
