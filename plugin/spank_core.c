/*
 * spank_core.c - spank_falcon without Slurm: plugstack arguments, option
 * words, and the task environment read from a job's topology.json (the
 * topology JSON contract of the project; json-c).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <json-c/json.h>

#include "core/conf.h"
#include "core/falcon_err.h"
#include "core/jobtag.h"
#include "core/policy.h"
#include "spank_core.h"
#include "core/util.h"

#define TOPOLOGY_MAX_BYTES (1024 * 1024)
#define CUDA_INDEX_MAX 1023

/* env is the user's fallback, ctl the job control name (SPANK_<ctl> in the
 * prolog and job_submit).  The topology option's fallback is not
 * FALCON_TOPOLOGY: that is what every task of a falcon job is given (its
 * Table III label), and a srun or sbatch inside the job inherits it. */
static const struct {
	const char *name;
	const char *env;
	const char *ctl;
	const char *words;
	const char *words_text;
} opt_table[] = {
	[FSP_OPT_PLACE] = { "falcon-place", "FALCON_PLACE", "FALCON_PLACE", "pack|spread|any",
			    "pack, spread or any" },
	[FSP_OPT_CHECK] = { "falcon-check", "FALCON_CHECK", "FALCON_CHECK", "quick|full|off",
			    "quick, full or off" },
	[FSP_OPT_TOPOLOGY] = { "falcon-topology", FALCON_TOPOLOGY_REQUEST_ENV, "FALCON_TOPOLOGY",
			       "auto", "auto" },
};

const char *fsp_option_name(enum fsp_opt opt)
{
	return opt_table[opt].name;
}

const char *fsp_option_env(enum fsp_opt opt)
{
	return opt_table[opt].env;
}

const char *fsp_option_ctl(enum fsp_opt opt)
{
	return opt_table[opt].ctl;
}

const char *fsp_option_words(enum fsp_opt opt)
{
	return opt_table[opt].words;
}

falcon_err_t fsp_option_check(enum fsp_opt opt, const char *source,
			      const char *value, char *out)
{
	falcon_place_t place;
	falcon_check_t check;
	const char *canon = NULL;

	if (value != NULL && opt == FSP_OPT_PLACE &&
	    falcon_place_from_str(value, &place) == FALCON_OK)
		canon = falcon_place_str(place);
	else if (value != NULL && opt == FSP_OPT_CHECK &&
		 falcon_check_from_str(value, &check) == FALCON_OK)
		canon = falcon_check_str(check);
	else if (value != NULL && opt == FSP_OPT_TOPOLOGY && strcasecmp(value, "auto") == 0)
		canon = "auto";
	if (canon == NULL)
		return falcon_err_set(FALCON_ERR_INVAL, "%s=%s: expected %s", source,
				      value ? value : "", opt_table[opt].words_text);
	falcon_strlcpy(out, canon, FSP_WORD_LEN);
	return FALCON_OK;
}

/* A plugstack path (conf=, rundir=): absolute, kept in *dst. */
static falcon_err_t set_path(const char *key, const char *v, char **dst)
{
	if (v[0] != '/')
		return falcon_err_set(FALCON_ERR_CONFIG, "plugstack %s=%s: expected an absolute path",
				      key, v);
	return falcon_str_set(dst, v);
}

/* A plugstack word (place=, check=): one of the option's words, as a
 * configuration error. */
static falcon_err_t set_word(enum fsp_opt opt, const char *source, const char *v, char *out)
{
	char msg[256];

	if (fsp_option_check(opt, source, v, out) == FALCON_OK)
		return FALCON_OK;
	falcon_strlcpy(msg, falcon_errmsg(), sizeof(msg));
	return falcon_err_set(FALCON_ERR_CONFIG, "%s", msg);
}

falcon_err_t fsp_config_parse(int ac, char **av, struct fsp_config *cfg)
{
	falcon_err_t rv = FALCON_OK;
	int i;

	/* Defaults first: no conf, RunDir resolved later, no place/check. */
	cfg->conf = NULL;
	cfg->rundir = NULL;
	cfg->place[0] = '\0';
	cfg->check[0] = '\0';
	for (i = 0; i < ac && rv == FALCON_OK; i++) {
		const char *arg = av[i];
		const char *eq = strchr(arg, '=');
		size_t klen = eq ? (size_t)(eq - arg) : 0;
		const char *v = eq ? eq + 1 : NULL;

		if (eq == NULL || klen == 0) {
			rv = falcon_err_set(FALCON_ERR_CONFIG,
					    "plugstack argument %d '%s': expected key=value "
					    "(conf=, rundir=, place=, check=)", i + 1, arg);
		} else if (*v == '\0') {
			rv = falcon_err_set(FALCON_ERR_CONFIG,
					    "plugstack argument %d '%s': empty value", i + 1, arg);
		} else if (klen == 4 && strncmp(arg, "conf", 4) == 0) {
			rv = set_path("conf", v, &cfg->conf);
		} else if (klen == 6 && strncmp(arg, "rundir", 6) == 0) {
			rv = set_path("rundir", v, &cfg->rundir);
		} else if (klen == 5 && strncmp(arg, "place", 5) == 0) {
			rv = set_word(FSP_OPT_PLACE, "plugstack place", v, cfg->place);
		} else if (klen == 5 && strncmp(arg, "check", 5) == 0) {
			rv = set_word(FSP_OPT_CHECK, "plugstack check", v, cfg->check);
		} else {
			rv = falcon_err_set(FALCON_ERR_CONFIG,
					    "plugstack argument '%s': unknown key '%.*s' "
					    "(expected conf=, rundir=, place=, check=)",
					    arg, (int)klen, arg);
		}
	}
	if (rv != FALCON_OK)
		fsp_config_free(cfg);
	return rv;
}

falcon_err_t fsp_submit_check(const char *conf_path, const char *partitions,
			      const char *gres, falcon_policy_known_fn known)
{
	struct falcon_conf *conf = NULL;
	char *list = NULL, *save = NULL, *part;
	falcon_err_t rv = FALCON_OK;

	if (partitions == NULL || partitions[0] == '\0' || gres == NULL || gres[0] == '\0' ||
	    conf_path == NULL || access(conf_path, R_OK) != 0)
		goto out;
	rv = falcon_conf_load(conf_path, &conf);
	if (rv != FALCON_OK)
		goto out;
	list = strdup(partitions);
	if (list == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "partition list");
		goto out;
	}
	for (part = strtok_r(list, ",", &save); part != NULL; part = strtok_r(NULL, ",", &save)) {
		rv = falcon_policy_job(conf, known, part, gres, NULL, 0, NULL);
		if (rv != FALCON_OK)
			goto out;
	}
out:
	free(list);
	falcon_conf_free(conf);
	return rv;
}

falcon_err_t fsp_config_rundir(struct fsp_config *cfg)
{
	struct falcon_conf *conf = NULL;
	falcon_err_t rv = FALCON_OK;

	if (cfg->rundir != NULL)
		goto out;
	if (cfg->conf == NULL) {
		rv = falcon_str_set(&cfg->rundir, FSP_DEFAULT_RUNDIR);
		goto out;
	}
	if ((rv = falcon_conf_load(cfg->conf, &conf)) != FALCON_OK)
		goto out;
	rv = falcon_str_set(&cfg->rundir, conf->run_dir ? conf->run_dir : FSP_DEFAULT_RUNDIR);
out:
	falcon_conf_free(conf);
	return rv;
}

void fsp_config_free(struct fsp_config *cfg)
{
	free(cfg->conf);
	free(cfg->rundir);
	memset(cfg, 0, sizeof(*cfg));
}

/* same_cuda_entry - whether two entries of a CUDA_VISIBLE_DEVICES list
 * (a, b of na, nb bytes, each already checked) name the same GPU: the same
 * index, or the same UUID in any case (the CUDA runtime takes
 * GPU-89390D28-... for GPU-89390d28-..., measured on an H100, issue 30). */
static bool same_cuda_entry(const char *a, size_t na, const char *b, size_t nb)
{
	long x, y;

	if (strncmp(a, "GPU-", 4) == 0 || strncmp(b, "GPU-", 4) == 0)
		return na == nb && strncasecmp(a, b, na) == 0;
	return falcon_strtol_n(a, na, 10, 0, CUDA_INDEX_MAX, &x) == FALCON_OK &&
	       falcon_strtol_n(b, nb, 10, 0, CUDA_INDEX_MAX, &y) == FALCON_OK && x == y;
}

/* A "0,1,2" list of CUDA indices or of GPU UUIDs ("GPU-" and 36 hex
 * digits and dashes, falcon-prolog(8) CudaVisibleDevices=uuid), or the
 * empty string (no GPU).  No GPU twice: the CUDA runtime refuses such a
 * list as a whole (cudaGetDeviceCount fails with cudaErrorInvalidDevice,
 * the job sees no GPU; measured with a UUID given twice on an H100, CUDA
 * 13 and driver 580, issue 30). */
static bool cuda_list_ok(const char *s)
{
	const char *list = s, *p;
	long v;
	size_t n, m;

	if (*s == '\0')
		return true;
	for (;;) {
		n = strcspn(s, ",");
		if (n == 40 && strncmp(s, "GPU-", 4) == 0 &&
		    strspn(s + 4, "0123456789abcdefABCDEF-") == 36) {
			/* a UUID as nvidia-smi -L prints it */
		} else if (falcon_strtol_n(s, n, 10, 0, CUDA_INDEX_MAX, &v) != FALCON_OK) {
			return false;
		}
		for (p = list; p < s; p += m + 1) {
			m = strcspn(p, ",");
			if (same_cuda_entry(p, m, s, n))
				return false;
		}
		if (s[n] == '\0')
			return true;
		s += n + 1;
	}
}

/* Append "dev" of every nvme[] entry located "falcon" to *out, ','-joined. */
static falcon_err_t nvme_devs(const char *path, json_object *nvme, char **out)
{
	size_t i, n, len = 0;
	char *buf = NULL, *grown;
	falcon_err_t rv = FALCON_OK;

	if (!json_object_is_type(nvme, json_type_array))
		return falcon_err_set(FALCON_ERR_PARSE, "%s: \"nvme\": expected an array", path);
	n = json_object_array_length(nvme);
	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(nvme, i), *loc, *dev;
		const char *d;
		size_t dlen;

		if (!json_object_is_type(e, json_type_object)) {
			rv = falcon_err_set(FALCON_ERR_PARSE,
					    "%s: \"nvme\"[%zu]: expected an object", path, i);
			goto fail;
		}
		if (!json_object_object_get_ex(e, "location", &loc) ||
		    !json_object_is_type(loc, json_type_string) ||
		    strcmp(json_object_get_string(loc), "falcon") != 0)
			continue;
		/* no "dev": no driver bound to it on this host (the prolog
		 * warned); the task gets the others */
		if (!json_object_object_get_ex(e, "dev", &dev))
			continue;
		if (!json_object_is_type(dev, json_type_string) ||
		    json_object_get_string(dev)[0] != '/') {
			rv = falcon_err_set(FALCON_ERR_PARSE, "%s: \"nvme\"[%zu]: \"dev\": "
					    "expected a /dev path", path, i);
			goto fail;
		}
		d = json_object_get_string(dev);
		dlen = strlen(d);
		grown = realloc(buf, len + dlen + 2);
		if (grown == NULL) {
			rv = falcon_err_set(FALCON_ERR_NOMEM, "spank_falcon: out of memory");
			goto fail;
		}
		buf = grown;
		if (len > 0)
			buf[len++] = ',';
		memcpy(buf + len, d, dlen + 1);
		len += dlen;
	}
	*out = buf;
	buf = NULL;
fail:
	free(buf);
	return rv;
}

falcon_err_t fsp_task_env_load(const char *rundir, uint32_t jobid,
			       struct fsp_task_env *env)
{
	char path[4096];
	char *text = NULL;
	json_object *root = NULL, *v;
	json_tokener *tok = NULL;
	enum json_tokener_error jerr;
	unsigned label;
	size_t len;
	falcon_err_t rv;
	int n;

	n = snprintf(path, sizeof(path), "%s/%u/topology.json", rundir, (unsigned)jobid);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		rv = falcon_err_set(FALCON_ERR_INVAL, "%s: run directory path too long", rundir);
		goto fail;
	}
	if ((rv = falcon_read_file(path, TOPOLOGY_MAX_BYTES, &text, &len)) != FALCON_OK)
		goto fail;
	tok = json_tokener_new();
	if (tok == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "spank_falcon: out of memory");
		goto fail;
	}
	root = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	if (root == NULL || jerr != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != len) {
		rv = falcon_err_set(FALCON_ERR_PARSE, "%s: not JSON (%s at byte %zu)", path,
				    jerr == json_tokener_success ? "trailing data" :
				    json_tokener_error_desc(jerr),
				    json_tokener_get_parse_end(tok));
		goto fail;
	}
	if (!json_object_is_type(root, json_type_object)) {
		rv = falcon_err_set(FALCON_ERR_PARSE, "%s: expected a JSON object", path);
		goto fail;
	}
	if ((rv = falcon_str_set(&env->topology_file, path)) != FALCON_OK)
		goto fail;
	if (json_object_object_get_ex(root, "cuda_visible_devices", &v)) {
		if (!json_object_is_type(v, json_type_string) ||
		    !cuda_list_ok(json_object_get_string(v))) {
			rv = falcon_err_set(FALCON_ERR_PARSE, "%s: \"cuda_visible_devices\": "
					    "expected a string of ','-separated indices "
					    "0-%d or GPU UUIDs, none twice", path,
					    CUDA_INDEX_MAX);
			goto fail;
		}
		if ((rv = falcon_str_set(&env->cuda_visible_devices,
				  json_object_get_string(v))) != FALCON_OK)
			goto fail;
	}
	if (json_object_object_get_ex(root, "topology", &v) && v != NULL) {
		if (!json_object_is_type(v, json_type_string) ||
		    falcon_conf_topo_label_from_str(json_object_get_string(v), &label) !=
			    FALCON_OK ||
		    label == FALCON_CONF_TOPO_ALL) {
			rv = falcon_err_set(FALCON_ERR_PARSE, "%s: \"topology\": expected "
					    "localGPUs, hybridGPUs, falconGPUs, localNVMe, "
					    "falconNVMe or null", path);
			goto fail;
		}
		if ((rv = falcon_str_set(&env->topology, json_object_get_string(v))) != FALCON_OK)
			goto fail;
	}
	if (json_object_object_get_ex(root, "nvme", &v) && v != NULL &&
	    (rv = nvme_devs(path, v, &env->nvme)) != FALCON_OK)
		goto fail;
	rv = FALCON_OK;
fail:
	if (rv != FALCON_OK)
		fsp_task_env_free(env);
	json_object_put(root);
	if (tok != NULL)
		json_tokener_free(tok);
	free(text);
	return rv;
}

void fsp_task_env_free(struct fsp_task_env *env)
{
	free(env->topology_file);
	free(env->cuda_visible_devices);
	free(env->topology);
	free(env->nvme);
	memset(env, 0, sizeof(*env));
}
