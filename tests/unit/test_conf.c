/*
 * test_conf.c - unit tests of lib/core/conf.c, the falcon.conf(5) parser,
 * and of its lexer lib/core/conf_lex.c.
 *
 * Inputs are written to files under make_tmpdir() and loaded with
 * falcon_conf_load(), the way the programs read them.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <ftw.h>
#include <limits.h>
#include <unistd.h>

#include "core/conf.h"
#include "core/conf_lex.h"
#include "testutil.h"
#include "core/util.h"

/* ---------------------------------------------------------------- */
/* Helpers */

static char tmp[PATH_MAX];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Checked teardown (runs in the test's process): remove its directory. */
static void rm_tmp(void)
{
	if (tmp[0] != '\0') {
		if (chdir("/") != 0)
			return;
		nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
		tmp[0] = '\0';
	}
}

static void write_at(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_msg(f != NULL, "cannot create %s", path);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
}

/* Write text to TMP/falcon.conf and load it (chdir'd into TMP, so the
 * messages name "falcon.conf" as a relative path). */
static falcon_err_t load_text(const char *text, struct falcon_conf **out)
{
	rm_tmp();
	falcon_strlcpy(tmp, make_tmpdir("conf"), sizeof(tmp));
	write_at(tmp, "falcon.conf", text);
	ck_assert_int_eq(chdir(tmp), 0);
	return falcon_conf_load("falcon.conf", out);
}

static struct falcon_conf *load_ok(const char *text)
{
	struct falcon_conf *c = NULL;
	falcon_err_t rv = load_text(text, &c);

	ck_assert_msg(rv == FALCON_OK, "load failed: %s", falcon_errmsg());
	ck_assert_ptr_nonnull(c);
	return c;
}

#define CHASSIS "ChassisName=falcon1 Url=https://falcon1.example.com/\n"

/* ---------------------------------------------------------------- */
/* Good inputs, each with a checker */

static void chk_defaults(const struct falcon_conf *c)
{
	const struct falcon_partition_conf *p = falcon_conf_partition(c, "batch");

	ck_assert_str_eq(c->state_dir, "/var/lib/falcon");
	ck_assert_str_eq(c->advice_file, "/var/lib/falcon/advice.json");
	ck_assert_str_eq(c->listen_address, "127.0.0.1:6830");
	ck_assert_ptr_null(c->status_listen); /* no status page unless asked */
	ck_assert_str_eq(c->falcond_url, "http://127.0.0.1:6830");
	ck_assert_str_eq(c->sysfs_root, "/sys");
	ck_assert_int_eq(c->cuda_visible, FALCON_CVD_UUID);
	ck_assert_str_eq(c->slurm_user, "slurm");
	ck_assert_str_eq(c->run_dir, "/run/falcon");
	ck_assert_ptr_null(c->munge_socket);
	ck_assert_ptr_null(c->ncclcheck);
	ck_assert_int_eq(c->prolog_timeout, 300);
	ck_assert_int_eq(c->epilog_timeout, 120);
	ck_assert_int_eq(c->rescan_timeout, 30);
	ck_assert_int_eq(c->check_budget, 60);
	ck_assert_int_eq(c->chassis_retries, 3);
	ck_assert_int_eq(c->compose_wait, 90);
	ck_assert_int_eq(c->reconcile_interval, 30);
	ck_assert_int_eq(c->settle_time, 30);
	ck_assert_int_eq(c->unreachable_hold, 30);
	ck_assert_uint_eq(c->nchassis, 0);
	ck_assert_uint_eq(c->nhosts, 0);
	ck_assert_uint_eq(c->npartitions, 0);
	ck_assert_uint_eq(p->allow_topologies, FALCON_CONF_TOPO_ALL);
	ck_assert_int_eq(p->max_falcon_gpus, -1);
	ck_assert_int_eq(p->max_falcon_nvme, -1);
	ck_assert_int_eq(p->place, FALCON_PLACE_PACK);
	ck_assert_int_eq(p->check, FALCON_CHECK_QUICK);
	ck_assert_int_eq(p->check_action, FALCON_ACTION_DRAIN);
	ck_assert(p->min_busbw == 0.0);
}

/* FalcondUrl= lists (',' or quoted blanks): kept ','-joined, in order */
static void chk_url_list(const struct falcon_conf *c)
{
	ck_assert_str_eq(c->falcond_url, "http://ctl1:6830,http://ctl2:6830/,https://ctl3:6830");
}

static void chk_globals(const struct falcon_conf *c)
{
	ck_assert_str_eq(c->state_dir, "/srv/falcon/state");
	ck_assert_str_eq(c->advice_file, "/srv/falcon/advice.json");
	ck_assert_str_eq(c->listen_address, "0.0.0.0:7000");
	ck_assert_str_eq(c->falcond_url, "https://ctl.example.com:7000/");
	ck_assert_str_eq(c->sysfs_root, "/tmp/sim/%h");
	ck_assert_int_eq(c->cuda_visible, FALCON_CVD_INDEX);
	ck_assert_str_eq(c->slurm_user, "slurmadm");
	ck_assert_str_eq(c->munge_socket, "/run/munge/munge.socket.2");
	ck_assert_str_eq(c->run_dir, "/run/falcon2");
	ck_assert_str_eq(c->ncclcheck, "/opt/falcon/libexec/falcon-ncclcheck");
	ck_assert_int_eq(c->prolog_timeout, 600);
	ck_assert_int_eq(c->epilog_timeout, 240);
	ck_assert_int_eq(c->rescan_timeout, 45);
	ck_assert_int_eq(c->check_budget, 90);
	ck_assert_int_eq(c->chassis_retries, 0);
	ck_assert_int_eq(c->compose_wait, 45);
	ck_assert_int_eq(c->reconcile_interval, 0);
	ck_assert_int_eq(c->settle_time, 5);
	ck_assert_int_eq(c->unreachable_hold, 0);
}

static void chk_chassis(const struct falcon_conf *c)
{
	const struct falcon_chassis_conf *ch;

	ck_assert_uint_eq(c->nchassis, 2);
	ch = falcon_conf_chassis(c, "falcon1");
	ck_assert_ptr_nonnull(ch);
	ck_assert_str_eq(ch->url, "https://falcon1.example.com/");
	ck_assert_int_eq(ch->backend, FALCON_BACKEND_FABRIC);
	ck_assert_int_eq(ch->mode, FALCON_MODE_STANDARD);
	ck_assert_ptr_null(ch->credentials_file);
	ck_assert_ptr_null(ch->ca_file);
	ck_assert(!ch->insecure);
	ck_assert_int_eq(ch->events, FALCON_EVENTS_AUTO);
	ck_assert_int_eq(ch->timeout_s, 10);
	ck_assert_int_eq(ch->change_timeout_s, 120); /* real chassis: #29 */
	ck_assert(ch->parallel_ports); /* default yes */
	ck_assert_int_eq(ch->line, 1);
	ch = falcon_conf_chassis(c, "falcon2");
	ck_assert_ptr_nonnull(ch);
	ck_assert_str_eq(ch->url, "http://10.0.0.2:8080");
	ck_assert_int_eq(ch->backend, FALCON_BACKEND_COMPOSITION);
	ck_assert_int_eq(ch->mode, FALCON_MODE_ADVANCED);
	ck_assert_str_eq(ch->credentials_file, "/etc/falcon/falcon2.cred");
	ck_assert_str_eq(ch->ca_file, "/etc/falcon/ca.pem");
	ck_assert(ch->insecure);
	ck_assert_int_eq(ch->events, FALCON_EVENTS_SUBSCRIPTION);
	ck_assert_int_eq(ch->timeout_s, 30);
	ck_assert_int_eq(ch->change_timeout_s, 300);
	ck_assert(!ch->parallel_ports);
	ck_assert_int_eq(ch->line, 2);
	ck_assert_ptr_null(falcon_conf_chassis(c, "falcon3"));
}

static void chk_hosts(const struct falcon_conf *c)
{
	const struct falcon_host_conf *h;

	ck_assert_uint_eq(c->nhosts, 3);
	h = falcon_conf_host(c, "node1");
	ck_assert_ptr_nonnull(h);
	ck_assert_str_eq(h->chassis, "falcon1");
	ck_assert_int_eq(h->nports, 1);
	ck_assert_str_eq(h->ports[0], "H1");
	ck_assert_int_eq(h->nadapters, 1);
	ck_assert_str_eq(h->adapters[0], "0000:3b:00.0");
	h = falcon_conf_host(c, "node2");
	ck_assert_int_eq(h->nports, 2);
	ck_assert_str_eq(h->ports[0], "H2");
	ck_assert_str_eq(h->ports[1], "H3");
	ck_assert_int_eq(h->nadapters, 2);
	ck_assert_str_eq(h->adapters[0], "0000:3b:00.0");   /* "3b:00.0" */
	ck_assert_str_eq(h->adapters[1], "0001:af:1f.7");   /* "1:AF:1F.7" */
	h = falcon_conf_host(c, "node3.cluster.example.com");  /* short name */
	ck_assert_ptr_nonnull(h);
	ck_assert_str_eq(h->name, "node3");
	ck_assert_str_eq(h->adapters[0], "10000:01:00.0");
	ck_assert_ptr_null(falcon_conf_host(c, "node4"));
	ck_assert_ptr_null(falcon_conf_host(c, "node"));
}

static void chk_partitions(const struct falcon_conf *c)
{
	const struct falcon_partition_conf *p;

	ck_assert_uint_eq(c->npartitions, 3);
	p = falcon_conf_partition(c, "gpu");
	ck_assert_str_eq(p->name, "gpu");
	ck_assert_uint_eq(p->allow_topologies,
			  FALCON_CONF_TOPO_LOCALGPUS | FALCON_CONF_TOPO_HYBRIDGPUS);
	ck_assert_int_eq(p->max_falcon_gpus, 8);
	ck_assert_int_eq(p->max_falcon_nvme, 0);
	ck_assert_int_eq(p->place, FALCON_PLACE_SPREAD);
	ck_assert_int_eq(p->check, FALCON_CHECK_FULL);
	ck_assert_int_eq(p->check_action, FALCON_ACTION_FAIL);
	ck_assert(p->min_busbw == 18.5);
	ck_assert(p->min_p2p_bw_ff == 20.0);
	ck_assert(p->min_p2p_bw_fl == 15.0);
	ck_assert(p->min_p2p_bw_ll == 60.0);
	p = falcon_conf_partition(c, "debug");
	ck_assert_uint_eq(p->allow_topologies, FALCON_CONF_TOPO_ALL);
	ck_assert_int_eq(p->max_falcon_gpus, 16);
	ck_assert_int_eq(p->place, FALCON_PLACE_ANY);
	ck_assert_int_eq(p->check, FALCON_CHECK_OFF);
	ck_assert_int_eq(p->check_action, FALCON_ACTION_WARN);
	/* unknown partitions get the built-in defaults (no DEFAULT line) */
	p = falcon_conf_partition(c, "other");
	ck_assert_str_eq(p->name, "DEFAULT");
	ck_assert_int_eq(p->max_falcon_gpus, -1);
	p = falcon_conf_partition(c, "storage");
	ck_assert_uint_eq(p->allow_topologies, FALCON_CONF_TOPO_LOCALNVME |
			  FALCON_CONF_TOPO_FALCONNVME | FALCON_CONF_TOPO_FALCONGPUS);
}

static void chk_default_partition(const struct falcon_conf *c)
{
	const struct falcon_partition_conf *p;

	ck_assert_uint_eq(c->npartitions, 4);
	/* defined before any DEFAULT line: built-in defaults */
	p = falcon_conf_partition(c, "early");
	ck_assert_int_eq(p->max_falcon_gpus, -1);
	ck_assert_int_eq(p->check, FALCON_CHECK_QUICK);
	/* after DEFAULT: inherits, overrides one */
	p = falcon_conf_partition(c, "gpu");
	ck_assert_int_eq(p->max_falcon_gpus, 4);
	ck_assert_int_eq(p->check, FALCON_CHECK_OFF);
	ck_assert_int_eq(p->place, FALCON_PLACE_SPREAD);
	/* after the second DEFAULT line: both lines' keys */
	p = falcon_conf_partition(c, "late");
	ck_assert_int_eq(p->max_falcon_gpus, 4);
	ck_assert_int_eq(p->check, FALCON_CHECK_FULL);
	ck_assert_int_eq(p->check_action, FALCON_ACTION_WARN);
	/* unknown name: the (cumulative) DEFAULT entry */
	p = falcon_conf_partition(c, "nosuch");
	ck_assert_str_eq(p->name, "DEFAULT");
	ck_assert_int_eq(p->max_falcon_gpus, 4);
	ck_assert_int_eq(p->check_action, FALCON_ACTION_WARN);
	ck_assert_ptr_eq(falcon_conf_partition(c, NULL), p);
}

static void chk_continuation(const struct falcon_conf *c)
{
	const struct falcon_host_conf *h = falcon_conf_host(c, "node1");

	ck_assert_ptr_nonnull(h);
	ck_assert_int_eq(h->nports, 2);
	ck_assert_str_eq(h->ports[1], "H2");
	ck_assert_str_eq(h->adapters[1], "0000:d8:00.0");
	ck_assert_int_eq(h->line, 2);
	ck_assert_int_eq(c->prolog_timeout, 77);
}

static void chk_case(const struct falcon_conf *c)
{
	const struct falcon_partition_conf *p = falcon_conf_partition(c, "gpu");

	ck_assert_uint_eq(c->nchassis, 1);
	ck_assert_int_eq(c->chassis[0].backend, FALCON_BACKEND_COMPOSITION);
	ck_assert_int_eq(c->chassis[0].mode, FALCON_MODE_ADVANCED);
	ck_assert_str_eq(c->hosts[0].ports[0], "H4");
	ck_assert_str_eq(c->hosts[0].adapters[0], "0000:3b:00.0");
	ck_assert_int_eq(p->place, FALCON_PLACE_SPREAD);
	ck_assert_uint_eq(p->allow_topologies, FALCON_CONF_TOPO_FALCONGPUS);
	ck_assert_int_eq(c->prolog_timeout, 5);
	ck_assert_str_eq(c->state_dir, "/x");
}

static void chk_comments(const struct falcon_conf *c)
{
	ck_assert_str_eq(c->chassis[0].url, "https://falcon1/#frag");
	ck_assert_str_eq(c->chassis[0].credentials_file, "/etc/falcon/my cred#1");
	ck_assert_int_eq(c->prolog_timeout, 10);
	ck_assert_str_eq(c->state_dir, "/state#1");
}

static void chk_comment_cont(const struct falcon_conf *c)
{
	ck_assert_int_eq(c->prolog_timeout, 10);
	ck_assert_str_eq(c->state_dir, "/state");
}

static void chk_listen_v6(const struct falcon_conf *c)
{
	ck_assert_str_eq(c->listen_address, "[::1]:6830");
	ck_assert_str_eq(c->falcond_url, "http://[::1]:6830");
}

static void chk_status_listen(const struct falcon_conf *c)
{
	ck_assert_str_eq(c->status_listen, "0.0.0.0:6831");
	ck_assert_str_eq(c->listen_address, "127.0.0.1:6830");
}

static const struct {
	const char *name;
	const char *text;
	void (*check)(const struct falcon_conf *c);
} good_cases[] = {
	{ "empty", "", chk_defaults },
	{ "comments only", "# nothing\n\n   # indented\n\t\n", chk_defaults },
	{ "every global",
	  "StateDir=/srv/falcon/state\n"
	  "AdviceFile=/srv/falcon/advice.json\n"
	  "ListenAddress=0.0.0.0:7000\n"
	  "FalcondUrl=https://ctl.example.com:7000/\n"
	  "SysfsRoot=/tmp/sim/%h\n"
	  "CudaVisibleDevices=index\n"
	  "SlurmUser=slurmadm\n"
	  "MungeSocket=/run/munge/munge.socket.2\n"
	  "RunDir=/run/falcon2\n"
	  "NcclCheck=/opt/falcon/libexec/falcon-ncclcheck\n"
	  "PrologTimeout=600\nEpilogTimeout=240 RescanTimeout=45\n"
	  "CheckBudget=90\nChassisRetries=0\nComposeWait=45\n"
	  "ReconcileInterval=0 SettleTime=5 UnreachableHold=0\n", chk_globals },
	{ "FalcondUrl list, commas", "FalcondUrl=http://ctl1:6830,http://ctl2:6830/,https://ctl3:6830\n",
	  chk_url_list },
	{ "FalcondUrl list, quoted blanks",
	  "FalcondUrl=\"http://ctl1:6830  http://ctl2:6830/, https://ctl3:6830\"\n", chk_url_list },
	{ "every chassis key",
	  CHASSIS
	  "ChassisName=falcon2 Url=http://10.0.0.2:8080 Backend=redfish-composition "
	  "CredentialsFile=/etc/falcon/falcon2.cred Mode=advanced CAFile=/etc/falcon/ca.pem "
	  "Insecure=yes Timeout=30 ChangeTimeout=300 ParallelPorts=no Events=subscription\n",
	  chk_chassis },
	{ "every host key",
	  CHASSIS
	  "HostName=node1 Chassis=falcon1 Port=H1 Adapter=0000:3b:00.0\n"
	  "HostName=node2 Chassis=falcon1 Port=H2,h3 Adapter=3b:00.0,1:AF:1F.7\n"
	  "HostName=node3 Chassis=falcon1 Port=H4 Adapter=10000:01:00.0\n", chk_hosts },
	{ "every partition key",
	  "PartitionName=gpu AllowTopologies=localGPUs,hybridGPUs MaxFalconGPUs=8 "
	  "MaxFalconNVMe=0 Place=spread Check=full CheckAction=fail MinBusBW=18.5 "
	  "MinP2PBW_FF=20 MinP2PBW_FL=15.0 MinP2PBW_LL=60\n"
	  "PartitionName=debug AllowTopologies=ALL MaxFalconGPUs=16 Place=any Check=off "
	  "CheckAction=warn\n"
	  "PartitionName=storage AllowTopologies=localNVMe,falconNVMe,falconGPUs\n",
	  chk_partitions },
	{ "DEFAULT partition inheritance",
	  "PartitionName=early\n"
	  "PartitionName=DEFAULT MaxFalconGPUs=4 Place=spread\n"
	  "PartitionName=gpu Check=off\n"
	  "PartitionName=default Check=full CheckAction=warn\n"
	  "PartitionName=late\n", chk_default_partition },
	{ "continuation",
	  CHASSIS
	  "HostName=node1 \\\n"
	  "   Chassis=falcon1 Port=H1,\\\n"
	  "H2 Adapter=0000:3b:00.0,0000:d8:00.0   \\   \n"
	  "\n"
	  "PrologTimeout=\\\n77\n", chk_continuation },
	{ "case-insensitive keys and values",
	  "chassisname=falcon1 URL=https://falcon1/ BACKEND=Redfish-Composition mode=ADVANCED\n"
	  "hostname=node1 CHASSIS=falcon1 port=h4 adapter=0000:3B:00.0\n"
	  "partitionname=gpu place=SPREAD allowtopologies=FALCONGPUS\n"
	  "prologtimeout=5\r\nSTATEDIR=/x\n", chk_case },
	{ "comments and quotes",
	  "ChassisName=falcon1 Url=https://falcon1/#frag \\\n"
	  "  CredentialsFile=\"/etc/falcon/my cred#1\"  # quoted\n"
	  "#PrologTimeout=99\n"
	  "PrologTimeout=10 #comment\n"
	  "StateDir=/state#1 #comment\n", chk_comments },
	{ "comment ends a continued line",
	  "PrologTimeout=10 # comment \\\n"
	  "StateDir=/state\n", chk_comment_cont },
	{ "IPv6 ListenAddress", "ListenAddress=[::1]:6830\n", chk_listen_v6 },
	{ "StatusListen", "StatusListen=0.0.0.0:6831\n", chk_status_listen },
};

START_TEST(test_good_table)
{
	struct falcon_conf *c;

	c = load_ok(good_cases[_i].text);
	good_cases[_i].check(c);
	falcon_conf_free(c);
}
END_TEST

/* ---------------------------------------------------------------- */
/* Bad inputs: the error names file:line and the key */

static const struct {
	const char *text;
	int line;          /* expected line in "falcon.conf:LINE: " */
	const char *want;  /* a substring of the message (the key, what) */
	const char *want2; /* another one, or NULL */
} bad_cases[] = {
	{ "Foo=1\n", 1, "unknown key 'Foo'", NULL },
	{ "CudaVisibleDevices=ids\n", 1, "CudaVisibleDevices", "uuid|index" },
	{ "\n\nStateDir=/a Foo=1\n", 3, "unknown key 'Foo'", NULL },
	{ "ChassisName=c Url=http://c/ Foo=1\n", 1, "unknown key 'Foo' (ChassisName line)", NULL },
	{ "ChassisName=c Url=http://c/ Port=H1\n", 1, "unknown key 'Port' (ChassisName line)",
	  NULL },
	{ "PartitionName=p StateDir=/x\n", 1, "unknown key 'StateDir' (PartitionName line)",
	  NULL },
	{ "StateDir=/x HostName=n\n", 1, "HostName= must begin its line", NULL },
	{ "justaword\n", 1, "expected Key=Value, got 'justaword'", NULL },
	{ "PartitionName=p MaxFalconGPUs=x\n", 1,
	  "MaxFalconGPUs: expected an integer in [0, 16], got 'x'", NULL },
	{ "PartitionName=p MaxFalconGPUs=17\n", 1, "MaxFalconGPUs", "got '17'" },
	{ "PartitionName=p MaxFalconNVMe=-1\n", 1, "MaxFalconNVMe", "[0, 16]" },
	{ "PartitionName=p Place=random\n", 1, "Place: expected pack|spread|any, got 'random'",
	  NULL },
	{ "PartitionName=p Check=yes\n", 1, "Check: expected quick|full|off", NULL },
	{ "PartitionName=p CheckAction=reboot\n", 1, "CheckAction: expected drain|fail|warn",
	  NULL },
	{ "PartitionName=p AllowTopologies=localGPUs,bogus\n", 1, "AllowTopologies",
	  "got 'localGPUs,bogus'" },
	{ "PartitionName=p AllowTopologies=localGPUs,\n", 1, "AllowTopologies", NULL },
	{ "PartitionName=p MinBusBW=-1\n", 1, "MinBusBW: expected a bandwidth", "got '-1'" },
	{ "PartitionName=p MinP2PBW_FF=fast\n", 1, "MinP2PBW_FF", NULL },
	{ "PartitionName=p MinP2PBW_LL=nan\n", 1, "MinP2PBW_LL", NULL },
	{ "PartitionName=p Place=pack Place=spread\n", 1, "Place: given twice", NULL },
	{ "PartitionName=p\nPartitionName=p\n", 2, "duplicate PartitionName 'p' "
	  "(first at falcon.conf:1)", NULL },
	{ "PartitionName=\n", 1, "PartitionName: empty value", NULL },
	{ "PartitionName=a/b\n", 1, "PartitionName: expected a name", NULL },
	{ "ChassisName=c\n", 1, "ChassisName 'c': Url= is required", NULL },
	{ "ChassisName=c Url=ftp://c/\n", 1, "Url: expected an http:// or https:// URL",
	  "got 'ftp://c/'" },
	{ "ChassisName=c Url=falcon1\n", 1, "Url: expected", NULL },
	/* lib/core checks URLs without libcurl: each part of the authority */
	{ "ChassisName=c Url=http://\n", 1, "Url: expected", NULL },
	{ "ChassisName=c Url=http:///redfish\n", 1, "Url: expected", NULL },
	{ "ChassisName=c Url=http://:8000/\n", 1, "Url: expected", NULL },
	{ "ChassisName=c Url=http://c:0/\n", 1, "Url: expected", NULL },
	{ "ChassisName=c Url=http://c:65536/\n", 1, "Url: expected", NULL },
	{ "ChassisName=c Url=http://c:/\n", 1, "Url: expected", NULL },
	{ "ChassisName=c Url=http://c:80x/\n", 1, "Url: expected", NULL },
	{ "ChassisName=c Url=http://user@c/\n", 1, "Url: expected", NULL },
	{ "ChassisName=c Url=http://[]:80/\n", 1, "Url: expected", NULL },
	{ "ChassisName=c Url=http://[::1/\n", 1, "Url: expected", NULL },
	{ "ChassisName=c Url=http://[::1]x/\n", 1, "Url: expected", NULL },
	{ "ChassisName=c Url=http://c\x01/\n", 1, "Url: expected", NULL },
	{ "ChassisName=c Url=http://c/ Backend=ipmi\n", 1,
	  "Backend: expected redfish-fabric|redfish-composition|auto, got 'ipmi'", NULL },
	{ "ChassisName=c Url=http://c/ Mode=shared\n", 1, "Mode: expected standard|advanced",
	  NULL },
	{ "ChassisName=c Url=http://c/ Insecure=maybe\n", 1, "Insecure: expected yes|no", NULL },
	{ "ChassisName=c Url=http://c/ Timeout=0\n", 1, "Timeout: expected an integer in [1, 600]",
	  NULL },
	{ "ChassisName=c Url=http://c/ ChangeTimeout=0\n", 1,
	  "ChangeTimeout: expected an integer in [1, 3600]", NULL },
	{ "ChassisName=c Url=http://c/ ChangeTimeout=3601\n", 1, "ChangeTimeout", NULL },
	{ "ChassisName=c Url=http://c/ CAFile=ca.pem\n", 1, "CAFile: expected an absolute path",
	  NULL },
	{ "ChassisName=c Url=http://c/\n\nChassisName=c Url=http://d/\n", 3,
	  "duplicate ChassisName 'c' (first at falcon.conf:1)", NULL },
	{ CHASSIS "\n\nHostName=node1 Chassis=falcon1 Port=H1 Adapter=3b:00.0\n"
	  "HostName=node1 Chassis=falcon1 Port=H2 Adapter=3b:00.0\n", 5,
	  "duplicate HostName 'node1' (first at falcon.conf:4)", NULL },
	{ "HostName=n Chassis=nosuch Port=H1 Adapter=3b:00.0\n", 1,
	  "HostName 'n': Chassis 'nosuch' is not defined", NULL },
	{ CHASSIS "HostName=n Port=H1 Adapter=3b:00.0\n", 2, "Chassis= is required", NULL },
	{ CHASSIS "HostName=n Chassis=falcon1 Adapter=3b:00.0\n", 2, "Port= is required", NULL },
	{ CHASSIS "HostName=n Chassis=falcon1 Port=H1\n", 2, "Adapter= is required", NULL },
	{ CHASSIS "HostName=n Chassis=falcon1 Port=H5 Adapter=3b:00.0\n", 2,
	  "Port: expected a host port H1..H4, got 'H5'", NULL },
	{ CHASSIS "HostName=n Chassis=falcon1 Port=P1 Adapter=3b:00.0\n", 2, "Port", "'P1'" },
	{ CHASSIS "HostName=n Chassis=falcon1 Port=H1,H2,H3,H4,H1 Adapter=3b:00.0\n", 2,
	  "Port: expected a ',' list of 1 to 4", NULL },
	{ CHASSIS "HostName=n Chassis=falcon1 Port=H1,H1 Adapter=3b:00.0\n", 2,
	  "Port: host port H1 listed twice", NULL },
	{ CHASSIS "HostName=n Chassis=falcon1 Port=H1 Adapter=3b:00.0,0000:3B:00.0\n", 2,
	  "Adapter: 0000:3b:00.0 listed twice", NULL },
	{ CHASSIS "HostName=n Chassis=falcon1 Port=H1 Adapter=3b:00\n", 2,
	  "Adapter: expected a PCI address", "got '3b:00'" },
	{ CHASSIS "HostName=n Chassis=falcon1 Port=H1 Adapter=3b:20.0\n", 2, "Adapter", "3b:20.0" },
	{ CHASSIS "HostName=n Chassis=falcon1 Port=H1 Adapter=3b:00.8\n", 2, "Adapter", NULL },
	{ CHASSIS "HostName=n Chassis=falcon1 Port=H1 Adapter=g3:00.0\n", 2, "Adapter", NULL },
	{ CHASSIS "HostName=n Chassis=falcon1 Port=H1 Adapter=123456:3b:00.0\n", 2, "Adapter",
	  NULL },
	{ CHASSIS "HostName=n Chassis=falcon1 Port=H1 Adapter=0:0:3b:00.0\n", 2, "Adapter", NULL },
	{ CHASSIS "HostName=n Chassis=falcon1 Port=H1 Adapter=+3:00.0\n", 2, "Adapter", NULL },
	{ CHASSIS "HostName=a Chassis=falcon1 Port=H1 Adapter=3b:00.0\n"
	  "HostName=b Chassis=falcon1 Port=H2,H1 Adapter=3b:00.0\n", 3,
	  "Port H1 of chassis 'falcon1' is already used by HostName 'a' (falcon.conf:2)", NULL },
	{ "ListenAddress=localhost\n", 1, "ListenAddress: expected HOST:PORT", NULL },
	{ "ListenAddress=localhost:0\n", 1, "ListenAddress", "got 'localhost:0'" },
	{ "ListenAddress=localhost:65536\n", 1, "ListenAddress", NULL },
	{ "ListenAddress=:80\n", 1, "ListenAddress", NULL },
	{ "ListenAddress=::1:80\n", 1, "ListenAddress", NULL },
	{ "StatusListen=localhost\n", 1, "StatusListen: expected HOST:PORT", NULL },
	{ "StatusListen=127.0.0.1:0\n", 1, "StatusListen", "got '127.0.0.1:0'" },
	{ "FalcondUrl=127.0.0.1:6830\n", 1, "FalcondUrl: expected an http:// or https:// URL",
	  NULL },
	{ "\nFalcondUrl=http://ctl1:6830,ctl2:6830\n", 2,
	  "FalcondUrl: expected an http:// or https:// URL, got 'ctl2:6830'", NULL },
	{ "FalcondUrl=\" , \"\n", 1, "FalcondUrl: expected a ',' or blank separated list", NULL },
	{ "FalcondUrl=http://a:1,http://b:1,http://c:1,http://d:1,http://e:1,http://f:1,"
	  "http://g:1,http://h:1,http://i:1\n", 1, "FalcondUrl: more than 8 URLs", NULL },
	{ "StateDir=relative/dir\n", 1, "StateDir: expected an absolute path", NULL },
	{ "StateDir=/a\nStateDir=/b\n", 2, "StateDir: set twice (first at falcon.conf:1)", NULL },
	{ "StateDir=\n", 1, "StateDir: empty value", NULL },
	{ "PrologTimeout=0\n", 1, "PrologTimeout: expected an integer in [1, 86400], got '0'",
	  NULL },
	{ "EpilogTimeout=1e3\n", 1, "EpilogTimeout", NULL },
	{ "RescanTimeout=3601\n", 1, "RescanTimeout", NULL },
	{ "CheckBudget= 5\n", 1, "CheckBudget: empty value", NULL },
	{ "ChassisRetries=11\n", 1, "ChassisRetries: expected an integer in [0, 10]", NULL },
	{ "ChassisRetries=0x3\n", 1, "ChassisRetries", NULL },
	{ "ComposeWait=0\n", 1, "ComposeWait: expected an integer in [1, 86400], got '0'", NULL },
	{ "ReconcileInterval=-1\n", 1, "ReconcileInterval: expected an integer in [0, 86400]",
	  NULL },
	{ "ReconcileInterval=30s\n", 1, "ReconcileInterval", "got '30s'" },
	{ "SettleTime=0\n", 1, "SettleTime: expected an integer in [1, 3600], got '0'", NULL },
	{ "HostName=a HostName=b\n", 1, "HostName: given twice on one HostName line", NULL },
	{ "ChassisName=c Url=http://c/ HostName=b\n", 1,
	  "unknown key 'HostName' (ChassisName line)", NULL },
	{ "PartitionName=p MaxFalconGPUs=123456789012345678901234567890123456789012345678901234"
	  "567890123456789012345678901234567890\n", 1, "MaxFalconGPUs",
	  "got '1234567890123456789012345678901234567890123456789012345678901234567890123456...'" },
	{ "Include /dev/null\n", 1, "Include: /dev/null is not a regular file", NULL },
	{ "PrologTimeout=10#x\n", 1, "PrologTimeout", "got '10#x'" },
	{ "SlurmUser=\"unterminated\n", 1, "unterminated", NULL },
	{ "Include\n", 1, "Include: expected one PATH", NULL },
	{ "Include a b\n", 1, "Include: expected one PATH", NULL },
	{ "\nInclude nosuch.conf\n", 2, "Include: cannot read", "nosuch.conf" },
	{ "PrologTimeout=5 \\\n\\\n  Bogus=1\n", 3, "unknown key 'Bogus'", NULL },
};

START_TEST(test_bad_table)
{
	struct falcon_conf *c = (struct falcon_conf *)&c;  /* must be reset to NULL */
	char where[64];
	const char *msg;

	ck_assert_int_eq(load_text(bad_cases[_i].text, &c), FALCON_ERR_CONFIG);
	ck_assert_ptr_null(c);
	msg = falcon_errmsg();
	snprintf(where, sizeof(where), "falcon.conf:%d: ", bad_cases[_i].line);
	ck_assert_msg(strncmp(msg, where, strlen(where)) == 0,
		      "case %d: '%s' does not start with '%s'", _i, msg, where);
	ck_assert_msg(strstr(msg, bad_cases[_i].want) != NULL,
		      "case %d: '%s' lacks '%s'", _i, msg, bad_cases[_i].want);
	if (bad_cases[_i].want2 != NULL)
		ck_assert_msg(strstr(msg, bad_cases[_i].want2) != NULL,
			      "case %d: '%s' lacks '%s'", _i, msg, bad_cases[_i].want2);
}
END_TEST

/* The event receiver's keys: defaults, the URL made from EventListen,
 * and the cross-checks (falcon.conf(5), EventListen=). */
START_TEST(test_event_keys)
{
	static const struct { const char *text, *want; } bad[] = {
		{ "EventListen=127.0.0.1:7000 EventCertFile=/etc/c.pem\n", "go together" },
		{ "EventUrl=https://falcond:7000\n", "need EventListen=" },
		{ "EventListen=0.0.0.0:7000\n", "set EventUrl=" },
	};
	struct falcon_conf *c = NULL;
	size_t i;

	ck_assert_int_eq(load_text("ChassisName=c Url=http://c/\n", &c), FALCON_OK);
	ck_assert_ptr_null(c->event_listen);
	ck_assert_ptr_null(c->event_url);
	ck_assert_int_eq(c->chassis[0].events, FALCON_EVENTS_AUTO);
	falcon_conf_free(c);
	ck_assert_int_eq(load_text("EventListen=127.0.0.1:7000\n"
				   "ChassisName=c Url=http://c/ Events=sse\n", &c), FALCON_OK);
	ck_assert_str_eq(c->event_url, "http://127.0.0.1:7000");
	ck_assert_int_eq(c->chassis[0].events, FALCON_EVENTS_SSE);
	falcon_conf_free(c);
	ck_assert_int_eq(load_text("EventListen=0.0.0.0:7000 EventUrl=https://f.example:7000 "
				   "EventCertFile=/etc/c.pem EventKeyFile=/etc/c.key\n", &c), FALCON_OK);
	ck_assert_str_eq(c->event_url, "https://f.example:7000");
	ck_assert_str_eq(c->event_key_file, "/etc/c.key");
	falcon_conf_free(c);
	ck_assert_int_eq(load_text("EventListen=127.0.0.1:7000 EventCertFile=/etc/c.pem "
				   "EventKeyFile=/etc/c.key\n", &c), FALCON_OK);
	ck_assert_str_eq(c->event_url, "https://127.0.0.1:7000");
	falcon_conf_free(c);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		c = NULL;
		ck_assert_int_eq(load_text(bad[i].text, &c), FALCON_ERR_CONFIG);
		ck_assert_ptr_null(c);
		ck_assert_msg(strstr(falcon_errmsg(), bad[i].want) != NULL, "'%s' lacks '%s'",
			      falcon_errmsg(), bad[i].want);
	}
	ck_assert_int_eq(load_text("ChassisName=c Url=http://c/ Events=snmp\n", &c), FALCON_ERR_CONFIG);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "Events: expected auto|sse|subscription"));
}
END_TEST

/* ---------------------------------------------------------------- */
/* Include */

START_TEST(test_include)
{
	struct falcon_conf *c = NULL;
	char path[PATH_MAX + 32];
	const struct falcon_host_conf *h;

	falcon_strlcpy(tmp, make_tmpdir("conf"), sizeof(tmp));
	snprintf(path, sizeof(path), "%s/sub", tmp);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	write_at(tmp, "falcon.conf",
		 "StateDir=/state\n"
		 "include sub/chassis.conf\n"
		 "HostName=node1 Chassis=falcon1 Port=H1 Adapter=0000:3b:00.0\n");
	/* relative to the including file's directory (sub/), not the cwd */
	write_at(path, "chassis.conf", "# chassis\nInclude more.conf\n" CHASSIS);
	write_at(path, "more.conf", "PrologTimeout=42\n");
	ck_assert_int_eq(chdir("/"), 0);
	snprintf(path, sizeof(path), "%s/falcon.conf", tmp);
	ck_assert_msg(falcon_conf_load(path, &c) == FALCON_OK, "%s", falcon_errmsg());
	ck_assert_str_eq(c->path, path);
	ck_assert_int_eq(c->prolog_timeout, 42);
	ck_assert_uint_eq(c->nfiles, 3);
	ck_assert_str_eq(c->chassis[0].file, c->files[1]);
	ck_assert_ptr_nonnull(strstr(c->chassis[0].file, "/sub/chassis.conf"));
	ck_assert_int_eq(c->chassis[0].line, 3);
	h = falcon_conf_host(c, "node1");
	ck_assert_ptr_eq(h->file, c->files[0]);
	ck_assert_int_eq(h->line, 3);
	falcon_conf_free(c);

	/* an error inside an included file names that file and line */
	snprintf(path, sizeof(path), "%s/sub", tmp);
	write_at(path, "more.conf", "\nPrologTimeout=forever\n");
	snprintf(path, sizeof(path), "%s/falcon.conf", tmp);
	c = NULL;
	ck_assert_int_eq(falcon_conf_load(path, &c), FALCON_ERR_CONFIG);
	ck_assert_ptr_null(c);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "/sub/more.conf:2: PrologTimeout"));
}
END_TEST

START_TEST(test_include_loop)
{
	struct falcon_conf *c = NULL;

	falcon_strlcpy(tmp, make_tmpdir("conf"), sizeof(tmp));
	ck_assert_int_eq(chdir(tmp), 0);
	write_at(tmp, "falcon.conf", "Include a.conf\n");
	write_at(tmp, "a.conf", "\nInclude b.conf\n");
	write_at(tmp, "b.conf", "\n\nInclude ./a.conf\n");
	ck_assert_int_eq(falcon_conf_load("falcon.conf", &c), FALCON_ERR_CONFIG);
	ck_assert_ptr_null(c);
	ck_assert_msg(strstr(falcon_errmsg(), "b.conf:3: Include: loop") != NULL,
		      "%s", falcon_errmsg());
	/* a file including itself */
	write_at(tmp, "falcon.conf", "Include falcon.conf\n");
	ck_assert_int_eq(falcon_conf_load("falcon.conf", &c), FALCON_ERR_CONFIG);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "falcon.conf:1: Include: loop"));
}
END_TEST

START_TEST(test_include_depth)
{
	struct falcon_conf *c = NULL;
	char name[32], text[64];
	int i;

	falcon_strlcpy(tmp, make_tmpdir("conf"), sizeof(tmp));
	ck_assert_int_eq(chdir(tmp), 0);
	/* falcon.conf -> d1 -> ... -> d8: 8 levels of Include are fine */
	write_at(tmp, "falcon.conf", "Include d1.conf\n");
	for (i = 1; i <= 9; i++) {
		snprintf(name, sizeof(name), "d%d.conf", i);
		snprintf(text, sizeof(text), "Include d%d.conf\n", i + 1);
		write_at(tmp, name, i == 8 ? "PrologTimeout=8\n" : text);
	}
	ck_assert_msg(falcon_conf_load("falcon.conf", &c) == FALCON_OK, "%s", falcon_errmsg());
	ck_assert_int_eq(c->prolog_timeout, 8);
	ck_assert_uint_eq(c->nfiles, 9);
	falcon_conf_free(c);
	c = NULL;
	/* the 9th level is refused */
	write_at(tmp, "d8.conf", "Include d9.conf\n");
	write_at(tmp, "d9.conf", "PrologTimeout=9\n");
	ck_assert_int_eq(falcon_conf_load("falcon.conf", &c), FALCON_ERR_CONFIG);
	ck_assert_ptr_null(c);
	ck_assert_msg(strstr(falcon_errmsg(), "d8.conf:1: Include: 'd9.conf' nested more "
			     "than 8 deep") != NULL, "%s", falcon_errmsg());
}
END_TEST

/* ---------------------------------------------------------------- */
/* Missing file, paths, helpers */

START_TEST(test_missing_file)
{
	struct falcon_conf *c = (struct falcon_conf *)&c;

	falcon_strlcpy(tmp, make_tmpdir("conf"), sizeof(tmp));
	ck_assert_int_eq(chdir(tmp), 0);
	ck_assert_int_eq(falcon_conf_load("nosuch.conf", &c), FALCON_ERR_NOTFOUND);
	ck_assert_ptr_null(c);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "nosuch.conf"));
	ck_assert_int_eq(falcon_conf_load(NULL, &c), FALCON_ERR_INVAL);
}
END_TEST

START_TEST(test_conf_path)
{
	unsetenv("FALCON_CONF");
	ck_assert_str_eq(falcon_conf_path(NULL), FALCON_SYSCONFDIR "/falcon/falcon.conf");
	setenv("FALCON_CONF", "", 1);
	ck_assert_str_eq(falcon_conf_path(NULL), FALCON_SYSCONFDIR "/falcon/falcon.conf");
	setenv("FALCON_CONF", "/env/falcon.conf", 1);
	ck_assert_str_eq(falcon_conf_path(NULL), "/env/falcon.conf");
	ck_assert_str_eq(falcon_conf_path("/cli.conf"), "/cli.conf");
	unsetenv("FALCON_CONF");
}
END_TEST

START_TEST(test_sysfs_root)
{
	struct falcon_conf *c = load_ok("SysfsRoot=/sim/%h/x%h\n");
	char buf[64];

	ck_assert_str_eq(falcon_conf_sysfs_root(c, "node1.example.com", buf, sizeof(buf)),
			 "/sim/node1/xnode1");
	ck_assert_ptr_null(falcon_conf_sysfs_root(c, "node1", buf, 10));
	ck_assert_ptr_nonnull(falcon_conf_sysfs_root(c, NULL, buf, sizeof(buf)));
	falcon_conf_free(c);
	c = load_ok("");
	ck_assert_str_eq(falcon_conf_sysfs_root(c, "n", buf, sizeof(buf)), "/sys");
	falcon_conf_free(c);
}
END_TEST

START_TEST(test_enum_strings)
{
	falcon_place_t pl;
	falcon_check_t ck;
	falcon_action_t ac;
	falcon_backend_t be;
	falcon_mode_t mo;
	unsigned t, bit;
	char buf[128];

	for (pl = FALCON_PLACE_PACK; pl <= FALCON_PLACE_ANY; pl++) {
		falcon_place_t back;

		ck_assert_int_eq(falcon_place_from_str(falcon_place_str(pl), &back), FALCON_OK);
		ck_assert_int_eq(back, pl);
	}
	for (ck = FALCON_CHECK_QUICK; ck <= FALCON_CHECK_OFF; ck++) {
		falcon_check_t back;

		ck_assert_int_eq(falcon_check_from_str(falcon_check_str(ck), &back), FALCON_OK);
		ck_assert_int_eq(back, ck);
	}
	for (ac = FALCON_ACTION_DRAIN; ac <= FALCON_ACTION_WARN; ac++) {
		falcon_action_t back;

		ck_assert_int_eq(falcon_action_from_str(falcon_action_str(ac), &back), FALCON_OK);
		ck_assert_int_eq(back, ac);
	}
	for (be = FALCON_BACKEND_FABRIC; be <= FALCON_BACKEND_COMPOSITION; be++) {
		falcon_backend_t back;

		ck_assert_int_eq(falcon_backend_from_str(falcon_backend_str(be), &back), FALCON_OK);
		ck_assert_int_eq(back, be);
	}
	for (mo = FALCON_MODE_STANDARD; mo <= FALCON_MODE_ADVANCED; mo++) {
		falcon_mode_t back;

		ck_assert_int_eq(falcon_mode_from_str(falcon_mode_str(mo), &back), FALCON_OK);
		ck_assert_int_eq(back, mo);
	}
	ck_assert_str_eq(falcon_place_str(FALCON_PLACE_SPREAD), "spread");
	ck_assert_str_eq(falcon_check_str(FALCON_CHECK_OFF), "off");
	ck_assert_str_eq(falcon_action_str(FALCON_ACTION_WARN), "warn");
	ck_assert_str_eq(falcon_backend_str(FALCON_BACKEND_COMPOSITION), "redfish-composition");
	ck_assert_str_eq(falcon_mode_str(FALCON_MODE_ADVANCED), "advanced");
	ck_assert_str_eq(falcon_place_str((falcon_place_t)7), "unknown");
	ck_assert_int_eq(falcon_place_from_str("nope", &pl), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_check_from_str(NULL, &ck), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_action_from_str("", &ac), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_backend_from_str("redfish", &be), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_mode_from_str("std", &mo), FALCON_ERR_INVAL);

	for (bit = 1; bit <= FALCON_CONF_TOPO_FALCONNVME; bit <<= 1) {
		ck_assert_str_ne(falcon_conf_topo_label_str(bit), "");
		ck_assert_int_eq(falcon_conf_topo_label_from_str(falcon_conf_topo_label_str(bit),
								 &t), FALCON_OK);
		ck_assert_uint_eq(t, bit);
	}
	ck_assert_str_eq(falcon_conf_topo_label_str(FALCON_CONF_TOPO_HYBRIDGPUS), "hybridGPUs");
	ck_assert_str_eq(falcon_conf_topo_label_str(0), "");
	ck_assert_str_eq(falcon_conf_topo_label_str(FALCON_CONF_TOPO_LOCALGPUS |
						    FALCON_CONF_TOPO_LOCALNVME), "");
	ck_assert_int_eq(falcon_conf_topo_label_from_str("all", &t), FALCON_OK);
	ck_assert_uint_eq(t, FALCON_CONF_TOPO_ALL);
	ck_assert_int_eq(falcon_conf_topo_label_from_str("nvlinkGPUs", &t), FALCON_ERR_INVAL);
	ck_assert_str_eq(falcon_conf_topo_set_str(FALCON_CONF_TOPO_FALCONNVME |
						  FALCON_CONF_TOPO_LOCALGPUS, buf, sizeof(buf)),
			 "localGPUs,falconNVMe");
	ck_assert_str_eq(falcon_conf_topo_set_str(0, buf, sizeof(buf)), "");
	ck_assert_ptr_null(falcon_conf_topo_set_str(FALCON_CONF_TOPO_ALL, buf, 12));
}
END_TEST

START_TEST(test_parse_string)
{
	struct falcon_conf *c = NULL;

	ck_assert_int_eq(falcon_conf_parse("inline", CHASSIS "PrologTimeout=7\n", &c), FALCON_OK);
	ck_assert_int_eq(c->prolog_timeout, 7);
	ck_assert_str_eq(c->chassis[0].file, "inline");
	falcon_conf_free(c);
	c = NULL;
	ck_assert_int_eq(falcon_conf_parse("inline", "\n\nNope=1\n", &c), FALCON_ERR_CONFIG);
	ck_assert_str_eq(falcon_errmsg(), "inline:3: unknown key 'Nope'");
	falcon_conf_free(NULL);
}
END_TEST

/* A whole site's file: two chassis, a conf.d Include, DEFAULT, file order. */
START_TEST(test_realistic)
{
	static const char *main_conf =
		"# falcon.conf of a two-chassis site\n"
		"StateDir=/var/lib/falcon\n"
		"ListenAddress=10.1.0.1:6830\n"
		"FalcondUrl=https://falcond.cluster.example.com:6830/\n"
		"SlurmUser=slurm\n"
		"MungeSocket=/run/munge/munge.socket.2\n"
		"PrologTimeout=600   # NCCL full checks take a while\n"
		"EpilogTimeout=180\n"
		"\n"
		"ChassisName=falcon1 Url=https://falcon1.mgmt.example.com/ Backend=redfish-fabric \\\n"
		"\tMode=standard CredentialsFile=/etc/falcon/falcon1.cred \\\n"
		"\tCAFile=/etc/falcon/ca.pem Timeout=15\n"
		"ChassisName=falcon2 Url=http://10.1.9.2:8000 Backend=redfish-composition \\\n"
		"\tMode=advanced Insecure=no\n"
		"\n"
		"HostName=node1 Chassis=falcon1 Port=H1 Adapter=0000:3b:00.0\n"
		"HostName=node2 Chassis=falcon1 Port=H2 Adapter=0000:3b:00.0\n"
		"HostName=node3 Chassis=falcon1 Port=H3,H4 Adapter=0000:3b:00.0,0000:d8:00.0\n"
		"HostName=node4 Chassis=falcon2 Port=H1 Adapter=0000:5e:00.0\n"
		"HostName=node5 Chassis=falcon2 Port=H2 Adapter=0000:5e:00.0\n"
		"HostName=node6 Chassis=falcon2 Port=H3 Adapter=0000:5e:00.0\n"
		"\n"
		"Include falcon.conf.d/partitions.conf\n";
	static const char *parts_conf =
		"PartitionName=DEFAULT Check=quick CheckAction=drain MaxFalconNVMe=1\n"
		"PartitionName=train AllowTopologies=hybridGPUs,falconGPUs,falconNVMe \\\n"
		"\tMaxFalconGPUs=8 Place=pack Check=full MinBusBW=10.5 \\\n"
		"\tMinP2PBW_FF=20 MinP2PBW_FL=15 MinP2PBW_LL=60\n"
		"PartitionName=infer AllowTopologies=localGPUs MaxFalconGPUs=0\n"
		"PartitionName=bulk Place=spread CheckAction=warn\n";
	struct falcon_conf *c = NULL;
	const struct falcon_partition_conf *p;
	char path[PATH_MAX + 32];
	size_t i;

	falcon_strlcpy(tmp, make_tmpdir("conf"), sizeof(tmp));
	write_at(tmp, "falcon.conf", main_conf);
	snprintf(path, sizeof(path), "%s/falcon.conf.d", tmp);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	write_at(path, "partitions.conf", parts_conf);
	snprintf(path, sizeof(path), "%s/falcon.conf", tmp);
	ck_assert_msg(falcon_conf_load(path, &c) == FALCON_OK, "%s", falcon_errmsg());

	ck_assert_str_eq(c->falcond_url, "https://falcond.cluster.example.com:6830/");
	ck_assert_int_eq(c->prolog_timeout, 600);
	ck_assert_int_eq(c->rescan_timeout, 30);
	ck_assert_uint_eq(c->nchassis, 2);
	ck_assert_str_eq(c->chassis[0].name, "falcon1");   /* file order */
	ck_assert_int_eq(c->chassis[0].timeout_s, 15);
	ck_assert_int_eq(c->chassis[0].line, 10);
	ck_assert_int_eq(c->chassis[1].backend, FALCON_BACKEND_COMPOSITION);
	ck_assert_int_eq(c->chassis[1].line, 13);
	ck_assert_uint_eq(c->nhosts, 6);
	for (i = 0; i < c->nhosts; i++) {
		char want[32];

		snprintf(want, sizeof(want), "node%zu", i + 1);
		ck_assert_str_eq(c->hosts[i].name, want);
		ck_assert_int_eq(c->hosts[i].line, 16 + (int)i);
		ck_assert_ptr_nonnull(falcon_conf_chassis(c, c->hosts[i].chassis));
	}
	ck_assert_str_eq(c->hosts[5].chassis, "falcon2");
	ck_assert_str_eq(c->hosts[5].ports[0], "H3");
	ck_assert_uint_eq(c->npartitions, 4);
	ck_assert_str_eq(c->partitions[0].name, "DEFAULT");
	p = falcon_conf_partition(c, "train");
	ck_assert_ptr_nonnull(strstr(p->file, "falcon.conf.d/partitions.conf"));
	ck_assert_int_eq(p->line, 2);
	ck_assert_int_eq(p->max_falcon_nvme, 1);
	ck_assert(p->min_busbw == 10.5);
	p = falcon_conf_partition(c, "infer");
	ck_assert_int_eq(p->max_falcon_gpus, 0);
	ck_assert_int_eq(p->check, FALCON_CHECK_QUICK);
	p = falcon_conf_partition(c, "bulk");
	ck_assert_int_eq(p->place, FALCON_PLACE_SPREAD);
	ck_assert_int_eq(p->check_action, FALCON_ACTION_WARN);
	ck_assert_int_eq(p->max_falcon_gpus, -1);
	falcon_conf_free(c);
}
END_TEST

/* Files that are not text, or too long, are configuration errors. */
START_TEST(test_odd_files)
{
	struct falcon_conf *c = NULL;
	char *big;
	FILE *f;

	falcon_strlcpy(tmp, make_tmpdir("conf"), sizeof(tmp));
	ck_assert_int_eq(chdir(tmp), 0);
	f = fopen("nul.conf", "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite("StateDir=/a\0b\n", 1, 14, f), 14);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(falcon_conf_load("nul.conf", &c), FALCON_ERR_CONFIG);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "nul.conf: contains a NUL byte"));
	big = malloc(2 << 20);
	ck_assert_ptr_nonnull(big);
	memset(big, '#', (2 << 20) - 1);
	big[(2 << 20) - 1] = '\0';
	write_at(tmp, "big.conf", big);
	free(big);
	ck_assert_int_eq(falcon_conf_load("big.conf", &c), FALCON_ERR_CONFIG);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "big.conf: longer than"));
	/* a directory */
	ck_assert_int_eq(mkdir("dir.conf", 0700), 0);
	ck_assert_int_eq(falcon_conf_load("dir.conf", &c), FALCON_ERR_IO);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "dir.conf"));
	ck_assert_ptr_null(c);
}
END_TEST

/* The shipped example parses cleanly and says what its comments say. */
START_TEST(test_example_file)
{
	struct falcon_conf *c = NULL;
	const struct falcon_host_conf *h;
	const struct falcon_partition_conf *p;

	ck_assert_msg(falcon_conf_load(FALCON_TEST_SRCDIR "/examples/falcon.conf", &c)
		      == FALCON_OK, "%s", falcon_errmsg());
	ck_assert_uint_eq(c->nchassis, 1);
	ck_assert_str_eq(c->chassis[0].name, "falcon1");
	ck_assert_uint_eq(c->nhosts, 3);
	h = falcon_conf_host(c, "node1");
	ck_assert_ptr_nonnull(h);
	ck_assert_str_eq(h->ports[0], "H1");
	ck_assert_str_eq(h->adapters[0], "0000:3b:00.0");
	h = falcon_conf_host(c, "node3");
	ck_assert_int_eq(h->nports, 2);
	ck_assert_int_eq(h->nadapters, 2);
	p = falcon_conf_partition(c, "gpu");
	ck_assert_int_eq(p->max_falcon_gpus, 8);
	ck_assert_int_eq(p->check, FALCON_CHECK_FULL);
	ck_assert_int_eq(p->check_action, FALCON_ACTION_DRAIN);
	p = falcon_conf_partition(c, "debug");
	ck_assert_int_eq(p->check, FALCON_CHECK_OFF);
	ck_assert_int_eq(c->prolog_timeout, 300);
	falcon_conf_free(c);
}
END_TEST

/* The EXAMPLE of doc/falcon.conf.5 parses too (its Include included). */
START_TEST(test_manpage_example)
{
	struct falcon_conf *c = NULL;
	char *man = NULL, *ex, *end, *out, *o, path[PATH_MAX + 32];
	const char *p;

	ck_assert_int_eq(falcon_read_file(FALCON_TEST_SRCDIR "/doc/falcon.conf.5", 1 << 20,
					  &man, NULL), FALCON_OK);
	ex = strstr(man, "\n.SH EXAMPLE\n");
	ck_assert_ptr_nonnull(ex);
	ex = strstr(ex, "\n.nf\n");
	ck_assert_ptr_nonnull(ex);
	ex += strlen("\n.nf\n");
	end = strstr(ex, "\n.fi\n");
	ck_assert_ptr_nonnull(end);
	out = o = malloc((size_t)(end - ex) + 2);
	ck_assert_ptr_nonnull(out);
	for (p = ex; p < end; p++) {       /* roff "\e" is a backslash */
		if (p[0] == '\\' && p[1] == 'e') {
			*o++ = '\\';
			p++;
			continue;
		}
		*o++ = *p;
	}
	*o++ = '\n';
	*o = '\0';
	falcon_strlcpy(tmp, make_tmpdir("conf"), sizeof(tmp));
	write_at(tmp, "falcon.conf", out);
	snprintf(path, sizeof(path), "%s/falcon.conf.d", tmp);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	write_at(path, "site.conf", "# site additions\n");
	snprintf(path, sizeof(path), "%s/falcon.conf", tmp);
	ck_assert_msg(falcon_conf_load(path, &c) == FALCON_OK, "%s", falcon_errmsg());
	ck_assert_uint_eq(c->nhosts, 3);
	ck_assert_int_eq(falcon_conf_host(c, "node3")->nports, 2);
	ck_assert_int_eq(falcon_conf_partition(c, "gpu")->check, FALCON_CHECK_FULL);
	falcon_conf_free(c);
	free(out);
	free(man);
}
END_TEST

/* ---------------------------------------------------------------- */
/* The lexer (conf_lex.h) on its own */

/* The next line of lx must be the n words want (each "TEXT" or "KEY=VALUE"),
 * all from file, the first starting on physical line line. */
static void lex_expect(struct conf_lex *lx, const char *file, int line, size_t n,
		       const char *const *want)
{
	struct conf_tok *t = NULL;
	size_t got = 99, i;

	ck_assert_msg(conf_lex_next(lx, &t, &got) == FALCON_OK, "%s", falcon_errmsg());
	ck_assert_uint_eq(got, n);
	ck_assert_int_eq(t[0].line, line);
	for (i = 0; i < n; i++) {
		ck_assert_str_eq(t[i].text, want[i]);
		ck_assert_str_eq(t[i].file, file);
		if (strchr(want[i], '=') == NULL)
			ck_assert_ptr_null(t[i].eq);
		else
			ck_assert_ptr_eq(t[i].eq, t[i].text + (strchr(want[i], '=') - want[i]));
	}
}

START_TEST(test_lex_words)
{
	static const char *const l1[] = { "A=1", "b c=d#no" };
	static const char *const l4[] = { "E=x y", "F" };
	static const char *const l6[] = { "=" };
	static const char *const l7[] = { "G" };
	struct conf_lex *lx = NULL;
	struct conf_tok *t = NULL;
	char **files = NULL;
	size_t n = 99;

	/* quotes removed, '#' only at a word's start, blank and comment lines
	 * skipped, '\' joins lines (each word keeps its own line) unless a
	 * comment hides it, CRLF */
	ck_assert_int_eq(conf_lex_open_text("dir/x.conf",
					    "A=1 \"b c\"=d#no\r\n# comment\n\n"
					    "  E=\"x y\" \\\n\tF #c \\\n = \nG", &lx), FALCON_OK);
	lex_expect(lx, "dir/x.conf", 1, ARRAY_SIZE(l1), l1);
	lex_expect(lx, "dir/x.conf", 4, ARRAY_SIZE(l4), l4);
	lex_expect(lx, "dir/x.conf", 6, ARRAY_SIZE(l6), l6);
	lex_expect(lx, "dir/x.conf", 7, ARRAY_SIZE(l7), l7);
	ck_assert_int_eq(conf_lex_next(lx, &t, &n), FALCON_OK);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(conf_lex_next(lx, &t, &n), FALCON_OK);
	ck_assert_uint_eq(n, 0);
	conf_lex_take_files(lx, &files, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(files[0], "dir/x.conf");
	free(files[0]);
	free(files);
	conf_lex_free(lx);

	/* an unterminated quote, on the line where its word starts */
	ck_assert_int_eq(conf_lex_open_text("q", "A=1\nB=\"x \\\ny", &lx), FALCON_OK);
	lex_expect(lx, "q", 1, 1, l1);
	ck_assert_int_eq(conf_lex_next(lx, &t, &n), FALCON_ERR_CONFIG);
	ck_assert_str_eq(falcon_errmsg(), "q:2: unterminated '\"'");
	conf_lex_free(lx);
	conf_lex_free(NULL);

	/* messages' shortened values */
	{
		char b[8];

		ck_assert_str_eq(conf_shown("abc", b, sizeof(b)), "abc");
		ck_assert_str_eq(conf_shown("abcdefghij", b, sizeof(b)), "abcd...");
		ck_assert_int_eq(conf_err("f", 3, "%s!", "x"), FALCON_ERR_CONFIG);
		ck_assert_str_eq(falcon_errmsg(), "f:3: x!");
	}
}
END_TEST

START_TEST(test_lex_include)
{
	static const char *const a[] = { "A=1" };
	static const char *const c[] = { "C=3", "D" };
	static const char *const b[] = { "B=2" };
	struct conf_lex *lx = NULL;
	struct conf_tok *t = NULL;
	char **files = NULL;
	size_t n = 99, i;

	falcon_strlcpy(tmp, make_tmpdir("conf"), sizeof(tmp));
	ck_assert_int_eq(chdir(tmp), 0);
	ck_assert_int_eq(mkdir("sub", 0700), 0);
	write_at(tmp, "top.conf", "A=1\nINCLUDE sub/s.conf\nB=2\n");
	write_at(tmp, "sub/s.conf", "\nC=3 D\n");
	ck_assert_int_eq(conf_lex_open_file("top.conf", &lx), FALCON_OK);
	lex_expect(lx, "top.conf", 1, 1, a);
	lex_expect(lx, "sub/s.conf", 2, 2, c);
	lex_expect(lx, "top.conf", 3, 1, b);
	ck_assert_int_eq(conf_lex_next(lx, &t, &n), FALCON_OK);
	ck_assert_uint_eq(n, 0);
	conf_lex_take_files(lx, &files, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(files[0], "top.conf");
	ck_assert_str_eq(files[1], "sub/s.conf");
	conf_lex_free(lx);
	for (i = 0; i < n; i++)
		free(files[i]);
	free(files);

	/* Include= is a word like any other; a bad Include is an error */
	write_at(tmp, "top.conf", "Include=x\ninclude a b\n");
	ck_assert_int_eq(conf_lex_open_file("top.conf", &lx), FALCON_OK);
	ck_assert_int_eq(conf_lex_next(lx, &t, &n), FALCON_OK);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(t[0].text, "Include=x");
	ck_assert_int_eq(conf_lex_next(lx, &t, &n), FALCON_ERR_CONFIG);
	ck_assert_str_eq(falcon_errmsg(), "top.conf:2: Include: expected one PATH");
	conf_lex_free(lx);

	/* the top file's own read errors come back as they are */
	ck_assert_int_eq(conf_lex_open_file("nosuch.conf", &lx), FALCON_ERR_NOTFOUND);
	ck_assert_ptr_null(lx);
}
END_TEST

/* falcon_conf_check_missing: a partition's check whose program is not on a
 * host that runs prologs (issue 38) */
static const struct {
	const char *text;  /* after CHASSIS and the host line */
	const char *host;
	const char *want;  /* in the message; NULL = no error */
} missing_cases[] = {
	/* DEFAULT's built-in Check=quick, the program absent */
	{ "NcclCheck=/nonexistent/ncclcheck\n", "node1",
	  "partition DEFAULT has Check=quick but /nonexistent/ncclcheck (NcclCheck=) is not "
	  "installed on host node1: every job's check there is skipped; install "
	  "falcon-ncclcheck there or set Check=off" },
	/* a host of no HostName= line runs no prolog: nothing to say */
	{ "NcclCheck=/nonexistent/ncclcheck\n", "controller", NULL },
	/* every check off */
	{ "NcclCheck=/nonexistent/ncclcheck\nPartitionName=DEFAULT Check=off\n", "node1", NULL },
	/* one partition turns it on */
	{ "NcclCheck=/nonexistent/ncclcheck\nPartitionName=DEFAULT Check=off\n"
	  "PartitionName=gpu Check=full\n", "node1", "partition gpu has Check=full but" },
	/* the program is there */
	{ "NcclCheck=/bin/sh\n", "node1", NULL },
};

START_TEST(test_check_missing)
{
	struct falcon_conf *c = NULL;
	char text[1024], msg[512];
	bool got;

	snprintf(text, sizeof(text), CHASSIS "HostName=node1 Chassis=falcon1 Port=H1 Adapter=0000:3b:00.0\n%s",
		 missing_cases[_i].text);
	ck_assert_msg(falcon_conf_parse("inline", text, &c) == FALCON_OK, "case %d: %s", _i,
		      falcon_errmsg());
	got = falcon_conf_check_missing(c, missing_cases[_i].host, msg, sizeof(msg));
	if (missing_cases[_i].want == NULL) {
		ck_assert_msg(!got, "case %d: unexpected '%s'", _i, msg);
		ck_assert_str_eq(msg, "");
	} else {
		ck_assert_msg(got, "case %d: no error", _i);
		ck_assert_msg(strstr(msg, missing_cases[_i].want) != NULL, "case %d: '%s'", _i, msg);
	}
	falcon_conf_free(c);
}
END_TEST

/* ---------------------------------------------------------------- */

static Suite *conf_suite(void)
{
	Suite *s = suite_create("conf");
	TCase *tc = tcase_create("parse");

	tcase_add_checked_fixture(tc, NULL, rm_tmp);
	tcase_add_loop_test(tc, test_good_table, 0, ARRAY_SIZE(good_cases));
	tcase_add_loop_test(tc, test_bad_table, 0, ARRAY_SIZE(bad_cases));
	tcase_add_test(tc, test_event_keys);
	tcase_add_test(tc, test_include);
	tcase_add_test(tc, test_include_loop);
	tcase_add_test(tc, test_include_depth);
	tcase_add_test(tc, test_missing_file);
	tcase_add_test(tc, test_conf_path);
	tcase_add_test(tc, test_sysfs_root);
	tcase_add_loop_test(tc, test_check_missing, 0, ARRAY_SIZE(missing_cases));
	tcase_add_test(tc, test_enum_strings);
	tcase_add_test(tc, test_parse_string);
	tcase_add_test(tc, test_realistic);
	tcase_add_test(tc, test_odd_files);
	tcase_add_test(tc, test_example_file);
	tcase_add_test(tc, test_manpage_example);
	tcase_add_test(tc, test_lex_words);
	tcase_add_test(tc, test_lex_include);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(conf_suite());
}
